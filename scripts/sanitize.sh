#!/usr/bin/env bash
# The whole test suite under a sanitizer, run before each release:
#   scripts/sanitize.sh address   AddressSanitizer + LeakSanitizer (scripts/sanitize/asan.supp, lsan.supp)
#   scripts/sanitize.sh thread    ThreadSanitizer (scripts/sanitize/tsan.supp)
# Builds into its own scratch path (.build/asan or .build/tsan, never the normal .build/debug),
# uses the running test servers (RELAYFETCH_SERVERS_DIR, else starts them like scripts/test.sh)
# and exits non-zero on any test failure or sanitizer report. Extra arguments go to swift test
# (e.g. --filter CookieJarTests).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
command -v swift >/dev/null 2>&1 || export PATH="/opt/swift/usr/bin:$PATH"

sanitizer=${1:-}
case "$sanitizer" in
    address) scratch=.build/asan ;;
    thread) scratch=.build/tsan ;;
    *) echo "usage: scripts/sanitize.sh address|thread [swift test arguments]" >&2; exit 2 ;;
esac
shift

started=$(date +%s)
mkdir -p "$scratch"
echo "sanitize: building with --sanitize=$sanitizer into $scratch"
if ! swift build --build-tests --sanitize="$sanitizer" --scratch-path "$scratch" > "$scratch/sanitize-build.log" 2>&1; then
    grep -E "error" "$scratch/sanitize-build.log" >&2 || tail -20 "$scratch/sanitize-build.log" >&2
    echo "sanitize: build failed" >&2
    exit 1
fi

started_servers=0
if [[ -z "${RELAYFETCH_SERVERS_DIR:-}" ]] && ! bash scripts/test-servers.sh status >/dev/null 2>&1; then
    bash scripts/test-servers.sh start
    started_servers=1
fi
stop_servers() { [[ $started_servers -eq 1 ]] && bash scripts/test-servers.sh stop || true; }
trap stop_servers EXIT

# Child processes (the relayfetch executable some tests run) inherit these options.
supp="$repo/scripts/sanitize"
# The test process unwinds fast (frame pointers: Swift frames only); child processes started by
# TestServers.run add fast_unwind_on_malloc=0 so suppressions can match frames inside libcrypto.
# (fast_unwind_on_malloc=0 for the whole suite works too but takes about 11 minutes, not 1.)
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:color=never:suppressions=$supp/asan.supp:${ASAN_OPTIONS:-}"
export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0:${LSAN_OPTIONS:-}"
export TSAN_OPTIONS="halt_on_error=0:color=never:suppressions=$supp/tsan.supp:${TSAN_OPTIONS:-}"

log="$scratch/sanitize-test.log"
echo "sanitize: running the suite (log: $log)"
status=0
swift test --skip-build --sanitize="$sanitizer" --scratch-path "$scratch" "$@" > "$log" 2>&1 || status=$?
grep -E "error:|Executed [0-9]+ tests?, with" "$log" | tail -20 || true
reports=$(grep -cE "ERROR: (Address|Leak)Sanitizer|WARNING: ThreadSanitizer" "$log" || true)
elapsed=$(( $(date +%s) - started ))
if [[ $status -ne 0 || $reports -ne 0 ]]; then
    grep -nE "(ERROR: (Address|Leak)Sanitizer|WARNING: ThreadSanitizer|SUMMARY:)" "$log" | head -20 >&2 || true
    echo "sanitize: $sanitizer FAILED (exit $status, $reports sanitizer reports) after ${elapsed}s; see $log" >&2
    exit 1
fi
echo "sanitize: $sanitizer passed in ${elapsed}s"
