#!/usr/bin/env bash
# Starts, stops and reports the PostgreSQL server that multi-worker crawl tests share a frontier
# in: TCP only on 127.0.0.40:5432 (no Unix socket), trust authentication for loopback, fsync off
# (test data only), a role and a database named relayfetch (the role may create databases, so a
# test can have one of its own). scripts/test-servers.sh runs this with the other servers;
# `scripts/test-servers.sh start|stop|status postgres` runs it alone.
# Usage: scripts/test-postgres.sh start|stop|status
# State: the cluster lives in /tmp (owned by the postgres user, which initdb and pg_ctl run as when
# this runs as root); ${RELAYFETCH_SERVERS_DIR:-<repo>/.build/test-servers}/postgres holds the
# URL tests connect to (url), the server's pid (pid) and a link to its log.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=${RELAYFETCH_SERVERS_DIR:-$repo/.build/test-servers}
state=$dir/postgres
address=127.0.0.40
port=5432
url="postgres://relayfetch@$address:$port/relayfetch"
# One cluster per servers folder, outside it: the postgres user must own every folder up to it.
cluster=/tmp/relayfetch-postgres-$(cksum <<<"$dir" | cut -d' ' -f1)
data=$cluster/data
logfile=$cluster/postgres.log

log() { printf 'test-postgres: %s\n' "$*"; }
die() { log "$*" >&2; exit 1; }

bin=$(find /usr/lib/postgresql -maxdepth 2 -name bin -type d 2>/dev/null | sort -V | tail -n 1)
[[ -n $bin && -x $bin/pg_ctl ]] || die "no PostgreSQL server found under /usr/lib/postgresql: run scripts/setup.sh (apt package postgresql)"

# as_postgres COMMAND...: as the postgres user when root (initdb and pg_ctl refuse root), from a
# folder it can read, with no descriptor but 0-2: the server outlives us and must not hold a
# caller's pipe or test-servers.sh's lock open.
as_postgres() {
  (
    cd /tmp
    for fd in /proc/$BASHPID/fd/*; do
      fd=${fd##*/}
      ((fd <= 2)) || eval "exec $fd>&-" 2>/dev/null || true
    done
    if [[ $EUID -eq 0 ]]; then
      exec runuser -u postgres -- "$@"
    else
      exec "$@"
    fi
  )
}

# Prints the postmaster's pid while it runs as postgres from our cluster.
server_pid() {
  local pid comm
  [[ -s $data/postmaster.pid ]] || return 1
  read -r pid <"$data/postmaster.pid"
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  { read -r comm <"/proc/$pid/comm"; } 2>/dev/null || return 1
  [[ $comm == postgres ]] || return 1
  printf '%s\n' "$pid"
}

listening() { ss -Hltn | awk '{print $4}' | grep -qxF "$address:$port"; }

psql_admin() { as_postgres "$bin/psql" -X -q -v ON_ERROR_STOP=1 -h "$address" -p "$port" -U postgres -d postgres -Atc "$1"; }

init_cluster() {
  log "initdb $data"
  mkdir -p "$cluster"
  [[ $EUID -ne 0 ]] || chown postgres:postgres "$cluster"
  chmod 700 "$cluster"
  as_postgres "$bin/initdb" -D "$data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 --no-instructions >"$cluster/initdb.log" 2>&1 ||
    { cat "$cluster/initdb.log" >&2; die "initdb failed"; }
  cat >>"$data/postgresql.conf" <<EOF
# relayfetch tests (scripts/test-postgres.sh)
listen_addresses = '$address'
port = $port
unix_socket_directories = ''
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 200
log_connections = on
log_min_duration_statement = 1000
log_line_prefix = '%m [%p] %r %u@%d '
EOF
  # Loopback clients only, no password: the test role holds no secret.
  printf '%s\n' 'host all all 127.0.0.0/8 trust' >"$data/pg_hba.conf"
}

cmd_start() {
  mkdir -p "$state"
  exec 8>"$state/lock"
  flock 8
  if pid=$(server_pid) && listening; then
    log "already running (pid $pid) on $address:$port"
  else
    ! listening || die "$address:$port is already taken by a process this script did not start (ss -ltnp shows which)"
    [[ -s $data/PG_VERSION ]] || init_cluster
    as_postgres "$bin/pg_ctl" -D "$data" -l "$logfile" -w -t 15 start >/dev/null ||
      { tail -n 20 "$logfile" >&2; die "pg_ctl start failed (log: $logfile)"; }
    pid=$(server_pid) || die "PostgreSQL started but $data/postmaster.pid names no running server"
    log "started PostgreSQL (pid $pid) on $address:$port"
  fi
  [[ $(psql_admin "SELECT 1 FROM pg_roles WHERE rolname = 'relayfetch'") == 1 ]] ||
    psql_admin "CREATE ROLE relayfetch LOGIN CREATEDB"
  [[ $(psql_admin "SELECT 1 FROM pg_database WHERE datname = 'relayfetch'") == 1 ]] ||
    psql_admin "CREATE DATABASE relayfetch OWNER relayfetch"
  printf '%s\n' "$pid" >"$state/pid"
  printf '%s\n' "$url" >"$state/url"
  ln -sfn "$logfile" "$state/postgres.log"
  log "store    $url (log $state/postgres.log)"
}

cmd_stop() {
  if ! server_pid >/dev/null; then
    log "postgres not running"
    return 0
  fi
  as_postgres "$bin/pg_ctl" -D "$data" -m fast -w -t 15 stop >/dev/null
  rm -f "$state/pid"
  log "stopped postgres"
}

cmd_status() {
  local pid
  if pid=$(server_pid) && listening; then
    log "postgres running (pid $pid) on $address:$port"
  else
    log "postgres not running"
    return 1
  fi
}

case ${1:-} in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  *)
    printf 'usage: %s start|stop|status\n' "$0" >&2
    exit 2
    ;;
esac
