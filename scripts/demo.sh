#!/usr/bin/env bash
# The five-minute demo, set-up included: starts the sample relay (squid on 127.0.0.11) and the
# sample origin (nginx serving Samples/site as https://origin.test on 127.0.0.21), fetches the
# sample page through the relay, and shows what the origin saw.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
# The Swift toolchain: on PATH, or where this machine kind installs it.
command -v swift >/dev/null 2>&1 || export PATH="/opt/swift/usr/bin:$PATH"

bash scripts/setup.sh
echo "demo: building relayfetch"
swift build --product relayfetch 2>&1 | grep -E "error|warning:|Build complete" || true
relayfetch=$repo/.build/debug/relayfetch
[[ -x $relayfetch ]] || { echo "demo: build failed" >&2; exit 1; }

started_servers=0
if ! bash scripts/test-servers.sh status >/dev/null 2>&1; then
    bash scripts/test-servers.sh start >/dev/null
    started_servers=1
fi
stop_servers() { [[ $started_servers -eq 1 ]] && bash scripts/test-servers.sh stop >/dev/null || true; }
trap stop_servers EXIT

servers=${RELAYFETCH_SERVERS_DIR:-$repo/.build/test-servers}
ca=$servers/pki/ca.pem
marker="demo-$$-$RANDOM"
url="https://origin.test/index.html?$marker"

echo
echo "demo: origin.test is in the relay's hosts file only; this machine's /etc/hosts has it: $(grep -qw origin.test /etc/hosts && echo yes || echo no)"
echo
echo "\$ relayfetch get '$url' \\"
echo "      --relay https://127.0.0.11:3129 --relay-header 'Proxy-Authorization: Bearer relay-token-A' \\"
echo "      --relay-cacert $ca --cacert $ca -v -o /dev/null"
verbose=$("$relayfetch" get "$url" --relay https://127.0.0.11:3129 \
    --relay-header 'Proxy-Authorization: Bearer relay-token-A' \
    --relay-cacert "$ca" --cacert "$ca" -v -o /dev/null 2>&1)
echo "$verbose" | sed 's/^/  /'

final=$(grep '^< ' <<<"$verbose" | tail -1)
status=$(awk '{print $3}' <<<"$final")
# -v ends with "* N bytes written to /dev/null" (or "* N bytes" on standard output); the
# "< HTTP/2 200 from URL" line has no size.
size=$(sed -nE 's/^\* ([0-9]+) bytes( written to .*)?$/\1/p' <<<"$verbose" | tail -1)
origin_saw=$(grep -F "$marker" "$servers/nginx/origin-a.log" | tail -1 | cut -f1)
echo
echo "status:            $status"
echo "size:              $size bytes"
echo "origin saw:        ${origin_saw:-nothing} (the relay's address; this client is 127.0.0.1)"
echo "proxy token at origin: $(grep -F "$marker" "$servers/nginx/origin-a.log" | tail -1 | cut -f7) (the relay's header stays with the relay)"
