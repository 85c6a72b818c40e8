#!/usr/bin/env bash
# Starts, stops and reports the real servers relayfetch's end-to-end tests talk to, all on
# loopback: relays A and B (squid: HTTPS CONNECT, each fronted by nghttpx for HTTP/2 CONNECT),
# two TLS + HTTP/2 origins (nginx), and Oblivious HTTP (RFC 9458): a relay (the same nginx) in
# front of a gateway (Samples/servers/ohttp_gateway.py, run by the venv of scripts/setup.sh).
# Relays A and B also speak HTTP/3 on UDP (Samples/servers/h3_relay.py, the same venv): CONNECT
# and CONNECT-UDP (MASQUE). The identity provider of the OAuth tests (django-oauth-toolkit and a
# relying-party app, Samples/servers/oauth_idp/serve.py) is https://idp.test on 127.0.0.23:443, a
# name only the relays resolve; it is a separable piece, started and stopped on its own with
# `start idp` / `stop idp` (plain start and stop include it). PostgreSQL on 127.0.0.40:5432, the
# shared store of multi-worker crawls, is another (scripts/test-postgres.sh): `start|stop|status
# postgres` runs only it.
# Usage: scripts/test-servers.sh start|stop [idp|postgres] | status [postgres]
# State (PKI, rendered configs, logs, pids): ${RELAYFETCH_SERVERS_DIR:-<repo>/.build/test-servers}
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
templates=$repo/Samples/servers
dir=${RELAYFETCH_SERVERS_DIR:-$repo/.build/test-servers}
pki=$dir/pki
venv=$repo/.build/venv
start_timeout=15

# Each server has a state subdirectory of its own name (relay A's squid keeps "squid"), except
# where server_state names another. Ports are TCP unless marked udp:.
# core: started together; separable pieces (idp) depend on the core and start and stop alone.
core=(squid squid-b nghttpx-a nghttpx-b ohttp-gateway h3relay-a h3relay-b nginx)
servers=("${core[@]}" idp)
declare -A server_comm=(
  [squid]=squid [squid-b]=squid [nghttpx-a]=nghttpx [nghttpx-b]=nghttpx [nginx]=nginx
  [ohttp-gateway]=python [h3relay-a]=python [h3relay-b]=python [idp]=python
)
# For servers whose process name says little: an argument their command line must hold.
declare -A server_arg=([ohttp-gateway]=ohttp_gateway.py [h3relay-a]=h3_relay.py [h3relay-b]=h3_relay.py
  [idp]=oauth_idp/serve.py)
declare -A server_state=([ohttp-gateway]=ohttp)
declare -A server_ports=(
  [squid]="127.0.0.11:3128 127.0.0.11:3129 127.0.0.11:3130"
  [squid-b]="127.0.0.12:3128 127.0.0.12:3129 127.0.0.12:3130"
  [nghttpx-a]="127.0.0.11:4433"
  [nghttpx-b]="127.0.0.12:4433"
  [nginx]="127.0.0.21:443 127.0.0.22:443 127.0.0.30:443"
  [ohttp-gateway]="127.0.0.31:8081"
  [h3relay-a]="udp:127.0.0.11:4433"
  [h3relay-b]="udp:127.0.0.12:4433"
  [idp]="127.0.0.23:443"
)
declare -A server_logs=(
  [squid]="squid/cache.log squid/stdout.log"
  [squid-b]="squid-b/cache.log squid-b/stdout.log"
  [nghttpx-a]="nghttpx-a/stdout.log"
  [nghttpx-b]="nghttpx-b/stdout.log"
  [nginx]="nginx/error.log nginx/stdout.log"
  [ohttp-gateway]="ohttp/stdout.log"
  [h3relay-a]="h3relay-a/stdout.log"
  [h3relay-b]="h3relay-b/stdout.log"
  [idp]="idp/stdout.log"
)
# Relays: letter, address, token.
declare -A relay_addr=([a]=127.0.0.11 [b]=127.0.0.12)
declare -A relay_token=([a]=relay-token-A [b]=relay-token-B)

log() { printf 'test-servers: %s\n' "$*"; }
die() { log "$*" >&2; exit 1; }

pid_file() { printf '%s/run/%s.pid' "$dir" "$1"; }

state_dir() { printf '%s/%s' "$dir" "${server_state[$1]:-$1}"; }

# True while PID runs. A zombie counts as gone: servers outlive this script, so their parent is
# init, which may take a second or more to reap them.
alive() {
  local stat
  { read -r stat <"/proc/$1/stat"; } 2>/dev/null || return 1
  stat=${stat##*) }
  [[ ${stat:0:1} != Z ]]
}

# Prints the pid of a server this script started, if that process still runs as that server.
server_pid() {
  local file pid
  file=$(pid_file "$1")
  [[ -s $file ]] || return 1
  pid=$(<"$file")
  [[ $pid =~ ^[0-9]+$ ]] && alive "$pid" || return 1
  local comm
  { read -r comm <"/proc/$pid/comm"; } 2>/dev/null || return 1
  [[ $comm == "${server_comm[$1]}" ]] || return 1
  [[ -z ${server_arg[$1]:-} ]] || grep -qaF -- "${server_arg[$1]}" "/proc/$pid/cmdline" || return 1
  printf '%s\n' "$pid"
}

# port_open ADDRESS:PORT or udp:ADDRESS:PORT: true if something accepts or holds that port.
port_open() {
  if [[ $1 == udp:* ]]; then
    grep -qxF "$1" <(listening)
    return
  fi
  local host=${1%:*} port=${1##*:}
  (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null
}

# Listening TCP sockets as ADDRESS:PORT lines, bound UDP sockets as udp:ADDRESS:PORT. Asking the
# kernel, not connecting, keeps readiness probes out of squid's access log.
listening() {
  ss -Hltn | awk '{print $4}'
  ss -Hlun | awk '{print "udp:" $4}'
}

# quiet COMMAND...: runs it with its output shown only if it fails.
quiet() {
  local out
  out=$("$@" 2>&1) || { printf '%s\n' "$out" >&2; return 1; }
}

# Serializes start and stop; servers are launched with this descriptor closed.
lock_state_dir() {
  exec 9>"$dir/run/lock"
  flock 9
}

# --- PKI -----------------------------------------------------------------------------------

make_ca() {
  log "pki: creating test CA $pki/ca.pem"
  rm -f "$pki"/*.pem "$pki"/*.key
  quiet openssl req -x509 -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout "$pki/ca.key" -out "$pki/ca.pem" -days 3650 -subj "/CN=relayfetch test CA" \
    -config <(printf '%s\n' '[req]' 'distinguished_name = dn' '[dn]' '[ca]' \
      'basicConstraints = critical, CA:TRUE' 'keyUsage = critical, keyCertSign, cRLSign' \
      'subjectKeyIdentifier = hash') \
    -extensions ca
  chmod 600 "$pki/ca.key"
}

# make_leaf NAME CN SAN: issues NAME.pem/NAME.key unless a valid pair exists.
make_leaf() {
  local name=$1 cn=$2 san=$3
  if [[ -s $pki/$name.pem && -s $pki/$name.key && $(cat "$pki/$name.san" 2>/dev/null) == "$san" ]] &&
    openssl x509 -noout -checkend 86400 -in "$pki/$name.pem" >/dev/null; then
    return
  fi
  log "pki: issuing $name.pem for $san"
  quiet openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout "$pki/$name.key" -subj "/CN=$cn" -out "$pki/$name.csr"
  quiet openssl x509 -req -in "$pki/$name.csr" -CA "$pki/ca.pem" -CAkey "$pki/ca.key" \
    -set_serial "0x$(openssl rand -hex 16)" -days 825 -out "$pki/$name.pem" \
    -extfile <(printf '%s\n' 'basicConstraints = critical, CA:FALSE' \
      'keyUsage = critical, digitalSignature' 'extendedKeyUsage = serverAuth' \
      "subjectAltName = $san" 'subjectKeyIdentifier = hash' \
      'authorityKeyIdentifier = keyid, issuer')
  rm -f "$pki/$name.csr"
  printf '%s' "$san" >"$pki/$name.san"
  chmod 600 "$pki/$name.key"
}

make_pki() {
  mkdir -p "$pki"
  [[ -s $pki/ca.pem && -s $pki/ca.key ]] || make_ca
  make_leaf relay relay.test "IP:127.0.0.11, IP:127.0.0.12, DNS:relay.test"
  make_leaf ohttp-relay ohttp-relay.test "IP:127.0.0.30, DNS:ohttp-relay.test"
  make_leaf origin origin.test \
    "DNS:origin.test, DNS:origin2.test, DNS:www.origin.test, DNS:*.origin.test, DNS:internal.test, DNS:public.test, IP:127.0.0.21, IP:127.0.0.22"
  # squid may re-read its key after dropping privileges to proxy.
  if [[ $EUID -eq 0 ]]; then
    chgrp proxy "$pki/relay.key"
    chmod 640 "$pki/relay.key"
  fi
}

# --- configs ------------------------------------------------------------------------------

sed_escape() { printf '%s' "$1" | sed -e 's/[|&\\]/\\&/g'; }

# render TEMPLATE OUTPUT [KEY=VALUE...]: substitutes @DIR@, @REPO@ and each @KEY@.
render() {
  local template=$1 output=$2 pair
  shift 2
  local args=(-e "s|@DIR@|$(sed_escape "$dir")|g" -e "s|@REPO@|$(sed_escape "$repo")|g")
  for pair in "$@"; do
    args+=(-e "s|@${pair%%=*}@|$(sed_escape "${pair#*=}")|g")
  done
  sed "${args[@]}" "$templates/$template" >"$output"
}

# relay_vars LETTER: the template substitutions for relay A or B.
relay_vars() {
  local name=${1^^}
  printf '%s\n' "NAME=$name" "ADDR=${relay_addr[$1]}" "TOKEN=${relay_token[$1]}"
}

# prepare_squid STATE LETTER
prepare_squid() {
  local state=$dir/$1 vars
  mkdir -p "$state"
  mapfile -t vars < <(relay_vars "$2")
  render squid.conf.in "$state/squid.conf" STATE="$state" "${vars[@]}"
  cp "$templates/squid.hosts" "$state/hosts"
  [[ $EUID -ne 0 ]] || chown -R proxy:proxy "$state"
}

# prepare_nghttpx STATE LETTER
prepare_nghttpx() {
  local state=$dir/$1 vars
  mkdir -p "$state"
  mapfile -t vars < <(relay_vars "$2")
  render nghttpx.conf.in "$state/nghttpx.conf" STATE="$state" "${vars[@]}"
}

prepare_nginx() {
  mkdir -p "$dir/nginx/tmp"
  render nginx.conf.in "$dir/nginx/nginx.conf"
  render origin-locations.conf.in "$dir/nginx/origin-locations.conf"
  render ohttp-relay.conf.in "$dir/nginx/ohttp-relay.conf"
  local big=$dir/nginx/big
  if [[ ! -f $big || $(stat -c %s "$big") -ne 1048576 ]]; then
    # Deterministic and incompressible: AES-CTR keystream with an all-zero key.
    head -c 1048576 /dev/zero |
      openssl enc -aes-128-ctr -nosalt -K 00000000000000000000000000000000 \
        -iv 00000000000000000000000000000000 >"$big"
  fi
  # The same text, compressed with brotli and zstd, served with Content-Encoding br / zstd.
  local text="relayfetch decodes this body: brotli and zstd, as browsers and curl do."
  printf '%s\n' "$text" | brotli -c >"$dir/nginx/text.br"
  printf '%s\n' "$text" | zstd -q -c >"$dir/nginx/text.zst"
}

prepare_gateway() {
  mkdir -p "$(state_dir ohttp-gateway)"
}

prepare_h3relays() {
  mkdir -p "$dir/h3relay-a" "$dir/h3relay-b"
}

# launch_h3relay LETTER: relay A or B over HTTP/3, on UDP port 4433 of the relay's address.
launch_h3relay() {
  local addr=${relay_addr[$1]}
  launch "h3relay-$1" "$venv/bin/python" -u -B "$templates/h3_relay.py" --name "${1^^}" \
    --listen "$addr:4433" --source "$addr" --token "${relay_token[$1]}" \
    --cert "$pki/relay.pem" --key "$pki/relay.key" --state "$dir/h3relay-$1"
}

# Every file of Samples/servers (not directories such as a stray __pycache__).
templates_sum() { find "$templates" -maxdepth 1 -type f -print0 | sort -z | xargs -0 cat | cksum; }

# --- processes ----------------------------------------------------------------------------

# launch NAME COMMAND...: runs a foreground server in its own session, logging to NAME/stdout.log.
# It inherits no other descriptor: not our lock, nor a caller's pipe it would keep open forever.
launch() {
  local name=$1
  shift
  (
    for fd in /proc/$BASHPID/fd/*; do
      fd=${fd##*/}
      ((fd <= 2)) || eval "exec $fd>&-" 2>/dev/null || true
    done
    # Not a process group leader, so setsid execs in place and $! is the server's pid.
    exec setsid "$@" </dev/null >>"$(state_dir "$name")/stdout.log" 2>&1
  ) &
  local pid=$! shell comm i
  echo "$pid" >"$(pid_file "$name")"
  # Return once the subshell has become the server, so that a readiness check on a busy machine
  # never takes a server still being launched (named like this shell, then setsid) for one that
  # exited.
  read -r shell <"/proc/$$/comm"
  for ((i = 0; i < 500; i++)); do
    { read -r comm <"/proc/$pid/comm"; } 2>/dev/null || break
    [[ $comm == "$shell" || $comm == setsid ]] || break
    sleep 0.01
  done
}

# Log sizes before this start, so a failure shows only what this start wrote.
declare -A log_offsets=()

mark_logs() {
  local name file
  for name in "${servers[@]}"; do
    for file in ${server_logs[$name]}; do
      log_offsets[$file]=$(stat -c %s "$dir/$file" 2>/dev/null || echo 0)
    done
  done
}

show_logs() {
  local name=$1 file
  for file in ${server_logs[$name]}; do
    (($(stat -c %s "$dir/$file" 2>/dev/null || echo 0) > ${log_offsets[$file]:-0})) || continue
    printf -- '--- %s (written by this start, last 40 lines) ---\n' "$dir/$file" >&2
    tail -c "+$((${log_offsets[$file]:-0} + 1))" "$dir/$file" | tail -n 40 >&2
  done
}

# not_ready NAME...: prints NAME:down for each server that is not running and NAME:ADDRESS:PORT
# for each port of a running one that does not listen yet; prints nothing when all are up.
not_ready() {
  local open name port
  open=$(listening)
  for name in "$@"; do
    if ! server_pid "$name" >/dev/null; then
      printf '%s:down\n' "$name"
      continue
    fi
    for port in ${server_ports[$name]}; do
      grep -qxF "$port" <<<"$open" || printf '%s:%s\n' "$name" "$port"
    done
  done
}

# What became of a server's process, for a start that failed.
describe_pid() {
  local pid comm
  pid=$(cat "$(pid_file "$1")" 2>/dev/null) || { printf 'no pid file'; return; }
  if { read -r comm <"/proc/$pid/comm"; } 2>/dev/null && alive "$pid"; then
    printf "pid %s runs '%s', not %s" "$pid" "$comm" "${server_comm[$1]}"
  else
    printf 'pid %s is gone' "$pid"
  fi
}

# wait_ready NAME...
wait_ready() {
  local deadline=$((${EPOCHREALTIME//[!0-9]/} + start_timeout * 1000000)) pending name
  while pending=$(not_ready "$@") && [[ -n $pending ]]; do
    for name in "$@"; do
      if grep -qx "$name:down" <<<"$pending"; then
        log "$name exited during start-up ($(describe_pid "$name"))" >&2
        show_logs "$name"
        return 1
      fi
    done
    if ((${EPOCHREALTIME//[!0-9]/} > deadline)); then
      log "timed out after ${start_timeout}s waiting for" $pending >&2
      for name in "$@"; do
        ! grep -q "^$name:" <<<"$pending" || show_logs "$name"
      done
      return 1
    fi
    sleep 0.05
  done
}

# stop_servers NAME...: stops those of them this script started: SIGTERM to all at once, since
# squid alone takes about 2 s to exit, then SIGKILL (with the server's children) for any still
# there after 10 s.
stop_servers() {
  local name pid i
  local -A pids=() children=()
  for name in "$@"; do
    pid=$(server_pid "$name") || continue
    pids[$name]=$pid
    children[$name]=$(pgrep -P "$pid" || true)
    kill -TERM "$pid" 2>/dev/null || true
  done
  for name in "$@"; do
    [[ -n ${pids[$name]:-} ]] || continue
    pid=${pids[$name]}
    for ((i = 0; i < 200; i++)); do
      alive "$pid" || break
      sleep 0.05
    done
    if alive "$pid"; then
      log "$name (pid $pid) ignored SIGTERM for 10s; killing it"
      # shellcheck disable=SC2086 # a list of pids
      kill -KILL "$pid" ${children[$name]} 2>/dev/null || true
    fi
    log "stopped $name (pid $pid)"
  done
  [[ ${#pids[@]} -gt 0 ]] || log "nothing was running"
  for name in "$@"; do rm -f "$(pid_file "$name")"; done
}

stop_all() { stop_servers "${servers[@]}"; }

# squid names its /dev/shm segments after the service name (letters and digits only): one per
# state directory and relay (relay B's adds a "b").
squid_service() { printf 'rf%s' "$(cksum <<<"$dir" | cut -d' ' -f1)"; }

# --- the identity provider (separable) ------------------------------------------------------

idp_addr=127.0.0.23

# Relays started before squid.hosts named idp.test do not know it: refresh their hosts files and
# have squid re-read its configuration (a reconfigure, not a restart: open tunnels stay up).
relays_learn_idp_name() {
  local pair state service
  for pair in "squid:$(squid_service)" "squid-b:$(squid_service)b"; do
    state=$dir/${pair%%:*} service=${pair#*:}
    ! grep -qw idp.test "$state/hosts" 2>/dev/null || continue
    log "${pair%%:*} does not resolve idp.test yet: refreshing its hosts file (squid -k reconfigure)"
    cp "$templates/squid.hosts" "$state/hosts"
    [[ $EUID -ne 0 ]] || chown proxy:proxy "$state/hosts"
    quiet squid -n "$service" -k reconfigure -f "$state/squid.conf"
  done
}

start_idp() {
  if [[ -z $(not_ready idp) ]]; then
    log "idp already running (https://idp.test, $idp_addr:443)"
    return 0
  fi
  if server_pid idp >/dev/null; then stop_servers idp; fi
  ! port_open "$idp_addr:443" ||
    die "$idp_addr:443 is already taken by a process this script did not start (ss -ltnp shows which)"
  [[ -x $venv/bin/python ]] || die "no Python venv at $venv for the identity provider: run scripts/setup.sh"
  [[ -s $pki/ca.key ]] || die "no test CA in $pki: start the core servers first (scripts/test-servers.sh start)"
  make_leaf idp idp.test "DNS:idp.test, IP:$idp_addr"
  relays_learn_idp_name
  mkdir -p "$dir/idp"
  # The log holds this start's requests only: tests check all of it came through relay B.
  : >"$dir/idp/access.log"
  mark_logs
  trap 'log "idp start failed; stopping it" >&2; stop_servers idp' EXIT
  launch idp "$venv/bin/python" -u -B "$templates/oauth_idp/serve.py" --daemon --host "$idp_addr" --port 443 \
    --origin https://idp.test --cert "$pki/idp.pem" --key "$pki/idp.key" --ca "$pki/ca.pem" \
    --log "$dir/idp/access.log" --state "$dir/idp"
  wait_ready idp
  trap - EXIT
  log "idp running: https://idp.test ($idp_addr:443), log $dir/idp/access.log"
}

# --- commands -----------------------------------------------------------------------------

print_summary() {
  cat <<EOF
test-servers: relay A   https://127.0.0.11:3129 (squid, HTTP/1.1; also http://127.0.0.11:3128)
                        https://127.0.0.11:4433 (nghttpx, h2 or HTTP/1.1, in front of :3128)
                        https://127.0.0.11:4433 over UDP (HTTP/3: CONNECT, CONNECT-UDP, datagrams)
                        needs header 'Proxy-Authorization: Bearer relay-token-A', else 407
test-servers: relay B   https://127.0.0.12:3129 (squid, HTTP/1.1; also http://127.0.0.12:3128)
                        https://127.0.0.12:4433 (nghttpx, h2 or HTTP/1.1, in front of :3128)
                        https://127.0.0.12:4433 over UDP (HTTP/3: CONNECT, CONNECT-UDP, datagrams)
                        needs header 'Proxy-Authorization: Bearer relay-token-B', else 407
test-servers: origin A  https://origin.test, https://www.origin.test (127.0.0.21:443, h2)
test-servers: origin B  https://origin2.test (127.0.0.22:443, h2)
                        origin names resolve through the relays (and the OHTTP gateway) only
test-servers: OHTTP     relay    https://127.0.0.30/relay (nginx, h2 or HTTP/1.1; POST message/ohttp-req)
                                 /relay-tamper (one bit of each response flipped), /ohttp-keys
                        gateway  http://127.0.0.31:8081/gateway (key id 1, X25519, HKDF-SHA256 with
                                 AES-128-GCM or ChaCha20-Poly1305); reaches origins from 127.0.0.32
                        keys     $dir/ohttp/keys.bin (application/ohttp-keys), GET /ohttp-keys
test-servers: IdP       https://idp.test (127.0.0.23:443; django-oauth-toolkit, issuer https://idp.test/o,
                        relying-party app https://idp.test/app/); alice / wonderland-pw
test-servers: store     postgres://relayfetch@127.0.0.40:5432/relayfetch (PostgreSQL, TCP only;
                        the role may create a database per test)
test-servers: CA        $pki/ca.pem (relay, OHTTP relay, origin and IdP certificates)
test-servers: logs      relay A  $dir/squid/access.log $dir/nghttpx-a/access.log
                                 $dir/h3relay-a/access.log (HTTP/3)
                        relay B  $dir/squid-b/access.log $dir/nghttpx-b/access.log
                                 $dir/h3relay-b/access.log (HTTP/3)
                        origins  $dir/nginx/origin-a.log $dir/nginx/origin-b.log
                        OHTTP    $dir/nginx/ohttp-relay.log $dir/ohttp/gateway.log
                        IdP      $dir/idp/access.log
                        store    $dir/postgres/postgres.log
EOF
}

cmd_start() {
  local began=$EPOCHREALTIME name port
  [[ $dir != *[[:space:]]* && $repo != *[[:space:]]* ]] ||
    die "squid and nginx configs cannot hold paths with spaces: $dir"
  mkdir -p "$dir/run"
  chmod o+x "$dir" # squid and nginx workers run as other users
  lock_state_dir

  if [[ -z $(not_ready "${core[@]}") ]]; then
    log "already running (state in $dir)"
    [[ $(templates_sum) == "$(cat "$dir/run/templates.sum" 2>/dev/null)" ]] ||
      log "warning: Samples/servers changed since these servers started; run stop, then start"
    start_idp
    postgres_piece start
    return 0
  fi
  if compgen -G "$dir/run/*.pid" >/dev/null; then
    log "found a partial or stale start; cleaning up"
    stop_all
  fi
  for name in "${core[@]}"; do
    for port in ${server_ports[$name]}; do
      ! port_open "$port" ||
        die "$port is already taken by a process this script did not start (ss -ltnup shows which)"
    done
  done
  [[ -x $venv/bin/python ]] ||
    die "no Python venv at $venv for the OHTTP gateway and the HTTP/3 relays: run scripts/setup.sh"

  trap 'log "start failed; stopping what was started" >&2; stop_all' EXIT
  make_pki
  prepare_squid squid a
  prepare_squid squid-b b
  prepare_nghttpx nghttpx-a a
  prepare_nghttpx nghttpx-b b
  prepare_nginx
  prepare_gateway
  prepare_h3relays
  mark_logs
  local service
  service=$(squid_service)
  launch squid squid -n "$service" -N -f "$dir/squid/squid.conf"
  launch squid-b squid -n "${service}b" -N -f "$dir/squid-b/squid.conf"
  launch nghttpx-a nghttpx --conf "$dir/nghttpx-a/nghttpx.conf"
  launch nghttpx-b nghttpx --conf "$dir/nghttpx-b/nghttpx.conf"
  launch ohttp-gateway "$venv/bin/python" -u -B "$templates/ohttp_gateway.py" \
    --listen 127.0.0.31:8081 --state "$(state_dir ohttp-gateway)" --ca "$pki/ca.pem" \
    --source 127.0.0.32
  launch_h3relay a
  launch_h3relay b
  launch nginx nginx -e "$dir/nginx/error.log" -p "$dir/nginx/" -c "$dir/nginx/nginx.conf"
  wait_ready "${core[@]}"
  postgres_piece start
  trap - EXIT
  templates_sum >"$dir/run/templates.sum"
  start_idp

  print_summary
  local elapsed=$((${EPOCHREALTIME//[!0-9]/} - ${began//[!0-9]/}))
  log "started in $((elapsed / 1000)) ms"
}

cmd_stop() {
  if [[ ! -d $dir/run ]]; then
    log "nothing to stop (no state in $dir)"
    return 0
  fi
  lock_state_dir
  stop_all
  postgres_piece stop
}

cmd_start_idp() {
  mkdir -p "$dir/run"
  lock_state_dir
  [[ -z $(not_ready "${core[@]}") ]] || die "the core servers are not running: scripts/test-servers.sh start"
  start_idp
}

cmd_stop_idp() {
  [[ -d $dir/run ]] || { log "nothing to stop (no state in $dir)"; return 0; }
  lock_state_dir
  stop_servers idp
}

cmd_status() {
  local name pid pending postgres_status=0
  postgres_piece status || postgres_status=1
  pending=$(not_ready "${servers[@]}")
  for name in "${servers[@]}"; do
    if pid=$(server_pid "$name"); then
      log "$name running (pid $pid) on ${server_ports[$name]}"
    else
      log "$name not running"
    fi
  done
  if [[ -n $pending ]]; then
    log "not ready:" $pending
    return 1
  fi
  return "$postgres_status"
}

# postgres_piece start|stop|status: the PostgreSQL piece, which also runs alone.
postgres_piece() { bash "$repo/scripts/test-postgres.sh" "$1"; }

main() {
  if [[ ${2:-} == postgres && ${1:-} =~ ^(start|stop|status)$ ]]; then
    postgres_piece "$1"
    return
  fi
  case ${1:-}:${2:-} in
    start:) cmd_start ;;
    stop:) cmd_stop ;;
    start:idp) cmd_start_idp ;;
    stop:idp) cmd_stop_idp ;;
    status:) cmd_status ;;
    *)
      printf 'usage: %s start|stop [idp|postgres] | status [postgres]\n' "$0" >&2
      exit 2
      ;;
  esac
}

# On one line, so bash has read the whole script before running it: editing the file while a
# start waits on the lock cannot change what that start does.
main "$@"; exit
