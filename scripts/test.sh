#!/usr/bin/env bash
# The whole test suite, set-up included: installs what is missing (scripts/setup.sh), builds
# with warnings treated as failures in our own code, starts the real test servers on loopback,
# runs `swift test`, then every fuzz target for 30 s, and stops the servers it started. With
# RELAYFETCH_PACKAGE_TEST=1 it then tests the Debian package end to end (scripts/test-package.sh:
# a release build and a clean Debian 12 root, about 10 minutes on 2 cores, which would take the
# whole run past its 20-minute budget, so it is asked for, not run by default).
#
#   scripts/test.sh                  the whole suite (.ci/run)
#   scripts/test.sh --quick          the inner loop: no fuzzing, no package test, and the test
#                                    classes of scripts/slow-tests.txt skipped
#   scripts/test.sh [--quick] ARGS   ARGS go to swift test (e.g. --filter CrawlerTests); no
#                                    fuzzing or package test then
# RELAYFETCH_SKIP_FUZZ=1 leaves the fuzzing out of a whole run.
set -euo pipefail

quick=0
if [[ ${1:-} == --quick ]]; then
    quick=1
    shift
fi

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
# The Swift toolchain: on PATH, or where this machine kind installs it.
command -v swift >/dev/null 2>&1 || export PATH="/opt/swift/usr/bin:$PATH"

bash scripts/setup.sh

mkdir -p .build
echo "test: building"
swift build --build-tests 2>&1 | tee .build/build.log | grep -E "error|warning|Compiling|Build complete" | grep -v "^\[" || true
if grep -E "^$repo/(Sources|Tests)/.*: warning:" .build/build.log; then
    echo "test: the build has warnings in our code (above); fix them" >&2
    exit 1
fi
grep -q "Build complete" .build/build.log || { cat .build/build.log >&2; echo "test: build failed" >&2; exit 1; }
# RelayFetch's public API is the list in scripts/RelayFetch-public-api.txt (and README).
bash scripts/check-public-api.sh

started_servers=0
if ! bash scripts/test-servers.sh status >/dev/null 2>&1; then
    bash scripts/test-servers.sh start
    started_servers=1
fi
# The page-fidelity suite's nginx and relay (Benchmarks/fidelity) start with its test; stop them
# after the run unless they were up before it.
fidelity_was_running=0
bash Benchmarks/fidelity/servers.sh status >/dev/null 2>&1 && fidelity_was_running=1
stop_servers() {
    [[ $fidelity_was_running -eq 1 ]] || bash Benchmarks/fidelity/servers.sh stop >/dev/null 2>&1 || true
    [[ $started_servers -eq 1 ]] && bash scripts/test-servers.sh stop || true
}
trap stop_servers EXIT

skips=()
if [[ $quick -eq 1 ]]; then
    # A name that matches no test would skip nothing, silently: refuse it.
    tests=$(swift test list --skip-build)
    for class in $(sed -e 's/#.*//' scripts/slow-tests.txt); do
        grep -q "\.$class/" <<<"$tests" || { echo "test: scripts/slow-tests.txt names $class, which is no test class" >&2; exit 1; }
        skips+=(--skip "\.$class/")
    done
fi
echo "test: running swift test${skips[*]:+ (quick: ${#skips[@]} slow classes skipped)}"
swift test --skip-build "${skips[@]}" "$@"

whole_run=0
[[ $quick -eq 0 && $# -eq 0 ]] && whole_run=1
# Every fuzz target for 15 s, two at a time (scripts/fuzz.sh): a smoke run that replays each seed
# corpus and fuzzes briefly; a crash fails the run. 21 targets x 15 s keeps the whole run under 20
# minutes on 2 cores (longer runs: scripts/fuzz.sh --seconds N).
if [[ $whole_run -eq 1 && ${RELAYFETCH_SKIP_FUZZ:-0} != 1 ]]; then
    bash scripts/fuzz.sh --seconds 15
fi
# The .deb built, installed on a clean Debian 12 and used through a relay.
if [[ $whole_run -eq 1 && ${RELAYFETCH_PACKAGE_TEST:-0} == 1 ]]; then
    bash scripts/test-package.sh
fi
