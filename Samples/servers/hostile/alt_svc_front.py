"""A TLS relay front (HTTP/1.1 CONNECT, no QUIC) that advertises HTTP/3 elsewhere: each CONNECT
is passed to relay A's squid (--upstream, plain HTTP, the client's Proxy-Authorization with it),
and squid's answer comes back with "Alt-Svc: <--alt-svc>" added, then bytes flow both ways.
Logs "CONNECT<TAB>authority" per tunnel.
"""
import socket

import hostile_common as common


def extra(parser):
    parser.add_argument("--upstream", default="127.0.0.11:3128")
    parser.add_argument("--alt-svc", default='h3=":4433"; ma=60')


args = common.arguments("relay front advertising HTTP/3 with Alt-Svc", extra)
log = common.EventLog(args.log)
upstream_host, upstream_port = args.upstream.rsplit(":", 1)



def handle(conn, _address):
    head, rest = common.read_head(conn)
    if head is None:
        return
    log("CONNECT", head.split(" ")[1] if " " in head else "?")
    upstream = socket.create_connection((upstream_host, int(upstream_port)), 5)
    upstream.sendall(head.encode("latin-1") + b"\r\n\r\n" + rest)
    answer, leftover = common.read_head(upstream)
    if answer is None:
        return
    status_line, _, fields = answer.partition("\r\n")
    reply = status_line + "\r\nAlt-Svc: " + args.alt_svc + ("\r\n" + fields if fields else "") + "\r\n\r\n"
    conn.sendall(reply.encode("latin-1") + leftover)
    upstream.settimeout(None)
    common.splice(conn, upstream)


common.serve(args, handle, common.server_tls_context(args))
