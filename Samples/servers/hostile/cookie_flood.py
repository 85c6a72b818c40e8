#!/usr/bin/env python3
"""A hostile HTTPS origin that floods the client with cookies (see HostileServer.swift).

GET /flood?n=N answers with N Set-Cookie headers (c0=... to cN-1=...), plus one cookie whose
name and value pass 4096 octets and one whose Path attribute passes 1024 octets. Any other path
answers 200 and logs the Cookie header it received:
    cookie <TAB> <path> <TAB> <octets> <TAB> <count> <TAB> <first name> <TAB> <last name>
"""
import urllib.parse

import hostile_common


def main():
    args = hostile_common.arguments(__doc__)
    log = hostile_common.EventLog(args.log)

    def handle(conn, address):
        head, _ = hostile_common.read_head(conn)
        if head is None:
            return
        target = head.split("\r\n", 1)[0].split(" ")[1]
        url = urllib.parse.urlsplit(target)
        headers = {}
        for line in head.split("\r\n")[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if url.path == "/flood":
            count = int(urllib.parse.parse_qs(url.query).get("n", ["2000"])[0])
            fields = ["Set-Cookie: c%d=value-%d; Path=/" % (i, i) for i in range(count)]
            fields.append("Set-Cookie: huge=%s; Path=/" % ("x" * 4100))
            fields.append("Set-Cookie: longpath=1; Path=/%s" % ("p" * 1100))
            log("flood", count)
        else:
            fields = []
            cookie = headers.get("cookie", "")
            names = [part.split("=", 1)[0].strip() for part in cookie.split(";") if part.strip()]
            log("cookie", url.path, len(cookie.encode()), len(names), names[0] if names else "-", names[-1] if names else "-")
        body = b"ok\n"
        response = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\nConnection: close\r\n" % len(body)
        response += "".join(field + "\r\n" for field in fields) + "\r\n"
        conn.sendall(response.encode("latin-1") + body)

    hostile_common.serve(args, handle, hostile_common.server_tls_context(args, alpn=["http/1.1"]))


if __name__ == "__main__":
    main()
