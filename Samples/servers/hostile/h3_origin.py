#!/usr/bin/env python3
"""An HTTP/3 origin that misbehaves on purpose, for relayfetch's HTTP/3-origin tests (aioquic).

Binds UDP --host on a port the kernel picks, prints `READY <port>`, and exits when its standard
input closes. Each request is logged to --log as `REQUEST <path> <peer address>`. By path:

  /reset    answers 200 and 10 bytes of a 1000-byte body, then resets the stream
            (RESET_STREAM with H3_INTERNAL_ERROR, 0x102)
  /stall    answers 200 and 10 bytes of a 1000-byte body, then sends nothing more
  /goaway   sends GOAWAY naming this request's stream, leaving the request unanswered
  /bulk/N   answers 200 with N bytes, all handed to QUIC at once; every 0.25 s until they are
            all out it logs `SENT <bytes on the wire so far>` (the stream's highest offset sent:
            what the client's flow control let through)
  /upload   reads the request's content to its end, hashing it as it arrives; then answers 200
            `<bytes> <sha256 hex>` and logs `UPLOAD <bytes> <sha256 hex> <peer address>`
  anything  answers 200 "ok"
"""

import argparse
import asyncio
import hashlib
import sys

from aioquic.asyncio import QuicConnectionProtocol, serve
from aioquic.buffer import encode_uint_var
from aioquic.h3.connection import H3_ALPN, FrameType, H3Connection, encode_frame
from aioquic.h3.events import DataReceived, HeadersReceived
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.events import ProtocolNegotiated

H3_INTERNAL_ERROR = 0x102


class OriginProtocol(QuicConnectionProtocol):
    log = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.http = None
        self.peer = "-"
        self.uploads = {}  # stream id -> [sha256, byte count] of an /upload's content so far

    def datagram_received(self, data, addr):
        self.peer = addr[0]
        super().datagram_received(data, addr)

    def quic_event_received(self, event):
        if isinstance(event, ProtocolNegotiated):
            self.http = H3Connection(self._quic)
        if self.http is None:
            return
        for http_event in self.http.handle_event(event):
            if isinstance(http_event, HeadersReceived):
                self.answer(http_event.stream_id, dict(http_event.headers))
                if http_event.stream_ended:
                    self.upload_ended(http_event.stream_id)
            elif isinstance(http_event, DataReceived) and http_event.stream_id in self.uploads:
                upload = self.uploads[http_event.stream_id]
                upload[0].update(http_event.data)
                upload[1] += len(http_event.data)
                if http_event.stream_ended:
                    self.upload_ended(http_event.stream_id)

    def upload_ended(self, stream_id):
        upload = self.uploads.pop(stream_id, None)
        if upload is None:
            return
        digest, count = upload[0].hexdigest(), upload[1]
        self.log.write(f"UPLOAD {count} {digest} {self.peer}\n")
        self.log.flush()
        body = f"{count} {digest}".encode()
        self.http.send_headers(stream_id, [(b":status", b"200"), (b"content-length", str(len(body)).encode())])
        self.http.send_data(stream_id, body, end_stream=True)
        self.transmit()

    def answer(self, stream_id, headers):
        path = headers.get(b":path", b"/").decode(errors="replace").split("?", 1)[0]
        self.log.write(f"REQUEST {path} {self.peer}\n")
        self.log.flush()
        head = [(b":status", b"200"), (b"content-length", b"1000")]
        if path == "/upload":
            self.uploads[stream_id] = [hashlib.sha256(), 0]
            return
        if path == "/goaway":
            self._quic.send_stream_data(self.http._local_control_stream_id,
                                        encode_frame(FrameType.GOAWAY, encode_uint_var(stream_id)))
        elif path.startswith("/bulk/") and path[6:].isdigit():
            size = int(path[6:])
            self.http.send_headers(stream_id, [(b":status", b"200"), (b"content-length", str(size).encode())])
            chunk = b"b" * (256 << 10)
            for offset in range(0, size, len(chunk)):
                self.http.send_data(stream_id, chunk[: min(len(chunk), size - offset)], end_stream=offset + len(chunk) >= size)
            self.report_sent(stream_id, size)
        elif path in ("/reset", "/stall"):
            self.http.send_headers(stream_id, head)
            self.http.send_data(stream_id, b"x" * 10, end_stream=False)
            if path == "/reset":
                self.transmit()
                self._quic.reset_stream(stream_id, H3_INTERNAL_ERROR)
        else:
            self.http.send_headers(stream_id, [(b":status", b"200"), (b"content-length", b"2")])
            self.http.send_data(stream_id, b"ok", end_stream=True)
        self.transmit()

    def report_sent(self, stream_id, size):
        stream = self._quic._streams.get(stream_id)
        sent = stream.sender.highest_offset if stream else size
        self.log.write(f"SENT {sent}\n")
        self.log.flush()
        if stream and sent < size:
            asyncio.get_running_loop().call_later(0.25, self.report_sent, stream_id, size)


async def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--host", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--ca")
    parser.add_argument("--log", required=True)
    args = parser.parse_args()
    configuration = QuicConfiguration(is_client=False, alpn_protocols=H3_ALPN, idle_timeout=60)
    configuration.load_cert_chain(args.cert, args.key)
    OriginProtocol.log = open(args.log, "a")
    server = await serve(args.host, args.port, configuration=configuration, create_protocol=OriginProtocol)
    print(f"READY {server._transport.get_extra_info('sockname')[1]}", flush=True)
    loop = asyncio.get_running_loop()
    closed = asyncio.Event()
    loop.add_reader(sys.stdin.fileno(), lambda: closed.set() if not sys.stdin.buffer.read1(4096) else None)
    await closed.wait()
    server.close()


if __name__ == "__main__":
    asyncio.run(main())
