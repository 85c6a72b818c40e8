#!/usr/bin/env bash
# libFuzzer targets for the parsers that read what relays, gateways, origins and profile authors
# send, and for the command line's (Fuzz/Targets, one file per target). Builds the library modules with SwiftPM into
# .build/fuzz (instrumented for libFuzzer and AddressSanitizer, internal symbols testable, so the
# normal .build is untouched), links one binary per target, and runs each from its seed corpus in
# Fuzz/Corpus/<target> (new inputs go to .build/fuzz/corpus, crashes to .build/fuzz/crashes).
#
#   scripts/fuzz.sh [--seconds N | --runs N] [--jobs N] [target...]
#
# --seconds N   run each target for N seconds (default 30)
# --runs N      run each target for N executions instead
# --jobs N      targets run at once (default: the number of cores)
# Exits 1 if any target crashes, leaks, times out or fails to build; prints one line per target.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
command -v swift >/dev/null 2>&1 || export PATH="/opt/swift/usr/bin:$PATH"

# target name -> its source files in Fuzz/Targets
declare -A sources=(
    [connect-response]="ConnectResponseFuzzer.swift"
    [socks5-handshake]="SOCKS5HandshakeFuzzer.swift"
    [socks5-server]="SOCKS5ServerFuzzer.swift"
    [http-proxy-request]="HTTPProxyRequestFuzzer.swift"
    [capsule]="CapsuleCodecFuzzer.swift"
    [bhttp]="BinaryHTTPFuzzer.swift"
    [ohttp-keys]="OHTTPKeyConfigFuzzer.swift"
    [cookie]="CookieFuzzer.swift"
    [html-urls]="HTMLURLFuzzer.swift"
    [css-urls]="CSSURLFuzzer.swift"
    [profile]="ProfileFuzzer.swift"
    [offline-path]="OfflinePathFuzzer.swift OfflinePathMapping.swift"
    [dns-message]="DNSMessageFuzzer.swift"
    [style-cascade]="StyleCascadeFuzzer.swift"
    [header-fields]="HeaderFieldsFuzzer.swift"
    [robots]="RobotsFuzzer.swift"
    [crawl-links]="CrawlLinksFuzzer.swift"
    [sitemap]="SitemapFuzzer.swift"
    [oauth-response]="OAuthResponseFuzzer.swift"
    [arguments]="ArgumentsFuzzer.swift"
    [private-token-challenge]="PrivateTokenChallengeFuzzer.swift"
)
# Modules a target needs beyond the libraries every target links.
declare -A extra_modules=([arguments]="RelayFetchCLI")
# Extra libFuzzer options per target. The profile reader's property-list parser (Foundation's)
# leaks a little on every call, so libFuzzer's per-input leak check there would cost 98% of the
# time and find only that; leaks are checked in every other target.
# The arguments target starts from a dictionary of every option name (Fuzz/arguments.dict).
declare -A options=([profile]="-detect_leaks=0" [arguments]="-dict=$repo/Fuzz/arguments.dict")
declare -A asan_options=([profile]="detect_leaks=0")  # nor at exit
all_targets=(connect-response socks5-handshake socks5-server http-proxy-request capsule bhttp ohttp-keys cookie html-urls css-urls profile offline-path dns-message style-cascade
             header-fields robots crawl-links sitemap oauth-response arguments private-token-challenge)

usage() { sed -n '2,14s/^# \{0,1\}//p' "$0" >&2; exit 2; }
limit=(-max_total_time=30)
jobs=$(nproc)
targets=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --seconds) [[ ${2:-} =~ ^[0-9]+$ ]] || usage; limit=(-max_total_time="$2"); shift 2 ;;
        --runs) [[ ${2:-} =~ ^[0-9]+$ ]] || usage; limit=(-runs="$2"); shift 2 ;;
        --jobs) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || usage; jobs=$2; shift 2 ;;
        -h|--help) usage ;;
        -*) usage ;;
        *) [[ -n ${sources[$1]:-} ]] || { echo "fuzz: no target \"$1\"; targets: ${all_targets[*]}" >&2; exit 2; }
           targets+=("$1"); shift ;;
    esac
done
[[ ${#targets[@]} -gt 0 ]] || targets=("${all_targets[@]}")

out=.build/fuzz
start=$(date +%s)
flags=(-Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing)
mkdir -p "$out"
echo "fuzz: building the modules into $out"
for module in RelayProfiles Crawler OAuthFlow RelayFetchCLI PrivacyPass; do  # together they need every library module
    if ! swift build --build-path "$out" -c release --target "$module" "${flags[@]}" >"$out/build.log" 2>&1; then
        cat "$out/build.log" >&2
        echo "fuzz: building $module failed" >&2
        exit 1
    fi
done
# A module's objects are those of its current sources: a file moved to another module leaves its
# old object behind in the build folder, which would be linked twice.
module_objects() {
    local source
    for source in Sources/"$1"/*.swift; do objects+=("$out/release/$1.build/$(basename "$source").o"); done
}
objects=()
for module in Locking SystemIO CryptoPrimitives WireFormat HTTPCore ObliviousHTTP PrivacyPass NameResolution RelayTransport RelayFetch LocalProxy RelayProfiles HTMLDOM CSSStyle HeadlessPage OfflineCopy WebArchive OAuthFlow Crawler; do
    module_objects "$module"
done
includes=(-I "$out/release/Modules" -Xcc -I/usr/include/libxml2 -Xcc -I/usr/include/postgresql)
for shim in Sources/C*/; do includes+=(-I "$shim"); done

mkdir -p "$out/bin" "$out/corpus" "$out/crashes" "$out/logs"
for target in "${targets[@]}"; do
    files=()
    for file in FuzzCheck.swift ${sources[$target]}; do files+=("Fuzz/Targets/$file"); done
    linked=("${objects[@]}")
    for module in ${extra_modules[$target]:-}; do
        saved=("${objects[@]}"); objects=(); module_objects "$module"; linked+=("${objects[@]}"); objects=("${saved[@]}")
    done
    if ! swiftc -O -sanitize=fuzzer,address -parse-as-library -use-ld=lld "${includes[@]}" "${files[@]}" "${linked[@]}" \
         -o "$out/bin/$target" >"$out/logs/$target.link.log" 2>&1; then
        cat "$out/logs/$target.link.log" >&2
        echo "fuzz: linking $target failed" >&2
        exit 1
    fi
done

# One target: seeds from the repo, new inputs into .build; prints its summary line.
run_target() {
    local target=$1 log="$out/logs/$1.log"
    mkdir -p "$out/corpus/$target"
    local status=0
    # No Swift backtracer (it reads memory ASan then reports); a failed check is a plain trap.
    # Short allocation stacks: the full ones cost a third of the run time in Swift's many small allocations.
    # Absolute paths: a target may change its working directory (arguments runs in a folder of its own).
    SWIFT_BACKTRACE=enable=no ASAN_OPTIONS="malloc_context_size=8:${asan_options[$target]:-}:${ASAN_OPTIONS:-}" \
    LSAN_OPTIONS="suppressions=$repo/Fuzz/lsan.supp:print_suppressions=0" \
    FUZZ_PROFILE_CA="$repo/Profiles/certs/sample-ca.pem" \
        "$out/bin/$target" "${limit[@]}" ${options[$target]:-} -timeout=25 -rss_limit_mb=4096 -print_final_stats=1 \
        -artifact_prefix="$repo/$out/crashes/$target-" "$repo/$out/corpus/$target" "$repo/Fuzz/Corpus/$target" >"$log" 2>&1 || status=$?
    local runs seconds
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    seconds=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
    echo "$status" >"$out/logs/$target.status"
    if [[ $status -ne 0 ]]; then
        grep -E "^(==[0-9]+==ERROR|SUMMARY|fuzz check failed|.*Fatal error|artifact_prefix|Test unit written)" "$log" | head -20 >&2 || true
        echo "fuzz: $target: FAILED (exit $status) after ${runs:-?} runs; log $log" >&2
        return 1
    fi
    echo "fuzz: $target: ${runs:-?} runs in ${seconds:-?} s, no crash"
}

build_seconds=$(( $(date +%s) - start ))
echo "fuzz: running ${targets[*]} (${limit[*]}, $jobs at a time)"
for target in "${targets[@]}"; do
    rm -f "$out/logs/$target.status"
    while [[ $(jobs -rp | wc -l) -ge $jobs ]]; do wait -n || true; done
    run_target "$target" &
done
wait || true
passed=0
for target in "${targets[@]}"; do
    [[ $(cat "$out/logs/$target.status" 2>/dev/null) == 0 ]] && passed=$((passed + 1))
done
failed=$(( ${#targets[@]} - passed ))
echo "fuzz: built in $build_seconds s, ran in $(( $(date +%s) - start - build_seconds )) s"
[[ $failed -eq 0 ]] || echo "fuzz: crash inputs are in $out/crashes; replay one with $out/bin/TARGET FILE" >&2
# The closing line, in the plain form test runners' summaries are read in.
echo "fuzz: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
