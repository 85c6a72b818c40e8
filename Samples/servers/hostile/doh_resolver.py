"""A hostile DNS-over-HTTPS resolver (RFC 8484 GET): each path is a way of misbehaving. Logs
"QUERY<TAB>path" for every request and "SENT<TAB>path<TAB>bytes" when a flooding answer ends
(the client closed the connection).

Paths (the query arrives in ?dns=):
  /flood             200 application/dns-message, no length, bytes until the client goes away
  /declared-huge     200 application/dns-message, Content-Length: 10000000, a few bytes, then silence
  /other-question    a well-formed answer, but for elsewhere.test (127.0.0.99)
  /garbage           200 application/dns-message with 40 bytes that are not a DNS message
  /stall             200 application/dns-message, Content-Length: 100, then silence
  /html              200 text/html
"""
import base64
import struct
import urllib.parse

import hostile_common as common

args = common.arguments("hostile DoH resolver")
log = common.EventLog(args.log)


def query_of(target):
    _, _, query = target.partition("?")
    value = urllib.parse.parse_qs(query).get("dns", [""])[0]
    return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))


def answer_for_elsewhere(query):
    (ident,) = struct.unpack("!H", query[:2])
    name = b"".join(bytes([len(label)]) + label for label in (b"elsewhere", b"test")) + b"\x00"
    question = name + struct.pack("!HH", 1, 1)
    record = b"\xc0\x0c" + struct.pack("!HHIH", 1, 1, 300, 4) + bytes([127, 0, 0, 99])
    return struct.pack("!HHHHHH", ident, 0x8180, 1, 1, 0, 0) + question + record


def respond(conn, body, content_type="application/dns-message"):
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n" % (content_type.encode(), len(body)) + body)


def handle(conn, address):
    for head in common.request_heads(conn):
        target = head.split("\r\n")[0].split(" ")[1]
        path = target.partition("?")[0]
        log("QUERY", path)
        if path == "/flood":
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/dns-message\r\nConnection: close\r\n\r\n")
            sent, chunk = 0, b"\x00" * 65536
            try:
                while True:
                    conn.sendall(chunk)
                    sent += len(chunk)
            except OSError:
                log("SENT", path, sent)
            return
        if path == "/declared-huge":
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/dns-message\r\nContent-Length: 10000000\r\n\r\n\x00\x00")
            common.stall_forever()
        elif path == "/other-question":
            respond(conn, answer_for_elsewhere(query_of(target)))
        elif path == "/garbage":
            respond(conn, bytes(range(7, 47)))
        elif path == "/stall":
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/dns-message\r\nContent-Length: 100\r\n\r\n")
            common.stall_forever()
        elif path == "/html":
            respond(conn, b"<html>not DNS</html>", "text/html")
        else:
            conn.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")


common.serve(args, handle, common.server_tls_context(args))
