#!/usr/bin/env bash
# Builds the shipped binary: release mode, the Swift runtime and Foundation linked in
# (--static-swift-stdlib: the binary needs no Swift toolchain to run), the git commit it is built
# from embedded for `relayfetch version` (the C define CBuildInfo reads; "-dirty" when tracked
# files have changes), into .build/static. Prints the binary's path as its last line.
# Slow on a small machine (every module is optimized; a new commit rebuilds them all).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
command -v swift >/dev/null 2>&1 || export PATH="/opt/swift/usr/bin:$PATH"

commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
if [[ $commit != unknown && -n $(git status --porcelain --untracked-files=no 2>/dev/null) ]]; then
    commit+="-dirty"
fi
scratch=$repo/.build/static
mkdir -p "$scratch"
echo "build-release: building relayfetch (commit $commit) into $scratch" >&2
# No $ORIGIN run path: nothing is installed beside the binary.
if ! swift build -c release --product relayfetch --static-swift-stdlib --disable-local-rpath --scratch-path "$scratch" \
    -Xcc "-DRELAYFETCH_COMMIT=\"$commit\"" >"$scratch/build-release.log" 2>&1; then
    grep -E "error|warning: " "$scratch/build-release.log" >&2 || tail -20 "$scratch/build-release.log" >&2
    echo "build-release: the build failed (log: $scratch/build-release.log)" >&2
    exit 1
fi
echo "$scratch/release/relayfetch"
