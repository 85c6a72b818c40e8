"""A hostile HTTP/1.1 origin: each path is a way of misbehaving. Logs every request it gets as
"REQUEST<TAB>method<TAB>path<TAB>header: value|header: value...".

Paths:
  /truncate/N          Content-Length: N, sends N/2 bytes, then closes TCP (no TLS close_notify)
  /truncate-unlength/N no length (read until close), N bytes, then closes TCP (no close_notify)
  /unlength/N          no length, N bytes, then TLS close_notify and close (a whole body)
  /unlength-stall/N    no length, N bytes, then stays open and silent
  /stall-body/N        Content-Length: 2N, sends N bytes, then stays open and silent
  /big-header/N        a response header line of N bytes
  /redirect?to=URL     302 to URL (percent-decoded)
  /slow-redirect/N     after 0.8 s, 302 to /slow-redirect/N-1 (N = 0: 200)
  anything else        200 with a small body naming the path
"""
import socket
import time
import urllib.parse

import hostile_common as common


def extra(parser):
    parser.add_argument("--plain", action="store_true", help="plain HTTP instead of TLS")


args = common.arguments("hostile origin", extra)
log = common.EventLog(args.log)


def send_all(conn, data):
    conn.sendall(data)


def hard_close(conn):
    """Closes the TCP connection without a TLS close_notify (SSLSocket.shutdown drops the TLS
    object without sending one)."""
    try:
        conn.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    conn.close()


def handle(conn, address):
    head, _ = common.read_head(conn)
    if head is None:
        return
    lines = head.split("\r\n")
    method, target, _ = (lines[0].split(" ", 2) + ["", ""])[:3]
    log("REQUEST", method, target, "|".join(lines[1:]))
    path, _, query = target.partition("?")
    parts = path.strip("/").split("/")
    number = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0
    if parts[0] == "truncate":
        send_all(conn, b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % number + b"x" * (number // 2))
        time.sleep(0.2)
        hard_close(conn)
    elif parts[0] == "unlength":
        send_all(conn, b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + b"x" * number)
        try:
            conn.unwrap()  # sends close_notify
        except (OSError, ValueError):
            pass
        hard_close(conn)
    elif parts[0] == "truncate-unlength":
        send_all(conn, b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + b"x" * number)
        time.sleep(0.2)
        hard_close(conn)
    elif parts[0] == "unlength-stall":
        send_all(conn, b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + b"x" * number)
        common.stall_forever()
    elif parts[0] == "stall-body":
        send_all(conn, b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % (2 * number) + b"x" * number)
        common.stall_forever()
    elif parts[0] == "big-header":
        send_all(conn, b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Big: " + b"a" * number + b"\r\n\r\nok")
        time.sleep(1)
    elif parts[0] == "slow-redirect":
        time.sleep(0.8)
        location = b"/slow-redirect/%d" % (number - 1)
        if number > 0:
            send_all(conn, b"HTTP/1.1 302 Found\r\nLocation: " + location + b"\r\nContent-Length: 0\r\n\r\n")
        else:
            send_all(conn, b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nend")
        time.sleep(0.2)
    elif parts[0] == "redirect":
        location = urllib.parse.unquote(urllib.parse.parse_qs(query).get("to", ["/"])[0])
        send_all(conn, b"HTTP/1.1 302 Found\r\nLocation: " + location.encode() +
                 b"\r\nContent-Length: 0\r\nSet-Cookie: sid=secret1; Secure; Path=/\r\n"
                 b"Set-Cookie: plain=visible; Path=/\r\n\r\n")
        time.sleep(0.5)
    else:
        body = ("ok %s\n" % path).encode()
        send_all(conn, b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % len(body) + body)


common.serve(args, handle, None if args.plain else common.server_tls_context(args, ["http/1.1"]))
