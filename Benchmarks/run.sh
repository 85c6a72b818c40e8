#!/usr/bin/env bash
# Runs a benchmark against the real test relays, with its peers measured in the same run.
# Usage: Benchmarks/run.sh chains|ohttp|oauth|page|crawl|crawl-delayed|bulk|proxy   (BENCH_ROUNDS=N to change the number of rounds)
# bulk: 1 GiB through the relays by relayfetch and curl, see Benchmarks/bulk/README.md.
# proxy: curl through `relayfetch proxy` beside curl through the same HTTP/2 relay, set-up time,
# memory per idle tunnel; see Benchmarks/proxy/bench.py.
# page: Benchmarks/page/run.sh (network namespaces with delays; needs root), see its README.md.
# oauth: Benchmarks/oauth/run.sh (network namespaces with delays; needs root), see its README.md.
# crawl: Benchmarks/crawl/run.sh (loopback); crawl-delayed: Benchmarks/crawl/delayed.sh
# (network namespaces with delays; needs root); see Benchmarks/crawl/README.md.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
[[ ${1:-} != oauth ]] || exec bash "$repo/Benchmarks/oauth/run.sh"
[[ ${1:-} != page ]] || exec bash "$repo/Benchmarks/page/run.sh"
[[ ${1:-} != crawl ]] || exec bash "$repo/Benchmarks/crawl/run.sh"
[[ ${1:-} != crawl-delayed ]] || exec bash "$repo/Benchmarks/crawl/delayed.sh"
# The Swift toolchain: on PATH, or where this machine kind installs it.
command -v swift >/dev/null 2>&1 || export PATH="/opt/swift/usr/bin:$PATH"
bash scripts/setup.sh >/dev/null
swift build -c release --product relayfetch-bench 2>&1 | grep -E "error|warning:" || true
started=0
if ! bash scripts/test-servers.sh status >/dev/null 2>&1; then
    bash scripts/test-servers.sh start >/dev/null
    started=1
fi
trap '[[ $started -eq 1 ]] && bash scripts/test-servers.sh stop >/dev/null' EXIT
if [[ ${1:-} == proxy ]]; then
    binary=$(bash "$repo/scripts/build-release.sh" | tail -1)
    "$repo/.build/venv/bin/python" -B "$repo/Benchmarks/proxy/bench.py" "$binary" \
        "${RELAYFETCH_SERVERS_DIR:-$repo/.build/test-servers}"
    exit
fi
if [[ ${1:-} == bulk ]]; then
    # As released (scripts/build-release.sh): the Swift runtime and Foundation linked in (half
    # the start-up CPU, less RSS).
    binary=$(bash "$repo/scripts/build-release.sh" | tail -1)
    "$repo/.build/venv/bin/python" -B "$repo/Benchmarks/bulk/bench.py" "$binary" \
        "${RELAYFETCH_SERVERS_DIR:-$repo/.build/test-servers}"
    exit
fi
"$repo/.build/release/relayfetch-bench" "${1:-chains}"
