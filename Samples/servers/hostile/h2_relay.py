"""A hostile HTTP/2 relay (TLS, ALPN h2): it reads the client's preface and then, per --mode,
breaks the protocol. Logs "CONNECTION" per client and "SENT<TAB>mode" once it misbehaved.

Modes:
  oversized-data   a DATA frame on stream 0 whose header claims 16 MB
  bad-settings     a SETTINGS frame whose length is not a multiple of 6
  garbage          bytes that are no HTTP/2 frame at all
  stall            SETTINGS, then silence (the connect timeout must end it)
  freeze-after     opens each CONNECT tunnel to --target (whatever authority was asked),
                   forwards --bytes of the origin's answer, then freezes: it reads and sends
                   nothing more, so PINGs go unanswered too
  refuse-first     on the first connection, answers every request with RST_STREAM
                   REFUSED_STREAM (logged "REFUSED<TAB>stream"), as a relay whose limit of
                   streams is lower than it said; on later ones, answers each CONNECT 200
                   (logged "CONNECT<TAB>stream") and holds it open, carrying nothing
"""
import socket
import struct
import threading

import hostile_common as common


def extra(parser):
    parser.add_argument("--mode", required=True,
                        choices=["oversized-data", "bad-settings", "garbage", "stall", "freeze-after", "refuse-first"])
    parser.add_argument("--target", default="127.0.0.21:443")
    parser.add_argument("--bytes", type=int, default=0)


args = common.arguments("hostile HTTP/2 relay", extra)
log = common.EventLog(args.log)
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"


def frame(kind, flags, stream, payload, length=None):
    size = len(payload) if length is None else length
    return struct.pack(">I", size)[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


def read_frame(conn, buffer):
    """Returns (kind, flags, stream, payload, rest of buffer), or None when the client closed."""
    while len(buffer) < 9 or len(buffer) < 9 + int.from_bytes(buffer[:3], "big"):
        chunk = conn.recv(65536)
        if not chunk:
            return None
        buffer += chunk
    length = int.from_bytes(buffer[:3], "big")
    stream = struct.unpack(">I", buffer[5:9])[0] & 0x7FFFFFFF
    return buffer[3], buffer[4], stream, buffer[9:9 + length], buffer[9 + length:]


def tunnel_then_freeze(conn, buffer):
    """A working CONNECT relay for one tunnel until --bytes of the origin's data went through."""
    lock = threading.Lock()
    frozen = threading.Event()
    origin = None
    while not frozen.is_set():
        parsed = read_frame(conn, buffer)
        if parsed is None:
            return
        kind, flags, stream, payload, buffer = parsed
        if frozen.is_set():
            break
        if kind == 0x4 and not flags & 0x1:
            with lock:
                conn.sendall(frame(0x4, 0x1, 0, b""))
        elif kind == 0x6 and not flags & 0x1:
            with lock:
                conn.sendall(frame(0x6, 0x1, 0, payload))
        elif kind == 0x1 and origin is None:
            host, _, port = args.target.rpartition(":")
            origin = socket.create_connection((host, int(port)))
            log("CONNECT", stream)
            with lock:
                conn.sendall(frame(0x1, 0x4, stream, b"\x88"))  # :status 200 (HPACK static index 8)

            def pump(stream=stream, origin=origin):
                sent = 0
                while sent < args.bytes:
                    data = origin.recv(min(16384, args.bytes - sent))
                    if not data:
                        return
                    with lock:
                        conn.sendall(frame(0x0, 0, stream, data))
                    sent += len(data)
                frozen.set()
                log("SENT", args.mode)
            threading.Thread(target=pump, daemon=True).start()
        elif kind == 0x0 and origin is not None and payload:
            origin.sendall(payload)
            with lock:  # give the credit back at once
                conn.sendall(frame(0x8, 0, 0, struct.pack(">I", len(payload))) +
                             frame(0x8, 0, stream, struct.pack(">I", len(payload))))
    common.stall_forever()


connections = 0
connections_lock = threading.Lock()


def refuse_or_answer(conn, buffer, refuse):
    """Answers each request HEADERS: RST_STREAM REFUSED_STREAM, or :status 200 held open."""
    while True:
        parsed = read_frame(conn, buffer)
        if parsed is None:
            return
        kind, flags, stream, payload, buffer = parsed
        if kind == 0x4 and not flags & 0x1:
            conn.sendall(frame(0x4, 0x1, 0, b""))
        elif kind == 0x6 and not flags & 0x1:
            conn.sendall(frame(0x6, 0x1, 0, payload))
        elif kind == 0x1 and refuse:
            log("REFUSED", stream)
            conn.sendall(frame(0x3, 0, stream, struct.pack(">I", 0x7)))
        elif kind == 0x1:
            log("CONNECT", stream)
            conn.sendall(frame(0x1, 0x4, stream, b"\x88"))  # :status 200 (HPACK static index 8)


def handle(conn, address):
    global connections
    log("CONNECTION", address[0])
    received = b""
    while len(received) < len(PREFACE):
        chunk = conn.recv(65536)
        if not chunk:
            return
        received += chunk
    conn.sendall(frame(0x4, 0, 0, b""))  # our (empty) SETTINGS
    if args.mode == "freeze-after":
        return tunnel_then_freeze(conn, received[len(PREFACE):])
    if args.mode == "refuse-first":
        with connections_lock:
            connections += 1
            first = connections == 1
        return refuse_or_answer(conn, received[len(PREFACE):], refuse=first)
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
