#!/usr/bin/env bash
# Installs everything relayfetch's build and tests need on Debian 12 (besides Swift itself).
# Idempotent: when every package is present it only asks dpkg and returns.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

apt_packages=(
  # C libraries the Swift targets link against
  libcurl4-openssl-dev libxml2-dev libssl-dev libnghttp2-dev
  libngtcp2-dev libngtcp2-crypto-gnutls-dev libnghttp3-dev libpsl-dev zlib1g-dev libbrotli-dev pkg-config
  libsqlite3-dev libpq-dev
  # real servers for end-to-end tests (scripts/test-servers.sh)
  squid-openssl nginx-light nghttp2-proxy openssl
  # a SOCKS5 server for the SOCKS5 hop's tests, started by the tests themselves on 127.0.0.61
  # (Tests/RelayFetchTestSupport/SOCKSServer.swift); the package installs no service
  microsocks
  # an HTTP/3 origin (Caddy serves Samples/site over QUIC) for the HTTP/3-origin tests, started
  # by the tests themselves on 127.0.5.x (Tests/RelayFetchTestSupport/CaddyOrigin.swift)
  caddy
  # the shared crawl store (PostgreSQL 15: initdb, pg_ctl, psql) for multi-worker crawl tests
  postgresql
  # test tooling: disk-avoidance checks, addresses, process checks
  strace iproute2 procps
  # the install's man pages and completions, rendered and completed by the real tools
  # (InstallTests); packaging and its test (scripts/package-deb.sh, scripts/test-package.sh)
  make man-db groff-base zsh fish lintian debootstrap dpkg-dev binutils
  # pre-compressed bodies (brotli, zstd) that the origins serve to test decoding
  brotli zstd
  # real documentation sites for the page-fidelity suite (Benchmarks/fidelity): Sphinx with the
  # Read the Docs, Alabaster and Django themes, MkDocs, Doxygen
  python-cryptography-doc python-attr-doc python-requests-doc python-django-doc mkdocs-doc doxygen-doc
  # Debian's Python for the venv of PyPI test servers (the OHTTP gateway, the HTTP/3 relay)
  python3 python3-venv
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

# PyPI dependencies (the OHTTP gateway, archive validators, the HTTP/3 relay; later perhaps the
# OAuth identity provider) go into a venv at .build/venv, never system-wide. Pin every
# package, dependencies included, so each machine gets the same set; add to python_packages when
# a test needs more. A stamp file in the venv holds the list it was installed from: when it
# matches, nothing is asked of PyPI.
install_python_packages() {
  local venv=$repo/.build/venv
  local stamp=$venv/relayfetch-requirements.txt
  local python_packages=(
    # HPKE for the OHTTP gateway (Samples/servers/ohttp_gateway.py), and what it pulls in
    pyhpke==0.6.5 cryptography==50.0.2 cffi==2.1.1 pycparser==3.12
    # independent HAR and WARC validators (Tests/HeadlessPageTests/ArchiveValidationTests.swift)
    warcio==1.8.1 haralyzer==2.4.0 cached-property==2.0.1 python-dateutil==4.0.0 six==1.17.0
    tzdata==2026.6
    # QUIC, HTTP/3 and QPACK for the HTTP/3 (MASQUE) relay (Samples/servers/h3_relay.py), and
    # what aioquic pulls in besides cryptography
    aioquic==1.7.2 pylsqpack==1.0.0 pyopenssl==26.4.0 service-identity==26.1.0 attrs==26.1.0
    certifi==2026.10.19.post1 typing-extensions==4.16.0
    # the OAuth 2.0 / OpenID Connect identity provider (Samples/servers/oauth_idp); oauthlib 4
    # breaks its device authorization endpoint
    django-oauth-toolkit==3.4.1 django==5.2.19 oauthlib==3.3.1 jwcrypto==1.6.1 asgiref==3.13.0
    sqlparse==0.6.1 requests==2.34.2 charset-normalizer==3.5.3 idna==3.20 urllib3==2.8.0
    # DNS messages for the encrypted DNS resolver of the tests (Samples/servers/dns/dns_resolver.py:
    # DoH, DoT, Oblivious DoH with pyhpke above)
    dnslib==0.9.26
    # SOCKS5 with remote names (socks5h://) for Python requests, a client of `relayfetch proxy`
    PySocks==1.7.1
  )
  local wanted
  wanted=$(printf '%s\n' "${python_packages[@]}")
  # Debian's interpreter, whatever python3 comes first on PATH (pyenv, a CI image's own build).
  local python=/usr/bin/python3
  [[ -x $python ]] || { log "python: $python is missing (apt package python3)" >&2; exit 1; }

  if [[ -x $venv/bin/python && $(cat "$stamp" 2>/dev/null) == "$wanted" ]] &&
    grep -qsx 'home = /usr/bin' "$venv/pyvenv.cfg"; then
    log "python: all ${#python_packages[@]} PyPI packages already installed in $venv"
    return
  fi
  # A venv made by another interpreter, or one whose interpreter is gone, is made anew.
  if [[ -d $venv ]] && ! { grep -qsx 'home = /usr/bin' "$venv/pyvenv.cfg" &&
    "$venv/bin/python" -c '' 2>/dev/null; }; then
    log "python: $venv was not made by $python or is broken; recreating it"
    rm -rf "$venv"
  fi
  if [[ ! -x $venv/bin/python ]]; then
    log "python: creating venv $venv"
    "$python" -m venv "$venv"
  fi
  log "python: installing ${python_packages[*]}"
  rm -f "$stamp"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-input \
    "${python_packages[@]}"
  printf '%s\n' "$wanted" >"$stamp"
  log "python: installed ${#python_packages[@]} PyPI packages in $venv"
}

# Javadoc sites for the page-fidelity suite: their packages depend on the whole JDK's documentation
# (openjdk-17-doc, 270 MB), so only the package itself is downloaded (apt-get download) and
# unpacked into .build/fidelity-debs, where Benchmarks/fidelity/sites.txt serves it from.
unpacked_debs=(libjsoup-java-doc)
install_unpacked_debs() {
  local dir=$repo/.build/fidelity-debs pkg
  for pkg in "${unpacked_debs[@]}"; do
    [[ -f $dir/$pkg/.unpacked ]] && continue
    log "apt: downloading $pkg (unpacked into $dir/$pkg, not installed)"
    rm -rf "${dir:?}/$pkg" && mkdir -p "$dir/$pkg"
    (cd "$dir" && apt-get download -qq "$pkg")
    dpkg-deb -x "$dir/${pkg}"_*.deb "$dir/$pkg"
    rm -f "$dir/${pkg}"_*.deb
    touch "$dir/$pkg/.unpacked"
  done
}

install_apt_packages
install_python_packages
install_unpacked_debs
