"""A hostile origin for `page`: generates on the fly the pages that bound a page's work and the
subresource URLs that must not escape a --save folder. HTTP/1.1 with keep-alive, over TLS
(origin certificate) unless --plain.

Log lines (TAB-separated):  CONN <peer> <connections open>  |  REQ <path?query> <Referer or ->

Routes (n, k, mb from the query):
  /many?n=N            HTML with N distinct <img>
  /big-images?n=N&kb=K HTML with N distinct <img> of K KiB each
  /css-page?n=N        HTML linking /big.css?n=N, a sheet with N distinct url()s
  /css-value-page?n=N  HTML linking /value.css?n=N, a sheet whose one rule gives <body> N distinct
                       background images (one declaration)
  /import-page         HTML linking /import/0.css; /import/K.css imports /import/K+1.css, forever
  /frame/K.html        an <iframe> of /frame/K+1.html, forever, and one image per level
  /large?mb=M          M * 1,000,000 bytes of HTML, an <img> every ~1 MB and /tail/last.png at the end
  /traversal           <img> (and <link rel=stylesheet> for .css) for every line of --corpus
  /referer-page?other=P&plain=Q[&meta=POLICY]
                       same-origin, cross-origin (port P), https->http (port Q) and attribute-
                       policy images, and one that redirects cross-origin
  /redirect?to=URL     302 to URL
  /slow-image-page     an <img> of /slow.png (answered after 2 s) and a sheet whose background
                       image applies: browser mode must not wait for the slow image to style the page
  anything else        a few bytes (HOSTILE-BYTES and the path), typed by extension
"""
import html
import signal
import sys
import threading
import time
import urllib.parse

sys.path.insert(0, __import__("os").path.dirname(__file__))
import hostile_common  # noqa: E402

TYPES = {".css": "text/css", ".html": "text/html", ".png": "image/png", ".svg": "image/svg+xml", ".js": "text/javascript"}


def page(body):
    return b"<!DOCTYPE html><html><head><title>hostile</title></head><body>" + body + b"</body></html>"


def respond(conn, status, content_type, body, extra=b""):
    head = ("HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %d\r\nCache-Control: no-store\r\n"
            % (status, content_type, len(body))).encode() + extra + b"\r\n"
    conn.sendall(head)
    view = memoryview(body)
    for offset in range(0, len(body), 1 << 16):
        conn.sendall(view[offset:offset + (1 << 16)])


def large_page(megabytes):
    total = megabytes * 1_000_000
    filler = b"<p>" + b"lorem ipsum dolor sit amet " * 36 + b"</p>\n"
    parts = [b"<!DOCTYPE html><html><head><title>large</title></head><body>\n"]
    size = len(parts[0])
    step = 0
    tail = b'<img src="/tail/last.png"></body></html>\n'
    while size + len(filler) + len(tail) + 64 < total:
        if size // 1_000_000 > step:
            step = size // 1_000_000
            marker = b'<img src="/large-img/%d.png">\n' % step
            parts.append(marker)
            size += len(marker)
        parts.append(filler)
        size += len(filler)
    pad = total - size - len(tail)
    parts.append(b" " * pad)
    parts.append(tail)
    return b"".join(parts)


def route(path, query, args):
    """(status, content type, body, extra header bytes) for one request."""
    number = lambda name, default: int(query.get(name, [default])[0])
    if path == "/many":
        n = number("n", 1000)
        return "200 OK", "text/html", page(b"".join(b'<img src="/img/i%d.png">\n' % k for k in range(n))), b""
    if path == "/big-images":
        n, kb = number("n", 20), number("kb", 512)
        return "200 OK", "text/html", page(b"".join(b'<img src="/blob/%d.png?kb=%d">' % (k, kb) for k in range(n))), b""
    if path.startswith("/blob/"):
        return "200 OK", "image/png", b"B" * (number("kb", 512) * 1024), b""
    if path == "/css-page":
        return "200 OK", "text/html", page(b'<link rel="stylesheet" href="/big.css?n=%d">' % number("n", 1000)), b""
    if path == "/big.css":
        n = number("n", 1000)
        return "200 OK", "text/css", b"".join(b"a%d{background:url(/u/%d.png)}\n" % (k, k) for k in range(n)), b""
    if path == "/css-value-page":
        return "200 OK", "text/html", page(b'<link rel="stylesheet" href="/value.css?n=%d"><p>text</p>' % number("n", 1000)), b""
    if path == "/value.css":
        images = b",".join(b"url(/v/%d.png)" % k for k in range(number("n", 1000)))
        return "200 OK", "text/css", b"body{background-image:" + images + b"}\n", b""
    if path == "/slow-image-page":
        return "200 OK", "text/html", page(b'<link rel="stylesheet" href="/bg.css"><img src="/slow.png"><p>text</p>'), b""
    if path == "/bg.css":
        return "200 OK", "text/css", b"body { background: url(/bg.png) }\n", b""
    if path == "/slow.png":
        time.sleep(2)
        return "200 OK", "image/png", b"slow", b""
    if path == "/import-page":
        return "200 OK", "text/html", page(b'<link rel="stylesheet" href="/import/0.css">'), b""
    if path.startswith("/import/") and path.endswith(".css"):
        k = int(path[len("/import/"):-len(".css")])
        return "200 OK", "text/css", b'@import url("/import/%d.css");\nbody{margin:0}\n' % (k + 1), b""
    if path.startswith("/frame/") and path.endswith(".html"):
        k = int(path[len("/frame/"):-len(".html")])
        return "200 OK", "text/html", page(b'<img src="/frame-img/%d.png"><iframe src="/frame/%d.html"></iframe>' % (k, k + 1)), b""
    if path == "/large":
        return "200 OK", "text/html", large_page(number("mb", 50)), b""
    if path == "/traversal":
        lines = [line.strip() for line in open(args.corpus, encoding="utf-8") if line.strip() and not line.startswith("#")]
        tags = []
        for line in lines:
            escaped = html.escape(line, quote=True).encode()
            tag = b'<link rel="stylesheet" href="%s">' if line.split("?")[0].endswith(".css") else b'<img src="%s">'
            tags.append(tag % escaped)
        return "200 OK", "text/html", page(b"\n".join(tags)), b""
    if path == "/referer-page":
        other, plain = number("other", 0), number("plain", 0)
        meta = query.get("meta", [None])[0]
        head = b'<meta name="referrer" content="%s">' % meta.encode() if meta else b""
        cross = "https://origin.test:%d" % other
        body = (head + b'<img src="/ref/same.png">'
                + b'<img src="%s/ref/cross.png">' % cross.encode()
                + b'<img src="http://origin.test:%d/ref/plain.png">' % plain
                + b'<img referrerpolicy="no-referrer" src="/ref/attribute-none.png">'
                + b'<img referrerpolicy="unsafe-url" src="%s/ref/attribute-unsafe.png">' % cross.encode()
                + b'<img src="/redirect?to=%s">' % urllib.parse.quote(cross + "/ref/after-redirect.png", safe="").encode())
        return "200 OK", "text/html", page(body), b""
    if path == "/redirect":
        return "302 Found", "text/plain", b"", b"Location: " + query["to"][0].encode() + b"\r\n"
    extension = path[path.rfind("."):] if "." in path.rsplit("/", 1)[-1] else ""
    return "200 OK", TYPES.get(extension, "application/octet-stream"), b"HOSTILE-BYTES " + path.encode(), b""


def main():
    def extra(parser):
        parser.add_argument("--plain", action="store_true", help="plain HTTP instead of TLS")
        parser.add_argument("--corpus", help="file of hostile subresource URLs for /traversal")

    # A process started from a thread that blocks signals inherits the mask: unblock the ones
    # a test ends its server with, or terminate() would wait forever.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM, signal.SIGINT])
    args = hostile_common.arguments("hostile page origin", extra)
    log = hostile_common.EventLog(args.log)

    lock = threading.Lock()
    active = [0]

    def handle(conn, address):
        with lock:
            active[0] += 1
            log("CONN", "%s:%d" % address, active[0])
        try:
            serve_requests(conn)
        finally:
            with lock:
                active[0] -= 1

    def serve_requests(conn):
        for head in hostile_common.request_heads(conn):
            lines = head.split("\r\n")
            target = lines[0].split(" ")[1]
            headers = {}
            for line in lines[1:]:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
            log("REQ", target, headers.get("referer", "-"))
            parsed = urllib.parse.urlsplit(target)
            status, content_type, body, more = route(parsed.path, urllib.parse.parse_qs(parsed.query), args)
            respond(conn, status, content_type, body, more)

    hostile_common.serve(args, handle, None if args.plain else hostile_common.server_tls_context(args, alpn=["http/1.1"]))


if __name__ == "__main__":
    main()
