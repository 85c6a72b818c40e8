"""A static HTTPS origin for crawl tests: serves the files under --root over HTTP/1.1 with
keep-alive, and logs every request as
"REQUEST<TAB>unix time<TAB>requests in progress<TAB>peer address<TAB>method<TAB>target<TAB>header: value|...".

Behaviours:
  /                 serves index.html (any path ending in / serves its index.html)
  /flaky/...        the first request for each path gets 503 with Retry-After: 1
  --delay-ms N      every response waits N ms first (so concurrent requests overlap in the log)
  --robots-status N /robots.txt answers N with an empty body instead of the file
  --robots-drop     /robots.txt gets no answer: the connection is closed (a network failure)
  --robots-garbage  /robots.txt is answered with bytes that are not HTTP, the connection kept
                    open (a failure of the origin, past the relays, never a tunnel closed early)
  --robots-failures K  only the first K requests for /robots.txt get --robots-status or
                    --robots-drop; later ones are served the file (a site that recovers)
  --robots-retry-after S  with --robots-status, the answer carries "Retry-After: S"
  --set-cookie      every response sets a cookie naming its path (crawl=<path>)
  --cache-control V every 200 response carries "Cache-Control: V" (a site whose responses caches keep)
  --fresh-links N   /fresh on any host name is a page linking to /fresh on N host names never
                    given before (f1.origin.test, f2.origin.test...): a site that answers every
                    host name, as wildcard DNS would let it
  --plain           plain HTTP instead of TLS (for an address the origin certificate does not
                    name); "@ORIGIN@" then becomes http:// and the Host
  --cookie-domain D with --set-cookie, the cookie is for domain D (Domain=D) and named after the
                    host that set it (from-<host with . and : as ->=<path>), so a request that
                    carries it shows which host's response set it
FILE.headers, when it exists beside FILE, holds header lines added to FILE's response
("X-Robots-Tag: nofollow"); a line "Status: 302 Found" replaces the status (with "Location: ..."
a redirect).
Every response is also logged as "SENT<TAB>unix time<TAB>target<TAB>status<TAB>body bytes<TAB>
SHA-256 of the body (hex)", so a test checks sizes and digests against what was really sent.
A client that goes away while a response is being sent is logged as
"ABORTED<TAB>unix time<TAB>peer address<TAB>target" (its body was not read to the end).
Queries are ignored when finding the file; missing files get 404. In .txt and .xml files
"@ORIGIN@" becomes https:// and the request's Host; FILE.gz, when only FILE exists, is FILE
(so substituted) gzipped, as application/gzip.
"""
import gzip
import hashlib
import os
import threading
import time

import hostile_common as common

# .htm: HTML whose type names no charset (its <meta> or the bytes decide).
TYPES = {".html": "text/html; charset=utf-8", ".htm": "text/html", ".txt": "text/plain", ".xml": "application/xml"}


def extra(parser):
    parser.add_argument("--root", required=True)
    parser.add_argument("--delay-ms", type=int, default=0)
    parser.add_argument("--robots-status", type=int, default=0)
    parser.add_argument("--robots-drop", action="store_true")
    parser.add_argument("--robots-garbage", action="store_true")
    parser.add_argument("--robots-failures", type=int, default=0)
    parser.add_argument("--robots-retry-after")
    parser.add_argument("--set-cookie", action="store_true")
    parser.add_argument("--cookie-domain")
    parser.add_argument("--plain", action="store_true")
    parser.add_argument("--cache-control")
    parser.add_argument("--fresh-links", type=int, default=0)


args = common.arguments("static crawl-test origin", extra)
log = common.EventLog(args.log)
root = os.path.realpath(args.root)
lock = threading.Lock()
in_progress = [0]
flaky_seen = set()
robots_failed = [0]
fresh_hosts = [0]


class Dropped(Exception):
    """The connection is to be closed without an answer."""


def respond(conn, status, reason, body, content_type="text/plain", extra_headers=b"", path="", host="", target=""):
    value = path.replace(";", "").encode()
    if args.set_cookie and args.cookie_domain:
        name = "from-" + host.replace(".", "-").replace(":", "-")
        extra_headers += b"Set-Cookie: %s=%s; Domain=%s; Path=/\r\n" % (name.encode(), value, args.cookie_domain.encode())
    elif args.set_cookie:
        extra_headers += b"Set-Cookie: crawl=%s; Path=/\r\n" % value
    conn.sendall(b"HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n%s\r\n"
                 % (status, reason.encode(), content_type.encode(), len(body), extra_headers) + body)
    log("SENT", "%.3f" % time.time(), target, status, len(body), hashlib.sha256(body).hexdigest())


def robots_fails():
    """Whether this request for /robots.txt gets the configured failure."""
    if not (args.robots_status or args.robots_drop or args.robots_garbage):
        return False
    with lock:
        robots_failed[0] += 1
        return args.robots_failures == 0 or robots_failed[0] <= args.robots_failures


def sidecar_headers(file):
    """The status line and header lines FILE.headers adds, if that file exists."""
    status, reason, extra = 200, "OK", b""
    if os.path.isfile(file + ".headers"):
        with open(file + ".headers", "rb") as f:
            for line in f.read().decode().splitlines():
                name, _, value = line.partition(":")
                if name.strip().lower() == "status":
                    code, _, reason = value.strip().partition(" ")
                    status = int(code)
                elif line.strip():
                    extra += line.strip().encode() + b"\r\n"
    return status, reason, extra


def serve_one(conn, method, target, host):
    path = target.split("?", 1)[0]
    if path == "/robots.txt" and robots_fails():
        if args.robots_garbage:
            conn.sendall(b"SPDY/9 what\r\n\r\n")
            log("GARBAGE", "%.3f" % time.time(), target)
            return
        if args.robots_drop:
            raise Dropped()
        retry = b"Retry-After: %s\r\n" % args.robots_retry_after.encode() if args.robots_retry_after else b""
        respond(conn, args.robots_status, "Status", b"", extra_headers=retry, target=target)
        return
    if path == "/fresh" and args.fresh_links:
        with lock:
            first = fresh_hosts[0] + 1
            fresh_hosts[0] += args.fresh_links
        port = host.rpartition(":")[2]
        links = b"".join(b'<a href="https://f%d.origin.test:%s/fresh">f</a>\n' % (k, port.encode()) for k in range(first, first + args.fresh_links))
        respond(conn, 200, "OK", b"<!doctype html><html><body>" + links + b"</body></html>", "text/html; charset=utf-8", target=target)
        return
    if path.startswith("/flaky/"):
        with lock:
            first = path not in flaky_seen
            flaky_seen.add(path)
        if first:
            respond(conn, 503, "Service Unavailable", b"try later\n", extra_headers=b"Retry-After: 1\r\n", target=target)
            return
    relative = path.lstrip("/")
    if relative == "" or relative.endswith("/"):
        relative += "index.html"
    file = os.path.realpath(os.path.join(root, relative))
    zipped = file.endswith(".gz") and not os.path.isfile(file)
    if zipped:
        file = file[:-3]
    if not file.startswith(root + os.sep) or not os.path.isfile(file):
        respond(conn, 404, "Not Found", b"not found\n", target=target)
        return
    with open(file, "rb") as f:
        body = f.read()
    content_type = TYPES.get(os.path.splitext(file)[1], "application/octet-stream")
    if file.endswith((".txt", ".xml")):
        body = body.replace(b"@ORIGIN@", (b"http://" if args.plain else b"https://") + host.encode())
    if zipped:
        body, content_type = gzip.compress(body), "application/gzip"
    extra = b"Cache-Control: %s\r\n" % args.cache_control.encode() if args.cache_control else b""
    status, reason, added = sidecar_headers(file)
    respond(conn, status, reason, body if method != "HEAD" else b"", content_type, extra_headers=extra + added, path=path, host=host,
            target=target)


def handle(conn, address):
    for head in common.request_heads(conn):
        lines = head.split("\r\n")
        method, target, _ = (lines[0].split(" ", 2) + ["", ""])[:3]
        with lock:
            in_progress[0] += 1
            active = in_progress[0]
        log("REQUEST", "%.3f" % time.time(), active, address[0], method, target, "|".join(lines[1:]))
        try:
            if args.delay_ms:
                time.sleep(args.delay_ms / 1000.0)
            host = next((line.split(":", 1)[1].strip() for line in lines[1:] if line.lower().startswith("host:")), "origin.test")
            serve_one(conn, method, target, host)
        except Dropped:
            log("DROPPED", "%.3f" % time.time(), address[0], target)
            return
        except OSError:  # the peer went away mid-response (a broken pipe, a reset, a TLS error)
            log("ABORTED", "%.3f" % time.time(), address[0], target)
            return
        finally:
            with lock:
                in_progress[0] -= 1
        if any(line.lower() == "connection: close" for line in lines[1:]):
            return


context = None
if not args.plain:
    context = common.server_tls_context(args, ["http/1.1"])
    # No TLS 1.3 session tickets: sent after the handshake, they hold the first response back by
    # a delayed ACK (about 40 ms) on every new connection.
    context.num_tickets = 0
common.serve(args, handle, context)
