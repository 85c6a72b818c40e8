#!/usr/bin/env python3
"""An HTTPS/1.1 origin that records what it received, for `relayfetch get`'s request tests
(HostileServer.swift). Not hostile in itself: on 127.0.0.21 with the origin certificate, it is
origin.test:<port> to the relays (their hosts file) and to the OHTTP gateway (its name map).

  /echo...                    200, a JSON object: method, target, headers, body (text)
  /status/C                   answer C with a short text body
  /redirect/C?to=URL          answer C (301, 302, 303, 307, 308) with Location: URL
  /flaky/KEY?fail=N&status=C&retry-after=R
                              the first N requests for KEY answer C (Retry-After: R when given),
                              later ones 200 "ok"
  anything else               200 "ok"

Every request body is read whole (Content-Length or chunked, with Expect: 100-continue
answered), counted and hashed, never kept beyond its first 64 KiB; ?read-delay=MS sleeps MS
milliseconds per 64 KiB read (a slow reader, for back-pressure). One JSON line per request in
--log: peer, method, target, headers ([name, value] pairs in order), body_length, body_sha256,
body (the first 64 KiB as text), chunked.
"""
import hashlib
import http.server
import json
import signal
import ssl
import threading
import time
from urllib.parse import parse_qs, urlsplit

import hostile_common

KEEP = 64 * 1024
flaky_counts = {}
flaky_lock = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    log = None  # set in main()

    def log_message(self, *args):
        pass

    def read_body(self, delay):
        digest, kept, length = hashlib.sha256(), bytearray(), 0

        def take(data):
            nonlocal length
            digest.update(data)
            length += len(data)
            if len(kept) < KEEP:
                kept.extend(data[: KEEP - len(kept)])
            if delay:
                time.sleep(delay * len(data) / 65536)

        def read_exactly(left):
            while left:
                data = self.rfile.read(min(left, 65536))
                if not data:
                    raise ConnectionError("body cut")
                take(data)
                left -= len(data)

        chunked = "chunked" in (self.headers.get("Transfer-Encoding") or "").lower()
        if chunked:
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    break
                read_exactly(size)
                self.rfile.readline()
        else:
            read_exactly(int(self.headers.get("Content-Length") or 0))
        return bytes(kept), length, digest.hexdigest(), chunked

    def answer(self, status, body, content_type="text/plain", headers=()):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def handle_any(self):
        parts = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        delay = float(query.get("read-delay", 0)) / 1000
        kept, length, sha, chunked = self.read_body(delay)
        headers = [[name, value] for name, value in self.headers.items()]
        record = {"peer": self.client_address[0], "method": self.command, "target": self.path, "headers": headers,
                  "body_length": length, "body_sha256": sha, "body": kept.decode("utf-8", "replace"), "chunked": chunked}
        Handler.log(json.dumps(record))
        segments = parts.path.strip("/").split("/")
        if segments[0].startswith("echo"):
            self.answer(200, json.dumps(record).encode(), "application/json")
        elif segments[0] == "status" and len(segments) > 1:
            self.answer(int(segments[1]), b"status %s\n" % segments[1].encode())
        elif segments[0] == "redirect" and len(segments) > 1:
            self.answer(int(segments[1]), b"moved\n", headers=[("Location", query.get("to", "/echo"))])
        elif segments[0] == "flaky" and len(segments) > 1:
            with flaky_lock:
                count = flaky_counts.get(segments[1], 0)
                flaky_counts[segments[1]] = count + 1
            if count < int(query.get("fail", 1)):
                extra = [("Retry-After", query["retry-after"])] if "retry-after" in query else []
                self.answer(int(query.get("status", 503)), b"try again\n", headers=extra)
            else:
                self.answer(200, b"ok\n")
        else:
            self.answer(200, b"ok\n")

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = handle_any


def main():
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    args = hostile_common.arguments(__doc__.splitlines()[0])
    log = hostile_common.EventLog(args.log)
    Handler.log = staticmethod(log)
    server = http.server.ThreadingHTTPServer((args.host, args.port), Handler)
    server.daemon_threads = True
    context = hostile_common.server_tls_context(args, alpn=["http/1.1"])
    server.socket = context.wrap_socket(server.socket, server_side=True)
    hostile_common.exit_with_parent()
    print("READY %d" % server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
