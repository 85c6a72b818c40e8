#!/usr/bin/env bash
# Installs everything relayfetch's build and tests need on Debian 12 (besides Swift itself).
# Idempotent: when every package is present it only asks dpkg and returns.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

apt_packages=(
  # C libraries the Swift targets link against
  libcurl4-openssl-dev libxml2-dev libssl-dev libnghttp2-dev
  libngtcp2-dev libngtcp2-crypto-gnutls-dev libnghttp3-dev libpsl-dev zlib1g-dev pkg-config
  # real servers for end-to-end tests (scripts/test-servers.sh)
  squid-openssl nginx-light nghttp2-proxy openssl
  # test tooling: disk-avoidance checks, addresses, process checks
  strace iproute2 procps
)

log() { printf 'setup: %s\n' "$*"; }

as_root() {
  if [[ $EUID -eq 0 ]]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo "$@"
  else
    log "need root to run: $*" >&2
    exit 1
  fi
}

install_apt_packages() {
  local status missing=()
  # One dpkg-query for all packages; unknown packages print nothing on stdout.
  status=$(dpkg-query -W -f='${Package} ${Status}\n' "${apt_packages[@]}" 2>/dev/null || true)
  local pkg
  for pkg in "${apt_packages[@]}"; do
    grep -qx "$pkg install ok installed" <<<"$status" || missing+=("$pkg")
  done
  if [[ ${#missing[@]} -eq 0 ]]; then
    log "apt: all ${#apt_packages[@]} packages already installed"
    return
  fi
  log "apt: missing ${missing[*]}; running apt-get update"
  as_root apt-get update -qq
  log "apt: installing ${missing[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends "${missing[@]}"
  log "apt: installed ${#missing[@]} packages"
}

# PyPI dependencies (the HTTP/3 relay, the OAuth identity provider, archive validators) go into
# a venv at .build/venv, never system-wide. Add them to python_packages when a test needs them.
install_python_packages() {
  local venv="$repo/.build/venv"
  local python_packages=()
  if [[ ${#python_packages[@]} -eq 0 ]]; then
    log "python: no PyPI packages needed yet (venv would be $venv)"
    return
  fi
  # Placeholder for when python_packages is not empty: needs python3-venv in apt_packages.
  [[ -x $venv/bin/python ]] || { log "python: creating venv $venv"; python3 -m venv "$venv"; }
  log "python: installing ${python_packages[*]}"
  "$venv/bin/pip" install -q "${python_packages[@]}"
}

install_apt_packages
install_python_packages
