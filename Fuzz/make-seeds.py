#!/usr/bin/env python3
"""Writes the seed corpora in Fuzz/Corpus: small hand-made inputs per target, plus inputs derived
from the project's own test vectors (RFC 9292 and RFC 9458 examples, Profiles/, Samples/site).
Run from anywhere; it rewrites only the seeds it names (inputs added by hand or from crashes stay)."""
import gzip
import os
import re
import shutil

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "Fuzz", "Corpus")


def seed(target, name, data):
    folder = os.path.join(CORPUS, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as out:
        out.write(data if isinstance(data, bytes) else data.encode())


def copy(target, path, name=None):
    folder = os.path.join(CORPUS, target)
    os.makedirs(folder, exist_ok=True)
    shutil.copyfile(os.path.join(ROOT, path), os.path.join(folder, name or os.path.basename(path)))


def varint(value):
    if value < 0x40:
        return bytes([value])
    if value < 0x4000:
        return (0x4000 | value).to_bytes(2, "big")
    if value < 0x40000000:
        return (0x80000000 | value).to_bytes(4, "big")
    return (0xC000000000000000 | value).to_bytes(8, "big")


def swift_hex_literals(path):
    """The Data(hex: \"\"\" ... \"\"\") and Data(hex: "...") literals of a Swift test file, by name."""
    text = open(os.path.join(ROOT, path)).read()
    found = {}
    for name, body in re.findall(r'(\w+) = Data\(hex: """(.*?)"""\)', text, re.S):
        found[name] = bytes.fromhex("".join(body.split()))
    for name, body in re.findall(r'(\w+) = Data\(hex: "([0-9a-fA-F]+)"\)', text):
        found[name] = bytes.fromhex(body)
    return found


# The CONNECT response parser: first byte is the chunk size the harness feeds with.
for name, chunk, text in [
    ("established", 0xFF, b"HTTP/1.1 200 Connection established\r\n\r\n"),
    ("established-leftover", 3, b"HTTP/1.1 200 OK\r\nVia: relay\r\n\r\n\x16\x03\x01tls"),
    ("interim", 0, b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n\r\n"),
    ("proxy-auth", 7, b"HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Bearer\r\nContent-Length: 0\r\n\r\n"),
    ("bad-gateway", 0xFF, b"HTTP/1.0 502 Bad Gateway\r\n\r\n"),
    ("no-reason", 1, b"HTTP/1.1 204\r\n\r\n"),
    ("malformed", 0xFF, b"SSH-2.0-OpenSSH\r\n\r\n"),
    ("incomplete", 0xFF, b"HTTP/1.1 200 OK\r\n"),
]:
    seed("connect-response", name, bytes([chunk]) + text)
# A head just under the 64 KiB limit, fed a byte at a time: searching it from the start at every
# read took 207 s here before the parser resumed its search.
seed("connect-response", "byte-at-a-time-64k", b"\x00HTTP/1.1 200 OK\r\nX: " + b"a" * 65000)

# The SOCKS5 handshake: first byte is the chunk size, the second's bits credentials (1) and a relay
# after the hop (2); then the server's answers.
success = bytes([5, 0, 0, 1, 127, 0, 0, 61, 0x9C, 0x40])
for name, chunk, flags, answers in [
    ("no-auth", 1, 0, bytes([5, 0]) + success + b"tunnel"),
    ("pipelined", 0xFF, 0, bytes([5, 0]) + success),
    ("credentials", 1, 1, bytes([5, 2, 1, 0]) + success),
    ("rejected", 0xFF, 1, bytes([5, 2, 1, 0xFF])),
    ("no-method", 0, 0, bytes([5, 0xFF])),
    ("refused-next-hop", 2, 2, bytes([5, 0, 5, 5, 0])),
    ("domain-reply", 1, 0, bytes([5, 0, 5, 0, 0, 3, 4]) + b"host" + bytes([0, 80])),
]:
    seed("socks5-handshake", name, bytes([chunk, flags]) + answers)

# The CONNECT-UDP capsule codec: first byte is the chunk size.
datagram = lambda payload, context=0: varint(0) + varint(len(varint(context)) + len(payload)) + varint(context) + payload
for name, chunk, stream in [
    ("one-datagram", 0xFF, datagram(b"\x00\x01dns query")),
    ("split", 2, datagram(b"a" * 70) + datagram(b"second")),
    ("other-type", 0xFF, varint(0x2A) + varint(3) + b"xyz" + datagram(b"after")),
    ("other-context", 4, datagram(b"ignored", context=2) + datagram(b"kept")),
    ("empty-capsule", 0xFF, varint(0) + varint(0) + datagram(b"p")),
    ("too-large", 0xFF, varint(0) + varint(70000) + b"x"),
    ("long-varints", 1, bytes.fromhex("c000000000000000") + bytes.fromhex("4003") + b"\x00ab"),
]:
    seed("capsule", name, bytes([chunk]) + stream)

# Binary HTTP: the RFC 9292 Section 5 examples the tests use, and a few hand-made messages.
for name, data in swift_hex_literals("Tests/ObliviousHTTPTests/RFC9292Examples.swift").items():
    seed("bhttp", name, data)
seed("bhttp", "minimal-request", b"\x00\x03GET\x05https\x00\x01/")
seed("bhttp", "minimal-response", b"\x01\x40\xc8")
seed("bhttp", "pseudo-field", b"\x00\x03GET\x05https\x01a\x01/\x0a\x07:plugin\x01x\x01y\x01b\x00")

# OHTTP key configurations: RFC 9458 Appendix A, as one configuration and as lists.
appendix_a = swift_hex_literals("Tests/ObliviousHTTPTests/OHTTPKeyConfigTests.swift")["appendixA"]
seed("ohttp-keys", "appendix-a", appendix_a)
seed("ohttp-keys", "appendix-a-list", len(appendix_a).to_bytes(2, "big") + appendix_a)
other_kem = bytes([7]) + (0x0010).to_bytes(2, "big") + b"\x04" + b"\x11" * 64 + b"\x00\x04\x00\x01\x00\x01"
seed("ohttp-keys", "two-kems-list", len(other_kem).to_bytes(2, "big") + other_kem + len(appendix_a).to_bytes(2, "big") + appendix_a)
seed("ohttp-keys", "unknown-aead", appendix_a[:-8] + b"\x00\x04\x00\x01\x00\x99")

# Cookies: the response URL, then one Set-Cookie value per line.
for name, text in [
    ("host-only", "https://www.example.com/shop/cart\na=1\nb=2; Path=/; HttpOnly"),
    ("domain", "https://www.example.com/\nd=4; Domain=.EXAMPLE.com; Path=/\ne=5; Domain=co.uk"),
    ("expiry", "https://example.com/\na=1; Max-Age=60; Expires=Thu, 01 Jan 2099 00:00:00 GMT\nb=2; Expires=Thu, 01 Jan 1970 00:00:00 GMT\nc=3; Max-Age=0"),
    ("prefixes", "https://example.com/\n__Secure-a=1; Secure\n__Host-b=2; Secure; Path=/\n__Host-c=3; Secure; Path=/; Domain=example.com"),
    ("samesite", "https://a.example/\nlax=1\nstrict=2; SameSite=Strict\nnone=3; SameSite=None; Secure\nbad=4; SameSite=None"),
    ("insecure", "http://www.example.com/x/y\ns=1; Secure\nplain=2; Path=relative"),
    ("obsolete-date", "https://example.com/\nold=1; expires=Sunday, 06-Nov-94 08:49:37 GMT\nasc=2; expires=Sun Nov  6 08:49:37 1994"),
]:
    seed("cookie", name, text)

# HTML: the sample site, and hand-made pages for the rarer references.
for path in ["Samples/site/index.html", "Samples/site/about.html", "Samples/site/full/index.html",
             "Samples/site/full/frame.html", "Samples/site/refresh/index.html"]:
    copy("html-urls", path, path.replace("Samples/site/", "").replace("/", "-"))
seed("html-urls", "references.html", """<!doctype html><html><head><base href="/sub/">
<link rel="stylesheet" href="a.css"><link rel="preload" as="font" href="f.woff2"><link rel="icon alternate" href="x.ico">
<style>@import url("i.css"); body { background: url(bg.png) }</style></head>
<body><img src="p.png" srcset="p1.png 1x, p2.png 2x"><picture><source srcset="w.webp 100w"></picture>
<video poster="v.jpg" src="v.mp4"></video><svg><use xlink:href="s.svg#i"/><image href="i.svg"/></svg>
<input type="image" src="b.png"><object data="o.swf"></object><iframe src="javascript:x"></iframe>
<div style="background:url('d.png')"></div><a href="#top">top</a></body></html>""")
seed("html-urls", "utf16.html", b"\xff\xfe" + "<img src=\"u.png\">".encode("utf-16-le"))
seed("html-urls", "meta-charset.html", b'<meta charset="iso-8859-1"><img src="caf\xe9.png">')

# CSS (and srcset text, which the same target scans).
for path in ["Samples/site/style.css"] + [os.path.join("Samples/site/full/css", f) for f in sorted(os.listdir(os.path.join(ROOT, "Samples/site/full/css")))]:
    copy("css-urls", path, path.replace("Samples/site/", "").replace("/", "-"))
seed("css-urls", "imports.css", '@import "a.css";\n@IMPORT url(b.css) screen;\n/* url(comment.png) */\n'
     '@font-face { src: url("f.woff2") format("woff2"), url(\'f.woff\') }\n.x { background: URL( x.png ) }\n'
     '.e { content: "\\")" } .d { background: url(data:image/png;base64,AAAA) }\n.u{background:url()}')
seed("css-urls", "srcset.txt", "a.png 1x, https://cdn.example/b.png 2x,c.png 300w,\n#frag 1x, javascript:alert(1) 2x")

# Profiles: the samples, valid and invalid, signed and not.
for folder in ["Profiles", "Profiles/invalid"]:
    for name in sorted(os.listdir(os.path.join(ROOT, folder))):
        if name.endswith(".mobileconfig"):
            copy("profile", os.path.join(folder, name), ("invalid-" if "invalid" in folder else "") + name)

# A relay URL template on an IPv6 literal (its origin was rebuilt without the brackets, and trapped).
seed("profile", "ipv6-template.mobileconfig", """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0"><dict><key>PayloadType</key><string>Configuration</string><key>PayloadVersion</key><integer>1</integer>
<key>PayloadContent</key><array><dict><key>PayloadType</key><string>com.apple.relay.managed</string>
<key>PayloadVersion</key><integer>1</integer><key>Relays</key><array><dict><key>HTTP2RelayURL</key>
<string>https://[::1]:8443/.well-known/masque/udp/{target_host}/{target_port}/</string></dict></array></dict></array></dict></plist>
""")

# The offline-copy path mapper: first byte's low bit says HTML, the rest is a URL or reference.
for name, flags, text in [
    ("page", 1, "https://origin.test/"),
    ("query", 0, "https://origin.test:8443/img/a.png?w=100&h=50"),
    ("relative", 0, "../css/site.css"),
    ("encoded", 0, "https://origin.test/a%20b/c%2Fd.js"),
    ("html-no-ext", 1, "http://origin.test/docs/intro"),
    ("ipv6", 0, "http://[::1]:8080/x.css"),
]:
    seed("offline-path", name, bytes([flags]) + text.encode())

# dns-message: DNS responses as encrypted resolvers send them (RFC 1035 wire format).
def dns_name(text):
    return b"".join(bytes([len(label)]) + label.encode() for label in text.split(".")) + b"\x00"


def dns_record(owner, rtype, ttl, rdata):
    return owner + rtype.to_bytes(2, "big") + b"\x00\x01" + ttl.to_bytes(4, "big") + len(rdata).to_bytes(2, "big") + rdata


def dns_response(question, qtype, answers, rcode=0):
    header = b"\x00\x00\x81" + bytes([0x80 | rcode]) + b"\x00\x01" + len(answers).to_bytes(2, "big") + b"\x00\x00\x00\x00"
    return header + dns_name(question) + qtype.to_bytes(2, "big") + b"\x00\x01" + b"".join(answers)


seed("dns-message", "a-records", dns_response("relay.test", 1, [dns_record(b"\xc0\x0c", 1, 60, bytes([127, 0, 0, 11])),
                                                                  dns_record(b"\xc0\x0c", 1, 60, bytes([127, 0, 0, 12]))]))
seed("dns-message", "cname-chain", dns_response("www.relay.test", 1, [
    dns_record(b"\xc0\x0c", 5, 300, b"\x04edge\xc0\x10"),
    dns_record(b"\xc0\x2c", 1, 30, bytes([127, 0, 0, 11]))]))
seed("dns-message", "aaaa", dns_response("relay.test", 28, [dns_record(b"\xc0\x0c", 28, 60, bytes(15) + b"\x01")]))
seed("dns-message", "https-alpn", dns_response("relay.test", 65, [dns_record(b"\xc0\x0c", 65, 60,
    b"\x00\x01\x00" + b"\x00\x01\x00\x06\x02h3\x02h2" + b"\x00\x03\x00\x02\x11\x51" + b"\x00\x04\x00\x04\x7f\x00\x00\x0b")]))
seed("dns-message", "nxdomain", dns_response("unknown.test", 1, [], rcode=3))
seed("dns-message", "pointer-loop", b"\x00\x00\x81\x80\x00\x01\x00\x00\x00\x00\x00\x00\xc0\x0c\x00\x01\x00\x01")


# The style cascade: the browser-mode sample's sheets, and selectors, media queries and values alone.
for path in ["Samples/site/browser/main.css", "Samples/site/browser/frame.css", "Samples/site/full/css/main.css"]:
    copy("style-cascade", path, path.replace("Samples/site/", "").replace("/", "-"))
seed("style-cascade", "selectors.txt", "div:is(.a, #top) > p.note:nth-child(2n+1 of .note) ~ span:not([hidden]):has(> b), ul li::before")
seed("style-cascade", "media.txt", "screen and (min-width: 600px) and (not (hover: none)), (400px <= width < 700px), print")
seed("style-cascade", "nested.css", '@media (min-width: 1px) { @supports (display: grid) { .box { background: image-set("a.png" 1x, url(b.png) 2x) } } }\n'
     '@font-face { font-family: X; src: local(Y), url(x.woff2) format("woff2"); unicode-range: U+00??, U+0400-04FF }\n'
     'body { font: italic bold 12px/1.5 X, serif; --v: url(v.png) } li { list-style: square url(l.png) } p::after { content: "\\f015" attr(class); background: var(--v) }')
seed("style-cascade", "srcset.txt", "a.png 400w, b.png 800w, data:image/png;base64,AAA, c.png 2x")

# Header field values: HTTP dates in all three forms and the cookie variants, Retry-After,
# Alt-Svc and Content-Type. The first eight bytes also seed the time round trip.
for name, text in [
    ("imf-fixdate", "Sun, 06 Nov 1994 08:49:37 GMT"),
    ("rfc850", "Sunday, 06-Nov-94 08:49:37 GMT"),
    ("asctime", "Sun Nov  6 08:49:37 1994"),
    ("cookie-zone", "Wed, 21-Oct-2015 07:28:00 +0200"),
    ("last-year", "Fri, 31 Dec 9999 23:59:59 -2359"),
    ("first-year", "Mon, 01 Jan 1601 00:00:00 +1400"),
    ("leap-second", "Sat, 31 Dec 2016 23:59:60 GMT"),
    ("retry-seconds", "120"),
    ("alt-svc", 'h3=":4433"; ma=86400, h2=":443", h3="other.test:443"'),
    ("alt-svc-clear", "clear"),
    ("content-type", 'text/html ; charset="utf-8"; q=1'),
]:
    seed("header-fields", name, text)

# robots.txt files; the first line doubles as a pattern and the second as a path for the matcher.
seed("robots", "rfc9309-example", "User-Agent: *\nDisallow: *.gif$\nDisallow: /example/\nAllow: /publications/\n\n"
     "User-Agent: foobot\nDisallow:/\nAllow:/example/page.html\nAllow:/example/allowed.gif\n\n"
     "User-Agent: barbot\nUser-Agent: bazbot\nDisallow: /example/page.html\n\nUser-Agent: quxbot\n")
seed("robots", "pattern-path", "/a*b*c$\n/aXbYbZc")
seed("robots", "stars", "/*a*aa*aaa\n/aaaaaaaaaaaa")
seed("robots", "relayfetch", "user-agent: RelayFetch/1.0 # us\nallow: /%7Efoo/\ndisallow: /\ncrawl-delay: 2.5\nsitemap: https://origin.test/s.xml\n")

# Pages the crawler reads links from: the sample site, and links at the edges of URL syntax.
for path in ["Samples/site/index.html", "Samples/site/about.html", "Samples/site/full/index.html"]:
    copy("crawl-links", path, path.replace("Samples/site/", "").replace("/", "-"))
seed("crawl-links", "edges.html", '<base href="HTTP://Origin.Test.:443/a/./b/../">\n'
     '<a href="../x/%7e%41%2f?utm_source=y&b=%zz#f">1</a><a href="//[::1]:8080/">2</a>'
     '<a href="http://u:p@h:0/">3</a><area href=" /t\tab ">\n<iframe src="?q"></iframe>'
     '<link rel="Canonical" href="/c&amp;d&#x3f;e"><a href=http://h:65536/>5</a><!-- <a href="/hidden"> -->')

# Sitemaps: a URL set, an index, and the URL set gzipped.
urlset = ('<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
          '<url><loc> https://origin.test/a.html </loc></url><url><loc>https://origin.test/b?x=1&amp;y=2</loc></url>\n</urlset>\n')
seed("sitemap", "urlset.xml", urlset)
seed("sitemap", "index.xml", '<?xml version="1.0"?><sitemapindex><sitemap><loc>https://origin.test/s1.xml.gz</loc></sitemap></sitemapindex>')
seed("sitemap", "urlset.xml.gz", gzip.compress(urlset.encode(), mtime=0))

# What OAuth providers answer: token responses, a device code, a JWK Set, a compact JWS, and
# ID token claims (the target signs them with a key its validator trusts).
for name, text in [
    ("token", '{"access_token": "at", "token_type": "Bearer", "expires_in": 3600, "refresh_token": "rt", "scope": "openid read"}'),
    ("device-code", '{"device_code": "d", "user_code": "U", "verification_uri": "https://idp.test/device", "interval": 5, "expires_in": 600}'),
    ("jwks", '{"keys": [{"kty": "OKP", "crv": "Ed25519", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo", "kid": "k"},'
             ' {"kty": "EC", "crv": "P-256", "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"},'
             ' {"kty": "RSA", "n": "AQAB", "e": "AQAB"}]}'),
    ("jws", "eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc.hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg"),
    ("claims", '{"iss": "https://idp.test", "aud": ["client", "other"], "azp": "client", "exp": 1800000300, "iat": 1799999900,'
               ' "nonce": "n", "at_hash": "x", "c_hash": "y", "sub": "alice"}'),
]:
    seed("oauth-response", name, text)

# Command lines (arguments split at NUL, the command first), for every command's parser: usual
# ones, each kind of number at its edges, the direct rule, and the values that trapped before the
# checked parser (crawl --max-bytes 9999999999G, --connect-timeout 1e300, page --viewport "").
relay = ["--relay", "https://127.0.0.11:3129", "--relay-header", "Proxy-Authorization: Bearer t", "--relay-protocol", "h2"]
for name, arguments in [
    ("get", ["get", "https://Origin.Test/a?b", "-o", "out.bin", "-C", "-", "--max-filesize", "100M", "-H", "X: y", "-v"] + relay),
    ("get-direct", ["get", "https://origin.test/", "--direct", "--resolve", "origin.test:443:127.0.0.21", "--max-time", "1.5"]),
    ("get-ohttp", ["get", "https://origin.test/", "--ohttp-relay", "https://127.0.0.30/relay", "--ohttp-keys", "https://127.0.0.30/keys",
                   "--exclude-domain", "x.test", "--doh", "https://dns.test/dns-query", "--dns-server-address", "127.0.0.50",
                   "--require-encrypted-dns"]),
    ("page", ["page", "https://origin.test/", "--viewport", "390x844@3", "--max-page-bytes", "64G", "--frame-depth", "10",
              "--import-depth=32", "--max-subresources", "1000000", "--complete", "--json"] + relay),
    ("page-viewport-empty", ["page", "https://origin.test/", "--viewport", ""] + relay),
    ("oauth", ["oauth", "scenario.json", "--parallel", "4", "--junit", "j.xml"] + relay),
    ("oauth-direct", ["oauth", "scenario.json", "--direct"]),
    ("crawl", ["crawl", "https://origin.test/", "-", "--seeds", "seeds.txt", "--max-bytes", "1T", "--max-pages", "1000000000000",
               "--concurrency", "10000", "--per-host", "1000", "--delay", "0", "--rate", "0.001", "--retries", "100",
               "--relay-wait", "31536000", "--warc-max-size", "1K", "--max-depth", "0"] + relay + ["--chain", "--relay", "https://r.test"]),
    ("crawl-max-bytes-overflow", ["crawl", "https://origin.test/", "--max-bytes", "9999999999G"] + relay),
    ("crawl-connect-timeout", ["crawl", "https://origin.test/", "--connect-timeout=1e300", "--store", "postgres://u@h/db",
                               "--lease", "60"] + relay),
    ("crawl-rate", ["crawl", "https://origin.test/", "--rate", "1e-300"] + relay),
    ("profile", ["profile", "show", "p.mobileconfig", "--json", "--profile-cacert", "ca.pem"]),
    ("help", ["crawl", "--help"]),
]:
    seed("arguments", name, "\0".join(arguments))
