#!/usr/bin/env bash
# The real-site suite's servers: nginx serving the documentation sites of sites.txt over TLS
# with HTTP/2 on 127.0.0.81 (one name each, the test CA's origin certificate), and a squid relay
# on 127.0.0.80 whose hosts file alone resolves those names. Chromium and relayfetch both reach
# the sites only through that relay (plain http://127.0.0.80:3128, no token: Chromium cannot send
# one), so the origin's access log holds what each requested.
# Usage: servers.sh start|stop|status. State in $FIDELITY_DIR (default .build/fidelity); the test
# CA comes from the test servers' state ($RELAYFETCH_SERVERS_DIR, default .build/test-servers;
# scripts/test-servers.sh start makes it).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
state=${FIDELITY_DIR:-$repo/.build/fidelity}
servers=${RELAYFETCH_SERVERS_DIR:-$repo/.build/test-servers}
relay_address=127.0.0.80
origin_address=127.0.0.81

log() { printf 'fidelity-servers: %s\n' "$*"; }
die() { log "$*" >&2; exit 1; }

# sites: "name folder" per line of sites.txt (a relative folder is in this repository).
sites() { grep -v '^#' "$here/sites.txt" | awk -v repo="$repo" 'NF == 3 { print $1, ($3 ~ /^\// ? $3 : repo "/" $3) }'; }

running() { [[ -s $state/$1.pid ]] && kill -0 "$(cat "$state/$1.pid")" 2>/dev/null; }

write_nginx_conf() {
  {
    printf 'worker_processes 1;\npid %s/nginx.pid;\nerror_log %s/nginx-error.log;\nevents {}\n' "$state" "$state"
    printf 'http {\n  include /etc/nginx/mime.types;\n  default_type application/octet-stream;\n'
    printf '  client_body_temp_path %s/tmp; proxy_temp_path %s/tmp; fastcgi_temp_path %s/tmp;\n' "$state" "$state" "$state"
    printf '  uwsgi_temp_path %s/tmp; scgi_temp_path %s/tmp;\n' "$state" "$state"
    # One line per request: who, what, how big, and the request headers a browser varies per destination.
    printf '  log_format fidelity "$msec\\t$remote_addr\\t$host\\t$request_uri\\t$status\\t$body_bytes_sent\\t$http_user_agent\\t$http_accept\\t$http_sec_fetch_dest\\t$http_sec_fetch_mode\\t$http_sec_fetch_site\\t$http_sec_fetch_user\\t$http_referer\\t$http_origin";\n'
    printf '  access_log %s/access.log fidelity;\n' "$state"
    printf '  ssl_certificate %s/pki/origin.pem;\n  ssl_certificate_key %s/pki/origin.key;\n' "$servers" "$servers"
    printf '  sendfile on;\n  etag off;\n  if_modified_since off;\n'
    while read -r name folder; do
      printf '  server {\n    listen %s:443 ssl http2;\n    server_name %s;\n    root %s;\n    index index.html;\n  }\n' \
        "$origin_address" "$name" "$folder"
    done < <(sites)
    printf '}\n'
  } >"$state/nginx.conf"
}

write_squid_conf() {
  {
    printf 'http_port %s:3128\nvisible_hostname relay.test\ntcp_outgoing_address %s\nvia off\nforwarded_for delete\n' "$relay_address" "$relay_address"
    printf 'hosts_file %s/hosts\ndns_nameservers 127.0.0.1\ndns_timeout 500 milliseconds\nnegative_dns_ttl 1 seconds\n' "$state"
    printf 'acl fidelity_sites dstdomain .origin.test\nhttp_access allow fidelity_sites\nhttp_access deny all\n'
    printf 'cache deny all\ncache_mem 0 MB\nbuffered_logs off\n'
    printf 'access_log stdio:%s/relay-access.log\ncache_log %s/relay-cache.log\ncache_store_log none\nlogfile_rotate 0\n' "$state" "$state"
    printf 'pid_filename %s/squid.pid\ncoredump_dir %s\nnetdb_filename none\npinger_enable off\n' "$state" "$state"
    printf 'cache_effective_user proxy\nshutdown_lifetime 0 seconds\n'
  } >"$state/squid.conf"
  sites | awk -v address="$origin_address" '{ print address, $1 }' >"$state/hosts"
}

wait_for_port() {
  local address=$1 port=$2
  for _ in $(seq 100); do
    if (exec 3<>"/dev/tcp/$address/$port") 2>/dev/null; then return 0; fi
    sleep 0.05
  done
  die "nothing listens on $address:$port"
}

start() {
  [[ -s $servers/pki/origin.pem ]] || die "no test CA in $servers: run scripts/test-servers.sh start first"
  while read -r name folder; do
    [[ -f $folder/index.html ]] || die "$name: $folder/index.html is missing (install the package named in sites.txt: scripts/setup.sh)"
  done < <(sites)
  mkdir -p "$state/tmp"
  chmod o+x "$state"
  if ! running nginx; then
    write_nginx_conf
    : >"$state/access.log"
    nginx -p "$state" -c "$state/nginx.conf"
    wait_for_port "$origin_address" 443
    log "nginx on $origin_address:443 (log $state/access.log)"
  fi
  if ! running squid; then
    write_squid_conf
    [[ $EUID -ne 0 ]] || chown -R proxy:proxy "$state/hosts" "$state/squid.conf"
    touch "$state/relay-access.log" "$state/relay-cache.log"
    [[ $EUID -ne 0 ]] || chown proxy:proxy "$state/relay-access.log" "$state/relay-cache.log" "$state"
    # exec: no shell stays behind holding our standard output (a caller reading it to the end,
    # as the tests do, would wait for squid to exit).
    (cd "$state" && exec setsid squid -n relayfetchfidelity -N -f "$state/squid.conf" </dev/null >"$state/squid-stdout.log" 2>&1) &
    wait_for_port "$relay_address" 3128
    log "squid relay on http://$relay_address:3128"
  fi
}

stop() {
  if running nginx; then kill "$(cat "$state/nginx.pid")"; fi
  if running squid; then
    local pid
    pid=$(cat "$state/squid.pid")
    kill "$pid"
    for _ in $(seq 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  log "stopped"
}

case ${1:-} in
  start) start ;;
  stop) stop ;;
  status) running nginx && running squid && log "running (state in $state)" || { log "not running"; exit 1; } ;;
  *) printf 'usage: %s start|stop|status\n' "$0" >&2; exit 2 ;;
esac
