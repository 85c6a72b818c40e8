#!/usr/bin/env bash
# Crawl benchmark: relayfetch crawl vs Scrapy, the same generated site (BENCH_PAGES pages,
# default 10000, with robots.txt and a sitemap) on nginx (TLS, HTTP/2) on loopback, both through
# relay A (squid), measured in the same run: pages/s, CPU seconds per page, peak RSS, and the
# origin's own log for pages fetched (and fetched twice). relayfetch also reads the sitemaps
# robots.txt names (5 more pages, 3 of them reachable only that way); Scrapy's CrawlSpider does not.
# Usage: Benchmarks/crawl/run.sh   (BENCH_PAGES=N, BENCH_CONCURRENCY=N, default 16; BENCH_SCRAPY=0
# measures relayfetch alone, e.g. for its memory at 100,000 pages)
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$repo"
command -v swift >/dev/null 2>&1 || export PATH="/opt/swift/usr/bin:$PATH"
pages=${BENCH_PAGES:-10000}
concurrency=${BENCH_CONCURRENCY:-16}
servers=${RELAYFETCH_SERVERS_DIR:-$repo/.build/test-servers}
pki=$servers/pki

swift build -c release --product relayfetch 2>&1 | grep -E "error|warning:" || true
started=0
if ! bash scripts/test-servers.sh status >/dev/null 2>&1; then
    bash scripts/test-servers.sh start >/dev/null
    started=1
fi
# Scrapy (PyPI) lives in a venv of its own, so its dependencies never touch the servers' venv.
venv=$repo/.build/scrapy-venv
if [[ ! -x $venv/bin/scrapy ]]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q scrapy
fi

work=$(mktemp -d /tmp/relayfetch-crawl-bench.XXXXXX)
nginx_pid=
cleanup() {
    [[ -n $nginx_pid ]] && kill "$nginx_pid" 2>/dev/null || true
    rm -rf "$work"
    [[ $started -eq 1 ]] && bash scripts/test-servers.sh stop >/dev/null || true
}
trap cleanup EXIT
python3 Samples/servers/hostile/make_crawl_site.py --out "$work/site" --pages "$pages"
mkdir -p "$work/tmp"
chmod 755 "$work"  # nginx workers (nobody) read the site
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.21", 0)); print(s.getsockname()[1])')
sed -e "s|@WORK@|$work|g" -e "s|@PKI@|$pki|g" -e "s|@PORT@|$port|g" Benchmarks/crawl/nginx.conf.in > "$work/nginx.conf"
nginx -p "$work" -c "$work/nginx.conf" &
nginx_pid=$!
sleep 0.5
start=https://origin.test:$port/
# nginx serves files as they are: fill in the origin the generator left open, and gzip the sitemap.
sed -i "s|@ORIGIN@|https://origin.test:$port|g" "$work/site/robots.txt" "$work/site/sitemap.xml" "$work/site/sitemap-pages.xml"
gzip -c "$work/site/sitemap-pages.xml" > "$work/site/sitemap-pages.xml.gz"
expected=$(wc -l < "$work/site/expected.txt")

measure() { python3 Benchmarks/crawl/measure.py "$@"; }
relayfetch=$(measure .build/release/relayfetch crawl "$start" --strip-query-param utm_source \
    --concurrency "$concurrency" --per-host "$concurrency" --cacert "$pki/ca.pem" \
    --relay https://127.0.0.11:3129 --relay-protocol h1 --relay-header "Proxy-Authorization: Bearer relay-token-A" --relay-cacert "$pki/ca.pem")
if [[ ${BENCH_SCRAPY:-1} == 1 ]]; then
    scrapy=$(measure "$venv/bin/python" Benchmarks/crawl/scrapy_spider.py "$start" http://127.0.0.11:3128 "Bearer relay-token-A" "$concurrency")
else
    scrapy='{"status": 0, "seconds": 0, "cpu": 0, "peak_rss_mb": 0, "stderr": "skipped (BENCH_SCRAPY=0)"}'
fi

python3 Benchmarks/crawl/report.py "through relay A (squid) on loopback" "$work/access.log" "$expected" "$relayfetch" "$scrapy" "$work/site/expected.txt"
