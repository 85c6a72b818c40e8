#!/usr/bin/env bash
# The Debian package end to end: builds it (scripts/package-deb.sh: a release build, minutes on a
# small machine), installs it with apt into a clean Debian 12 root (debootstrap minbase from the
# mirror apt uses here, cached as .build/package-test/bookworm-minbase.tar), and inside that root
# (a chroot shares the network namespace, so the test servers on loopback answer) checks the
# installed files, that `relayfetch version` names the commit built, and fetches through relay A:
# relay A's log must show the tunnel and the origin's log the request, from the relay's address.
# Needs root and the running test servers (scripts/test-servers.sh start).
#
#   scripts/test-package.sh [--binary FILE]   (passed to package-deb.sh: skip the release build)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
servers=${RELAYFETCH_SERVERS_DIR:-$repo/.build/test-servers}
log() { printf 'test-package: %s\n' "$*"; }
fail() { printf 'test-package: FAIL: %s\n' "$*" >&2; exit 1; }
[[ $EUID -eq 0 ]] || fail "needs root (debootstrap, chroot)"
[[ -f $servers/pki/ca.pem && -f $servers/squid/access.log ]] || fail "the test servers are not running ($servers)"

deb=$(bash scripts/package-deb.sh "$@" | tail -1)
log "built $deb"

cache=$repo/.build/package-test
tarball=$cache/bookworm-minbase.tar
mkdir -p "$cache"
if [[ ! -f $tarball ]]; then
    mirror=$(apt-get indextargets --format '$(REPO_URI)' 'Created-By: Packages' 'Codename: bookworm' | grep -m1 '/debian/$') ||
        fail "no Debian bookworm mirror among apt's sources"
    log "debootstrap bookworm (minbase) from $mirror"
    fresh=$(mktemp -d "$cache/debootstrap.XXXXXX")
    debootstrap --variant=minbase bookworm "$fresh" "$mirror" >"$cache/debootstrap.log" 2>&1 ||
        { tail -20 "$cache/debootstrap.log" >&2; rm -rf "$fresh"; fail "debootstrap failed (log: $cache/debootstrap.log)"; }
    tar -C "$fresh" -cf "$tarball.partial" . && mv "$tarball.partial" "$tarball"
    rm -rf "$fresh"
fi

work=$(mktemp -d /tmp/relayfetch-package-test.XXXXXX)
root=$work/root
cleanup() {
    umount "$root/proc" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
mkdir "$root"
tar -C "$root" -xf "$tarball"
mount -t proc proc "$root/proc"
cp /etc/resolv.conf "$root/etc/resolv.conf"
# The same suites as this machine (bookworm, -updates, -security), so Depends resolve as here.
if [[ -f /etc/apt/sources.list.d/debian.sources ]]; then
    cp /etc/apt/sources.list.d/debian.sources "$root/etc/apt/sources.list.d/" && rm -f "$root/etc/apt/sources.list"
fi
install -m 0644 "$deb" "$root/tmp/relayfetch.deb"
install -m 0644 "$servers/pki/ca.pem" "$root/tmp/ca.pem"
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"; }

log "installing the package with apt in a clean Debian 12 root"
in_root apt-get update -qq >"$work/apt.log" 2>&1 || { cat "$work/apt.log" >&2; fail "apt-get update in the root failed"; }
in_root apt-get install -y -qq --no-install-recommends /tmp/relayfetch.deb >>"$work/apt.log" 2>&1 ||
    { cat "$work/apt.log" >&2; fail "apt-get install of the package failed"; }

files=$(in_root dpkg -L relayfetch)
for file in /usr/bin/relayfetch /usr/share/man/man1/relayfetch.1.gz /usr/share/man/man1/relayfetch-get.1.gz \
    /usr/share/bash-completion/completions/relayfetch /usr/share/zsh/vendor-completions/_relayfetch \
    /usr/share/fish/vendor_completions.d/relayfetch.fish /usr/share/doc/relayfetch/examples/relayfetch-crawl.service \
    /usr/share/doc/relayfetch/examples/relayfetch-proxy.service; do
    grep -qx "$file" <<<"$files" || fail "the package lacks $file"
done

version=$(in_root relayfetch version | head -1)
commit=$(git rev-parse --short=12 HEAD)
[[ $version == "relayfetch "*"(commit $commit"* ]] || fail "relayfetch version says \"$version\", not commit $commit"
log "$version"

marker=deb-$(head -c 4 /dev/urandom | od -An -tx1 | tr -d ' \n')
tunnels() { grep -c "CONNECT	origin.test:443	200	127.0.0.21	Bearer relay-token-A" "$servers/squid/access.log" || true; }
before=$(tunnels)
body=$(in_root relayfetch get "https://origin.test/?$marker" --cacert /tmp/ca.pem --relay https://127.0.0.11:3129 \
    --relay-header 'Proxy-Authorization: Bearer relay-token-A' --relay-cacert /tmp/ca.pem) || fail "relayfetch get through relay A failed"
[[ -n $body ]] || fail "relayfetch get printed no body"
# origin.test resolves only at the relays, and relay A reaches origins from 127.0.0.11: the
# origin's line for this request proves the route; squid logs the tunnel when it closes.
grep -q "^127\.0\.0\.11	GET	/?$marker	200	" "$servers/nginx/origin-a.log" || fail "the origin's log has no GET /?$marker from relay A"
for _ in $(seq 50); do (($(tunnels) > before)) && break; sleep 0.2; done
(($(tunnels) > before)) || fail "relay A's log shows no new tunnel to origin.test"
log "PASS: installed on a clean Debian 12 and fetched https://origin.test/?$marker through relay A"
