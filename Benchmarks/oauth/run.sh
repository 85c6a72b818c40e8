#!/usr/bin/env bash
# OAuth login benchmark: `relayfetch oauth` (release build) signs in to django-oauth-toolkit
# (login form, consent form, token, userinfo) through two relays, with a fixed one-way delay on
# each of the three links; prints the flow's round-trip minimum, the measured time and the ratio;
# then runs 50 scenarios with --parallel 10 and prints scenarios per second and peak RSS.
#
# Usage: Benchmarks/oauth/run.sh        (as root: it creates network namespaces)
# Settings (environment):
#   BENCH_ROUNDS=5         measured single-flow rounds (after one warm-up round)
#   BENCH_DELAY_MS=10      one-way delay of every link
#   BENCH_SCENARIOS=50     scenarios in the parallel run
#   BENCH_PARALLEL=10      relayfetch oauth --parallel for that run
#   BENCH_BUILD_DIR, BENCH_RELAYFETCH, BENCH_KEEP_WORK as in Benchmarks/page/run.sh
#   BENCH_STRICT=1         exit 1 when the single flow takes over 1.3x its round-trip minimum
#
# Topology (namespaces and the delaying hub of Benchmarks/lib/netns.sh; nothing leaves the machine):
#
#   client 198.18.1.1 --hub-- relay A 198.18.1.2 (squid) --hub-- relay B 198.18.1.3 (squid)
#                                                          --hub-- IdP 198.18.1.4 (nginx TLS 1.3 + HTTP/2
#                                                                  in front of Samples/servers/oauth_idp/serve.py)
#
# The hub forwards only client<->A, A<->B and B<->IdP: the client reaches relay B only through
# relay A and the IdP only through both; idp.test resolves at relay B only (squid's hosts file).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
rounds=${BENCH_ROUNDS:-5}
delay=${BENCH_DELAY_MS:-10}
scenarios=${BENCH_SCENARIOS:-50}
parallel=${BENCH_PARALLEL:-10}
venv=$repo/.build/venv

client_ip=198.18.1.1
relay_a_ip=198.18.1.2
relay_b_ip=198.18.1.3
idp_ip=198.18.1.4
declare -A mac_of=([c]=02:00:5e:00:01:01 [a]=02:00:5e:00:01:02 [b]=02:00:5e:00:01:03 [i]=02:00:5e:00:01:04)
declare -A token_of=([a]=bench-token-A-$RANDOM$RANDOM [b]=bench-token-B-$RANDOM$RANDOM)

log() { printf 'oauth-bench: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

[[ $EUID -eq 0 ]] || die "run as root: the benchmark creates network namespaces"
for value in "$rounds" "$scenarios" "$parallel"; do
  [[ $value =~ ^[1-9][0-9]*$ ]] || die "BENCH_ROUNDS, BENCH_SCENARIOS and BENCH_PARALLEL must be positive numbers"
done
[[ $delay =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "BENCH_DELAY_MS must be a number of milliseconds, not '$delay'"

bash "$here/../page/setup.sh" >&2
[[ -x $venv/bin/python ]] || die "no Python venv with django-oauth-toolkit at $venv: run scripts/setup.sh"
# shellcheck source=../lib/netns.sh
source "$here/../lib/netns.sh"
bench_relayfetch /tmp/bench-build

bench_prefix=rfob$$
# In memory (tmpfs): the IdP's SQLite commits then cost no fsync, which is server time, not ours.
bench_traps oauth-bench /dev/shm

# --- PKI -----------------------------------------------------------------------------------
pki=$work/pki
bench_ca "$pki" "relayfetch oauth benchmark CA"
bench_leaf "$pki" relay "IP:$relay_a_ip, IP:$relay_b_ip"
bench_leaf "$pki" idp "DNS:idp.test"
chgrp proxy "$pki/relay.key" && chmod 640 "$pki/relay.key"

# --- namespaces and the delaying hub -------------------------------------------------------
log "topology: client <-> relay A <-> relay B <-> IdP, ${delay} ms one way per link (namespaces $bench_prefix-*)"
bench_hub_namespace
bench_end c "${mac_of[c]}" "$client_ip"
bench_end a "${mac_of[a]}" "$relay_a_ip"
bench_end b "${mac_of[b]}" "$relay_b_ip"
bench_end i "${mac_of[i]}" "$idp_ip"
bench_neighbour c "$relay_a_ip" "${mac_of[a]}"
bench_neighbour a "$client_ip" "${mac_of[c]}"
bench_neighbour a "$relay_b_ip" "${mac_of[b]}"
bench_neighbour b "$relay_a_ip" "${mac_of[a]}"
bench_neighbour b "$idp_ip" "${mac_of[i]}"
bench_neighbour i "$relay_b_ip" "${mac_of[b]}"
bench_hub "hc:ha:$delay" "ha:hb:$delay" "hb:hi:$delay"

# --- relays --------------------------------------------------------------------------------
# squid_conf LETTER ADDRESS: relay LETTER's config; relay B alone resolves idp.test.
squid_conf() {
  local state=$work/squid-$1
  mkdir -p "$state"
  if [[ $1 == b ]]; then echo "$idp_ip idp.test" >"$state/hosts"; else : >"$state/hosts"; fi
  bench_squid_conf "$state" <<EOF
https_port $2:3129 tls-cert=$pki/relay.pem tls-key=$pki/relay.key
visible_hostname relay-$1.bench.test
tcp_outgoing_address $2
negative_dns_ttl 1 seconds
dns_timeout 500 milliseconds
acl relay_token req_header Proxy-Authorization ^Bearer[[:space:]]${token_of[$1]}\$
deny_info 407:ERR_CACHE_ACCESS_DENIED relay_token
http_access deny !relay_token
http_access allow relay_token
logformat bench %ts.%03tu	%>a	%rm	%ru	%>Hs	%<a	%tr
access_log stdio:$state/access.log logformat=bench
buffered_logs off
EOF
}
squid_conf a "$relay_a_ip"
squid_conf b "$relay_b_ip"
# Two squids share /dev/shm: each its own service name.
for letter in a b; do
  ip netns exec "$(bench_ns "$letter")" squid -n "rfob$$$letter" -N -f "$work/squid-$letter/squid.conf" \
    >"$work/squid-$letter/stdout.log" 2>&1 &
  pids+=($!)
done

# --- identity provider: nginx (TLS 1.3, HTTP/2, keep-alive) in front of the Django app ------
mkdir -p "$work/idp" "$work/nginx/tmp"
{
  bench_nginx_preamble "$work/nginx"
  cat <<EOF
    # One line per request: time, connection serial, method, path, status, protocol, remote
    # address, seconds the app took.
    log_format bench "\$msec\t\$connection\t\$request_method\t\$uri\t\$status\t\$server_protocol\t\$remote_addr\t\$upstream_response_time";
    access_log $work/nginx/access.log bench;
    server {
        listen $idp_ip:443 ssl http2;
        server_name idp.test;
        ssl_certificate $pki/idp.pem;
        ssl_certificate_key $pki/idp.key;
        ssl_protocols TLSv1.3;
        keepalive_timeout 60s;
        location / {
            proxy_pass http://127.0.0.1:8000;
            proxy_set_header Host \$host;
            proxy_buffering off;
        }
    }
}
EOF
} >"$work/nginx/nginx.conf"
ip netns exec "$(bench_ns i)" "$venv/bin/python" -u -B "$repo/Samples/servers/oauth_idp/serve.py" --daemon --plain \
  --host 127.0.0.1 --port 8000 --origin https://idp.test --cert "$pki/idp.pem" --key "$pki/idp.key" --ca "$pki/ca.pem" \
  --state "$work/idp" --log "$work/idp/events.log" </dev/null >"$work/idp/stdout.log" 2>&1 &
pids+=($!)
ip netns exec "$(bench_ns i)" nginx -p "$work/nginx" -c "$work/nginx/nginx.conf" >"$work/nginx/stdout.log" 2>&1 &
pids+=($!)

bench_wait_listening a "$relay_a_ip:3129"
bench_wait_listening b "$relay_b_ip:3129"
bench_wait_listening i "$idp_ip:443" 127.0.0.1:8000
for _ in $(seq 300); do grep -q '^READY' "$work/idp/stdout.log" && break; sleep 0.05; done
grep -q '^READY' "$work/idp/stdout.log" || die "the identity provider did not start: $(tail -n 20 "$work/idp/stdout.log")"
log "servers up: squid on $relay_a_ip:3129 and $relay_b_ip:3129, IdP https://idp.test on $idp_ip:443"

# --- measure -------------------------------------------------------------------------------
status=0
ip netns exec "$(bench_ns c)" "$bench_python" "$here/measure.py" \
  --relayfetch "$relayfetch" --ca "$pki/ca.pem" --work "$work" \
  --relay-a "https://$relay_a_ip:3129" --token-a "${token_of[a]}" \
  --relay-b "https://$relay_b_ip:3129" --token-b "${token_of[b]}" \
  --rounds "$rounds" --delay "$delay" --scenarios "$scenarios" --parallel "$parallel" \
  --nginx-log "$work/nginx/access.log" --relay-a-log "$work/squid-a/access.log" --relay-b-log "$work/squid-b/access.log" \
  --hub-late-log "$work/hub-late.log" ${BENCH_STRICT:+--strict} &
# In the background so that a signal to this script is handled at once (cleanup stops it too).
pids+=($!)
wait "${pids[-1]}" || status=$?
kill -TERM "${pids[0]}" 2>/dev/null && wait "${pids[0]}" 2>/dev/null || true
sed 's/^/oauth-bench: /' "$work/hub.log" >&2
exit "$status"
