#!/usr/bin/env bash
# Installs what Benchmarks/page/run.sh needs, from Debian only. Idempotent: when every package is
# present it only asks dpkg and returns.
set -euo pipefail

packages=(
  chromium libnss3-tools          # the browser peer, and certutil for its NSS trust store
  wget                            # the wget -p peer
  squid-openssl nginx-light       # relay and origins
  openssl iproute2 procps python3 # test PKI, namespaces and veths, the delay forwarder
)

log() { printf 'page-bench setup: %s\n' "$*"; }
as_root() {
  if [[ $EUID -eq 0 ]]; then "$@"
  elif command -v sudo >/dev/null 2>&1; then sudo "$@"
  else log "need root to run: $*" >&2; exit 1; fi
}

status=$(dpkg-query -W -f='${Package} ${Status}\n' "${packages[@]}" 2>/dev/null || true)
missing=()
for pkg in "${packages[@]}"; do
  grep -qx "$pkg install ok installed" <<<"$status" || missing+=("$pkg")
done
if [[ ${#missing[@]} -eq 0 ]]; then
  log "all ${#packages[@]} packages already installed"
  exit 0
fi
log "missing ${missing[*]}; running apt-get update"
as_root apt-get update -qq
log "installing ${missing[*]}"
as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
log "installed ${#missing[@]} packages"
