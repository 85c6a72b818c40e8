# Network namespaces joined by a delaying hub, for benchmarks that need fixed one-way delays
# (this kernel has no netem). Sourced by Benchmarks/page/run.sh and Benchmarks/oauth/run.sh.
#
# Each end is a namespace "$bench_prefix-END" whose eth0 is a veth to port "hEND" of the hub
# namespace "$bench_prefix-hub", where Benchmarks/page/delayhub.py re-sends every frame after its
# link's one-way delay and forwards only between the ends of a declared link. Neighbour entries
# are static (no ARP round trip). The caller defines log and die, sets bench_prefix, and calls
# bench_traps once: any exit stops every process in the namespaces, deletes them and removes
# $work (kept with BENCH_KEEP_WORK=1).

bench_lib=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bench_python=/usr/bin/python3 # Debian's, whatever else is first on PATH
namespaces=() # those created so far: only these are searched for processes and deleted
pids=()       # background processes to stop at exit (servers, the hub, a client)
work=

# True while PID runs; a zombie (exited, not yet reaped by this shell) counts as gone.
alive() {
  local stat
  { read -r stat <"/proc/$1/stat"; } 2>/dev/null || return 1
  stat=${stat##*) }
  [[ ${stat:0:1} != Z ]]
}

bench_cleanup() {
  local status=$? ns pid left
  # A second signal (timeout(1) signals the process group too) must not cut the cleanup short.
  trap '' INT TERM
  trap - EXIT
  set +e
  # Everything running in our namespaces was started by the benchmark (servers, the hub, a
  # client still running after a failure): stop those processes by pid, then the namespaces.
  local all=("${pids[@]}")
  for ns in "${namespaces[@]}"; do
    ip netns pids "$ns" >/dev/null 2>&1 && mapfile -t -O "${#all[@]}" all < <(ip netns pids "$ns" 2>/dev/null)
  done
  for pid in "${all[@]}"; do kill -TERM "$pid" 2>/dev/null; done
  for _ in $(seq 30); do
    left=0
    for pid in "${all[@]}"; do alive "$pid" && left=1; done
    ((left)) || break
    sleep 0.1
  done
  for pid in "${all[@]}"; do alive "$pid" && kill -KILL "$pid" 2>/dev/null; done
  for ns in "${namespaces[@]}"; do ip netns del "$ns" 2>/dev/null; done
  if [[ -n ${BENCH_KEEP_WORK:-} ]]; then log "kept $work"; elif [[ -n $work ]]; then rm -rf "$work"; fi
  exit "$status"
}

# bench_traps NAME [PARENT]: installs the cleanup and makes $work, a temporary directory named
# after NAME in PARENT (default /tmp).
bench_traps() {
  trap bench_cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  work=$(mktemp -d "${2:-/tmp}/relayfetch-$1.XXXXXX")
  chmod 755 "$work" # nginx workers and squid run as other users
}

quiet() { local out; out=$("$@" 2>&1) || { printf '%s\n' "$out" >&2; return 1; }; }

# bench_ca DIR SUBJECT: a throwaway test CA, DIR/ca.pem and DIR/ca.key, valid two days.
bench_ca() {
  mkdir -p "$1"
  quiet openssl req -x509 -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout "$1/ca.key" -out "$1/ca.pem" -days 2 -subj "/CN=$2" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"
}

# bench_leaf DIR NAME SAN: DIR/NAME.pem and DIR/NAME.key for a TLS server, issued by DIR's CA.
bench_leaf() {
  local dir=$1 name=$2
  quiet openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout "$dir/$name.key" -subj "/CN=$name" -out "$dir/$name.csr"
  quiet openssl x509 -req -in "$dir/$name.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" \
    -set_serial "0x$(openssl rand -hex 16)" -days 2 -out "$dir/$name.pem" \
    -extfile <(printf '%s\n' 'basicConstraints=critical,CA:FALSE' 'keyUsage=critical,digitalSignature' \
      'extendedKeyUsage=serverAuth' "subjectAltName=$3")
}

bench_ns() { printf '%s-%s' "$bench_prefix" "$1"; }

# bench_hub_namespace: the hub's namespace (create it before any end).
bench_hub_namespace() {
  local hub
  hub=$(bench_ns hub)
  ip netns add "$hub" || die "cannot create network namespace $hub"
  namespaces+=("$hub")
  ip -n "$hub" link set lo up
}

# bench_end END MAC ADDRESS...: namespace END, its eth0 (this MAC, these /24 addresses) joined to
# hub port hEND; IPv6 off so nothing but our own traffic crosses the hub.
bench_end() {
  local end=$1 mac=$2 ns hub address
  shift 2
  ns=$(bench_ns "$end") hub=$(bench_ns hub)
  ip netns add "$ns" || die "cannot create network namespace $ns"
  namespaces+=("$ns")
  ip link add "h$end" netns "$hub" type veth peer name eth0 netns "$ns" address "$mac"
  ip -n "$hub" link set "h$end" up
  ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
  ip -n "$ns" link set lo up
  ip -n "$ns" link set eth0 up
  for address in "$@"; do ip -n "$ns" addr add "$address/24" dev eth0; done
}

# bench_neighbour END ADDRESS MAC: a static neighbour entry in END for ADDRESS.
bench_neighbour() { ip -n "$(bench_ns "$1")" neigh replace "$2" lladdr "$3" dev eth0 nud permanent; }

# bench_hub LINK...: starts the hub (LINK = hA:hB:MS) with real-time priority, which keeps its
# sends on time while clients keep both cores busy; waits until its ports are open. Its output
# goes to $work/hub.log, frames sent over 1 ms late to $work/hub-late.log.
bench_hub() {
  local rt=() link args=()
  chrt -f 50 true 2>/dev/null && rt=(chrt -f 50)
  for link in "$@"; do args+=(--link "$link"); done
  ip netns exec "$(bench_ns hub)" "${rt[@]}" "$bench_python" "$bench_lib/../page/delayhub.py" "${args[@]}" \
    --ready "$work/hub.ready" --late-log "$work/hub-late.log" >"$work/hub.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 100); do [[ -s $work/hub.ready ]] && return 0; sleep 0.05; done
  die "the delay hub did not start: $(cat "$work/hub.log")"
}

# bench_wait_listening END ADDRESS:PORT...: waits (20 s at most) until all listen in END; fails
# at once when a process of $pids exits, showing the logs under $work.
bench_wait_listening() {
  local ns deadline=$((SECONDS + 20)) missing port pid open
  ns=$(bench_ns "$1")
  shift
  while :; do
    missing=()
    open=$(ip netns exec "$ns" ss -Hltn | awk '{print $4}')
    for port in "$@"; do grep -qxF "$port" <<<"$open" || missing+=("$port"); done
    [[ ${#missing[@]} -gt 0 ]] || return 0
    for pid in "${pids[@]}"; do
      kill -0 "$pid" 2>/dev/null || {
        log "a server exited during start-up; logs:"
        find "$work" -name '*.log' -size +0 -exec tail -n 20 {} + >&2 2>/dev/null
        return 1
      }
    done
    ((SECONDS < deadline)) || { log "timed out waiting for ${missing[*]} in $ns"; return 1; }
    sleep 0.05
  done
}

# bench_nginx_preamble DIR: the start of an nginx.conf for a foreground server whose pid, error
# log and temporary files live in DIR (DIR/tmp must exist); the http block is left open.
bench_nginx_preamble() {
  cat <<EOF
daemon off;
worker_processes 1;
pid $1/nginx.pid;
error_log $1/error.log warn;
events { worker_connections 1024; }
http {
    client_body_temp_path $1/tmp/body;
    proxy_temp_path $1/tmp/proxy;
    fastcgi_temp_path $1/tmp/fastcgi;
    uwsgi_temp_path $1/tmp/uwsgi;
    scgi_temp_path $1/tmp/scgi;
EOF
}

# bench_squid_conf DIR: writes DIR/squid.conf from the lines on standard input (ports, access
# rules, logging: what differs between benchmarks) followed by what every benchmark relay shares:
# no Via or X-Forwarded-For, names from DIR/hosts only, no cache, no state or helpers on disk
# outside DIR, and a prompt stop. DIR ends up owned by squid's user.
bench_squid_conf() {
  {
    cat
    cat <<EOF
via off
forwarded_for delete
hosts_file $1/hosts
dns_nameservers 127.0.0.1
cache deny all
cache_mem 0 MB
cache_log $1/cache.log
cache_store_log none
logfile_rotate 0
pid_filename $1/squid.pid
coredump_dir $1
netdb_filename none
pinger_enable off
cache_effective_user proxy
shutdown_lifetime 0 seconds
EOF
  } >"$1/squid.conf"
  chown -R proxy:proxy "$1"
}

# bench_relayfetch DEFAULT_SCRATCH: sets $relayfetch to BENCH_RELAYFETCH, or to a release build
# made with scratch path BENCH_BUILD_DIR (default DEFAULT_SCRATCH).
bench_relayfetch() {
  local build_dir=${BENCH_BUILD_DIR:-$1} repo output
  repo=$(cd "$bench_lib/../.." && pwd)
  if [[ -n ${BENCH_RELAYFETCH:-} ]]; then
    relayfetch=$BENCH_RELAYFETCH
  else
    command -v swift >/dev/null || die "no swift on PATH (or set BENCH_RELAYFETCH to a relayfetch binary)"
    log "building relayfetch (release, scratch path $build_dir)"
    if ! output=$(cd "$repo" && swift build -c release --product relayfetch --scratch-path "$build_dir" 2>&1); then
      printf '%s\n' "$output" | tail -n 30 >&2
      die "the release build failed"
    fi
    relayfetch=$(cd "$repo" && swift build -c release --product relayfetch --scratch-path "$build_dir" --show-bin-path)/relayfetch
  fi
  [[ -x $relayfetch ]] || die "no relayfetch binary at $relayfetch (build failed?)"
}
