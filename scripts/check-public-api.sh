#!/usr/bin/env bash
# Checks that RelayFetch's public top-level declarations, and the RelayTransport and HTTPCore types
# its public declarations name without re-exporting them, are the ones listed in
# scripts/RelayFetch-public-api.txt (and in README, "Public API of RelayFetch"), as `swift package
# dump-symbol-graph` sees them (a few seconds after a build). Run by scripts/test.sh; after a deliberate change of the API, rerun with --update and
# update README's list too. Also checks that ARCHITECTURE.md names every module and route type.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
command -v swift >/dev/null 2>&1 || export PATH="/opt/swift/usr/bin:$PATH"
expected=scripts/RelayFetch-public-api.txt

swift package dump-symbol-graph --minimum-access-level public >.build/symbolgraph.log 2>&1 \
    || { cat .build/symbolgraph.log >&2; echo "check-public-api: dump-symbol-graph failed" >&2; exit 1; }
graph=$(sed -n 's/^Files written to //p' .build/symbolgraph.log)/RelayFetch.symbols.json
[[ -f $graph ]] || { echo "check-public-api: no symbol graph at $graph" >&2; exit 1; }

# One line per top-level public symbol: its kind and name (members are left out), a transport or
# HTTP core declaration that RelayFetch re-exports (`@_exported import enum RelayTransport.X`,
# `@_exported import struct HTTPCore.HTTPFields`) counting as its own; then one line per other
# RelayTransport or HTTPCore type that a public declaration names (callers would import that
# module for it).
actual=$(python3 - "$graph" Sources/RelayFetch <<'PY'
import json, pathlib, re, sys
graph = json.load(open(sys.argv[1]))
exported = {m.group(2): m.group(1) for f in pathlib.Path(sys.argv[2]).glob("*.swift")
            for m in re.finditer(r"^@_exported import (\w+) (?:RelayTransport|HTTPCore)\.(\w+)$", f.read_text(), re.M)}
names = {f"{s['kind']['identifier'].removeprefix('swift.')} {s['pathComponents'][0]}"
         for s in graph["symbols"] if len(s["pathComponents"]) == 1}
names |= {f"{kind} {name}" for name, kind in exported.items()}
lower = {"s:14RelayTransport": "RelayTransport", "s:8HTTPCore": "HTTPCore"}
transport = {f"uses {module}.{f['spelling']}"
             for s in graph["symbols"] for f in s.get("declarationFragments", [])
             for prefix, module in lower.items()
             if f.get("preciseIdentifier", "").startswith(prefix) and f["spelling"] not in exported}
print("\n".join(sorted(names) + sorted(transport)))
PY
)
[[ -n $actual ]] || { echo "check-public-api: the symbol graph lists no public symbol" >&2; exit 1; }

if [[ ${1:-} == --update ]]; then
    printf '%s\n' "$actual" >"$expected"
    echo "check-public-api: wrote $expected"
    exit 0
fi
if ! diff -u "$expected" <(printf '%s\n' "$actual"); then
    echo "check-public-api: RelayFetch's public API differs from $expected (above: - listed, + in the module)" >&2
    exit 1
fi
echo "check-public-api: RelayFetch's public API is the $(wc -l <"$expected") listed declarations"

# ARCHITECTURE.md describes the tree as it is: every module and every route type is named there.
missing=()
for module in Sources/*/; do
    module=$(basename "$module")
    grep -q "\`$module\`" ARCHITECTURE.md || missing+=("module $module")
done
for route in $(sed -n 's/^struct \([A-Za-z]*\): \(Curl\)\{0,1\}Route\b.*/\1/p' Sources/RelayFetch/*.swift); do
    grep -q "\`$route\`" ARCHITECTURE.md || missing+=("route $route")
done
if ((${#missing[@]})); then
    printf 'check-public-api: ARCHITECTURE.md does not describe %s\n' "${missing[@]}" >&2
    exit 1
fi
echo "check-public-api: ARCHITECTURE.md names every module and route"
