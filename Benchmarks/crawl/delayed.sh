#!/usr/bin/env bash
# Crawl benchmark with latency: relayfetch crawl (release build) and Scrapy crawl the same
# generated site (BENCH_PAGES pages, default 10000) through the same squid relay, in the same
# run, with a fixed one-way delay on each link; prints pages/s, CPU ms per page, peak RSS and
# the pages each fetched (and fetched twice), counted on nginx's log, and the ratio of pages/s.
#
# Usage: Benchmarks/crawl/delayed.sh       (as root: it creates network namespaces)
# Settings (environment):
#   BENCH_PAGES=10000      pages of the generated site
#   BENCH_DELAY_MS=10      one-way delay of every link
#   BENCH_CONCURRENCY=64   requests in flight, for both crawlers (and per host: one host)
#   BENCH_SCRAPY=0         measure relayfetch alone (e.g. for its memory at 100,000 pages)
#   BENCH_BUILD_DIR, BENCH_RELAYFETCH, BENCH_KEEP_WORK as in Benchmarks/page/run.sh
#
# Topology (namespaces and the delaying hub of Benchmarks/lib/netns.sh; nothing leaves the machine):
#
#   client 198.18.2.1 --hub-- relay 198.18.2.2 (squid: https 3129 for relayfetch, http 3128 for
#                             Scrapy's CONNECT) --hub-- origin 198.18.2.3 (nginx, TLS + HTTP/2)
#
# The hub forwards client<->relay and relay<->origin only; origin.test resolves at the relay only.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
pages=${BENCH_PAGES:-10000}
delay=${BENCH_DELAY_MS:-10}
concurrency=${BENCH_CONCURRENCY:-64}
token=bench-token-$RANDOM$RANDOM

client_ip=198.18.2.1
relay_ip=198.18.2.2
origin_ip=198.18.2.3
declare -A mac_of=([c]=02:00:5e:00:02:01 [r]=02:00:5e:00:02:02 [o]=02:00:5e:00:02:03)

log() { printf 'crawl-bench: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

[[ $EUID -eq 0 ]] || die "run as root: the benchmark creates network namespaces"
[[ $pages =~ ^[1-9][0-9]*$ && $concurrency =~ ^[1-9][0-9]*$ ]] || die "BENCH_PAGES and BENCH_CONCURRENCY must be positive numbers"
[[ $delay =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "BENCH_DELAY_MS must be a number of milliseconds, not '$delay'"

bash "$here/../page/setup.sh" >&2
# shellcheck source=../lib/netns.sh
source "$here/../lib/netns.sh"
bench_relayfetch /tmp/bench-build
# Scrapy (PyPI) in a venv of its own, as Benchmarks/crawl/run.sh has it.
scrapy_venv=$repo/.build/scrapy-venv
if [[ ${BENCH_SCRAPY:-1} == 1 && ! -x $scrapy_venv/bin/scrapy ]]; then
  python3 -m venv "$scrapy_venv"
  "$scrapy_venv/bin/pip" install -q scrapy
fi

bench_prefix=rfcb$$
bench_traps crawl-bench

# --- PKI and the site ----------------------------------------------------------------------
pki=$work/pki
bench_ca "$pki" "relayfetch crawl benchmark CA"
bench_leaf "$pki" relay "IP:$relay_ip"
bench_leaf "$pki" origin "DNS:origin.test"
chgrp proxy "$pki/relay.key" && chmod 640 "$pki/relay.key"
python3 "$repo/Samples/servers/hostile/make_crawl_site.py" --out "$work/site" --pages "$pages"
sed -i "s|@ORIGIN@|https://origin.test|g" "$work/site/robots.txt" "$work/site/sitemap.xml" "$work/site/sitemap-pages.xml"
gzip -c "$work/site/sitemap-pages.xml" >"$work/site/sitemap-pages.xml.gz"
expected=$(wc -l <"$work/site/expected.txt")

# --- namespaces and the delaying hub -------------------------------------------------------
log "topology: client <-> relay <-> origin, ${delay} ms one way per link (namespaces $bench_prefix-*)"
bench_hub_namespace
bench_end c "${mac_of[c]}" "$client_ip"
bench_end r "${mac_of[r]}" "$relay_ip"
bench_end o "${mac_of[o]}" "$origin_ip"
bench_neighbour c "$relay_ip" "${mac_of[r]}"
bench_neighbour r "$client_ip" "${mac_of[c]}"
bench_neighbour r "$origin_ip" "${mac_of[o]}"
bench_neighbour o "$relay_ip" "${mac_of[r]}"
bench_hub "hc:hr:$delay" "hr:ho:$delay"

# --- relay and origin ----------------------------------------------------------------------
mkdir -p "$work/squid"
echo "$origin_ip origin.test" >"$work/squid/hosts"
bench_squid_conf "$work/squid" <<EOF
https_port $relay_ip:3129 tls-cert=$pki/relay.pem tls-key=$pki/relay.key
http_port $relay_ip:3128
visible_hostname relay.bench.test
tcp_outgoing_address $relay_ip
acl relay_token req_header Proxy-Authorization ^Bearer[[:space:]]$token\$
deny_info 407:ERR_CACHE_ACCESS_DENIED relay_token
http_access deny !relay_token
http_access allow relay_token
access_log none
EOF
ip netns exec "$(bench_ns r)" squid -n "rfcb$$" -N -f "$work/squid/squid.conf" >"$work/squid/stdout.log" 2>&1 &
pids+=($!)

mkdir -p "$work/nginx/tmp"
{
  bench_nginx_preamble "$work/nginx"
  cat <<EOF
    types { text/html html; text/plain txt; application/xml xml; }
    default_type application/octet-stream;
    log_format crawl '\$remote_addr\t\$request_method\t\$request_uri\t\$status\t\$server_protocol\t\$http_user_agent';
    access_log $work/nginx/access.log crawl;
    keepalive_requests 1000000;
    server {
        listen $origin_ip:443 ssl http2;
        server_name origin.test;
        ssl_certificate $pki/origin.pem;
        ssl_certificate_key $pki/origin.key;
        root $work/site;
    }
}
EOF
} >"$work/nginx/nginx.conf"
ip netns exec "$(bench_ns o)" nginx -p "$work/nginx" -c "$work/nginx/nginx.conf" >"$work/nginx/stdout.log" 2>&1 &
pids+=($!)
bench_wait_listening r "$relay_ip:3129" "$relay_ip:3128"
bench_wait_listening o "$origin_ip:443"
log "servers up: squid on $relay_ip:3129 (https) and :3128 (http), https://origin.test on $origin_ip:443"

# --- measure -------------------------------------------------------------------------------
in_client() { ip netns exec "$(bench_ns c)" "$@"; }
measure() { in_client "$bench_python" "$here/measure.py" "$@"; }
log "relayfetch crawl, concurrency $concurrency"
relayfetch_result=$(measure "$relayfetch" crawl https://origin.test/ --strip-query-param utm_source \
  --concurrency "$concurrency" --per-host "$concurrency" --cacert "$pki/ca.pem" \
  --relay "https://$relay_ip:3129" --relay-protocol h1 --relay-header "Proxy-Authorization: Bearer $token" --relay-cacert "$pki/ca.pem")
if [[ ${BENCH_SCRAPY:-1} == 1 ]]; then
  log "Scrapy, concurrency $concurrency"
  scrapy_result=$(measure "$scrapy_venv/bin/python" "$here/scrapy_spider.py" https://origin.test/ "http://$relay_ip:3128" "Bearer $token" "$concurrency")
else
  scrapy_result='{"status": 0, "seconds": 0, "cpu": 0, "peak_rss_mb": 0, "stderr": "skipped (BENCH_SCRAPY=0)"}'
fi
report_status=0
"$bench_python" "$here/report.py" "through one squid relay, ${delay} ms one way per link (namespaces)" \
  "$work/nginx/access.log" "$expected" "$relayfetch_result" "$scrapy_result" "" "$(awk "BEGIN { print 4 * $delay }")" "$concurrency" || report_status=$?
sed 's/^/crawl-bench: /' "$work/hub.log" >&2
exit "$report_status"
