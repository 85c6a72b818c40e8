#!/usr/bin/env python3
"""An origin whose page redirects and pulls in third-party hosts, for the process-level privacy
tests (HostileServer.swift). Not hostile in itself: a well-behaved HTTPS/1.1 origin on
127.0.0.21 (the origin certificate), reached through relay A as origin.test:<port>.

  /moved?Q               302 to /page.html?Q (the page itself arrives through a redirect)
  /page.html?Q           HTML whose stylesheet and images come from origin2.test and from the
                         IP literal 127.0.0.22 (origin B, which a direct connection could reach),
                         and one image through a cross-host redirect; Q is carried onto each
                         subresource URL, so origin B's log can be searched for it
  /to-third-party.svg?Q  302 to https://origin2.test/logo.svg?Q-redirected

Anything else is 404. Connections stay open for further requests (keep-alive) until the client
closes them. Logs "METHOD<TAB>TARGET" per request.
"""
import signal

import hostile_common

PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>third parties</title>
<link rel="stylesheet" href="https://origin2.test/style.css?{q}">
</head><body>
<img src="https://origin2.test/logo.svg?{q}" alt="">
<img src="https://127.0.0.22/bg.svg?{q}" alt="">
<img src="/to-third-party.svg?{q}" alt="">
</body></html>
"""


def respond(conn, status, headers, body=b""):
    head = "HTTP/1.1 %s\r\nContent-Length: %d\r\n" % (status, len(body))
    head += "".join("%s: %s\r\n" % item for item in headers)
    conn.sendall(head.encode("latin-1") + b"\r\n" + body)


def main():
    # A test process may start us from a thread that blocks signals; take SIGTERM again.
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    args = hostile_common.arguments(__doc__.splitlines()[0])
    log = hostile_common.EventLog(args.log)

    def answer(conn, method, target):
        log(method, target)
        path, _, query = target.partition("?")
        if path == "/moved":
            respond(conn, "302 Found", [("Location", "/page.html?" + query)])
        elif path == "/page.html":
            respond(conn, "200 OK", [("Content-Type", "text/html; charset=utf-8")], PAGE.format(q=query).encode())
        elif path == "/to-third-party.svg":
            respond(conn, "302 Found", [("Location", "https://origin2.test/logo.svg?%s-redirected" % query)])
        else:
            respond(conn, "404 Not Found", [("Content-Type", "text/plain")], b"not found\n")

    def handle(conn, address):
        for head in hostile_common.request_heads(conn):  # GET requests only: each is a head with no body
            method, target = (head.split("\r\n", 1)[0].split(" ") + ["", ""])[:2]
            answer(conn, method, target)

    hostile_common.serve(args, handle, hostile_common.server_tls_context(args, alpn=["http/1.1"]))


if __name__ == "__main__":
    main()
