"""A hostile HTTP/2 relay (TLS, ALPN h2): it reads the client's preface and then, per --mode,
breaks the protocol. Logs "CONNECTION" per client and "SENT<TAB>mode" once it misbehaved.

Modes:
  oversized-data   a DATA frame on stream 0 whose header claims 16 MB
  bad-settings     a SETTINGS frame whose length is not a multiple of 6
  garbage          bytes that are no HTTP/2 frame at all
  stall            SETTINGS, then silence (the connect timeout must end it)
"""
import struct

import hostile_common as common


def extra(parser):
    parser.add_argument("--mode", required=True,
                        choices=["oversized-data", "bad-settings", "garbage", "stall"])


args = common.arguments("hostile HTTP/2 relay", extra)
log = common.EventLog(args.log)
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"


def frame(kind, flags, stream, payload, length=None):
    size = len(payload) if length is None else length
    return struct.pack(">I", size)[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


def handle(conn, address):
    log("CONNECTION", address[0])
    received = b""
    while len(received) < len(PREFACE):
        chunk = conn.recv(65536)
        if not chunk:
            return
        received += chunk
    conn.sendall(frame(0x4, 0, 0, b""))  # our (empty) SETTINGS
    if args.mode == "oversized-data":
        conn.sendall(frame(0x0, 0, 0, b"x" * 1024, length=16 << 20))
    elif args.mode == "bad-settings":
        conn.sendall(frame(0x4, 0, 0, b"\x00\x03\x00"))
    elif args.mode == "garbage":
        conn.sendall(b"\xff" * 64)
    log("SENT", args.mode)
    # Keep the connection open and silent: only the client's own error handling may end it.
    try:
        while conn.recv(65536):
            pass
    except OSError:
        pass


common.serve(args, handle, common.server_tls_context(args, ["h2"]))
