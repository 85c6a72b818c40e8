#!/usr/bin/env python3
"""Writes the seed corpora in Fuzz/Corpus: small hand-made inputs per target, plus inputs derived
from the project's own test vectors (RFC 9292 and RFC 9458 examples, Profiles/, Samples/site).
Run from anywhere; it rewrites only the seeds it names (inputs added by hand or from crashes stay)."""
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
