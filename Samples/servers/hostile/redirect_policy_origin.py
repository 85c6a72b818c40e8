#!/usr/bin/env python3
"""An HTTPS/1.1 origin that redirects as the redirect-policy tests need (HostileServer.swift),
reached through relay A as origin.test:<port> and as www.origin.test:<port> (another origin on
the same server). Not hostile in itself; it records what each request carried.

  /status/CODE?to=URL    answers CODE (301, 302, 303, 307, 308) with Location: URL
  /loop-a, /loop-b       302 to each other
  anything else          200, a small HTML page

Logs one line per request: "REQ<TAB>METHOD<TAB>HOST<TAB>TARGET<TAB>BODY-LENGTH<TAB>FIELDS", FIELDS
being the lower-cased names of the credential and relay fields it carried (authorization,
cookie, proxy-authorization, x-relay-token, origin), comma-separated, "-" for none.
"""
import urllib.parse

import hostile_common

WATCHED = ("authorization", "cookie", "proxy-authorization", "x-relay-token", "origin")


def respond(conn, status, headers, body=b""):
    head = "HTTP/1.1 %s\r\nContent-Length: %d\r\n" % (status, len(body))
    head += "".join("%s: %s\r\n" % item for item in headers)
    conn.sendall(head.encode("latin-1") + b"\r\n" + body)


def main():
    args = hostile_common.arguments(__doc__.splitlines()[0])
    log = hostile_common.EventLog(args.log)

    def handle(conn, address):
        for head, body in hostile_common.requests(conn):
            lines = head.split("\r\n")
            method, target = (lines[0].split(" ") + ["", ""])[:2]
            fields = {}
            for line in lines[1:]:
                name, _, value = line.partition(":")
                fields[name.strip().lower()] = value.strip()
            carried = ",".join(name for name in WATCHED if name in fields) or "-"
            log("REQ", method, fields.get("host", ""), target, len(body), carried)
            path, _, query = target.partition("?")
            params = urllib.parse.parse_qs(query)
            if path.startswith("/status/"):
                code = path.rsplit("/", 1)[1]
                respond(conn, "%s Redirect" % code, [("Location", params.get("to", ["/"])[0])])
            elif path in ("/loop-a", "/loop-b"):
                respond(conn, "302 Found", [("Location", "/loop-b" if path == "/loop-a" else "/loop-a")])
            else:
                respond(conn, "200 OK", [("Content-Type", "text/html; charset=utf-8")],
                        b"<!DOCTYPE html><title>landing</title><p>landed</p>")

    hostile_common.serve(args, handle, hostile_common.server_tls_context(args, alpn=["http/1.1"]))


if __name__ == "__main__":
    main()
