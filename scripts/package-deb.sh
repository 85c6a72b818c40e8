#!/usr/bin/env bash
# Builds .build/deb/relayfetch_VERSION_ARCH.deb with dpkg-deb: the release binary, its man pages
# and completions (scripts/install.sh --prefix /usr), the sample systemd unit
# (Samples/systemd, as an example under /usr/share/doc), a copyright file and a changelog;
# Depends is what dpkg-shlibdeps finds for the libraries the binary links. lintian must report
# no error. Prints the .deb's path as its last line.
#
#   scripts/package-deb.sh [--binary FILE]   FILE: an already-built release binary
#                                            (scripts/build-release.sh); default: build it
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
install_args=()
if [[ ${1:-} == --binary ]]; then
    [[ $# -eq 2 ]] || { echo "usage: scripts/package-deb.sh [--binary FILE]" >&2; exit 2; }
    install_args=(--binary "$2")
fi
for tool in dpkg-deb dpkg-shlibdeps lintian; do
    command -v $tool >/dev/null || { echo "package-deb: $tool is missing (scripts/setup.sh installs it)" >&2; exit 1; }
done

# The layout of a package build tree (debian/PACKAGE, with DEBIAN in it), which dpkg-shlibdeps
# expects; debian/control is a minimal one for it.
out=$repo/.build/deb
stage=$out/debian/relayfetch
rm -rf "$out/debian"
mkdir -p "$stage/DEBIAN"
printf 'Source: relayfetch\n\nPackage: relayfetch\nArchitecture: any\n' >"$out/debian/control"
bash scripts/install.sh --prefix /usr --destdir "$stage" "${install_args[@]}" >&2
binary=$stage/usr/bin/relayfetch
version_line=$("$binary" version | head -1)
version=$(sed -n 's/^relayfetch \([^ ]*\).*/\1/p' <<<"$version_line")
commit=$(sed -n 's/.*(commit \([^)]*\)).*/\1/p' <<<"$version_line")
arch=$(dpkg --print-architecture)
maintainer="relayfetch maintainers <maintainers@users.noreply.a-seed-8d6677db.example>"

doc=$stage/usr/share/doc/relayfetch
install -d "$doc/examples"
install -m 0644 Samples/systemd/relayfetch-crawl.service Samples/systemd/relayfetch-proxy.service "$doc/examples/"
cat >"$doc/copyright" <<COPYRIGHT
relayfetch, packaged from its source repository (commit $commit).

Copyright $(git log -1 --format=%cd --date=format:%Y 2>/dev/null || date +%Y) the relayfetch maintainers.
The repository does not name a license yet; until it does, no rights beyond using this package
are granted.
COPYRIGHT
# A native package's changelog, dated by the commit (the same bytes for the same commit).
date=$(git log -1 --format=%cD 2>/dev/null || date -R)
printf 'relayfetch (%s) unstable; urgency=medium\n\n  * Built from commit %s.\n\n -- %s  %s\n' \
    "$version" "$commit" "$maintainer" "$date" | gzip -9n >"$doc/changelog.gz"
chmod 0644 "$doc/copyright" "$doc/changelog.gz"

depends=$(cd "$out" && dpkg-shlibdeps -O "$binary" | sed -n 's/^shlibs:Depends=//p')
[[ -n $depends ]] || { echo "package-deb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }

cat >"$stage/DEBIAN/control" <<CONTROL
Package: relayfetch
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $(du -sk --apparent-size "$stage/usr" | cut -f1)
Depends: $depends
Section: web
Priority: optional
Description: fetch web pages privately through relays
 relayfetch fetches single resources (get, with curl's options), whole pages as
 a browser loads them (page), OAuth and OpenID Connect login flows (oauth) and
 polite, resumable crawls (crawl), every byte through the privacy relays named:
 HTTP/1.1, HTTP/2 and HTTP/3 CONNECT, chains of relays, and Oblivious HTTP.
CONTROL
chmod -R u+rwX,go+rX,go-w "$stage"

deb=$out/relayfetch_${version}_${arch}.deb
dpkg-deb --root-owner-group --build "$stage" "$deb" >&2
# Errors fail the build; warnings and notes are printed for a maintainer to read.
lintian --fail-on error --tag-display-limit 0 "$deb" >&2 || { echo "package-deb: lintian reports errors (above)" >&2; exit 1; }
echo "$deb"
