#!/usr/bin/env python3
"""HTTP/3 relay (MASQUE) for relayfetch tests.

A test relay independent of the project's Swift client, built on aioquic (QUIC, HTTP/3, QPACK);
the tunnels, HTTP Datagrams (RFC 9297) and the capsule protocol are written here. Started by
scripts/test-servers.sh with the venv that scripts/setup.sh makes (.build/venv), once per relay:
relay A on UDP 127.0.0.11:4433, relay B on UDP 127.0.0.12:4433 (ALPN h3).

Every request must carry `proxy-authorization: Bearer TOKEN` (--token), else 407. Then:

  CONNECT (RFC 9114 section 4.4): `:method CONNECT`, `:authority host:port`, no :scheme or
      :path. The relay opens TCP to the target from --source and answers 200; DATA frames and
      TCP bytes are relayed both ways, END_STREAM and EOF half-close. 502 when the name is
      unknown or the target refuses, 504 when connecting takes more than 10 s.
  CONNECT-UDP (RFC 9298 over extended CONNECT, RFC 9220): `:method CONNECT`,
      `:protocol connect-udp`, `:scheme https`, `:authority` the relay,
      `:path /.well-known/masque/udp/{target_host}/{target_port}/`, `capsule-protocol: ?1`.
      The relay opens a UDP socket from --source connected to the target and answers 200 with
      `capsule-protocol: ?1`. UDP payloads travel as HTTP Datagrams with context ID 0, in QUIC
      DATAGRAM frames (quarter stream ID, context ID, payload) or in DATAGRAM capsules (type
      0x00) inside DATA frames on the request stream. The relay accepts both from the client.
      It sends QUIC DATAGRAM frames when the client's SETTINGS had SETTINGS_H3_DATAGRAM (0x33)
      = 1 and the payload fits one packet, DATAGRAM capsules otherwise.

Names resolve through a fixed map only (HOSTS below, plus each --host NAME=ADDRESS); IPv4 literals in 127.0.0.0/8 are used as
they are; anything else gets 502. Other methods get 405, other :protocol values 501, malformed
requests 400.

With --goaway-after N, the relay sends GOAWAY (RFC 9114 section 5.2) on a connection once it has
answered N CONNECT requests on it with 200, naming the next request stream: the client takes later
tunnels to a new connection. With --reject-first N, it resets the first N requests it gets (all
connections together) with H3_REQUEST_REJECTED, unprocessed (logged with status "rejected").

With --upstream HOST:PORT, the relay is an HTTP/3 front of an HTTP/1.1 relay: it checks no token
itself, and sends each CONNECT on as an HTTP/1.1 CONNECT to that relay (from --source), with the
client's proxy-authorization; a refusal comes back with its status and proxy-authenticate fields
(a PrivateToken 407 from privacy_pass_relay.py reaches the client as it was sent).

One TAB-separated line per request goes to STATE/access.log when its status is decided (tunnels
are long-lived): time, client address:port, method, :protocol, :authority, :path, status,
proxy-authorization ("-" for an absent field).

`h3_relay.py --self-test` checks the codecs (varints, capsules, the URI template, the name map)
and exits.
"""

import argparse
import asyncio
import ipaddress
import os
import re
import signal
import socket
import struct
import sys
import time
import urllib.parse

try:
    from aioquic.asyncio import QuicConnectionProtocol, serve
    from aioquic.h3.connection import H3_ALPN, FrameType, H3Connection, Setting, encode_frame
    from aioquic.h3.events import DataReceived, DatagramReceived, HeadersReceived
    from aioquic.quic.configuration import QuicConfiguration
    from aioquic.quic.events import (
        ConnectionTerminated,
        ProtocolNegotiated,
        StopSendingReceived,
        StreamReset,
    )
except ImportError as error:
    sys.exit(f"h3-relay: {error}: run scripts/setup.sh, then start this with .build/venv/bin/python")

# Names the relay resolves (the same as Samples/servers/squid.hosts, plus public.test); nothing
# else is looked up.
HOSTS = {
    "origin.test": "127.0.0.21",
    "www.origin.test": "127.0.0.21",
    "internal.test": "127.0.0.21",
    **{f"h{i}.origin.test": "127.0.0.21" for i in range(1, 21)},
    "origin2.test": "127.0.0.22",
    "public.test": "127.0.0.22",
}
LOOPBACK = ipaddress.ip_network("127.0.0.0/8")

H3_CONNECT_ERROR = 0x010F
H3_REQUEST_CANCELLED = 0x010C
CAPSULE_DATAGRAM = 0x00
CONNECT_TIMEOUT = 10.0
# TCP bytes read but not yet acknowledged by the client, above which the relay stops reading.
TCP_SEND_BACKLOG = 1 << 20
# QUIC DATAGRAM frames queued toward a client, above which UDP payloads are dropped.
MAX_QUEUED_DATAGRAMS = 512
# Datagrams that arrive before their request stream is set up, kept per stream.
MAX_EARLY_DATAGRAMS = 32


# --- codecs --------------------------------------------------------------------------------


def encode_varint(value):
    """QUIC variable-length integer (RFC 9000 section 16)."""
    if value < 0x40:
        return value.to_bytes(1, "big")
    if value < 0x4000:
        return (value | 0x4000).to_bytes(2, "big")
    if value < 0x40000000:
        return (value | 0x80000000).to_bytes(4, "big")
    if value < 0x4000000000000000:
        return (value | 0xC000000000000000).to_bytes(8, "big")
    raise ValueError(f"{value} does not fit a varint")


def decode_varint(data, offset=0):
    """Returns (value, next offset), or None when data ends inside the varint."""
    if offset >= len(data):
        return None
    length = 1 << (data[offset] >> 6)
    if offset + length > len(data):
        return None
    value = data[offset] & 0x3F
    for byte in data[offset + 1 : offset + length]:
        value = (value << 8) | byte
    return value, offset + length


def encode_capsule(capsule_type, value):
    """A capsule (RFC 9297 section 3.2): type, length, value."""
    return encode_varint(capsule_type) + encode_varint(len(value)) + value


class CapsuleParser:
    """Splits the DATA of a request stream into capsules, across DATA frame boundaries."""

    def __init__(self):
        self.buffer = bytearray()

    def feed(self, data):
        """Returns the complete capsules so far as (type, value) pairs."""
        self.buffer += data
        capsules = []
        while True:
            header = decode_varint(self.buffer)
            if header is None:
                break
            capsule_type, offset = header
            header = decode_varint(self.buffer, offset)
            if header is None:
                break
            length, offset = header
            if len(self.buffer) < offset + length:
                break
            capsules.append((capsule_type, bytes(self.buffer[offset : offset + length])))
            del self.buffer[: offset + length]
        return capsules


def split_context(payload):
    """An HTTP Datagram payload of CONNECT-UDP: (context ID, UDP payload), or None."""
    header = decode_varint(payload)
    if header is None:
        return None
    return header[0], payload[header[1] :]


UDP_PATH = re.compile(r"^/\.well-known/masque/udp/([^/?#]+)/([^/?#]+)/?$")


def parse_udp_path(path):
    """The target of RFC 9298's default URI template: (host, port), or None."""
    match = UDP_PATH.match(path)
    if not match:
        return None
    host = urllib.parse.unquote(match.group(1))
    port = urllib.parse.unquote(match.group(2))
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        return None
    return host, int(port)


def parse_authority(authority):
    """host:port of a CONNECT request (IPv6 literals in brackets): (host, port), or None."""
    match = re.match(r"^(\[[0-9A-Fa-f:.]+\]|[^:\[\]]+):(\d{1,5})$", authority)
    if not match or not 0 < int(match.group(2)) < 65536:
        return None
    return match.group(1).strip("[]"), int(match.group(2))


def resolve(host):
    """The address a target name stands for, through HOSTS only, or None."""
    name = host.lower().rstrip(".")
    if name in HOSTS:
        return HOSTS[name]
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return None
    return str(address) if address.version == 4 and address in LOOPBACK else None


# --- logging -------------------------------------------------------------------------------


def log_value(value):
    """A log field: no TABs, line breaks or other controls; empty becomes '-'."""
    text = str(value) if value not in (None, "") else "-"
    return re.sub(r"[\x00-\x1f\x7f]", lambda m: f"\\x{ord(m.group()):02x}", text)


def now_iso():
    now = time.time()
    return (
        time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(now))
        + f".{int(now % 1 * 1000):03d}"
        + time.strftime("%z")
    )


def say(message):
    print(f"h3-relay: {message}", flush=True)


# --- the relay -----------------------------------------------------------------------------


class Relay:
    """What one relay (A or B) is: its token, source address, log, packet sizes and when it sends GOAWAY."""

    def __init__(self, name, token, source, log_path, max_packet, tunnel_max_packet, goaway_after=0, hold_credit=False,
                 reject_first=0):
        self.name, self.token, self.source = name, token, source
        self.max_packet, self.tunnel_max_packet = max_packet, tunnel_max_packet
        self.goaway_after = goaway_after
        self.reject_first = reject_first  # requests still to reject unprocessed (--reject-first)
        self.hold_credit = hold_credit
        self.upstream = None  # (host, port) of an HTTP/1.1 relay every CONNECT goes to (--upstream)
        self.log_file = open(log_path, "a", buffering=1, encoding="utf-8")
        self.protocols = set()

    def log(self, peer, method, protocol, authority, path, status, authorization):
        peer_text = f"{peer[0]}:{peer[1]}" if peer else None
        fields = (now_iso(), peer_text, method, protocol, authority, path, status, authorization)
        self.log_file.write("\t".join(log_value(f) for f in fields) + "\n")


class RelayH3Connection(H3Connection):
    """aioquic's HTTP/3 connection, announcing SETTINGS_H3_DATAGRAM = 1 (RFC 9297)."""

    def _get_local_settings(self):
        settings = super()._get_local_settings()
        settings[Setting.H3_DATAGRAM] = 1
        return settings


class TcpTunnel:
    """A CONNECT stream: DATA frames to and from a TCP connection."""

    def __init__(self, conn, stream_id):
        self.conn, self.stream_id = conn, stream_id
        self.writer = None
        self.pending = bytearray()  # client bytes that arrived before the TCP connection
        self.client_done = False  # END_STREAM seen
        self.target_done = False  # EOF read and END_STREAM sent
        self.closed = False
        self.task = None
        self.draining = None  # waits for the target to take the backlog (--hold-credit)

    def backlogged(self):
        """More of the client's bytes wait for the target than TCP_SEND_BACKLOG."""
        if self.writer is None:
            return len(self.pending) > TCP_SEND_BACKLOG
        return self.writer.transport.get_write_buffer_size() > TCP_SEND_BACKLOG

    async def _credit_when_drained(self):
        """Once the target took the backlog, lets the held stream credit go out."""
        try:
            await self.writer.drain()
        except (ConnectionError, OSError):
            return
        finally:
            self.draining = None
        self.conn.transmit()

    def data_from_client(self, data, ended):
        if self.closed:
            return
        if self.writer is None:
            self.pending += data
        elif data:
            self.writer.write(data)
            if self.conn.relay.hold_credit and self.draining is None and self.backlogged():
                self.draining = asyncio.ensure_future(self._credit_when_drained())
        if ended:
            self.client_done = True
            if self.writer is not None:
                self._write_eof()

    def _write_eof(self):
        try:
            if self.writer.can_write_eof():
                self.writer.write_eof()
        except OSError:
            pass
        self._close_if_done()

    def attach(self, reader, writer):
        self.writer = writer
        if self.pending:
            writer.write(bytes(self.pending))
            self.pending.clear()
        if self.client_done:
            self._write_eof()
        self.task = asyncio.ensure_future(self._pump(reader))

    async def _pump(self, reader):
        try:
            while not self.closed:
                while self.conn.send_backlog(self.stream_id) > TCP_SEND_BACKLOG and not self.closed:
                    await asyncio.sleep(0.005)
                data = await reader.read(65536)
                if self.closed:
                    return
                if not data:
                    self.conn.send_data(self.stream_id, b"", end_stream=True)
                    self.target_done = True
                    self._close_if_done()
                    return
                self.conn.send_data(self.stream_id, data, end_stream=False)
        except (ConnectionError, OSError):
            # The target reset the connection: so is the stream (RFC 9114 section 4.4).
            self.conn.reset_stream(self.stream_id, H3_CONNECT_ERROR)
            self.close()

    def _close_if_done(self):
        if self.client_done and self.target_done:
            self.close()

    def close(self):
        if self.closed:
            return
        self.closed = True
        self.conn.tunnels.pop(self.stream_id, None)
        if self.writer is not None:
            self.writer.close()
        if self.task is not None and self.task is not asyncio.current_task():
            self.task.cancel()

    def abort(self):
        """The client reset the stream, or the connection is gone: so is the TCP connection
        (RST, not FIN, so that the target can tell)."""
        if self.writer is not None and not self.closed:
            sock = self.writer.get_extra_info("socket")
            if sock is not None:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.writer.transport.abort()
        self.close()


class UdpTunnel(asyncio.DatagramProtocol):
    """A CONNECT-UDP stream: HTTP Datagrams to and from a connected UDP socket."""

    def __init__(self, conn, stream_id):
        self.conn, self.stream_id = conn, stream_id
        self.transport = None
        self.capsules = CapsuleParser()
        self.closed = False
        self.early = []  # payloads from the client before the socket was open

    # client -> target
    def payload_from_client(self, payload):
        split = split_context(payload)
        if split is None or split[0] != 0:
            return  # unknown context IDs are dropped (RFC 9298 section 4)
        if self.transport is None:
            if len(self.early) < MAX_EARLY_DATAGRAMS:
                self.early.append(split[1])
        elif not self.closed:
            self.transport.sendto(split[1])

    def data_from_client(self, data, ended):
        for capsule_type, value in self.capsules.feed(data):
            if capsule_type == CAPSULE_DATAGRAM:
                self.payload_from_client(value)
            # other capsule types are ignored (RFC 9297 section 3.2)
        if ended:
            # The client closed its side: so does the relay, and the socket goes.
            self.conn.send_data(self.stream_id, b"", end_stream=True)
            self.close()

    # target -> client
    def connection_made(self, transport):
        self.transport = transport
        for payload in self.early:
            transport.sendto(payload)
        self.early.clear()

    def datagram_received(self, data, addr):
        if not self.closed:
            self.conn.send_http_datagram(self.stream_id, b"\x00" + data)

    def error_received(self, exc):
        pass  # ICMP errors (port unreachable) drop nothing but the datagram, as on a real path

    def close(self):
        if self.closed:
            return
        self.closed = True
        self.conn.tunnels.pop(self.stream_id, None)
        if self.transport is not None:
            self.transport.close()

    abort = close


class RelayProtocol(QuicConnectionProtocol):
    """One client's QUIC connection."""

    relay = None  # set per server in main()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.http = None
        self.peer = None
        self.tunnels = {}
        self.requests = set()  # request stream ids seen
        self.tunnels_answered = 0  # CONNECT requests answered 200, for --goaway-after
        self.early_datagrams = {}  # stream id -> payloads before the request was seen
        self.relay.protocols.add(self)
        if self.relay.hold_credit:
            self._hold_stream_credit()

    def _hold_stream_credit(self):
        """aioquic raises a stream's window as bytes arrive, however slowly the target takes
        them: with --hold-credit no MAX_STREAM_DATA goes out while a TCP tunnel's target is
        behind, so the client is held back as by nghttpx or squid."""
        raise_limits = self._quic._write_stream_limits

        def write_stream_limits(builder, space, stream):
            tunnel = self.tunnels.get(stream.stream_id)
            if isinstance(tunnel, TcpTunnel) and tunnel.backlogged():
                return
            raise_limits(builder, space, stream)

        self._quic._write_stream_limits = write_stream_limits

    def datagram_received(self, data, addr):
        self.peer = addr
        super().datagram_received(data, addr)

    # --- sending, each followed by transmit() --------------------------------------------

    def send_data(self, stream_id, data, end_stream):
        try:
            self.http.send_data(stream_id, data, end_stream)
        except Exception:  # the stream was reset or finished meanwhile
            return
        self.transmit()

    def reset_stream(self, stream_id, code):
        try:
            self._quic.reset_stream(stream_id, code)
        except Exception:
            return
        self.transmit()

    def send_backlog(self, stream_id):
        """Bytes queued on a stream and not yet acknowledged."""
        stream = self._quic._streams.get(stream_id)
        if stream is None:
            return 0
        sender = stream.sender
        return sender._buffer_stop - sender._buffer_start

    def datagram_capacity(self, stream_id):
        """The largest HTTP Datagram payload (context ID included) one QUIC DATAGRAM frame can
        carry to this client, or 0 when the client did not negotiate HTTP/3 datagrams."""
        settings = self.http.received_settings if self.http else None
        remote_max = self._quic._remote_max_datagram_frame_size
        if not settings or settings.get(Setting.H3_DATAGRAM) != 1 or not remote_max:
            return 0
        prefix = len(encode_varint(stream_id // 4))
        # short header (flags, peer CID, packet number up to 4 bytes), AEAD tag, frame type,
        # 2-byte length, then the quarter stream ID
        in_packet = self._quic._max_datagram_size - (1 + len(self._quic._peer_cid.cid) + 4 + 16) - 3 - prefix
        # aioquic rejects a frame whose size reaches max_datagram_frame_size: stay below it
        in_frame = remote_max - 1 - 1 - 8 - prefix
        return max(0, min(in_packet, in_frame))

    def send_http_datagram(self, stream_id, payload):
        if len(payload) <= self.datagram_capacity(stream_id):
            if len(self._quic._datagrams_pending) >= MAX_QUEUED_DATAGRAMS:
                return  # congested: drop, as a router would
            self.http.send_datagram(stream_id, payload)
            self.transmit()
        else:
            self.send_data(stream_id, encode_capsule(CAPSULE_DATAGRAM, payload), False)

    def count_tunnel(self, stream_id):
        """With --goaway-after N: after the Nth tunnel, GOAWAY naming the request stream after this one."""
        self.tunnels_answered += 1
        if self.tunnels_answered != self.relay.goaway_after or self.http is None:
            return
        goaway = encode_frame(FrameType.GOAWAY, encode_varint(stream_id + 4))
        self._quic.send_stream_data(self.http._local_control_stream_id, goaway)
        self.transmit()

    def respond(self, stream_id, status, headers=(), end_stream=True):
        fields = [(b":status", str(status).encode())] + [(k.encode(), v.encode()) for k, v in headers]
        try:
            self.http.send_headers(stream_id, fields, end_stream=end_stream)
        except Exception:
            return
        self.transmit()

    # --- events --------------------------------------------------------------------------

    def quic_event_received(self, event):
        if isinstance(event, ProtocolNegotiated) and event.alpn_protocol in H3_ALPN:
            self.http = RelayH3Connection(self._quic)
        elif isinstance(event, (StreamReset, StopSendingReceived)):
            # The client gave up on a tunnel (aioquic has already reset the sending side on
            # STOP_SENDING): the target connection goes too.
            tunnel = self.tunnels.get(event.stream_id)
            if tunnel is not None:
                tunnel.abort()
                if isinstance(event, StreamReset):
                    self.reset_stream(event.stream_id, H3_REQUEST_CANCELLED)
        elif isinstance(event, ConnectionTerminated):
            self.connection_gone()
        if self.http is not None:
            for http_event in self.http.handle_event(event):
                self.http_event_received(http_event)

    def connection_gone(self):
        for tunnel in list(self.tunnels.values()):
            tunnel.abort()
        self.early_datagrams.clear()
        self.relay.protocols.discard(self)

    def connection_lost(self, exc):
        self.connection_gone()
        super().connection_lost(exc)

    def http_event_received(self, event):
        if isinstance(event, HeadersReceived):
            if event.stream_id in self.requests:
                return  # trailers: nothing to do
            self.requests.add(event.stream_id)
            self.request(event.stream_id, event.headers, event.stream_ended)
        elif isinstance(event, DataReceived):
            tunnel = self.tunnels.get(event.stream_id)
            if tunnel is not None:
                tunnel.data_from_client(event.data, event.stream_ended)
        elif isinstance(event, DatagramReceived):
            tunnel = self.tunnels.get(event.stream_id)
            if tunnel is not None:
                if isinstance(tunnel, UdpTunnel):
                    tunnel.payload_from_client(event.data)
            elif event.stream_id in self.requests:
                pass  # a request that got no tunnel, or one closed since
            elif len(self.early_datagrams) < 16 or event.stream_id in self.early_datagrams:
                # The DATAGRAM frame may come before (or in the same packet ahead of) the
                # request's HEADERS: keep a few until the request is seen.
                early = self.early_datagrams.setdefault(event.stream_id, [])
                if len(early) < MAX_EARLY_DATAGRAMS:
                    early.append(event.data)

    async def connect_upstream(self, authority, authorization, refusal):
        """An HTTP/1.1 CONNECT to --upstream; on a refusal, appends (status, proxy-authenticate
        fields) to `refusal` and raises OSError."""
        reader, writer = await asyncio.open_connection(*self.relay.upstream, local_addr=(self.relay.source, 0))
        request = f"CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n"
        if authorization is not None:
            request += f"Proxy-Authorization: {authorization}\r\n"
        writer.write((request + "\r\n").encode())
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        status = int(head[0].split(" ")[1])
        if 200 <= status < 300:
            return reader, writer
        writer.close()
        challenges = [("proxy-authenticate", line.partition(":")[2].strip()) for line in head[1:]
                      if line.lower().startswith("proxy-authenticate:")]
        refusal.append((status, challenges))
        raise OSError(f"upstream answered {status}")

    def request(self, stream_id, headers, ended):
        pseudo, fields = {}, {}
        for key, value in headers:
            text = value.decode("utf-8", "replace")
            if key.startswith(b":"):
                pseudo[key.decode()] = text
            else:
                name = key.decode("ascii", "replace")
                fields[name] = f"{fields[name]}, {text}" if name in fields else text
        method = pseudo.get(":method")
        protocol = pseudo.get(":protocol")
        authority = pseudo.get(":authority")
        path = pseudo.get(":path")
        authorization = fields.get("proxy-authorization")
        early = self.early_datagrams.pop(stream_id, [])

        def finish(status, headers=()):
            self.relay.log(self.peer, method, protocol, authority, path, status, authorization)
            self.respond(stream_id, status, headers)

        if self.relay.reject_first > 0:
            self.relay.reject_first -= 1
            self.relay.log(self.peer, method, protocol, authority, path, "rejected", authorization)
            self._quic.reset_stream(stream_id, 0x10B)  # H3_REQUEST_REJECTED: safe to send again
            self._quic.stop_stream(stream_id, 0x10B)
            self.transmit()
            return

        if self.relay.upstream is None and authorization != f"Bearer {self.relay.token}":
            return finish(407, [("proxy-authenticate", f'Bearer realm="relay-{self.relay.name}"')])
        if method != "CONNECT":
            return finish(405, [("allow", "CONNECT")])
        if protocol is None:
            if ":scheme" in pseudo or path is not None:
                return finish(400)
            target = parse_authority(authority or "")
            if target is None:
                return finish(400)
            address = resolve(target[0]) if self.relay.upstream is None else target[0]
            if address is None:
                return finish(502)
            tunnel = TcpTunnel(self, stream_id)
            self.tunnels[stream_id] = tunnel
            if ended:
                tunnel.client_done = True

            async def open_tcp():
                refusal = []
                try:
                    if self.relay.upstream is None:
                        reader, writer = await asyncio.wait_for(
                            asyncio.open_connection(address, target[1], local_addr=(self.relay.source, 0)),
                            CONNECT_TIMEOUT,
                        )
                    else:
                        reader, writer = await asyncio.wait_for(self.connect_upstream(authority, authorization, refusal), CONNECT_TIMEOUT)
                except asyncio.TimeoutError:
                    status = 504
                except OSError:
                    status, headers = refusal[0] if refusal else (502, [])
                else:
                    if tunnel.closed:  # the client gave up meanwhile
                        writer.close()
                        return
                    self.relay.log(self.peer, method, protocol, authority, path, 200, authorization)
                    self.respond(stream_id, 200, end_stream=False)
                    self.count_tunnel(stream_id)
                    tunnel.attach(reader, writer)
                    return
                tunnel.close()
                if self._quic._close_event is None:
                    finish(status, headers if refusal else ())

            asyncio.ensure_future(open_tcp())
            return
        if protocol != "connect-udp":
            return finish(501)
        if pseudo.get(":scheme") != "https" or not authority or not path:
            return finish(400)
        target = parse_udp_path(path)
        if target is None:
            return finish(400)
        address = resolve(target[0])
        if address is None:
            return finish(502)
        if ended:
            return finish(400)
        tunnel = UdpTunnel(self, stream_id)
        self.tunnels[stream_id] = tunnel
        for payload in early:
            tunnel.payload_from_client(payload)
        # Inner QUIC packets are 1200 bytes or more: let this connection's packets grow so that
        # one fits a DATAGRAM frame (aioquic's packet size is fixed per connection otherwise).
        self._quic._max_datagram_size = max(self._quic._max_datagram_size, self.relay.tunnel_max_packet)

        async def open_udp():
            try:
                await asyncio.get_running_loop().create_datagram_endpoint(
                    lambda: tunnel,
                    local_addr=(self.relay.source, 0),
                    remote_addr=(address, target[1]),
                )
            except OSError:
                tunnel.close()
                return finish(502)
            if tunnel.closed:
                tunnel.transport.close()
                return
            self.relay.log(self.peer, method, protocol, authority, path, 200, authorization)
            self.respond(stream_id, 200, [("capsule-protocol", "?1")], end_stream=False)

        asyncio.ensure_future(open_udp())


# --- main ----------------------------------------------------------------------------------


async def run(args):
    os.makedirs(args.state, exist_ok=True)
    relay = Relay(
        args.name, args.token, args.source, os.path.join(args.state, "access.log"),
        args.max_packet, args.tunnel_max_packet, args.goaway_after, args.hold_credit, args.reject_first,
    )
    if args.upstream:
        host, _, port = args.upstream.rpartition(":")
        relay.upstream = (host, int(port))
    configuration = QuicConfiguration(
        is_client=False,
        alpn_protocols=H3_ALPN,
        max_datagram_frame_size=65536,
        max_datagram_size=args.max_packet,
        idle_timeout=args.idle_timeout,
    )
    configuration.load_cert_chain(args.cert, args.key)
    protocol_class = type("RelayProtocol" + args.name, (RelayProtocol,), {"relay": relay})
    host, port = args.listen.rsplit(":", 1)
    server = await serve(host, int(port), configuration=configuration, create_protocol=protocol_class)

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    bound = server._transport.get_extra_info("sockname")  # the port the kernel picked for port 0
    say(
        f"relay {args.name} listening on udp {bound[0]}:{bound[1]} (h3), token {args.token!r}, "
        f"targets from {args.source}, packets up to {args.max_packet} bytes "
        f"({args.tunnel_max_packet} on connections with a CONNECT-UDP tunnel)"
    )
    await stop.wait()
    say(f"relay {args.name} stopping: closing {len(relay.protocols)} connections")
    for protocol in list(relay.protocols):
        protocol.connection_gone()
    server.close()  # CONNECTION_CLOSE to every client, then the socket
    await asyncio.sleep(0.05)
    relay.log_file.close()


def self_test():
    results = []

    def check(name, got, want):
        results.append(got == want)
        print(f"{'ok  ' if got == want else 'FAIL'} {name}" + ("" if got == want else f": got {got!r}, want {want!r}"))

    # RFC 9000 appendix A.1 examples
    for value, encoded in ((37, "25"), (15293, "7bbd"), (494878333, "9d7f3e7d"), (151288809941952652, "c2197c5eff14e88c")):
        check(f"varint {value} encodes", encode_varint(value).hex(), encoded)
        check(f"varint {value} decodes", decode_varint(bytes.fromhex(encoded)), (value, len(encoded) // 2))
    check("varint cut short", decode_varint(bytes.fromhex("7b")), None)
    datagram = encode_capsule(CAPSULE_DATAGRAM, b"\x00" + b"x" * 100)
    check("DATAGRAM capsule bytes", datagram[:4].hex(), "00406500")
    parser = CapsuleParser()
    stream = datagram + encode_capsule(0x2A, b"unknown") + encode_capsule(CAPSULE_DATAGRAM, b"\x00hi")
    got = []
    for i in range(len(stream)):  # one byte at a time, as DATA frames may split them
        got += parser.feed(stream[i : i + 1])
    check("capsules across splits", got, [(0, b"\x00" + b"x" * 100), (0x2A, b"unknown"), (0, b"\x00hi")])
    check("context id split", split_context(b"\x00payload"), (0, b"payload"))
    check("UDP path", parse_udp_path("/.well-known/masque/udp/127.0.0.12/4433/"), ("127.0.0.12", 4433))
    check("UDP path without trailing slash", parse_udp_path("/.well-known/masque/udp/origin.test/443"), ("origin.test", 443))
    check("UDP path, IPv6 percent-encoded", parse_udp_path("/.well-known/masque/udp/2001%3Adb8%3A%3A1/53/"), ("2001:db8::1", 53))
    check("UDP path, bad port", parse_udp_path("/.well-known/masque/udp/origin.test/0/"), None)
    check("UDP path, other prefix", parse_udp_path("/masque/udp/origin.test/443/"), None)
    check("authority", parse_authority("origin.test:443"), ("origin.test", 443))
    check("authority, IPv6", parse_authority("[::1]:443"), ("::1", 443))
    check("authority without port", parse_authority("origin.test"), None)
    check("resolve origin.test", resolve("Origin.Test."), "127.0.0.21")
    check("resolve h20.origin.test", resolve("h20.origin.test"), "127.0.0.21")
    check("resolve public.test", resolve("public.test"), "127.0.0.22")
    check("resolve relay B literal", resolve("127.0.0.12"), "127.0.0.12")
    check("no DNS", resolve("example.com"), None)
    check("no address outside loopback", resolve("10.0.0.1"), None)
    check("no IPv6", resolve("::1"), None)
    check("log field", log_value("a\tb\n"), "a\\x09b\\x0a")
    failed = results.count(False)
    print(f"h3-relay self-test: {len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--name", default="A", help="relay letter, for logs and the realm")
    parser.add_argument("--listen", default="127.0.0.11:4433", help="ADDRESS:PORT (UDP; port 0: one the kernel picks)")
    parser.add_argument("--source", default="127.0.0.11", help="source address toward targets")
    parser.add_argument("--token", default="relay-token-A", help="bearer token in proxy-authorization")
    parser.add_argument("--cert", help="certificate (PEM)")
    parser.add_argument("--key", help="private key (PEM)")
    parser.add_argument("--state", help="directory for access.log")
    parser.add_argument("--max-packet", type=int, default=1350,
                        help="largest UDP payload the relay sends to clients (default 1350)")
    parser.add_argument("--tunnel-max-packet", type=int, default=1500,
                        help="the same on connections that opened a CONNECT-UDP tunnel (default 1500)")
    parser.add_argument("--idle-timeout", type=float, default=60.0, help="QUIC idle timeout, seconds")
    parser.add_argument("--goaway-after", type=int, default=0,
                        help="send GOAWAY on a connection after N tunnels on it (default 0: never)")
    parser.add_argument("--reject-first", type=int, default=0,
                        help="reset the first N requests with H3_REQUEST_REJECTED, unprocessed (default 0)")
    parser.add_argument("--hold-credit", action="store_true",
                        help="give no stream credit while a TCP target is behind (back-pressure for uploads)")
    parser.add_argument("--host", action="append", default=[], metavar="NAME=ADDRESS",
                        help="one more name the relay resolves (a test's own origin); repeatable")
    parser.add_argument("--upstream", help="HOST:PORT of an HTTP/1.1 relay to send every CONNECT to (no token check here)")
    parser.add_argument("--self-test", action="store_true", help="check the codecs and exit")
    args = parser.parse_args()
    for entry in args.host:
        name, _, address = entry.partition("=")
        if not name or resolve(address) != address:
            parser.error(f"--host needs NAME=ADDRESS with an IPv4 loopback address, not {entry!r}")
        HOSTS[name.lower()] = address
    if args.self_test:
        sys.exit(self_test())
    if not args.state or not args.cert or not args.key:
        parser.error("--state, --cert and --key are required to serve")
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
