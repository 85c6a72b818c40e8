#!/usr/bin/env bash
# Page-load benchmark: a page with 60 subresources on 3 origins, loaded through one relay with a
# fixed one-way delay on each link, by relayfetch (release build), headless Chromium and wget -p,
# in the same run; prints medians, the round-trip minimum of the topology and the ratios.
#
# Usage: Benchmarks/page/run.sh            (as root: it creates network namespaces)
# Settings (environment):
#   BENCH_ROUNDS=5         measured rounds per client (after one warm-up round each)
#   BENCH_DELAY_MS=10      one-way delay of every link; or set the two links apart with
#   BENCH_CLIENT_RELAY_MS, BENCH_RELAY_ORIGIN_MS
#   BENCH_BUILD_DIR=/tmp/bench-build    SwiftPM scratch path for the release build
#   BENCH_RELAYFETCH=PATH  use this relayfetch binary instead of building one
#   BENCH_HOLD=FILE        debugging: write the state to FILE and keep everything up until it is removed
#   BENCH_KEEP_WORK=1      keep the temporary directory (configs, logs, site) for inspection
#   BENCH_STRICT=1         exit 1 when a target (1.3x the minimum, faster than both peers) is missed
#
# Topology (all inside namespaces this script creates and deletes; nothing leaves the machine):
#
#   client ns 198.18.0.1 --veth-- hub ns --veth-- relay ns 198.18.0.2 (squid)
#                                  |  delayhub.py: AF_PACKET frames re-sent after the link's delay
#                                  +--veth-- origins ns 198.18.0.11/.12/.13 (nginx, TLS + HTTP/2)
#
# The hub forwards client<->relay and relay<->origins only: the client cannot reach an origin
# but through the relay, and origin names resolve at the relay only (squid's hosts file).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
rounds=${BENCH_ROUNDS:-5}
delay=${BENCH_DELAY_MS:-10}
delay_cr=${BENCH_CLIENT_RELAY_MS:-$delay}
delay_ro=${BENCH_RELAY_ORIGIN_MS:-$delay}
token=bench-token-$RANDOM$RANDOM

client_ip=198.18.0.1
relay_ip=198.18.0.2
declare -A origin_ip=([www.page.test]=198.18.0.11 [static.page.test]=198.18.0.12 [img.page.test]=198.18.0.13)

log() { printf 'page-bench: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

[[ $EUID -eq 0 ]] || die "run as root: the benchmark creates network namespaces"
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "BENCH_ROUNDS must be a positive number"
for value in "$delay_cr" "$delay_ro"; do
  [[ $value =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "delays must be numbers of milliseconds, not '$value'"
done

bash "$here/setup.sh" >&2
# shellcheck source=../lib/netns.sh
source "$here/../lib/netns.sh"
python=$bench_python
bench_relayfetch /tmp/bench-build

# --- state and cleanup ---------------------------------------------------------------------
bench_prefix=rfpb$$
bench_traps page-bench

# --- PKI -----------------------------------------------------------------------------------
pki=$work/pki
bench_ca "$pki" "relayfetch page benchmark CA"
bench_leaf "$pki" relay "IP:$relay_ip, DNS:relay.page.test"
bench_leaf "$pki" origin "DNS:www.page.test, DNS:static.page.test, DNS:img.page.test"
chgrp proxy "$pki/relay.key" && chmod 640 "$pki/relay.key"

# --- site ----------------------------------------------------------------------------------
"$python" "$here/gen_site.py" "$work/site" >/dev/null
chmod -R a+rX "$work/site"

# --- namespaces and the delaying hub -------------------------------------------------------
log "topology: client <-> relay ${delay_cr} ms, relay <-> origins ${delay_ro} ms one way (namespaces $bench_prefix-*)"
declare -A ns_of=([c]=$(bench_ns c) [r]=$(bench_ns r) [o]=$(bench_ns o))
declare -A mac_of=([c]=02:00:5e:00:00:01 [r]=02:00:5e:00:00:02 [o]=02:00:5e:00:00:03)
bench_hub_namespace
bench_end c "${mac_of[c]}" "$client_ip"
bench_end r "${mac_of[r]}" "$relay_ip"
bench_end o "${mac_of[o]}" "${origin_ip[@]}"
bench_neighbour c "$relay_ip" "${mac_of[r]}"
bench_neighbour r "$client_ip" "${mac_of[c]}"
for host in "${!origin_ip[@]}"; do bench_neighbour r "${origin_ip[$host]}" "${mac_of[o]}"; done
bench_neighbour o "$relay_ip" "${mac_of[r]}"
bench_hub "hc:hr:$delay_cr" "hr:ho:$delay_ro"

# --- servers -------------------------------------------------------------------------------
mkdir -p "$work/nginx/tmp" "$work/squid"
{
  bench_nginx_preamble "$work/nginx"
  cat <<EOF
    types {
        text/html html; text/css css; application/javascript js; image/png png; font/woff2 woff2;
    }
    default_type application/octet-stream;
    # One line per request: time, origin, connection serial, request, status, protocol, bytes.
    log_format bench "\$msec\t\$server_name\t\$connection\t\$request_uri\t\$status\t\$server_protocol\t\$body_bytes_sent\t\$remote_addr";
    access_log $work/nginx/access.log bench;
    ssl_certificate $pki/origin.pem;
    ssl_certificate_key $pki/origin.key;
    ssl_protocols TLSv1.3;
    sendfile on;
    keepalive_timeout 30s;
    server_tokens off;
    add_header Cache-Control "no-store";
EOF
  for host in "${!origin_ip[@]}"; do
    cat <<EOF
    server {
        listen ${origin_ip[$host]}:443 ssl http2;
        server_name $host;
        root $work/site/$host;
        index index.html;
    }
EOF
  done
  echo "}"
} >"$work/nginx/nginx.conf"

for host in "${!origin_ip[@]}"; do echo "${origin_ip[$host]} $host"; done >"$work/squid/hosts"
bench_squid_conf "$work/squid" <<EOF
# The relay: HTTPS CONNECT with a token (relayfetch), HTTPS without one (Chromium cannot add
# proxy headers), plain HTTP without one (wget cannot speak TLS to a proxy).
https_port $relay_ip:3129 name=token tls-cert=$pki/relay.pem tls-key=$pki/relay.key
https_port $relay_ip:3130 name=open tls-cert=$pki/relay.pem tls-key=$pki/relay.key
http_port $relay_ip:3128 name=plain
visible_hostname relay.page.test
tcp_outgoing_address $relay_ip
negative_dns_ttl 1 seconds
dns_timeout 500 milliseconds
acl token_port myportname token
acl relay_token req_header Proxy-Authorization ^Bearer[[:space:]]$token\$
deny_info 407:ERR_CACHE_ACCESS_DENIED relay_token
http_access deny token_port !relay_token
# Only the benchmark's origins: anything else (Chromium's own background requests) gets a 403 at
# once, with no DNS attempt, and is logged within the round that asked.
acl page_origins dstdomain .page.test
http_access deny !page_origins
http_access allow all
logformat bench %ts.%03tu	%>a	%lp	%rm	%ru	%>Hs	%<a	%tr
access_log stdio:$work/squid/access.log logformat=bench
buffered_logs off
EOF

ip netns exec "${ns_of[o]}" nginx -p "$work/nginx" -c "$work/nginx/nginx.conf" >"$work/nginx/stdout.log" 2>&1 &
pids+=($!)
ip netns exec "${ns_of[r]}" squid -N -f "$work/squid/squid.conf" >"$work/squid/stdout.log" 2>&1 &
pids+=($!)

origin_ports=()
for host in "${!origin_ip[@]}"; do origin_ports+=("${origin_ip[$host]}:443"); done
bench_wait_listening o "${origin_ports[@]}"
bench_wait_listening r "$relay_ip:3128" "$relay_ip:3129" "$relay_ip:3130"
log "servers up: squid on $relay_ip:3128/3129/3130, nginx on ${origin_ports[*]}"

# --- Chromium's trust store: the test CA in an NSS db in a temporary HOME ------------------
chrome_home=$work/chrome-home
mkdir -p "$chrome_home/.pki/nssdb"
certutil -d "sql:$chrome_home/.pki/nssdb" -N --empty-password
certutil -d "sql:$chrome_home/.pki/nssdb" -A -t "C,," -n "relayfetch page benchmark CA" -i "$pki/ca.pem"

# --- measure -------------------------------------------------------------------------------
if [[ -n ${BENCH_HOLD:-} ]]; then # debugging: keep the topology up until that file is removed
  printf 'work=%s\nclient_ns=%s\nrelayfetch=%s\ntoken=%s\n' "$work" "${ns_of[c]}" "$relayfetch" "$token" >"$BENCH_HOLD"
  log "holding; state in $BENCH_HOLD, remove it to finish"
  while [[ -e $BENCH_HOLD ]]; do sleep 0.5; done
fi
status=0
ip netns exec "${ns_of[c]}" "$python" "$here/bench.py" \
  --rounds "$rounds" --delay-client-relay "$delay_cr" --delay-relay-origin "$delay_ro" \
  --relayfetch "$relayfetch" --ca "$pki/ca.pem" --token "$token" --relay "$relay_ip" \
  --work "$work" --chrome-home "$chrome_home" --manifest "$work/site/manifest.json" \
  --nginx-log "$work/nginx/access.log" --squid-log "$work/squid/access.log" --hub-late-log "$work/hub-late.log" \
  ${BENCH_STRICT:+--strict} &
# In the background so that a signal to this script is handled at once (cleanup stops it too).
pids+=($!)
wait "${pids[-1]}" || status=$?
kill -TERM "${pids[0]}" 2>/dev/null && wait "${pids[0]}" 2>/dev/null || true
sed 's/^/page-bench: /' "$work/hub.log" >&2
exit "$status"
