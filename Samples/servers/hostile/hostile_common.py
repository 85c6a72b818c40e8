"""Shared start-up for the hostile test servers in this folder (see HostileServer.swift).

Every script takes --host, --port (0: the kernel picks), --cert, --key, --ca and --log, binds a
TCP listener, prints "READY <port>" as its first line of standard output, and appends one line
per event to --log (flushed at once, so a test can read it while the server runs).
"""
import argparse
import os
import signal
import socket
import ssl
import sys
import threading
import time


def arguments(description, extra=None):
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--host", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--ca", required=True)
    parser.add_argument("--log", required=True)
    if extra:
        extra(parser)
    # The test process may start us from a thread that blocks SIGTERM, and a blocked mask is
    # inherited: unblock it, or HostileServer.stop() (SIGTERM) would wait for us forever.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    return parser.parse_args()


class EventLog:
    """One line per event, appended and flushed at once."""

    def __init__(self, path):
        self._file = open(path, "a", buffering=1)
        self._lock = threading.Lock()

    def __call__(self, *parts):
        with self._lock:
            self._file.write("\t".join(str(p) for p in parts) + "\n")
            self._file.flush()


def server_tls_context(args, alpn=None):
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(args.cert, args.key)
    if alpn:
        context.set_alpn_protocols(alpn)
    return context


def client_tls_context(args):
    context = ssl.create_default_context(cafile=args.ca)
    return context


def listen(args):
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((args.host, args.port))
    sock.listen(512)
    return sock


def exit_with_parent():
    """Exits when standard input closes: the test that started this server has ended."""
    def watch():
        try:
            while sys.stdin.buffer.read(4096):
                pass
        finally:
            os._exit(0)
    threading.Thread(target=watch, daemon=True).start()


def serve(args, handle, tls_context=None):
    """Accepts forever, running handle(conn, address) on a thread per connection. With a TLS
    context, the handshake happens on that thread (a stalled client cannot block the accept loop)."""
    listener = listen(args)
    exit_with_parent()
    print("READY %d" % listener.getsockname()[1], flush=True)

    def run(conn, address):
        try:
            if tls_context is not None:
                conn.settimeout(30)
                conn = tls_context.wrap_socket(conn, server_side=True)
                conn.settimeout(None)
            handle(conn, address)
        except Exception as error:  # a hostile server never dies of its client
            print("handler: %r" % (error,), file=sys.stderr, flush=True)
        finally:
            try:
                conn.close()
            except Exception:
                pass

    while True:
        conn, address = listener.accept()
        threading.Thread(target=run, args=(conn, address), daemon=True).start()


def serve_datagrams(args, handle):
    """Binds a UDP socket, says READY and runs handle(sock, data, peer) for each datagram, in turn,
    until the test that started it ends."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind((args.host, args.port))
    exit_with_parent()
    print("READY %d" % sock.getsockname()[1], flush=True)
    while True:
        data, peer = sock.recvfrom(65535)
        handle(sock, data, peer)


def read_head(conn, limit=1 << 20):
    """Reads an HTTP/1.1 request or response head (up to the blank line); returns (head, rest)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return None, b""
        data += chunk
        if len(data) > limit:
            return None, b""
    head, _, rest = data.partition(b"\r\n\r\n")
    return head.decode("latin-1"), rest


def request_heads(conn):
    """Yields each request head (as text) that arrives on a keep-alive connection, until the peer
    closes it. For GET-only servers: bytes after a head are taken as the next request."""
    for head, _ in requests(conn, with_bodies=False):
        yield head


def requests(conn, with_bodies=True):
    """Yields (head as text, body) for each request on a keep-alive connection, until the peer
    closes it; the body is the head's Content-Length bytes (none without one, or without_bodies)."""
    buffered = b""
    while True:
        while b"\r\n\r\n" not in buffered:
            chunk = conn.recv(65536)
            if not chunk:
                return
            buffered += chunk
        head, _, buffered = buffered.partition(b"\r\n\r\n")
        head = head.decode("latin-1")
        length = 0
        if with_bodies:
            length = next((int(line.split(":", 1)[1]) for line in head.split("\r\n")[1:]
                           if line.lower().startswith("content-length:")), 0)
        while len(buffered) < length:
            chunk = conn.recv(65536)
            if not chunk:
                return
            buffered += chunk
        body, buffered = buffered[:length], buffered[length:]
        yield head, body


def splice(client, upstream):
    """Passes bytes both ways between two connected sockets until either side ends, then shuts
    both down (so the other direction ends too). Returns when the client's side is done."""
    def pump(source, sink):
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    threading.Thread(target=pump, args=(upstream, client), daemon=True).start()
    pump(client, upstream)


def stall_forever():
    while True:
        time.sleep(3600)
