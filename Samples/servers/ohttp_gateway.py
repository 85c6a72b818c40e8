#!/usr/bin/env python3
"""Oblivious HTTP gateway (RFC 9458) for relayfetch tests.

An implementation independent of the project's Swift client: Binary HTTP (RFC 9292) and the
OHTTP encapsulation (RFC 9458 section 4) are written here, HPKE (RFC 9180) comes from pyhpke.
Started by scripts/test-servers.sh with the venv that scripts/setup.sh makes (.build/venv).

Endpoints (plain HTTP, reached through the OHTTP relay, nginx on https://127.0.0.30):
  GET  /ohttp-keys                 the key configuration list, application/ohttp-keys
  GET  /.well-known/ohttp-gateway  the same (RFC 9540 discovery)
  POST /gateway                    message/ohttp-req in, message/ohttp-res out
  POST /gateway-tamper             the same, with one bit of the response's last byte flipped

The gateway forwards each decapsulated request over HTTPS to the test origins, resolving their
names through a fixed map, verifying them with the test CA and connecting from its own address,
so origin logs tell it apart from clients and relays. One TAB-separated line per encapsulated
request goes to STATE/gateway.log: time, peer (the relay, never the client), key id, method,
target URL, the inner response's status, and a note ("-" when the origin answered).

State (STATE, normally $RELAYFETCH_SERVERS_DIR/ohttp): gateway.key holds the X25519 private key
(hex; made on first start, kept after), keys.bin the application/ohttp-keys list for tests.

`ohttp_gateway.py --self-test` checks the codecs against RFC 9458 Appendix A and RFC 9292
section 5 and exits.
"""

import argparse
import hashlib
import hmac
import http.client
import http.server
import os
import re
import socket
import ssl
import struct
import sys
import threading
import time

try:
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM, ChaCha20Poly1305
    from pyhpke import AEADId, CipherSuite, KDFId, KEMId
except ImportError as error:
    sys.exit(
        f"ohttp-gateway: {error}: run scripts/setup.sh, then start this with .build/venv/bin/python"
    )

# --- key configuration (RFC 9458 section 3) ------------------------------------------------

KEY_ID = 0x01
KEM_X25519_SHA256 = 0x0020
KDF_HKDF_SHA256 = 0x0001
AEAD_AES_128_GCM = 0x0001
AEAD_CHACHA20_POLY1305 = 0x0003
# Symmetric suites the key configuration offers, in order: (KDF, AEAD).
SUITES = ((KDF_HKDF_SHA256, AEAD_AES_128_GCM), (KDF_HKDF_SHA256, AEAD_CHACHA20_POLY1305))
N_ENC = 32  # Nenc of DHKEM(X25519, HKDF-SHA256)
# AEAD id: (class, Nk, Nn); both have a 16-byte tag.
AEADS = {
    AEAD_AES_128_GCM: (AESGCM, 16, 12),
    AEAD_CHACHA20_POLY1305: (ChaCha20Poly1305, 32, 12),
}
AEAD_TAG = 16

REQUEST_INFO = b"message/bhttp request"
RESPONSE_LABEL = b"message/bhttp response"


class GatewayKey:
    """One key configuration: key id, KEM, X25519 key pair, symmetric suites."""

    def __init__(self, key_id, private_bytes, suites=SUITES):
        self.key_id = key_id
        self.kem_id = KEM_X25519_SHA256
        self.suites = tuple(suites)
        self.public_bytes = X25519PrivateKey.from_private_bytes(private_bytes).public_key().public_bytes_raw()
        suite = CipherSuite.new(KEMId(self.kem_id), KDFId(KDF_HKDF_SHA256), AEADId(AEAD_AES_128_GCM))
        self.private_key = suite.kem.deserialize_private_key(private_bytes)

    def config(self):
        """The key configuration's bytes (RFC 9458 section 3.1)."""
        algorithms = b"".join(struct.pack(">HH", kdf, aead) for kdf, aead in self.suites)
        return (
            struct.pack(">BH", self.key_id, self.kem_id)
            + self.public_bytes
            + struct.pack(">H", len(algorithms))
            + algorithms
        )


def key_list(keys):
    """application/ohttp-keys (RFC 9458 section 3.2): each configuration after its length."""
    return b"".join(struct.pack(">H", len(c)) + c for c in (k.config() for k in keys))


# --- encapsulation (RFC 9458 section 4) ----------------------------------------------------


class Rejected(Exception):
    """An encapsulated request the gateway cannot open: answered with 400 and this reason."""


def hkdf_extract(salt, ikm):
    return hmac.new(salt, ikm, hashlib.sha256).digest()


def hkdf_expand(prk, info, length):
    out, block, counter = b"", b"", 1
    while len(out) < length:
        block = hmac.new(prk, block + info + bytes([counter]), hashlib.sha256).digest()
        out += block
        counter += 1
    return out[:length]


class Opened:
    """A decapsulated request and what the gateway needs to answer it."""

    def __init__(self, key_id, kdf_id, aead_id, enc, context, request):
        self.key_id, self.kdf_id, self.aead_id = key_id, kdf_id, aead_id
        self.enc, self.context, self.request = enc, context, request


def peek_key_id(message):
    return message[0] if message else None


def decapsulate_request(keys, message):
    """Opens an encapsulated request (RFC 9458 section 4.3, gateway side)."""
    if len(message) < 7:
        raise Rejected(f"encapsulated request too short ({len(message)} bytes) for its header")
    key_id = message[0]
    kem_id, kdf_id, aead_id = struct.unpack(">HHH", message[1:7])
    key = keys.get(key_id)
    if key is None:
        raise Rejected(f"unknown key id 0x{key_id:02x}; this gateway has " + ", ".join(f"0x{k:02x}" for k in sorted(keys)))
    if kem_id != key.kem_id:
        raise Rejected(f"unsupported KEM 0x{kem_id:04x} for key id 0x{key_id:02x} (it uses 0x{key.kem_id:04x})")
    if (kdf_id, aead_id) not in key.suites:
        raise Rejected(f"unsupported symmetric suite KDF 0x{kdf_id:04x} AEAD 0x{aead_id:04x} for key id 0x{key_id:02x}")
    if len(message) < 7 + N_ENC + AEAD_TAG:
        raise Rejected(f"encapsulated request too short ({len(message)} bytes) for enc and an AEAD tag")
    enc, ciphertext = message[7 : 7 + N_ENC], message[7 + N_ENC :]
    info = REQUEST_INFO + b"\x00" + message[:7]
    suite = CipherSuite.new(KEMId(kem_id), KDFId(kdf_id), AEADId(aead_id))
    try:
        context = suite.create_recipient_context(enc, key.private_key, info=info)
        request = context.open(ciphertext, aad=b"")
    except Exception as error:  # pyhpke raises OpenError, or others for a malformed enc
        raise Rejected(f"cannot decrypt the encapsulated request ({type(error).__name__})") from None
    return Opened(key_id, kdf_id, aead_id, bytes(enc), context, request)


def encapsulate_response(opened, response, response_nonce=None):
    """Seals a Binary HTTP response (RFC 9458 section 4.4, gateway side)."""
    aead_class, nk, nn = AEADS[opened.aead_id]
    if response_nonce is None:
        response_nonce = os.urandom(max(nn, nk))
    secret = opened.context.export(RESPONSE_LABEL, nk)
    prk = hkdf_extract(opened.enc + response_nonce, secret)
    key = hkdf_expand(prk, b"key", nk)
    nonce = hkdf_expand(prk, b"nonce", nn)
    return response_nonce + aead_class(key).encrypt(nonce, response, b"")


# --- Binary HTTP (RFC 9292) ----------------------------------------------------------------


class BadMessage(Exception):
    """A Binary HTTP message this gateway cannot read."""


def encode_varint(value):
    """A QUIC variable-length integer (RFC 9000 section 16), in its shortest form."""
    if value < 0x40:
        return struct.pack(">B", value)
    if value < 0x4000:
        return struct.pack(">H", value | 0x4000)
    if value < 0x40000000:
        return struct.pack(">I", value | 0x80000000)
    if value < 0x4000000000000000:
        return struct.pack(">Q", value | 0xC000000000000000)
    raise ValueError(f"{value} does not fit a variable-length integer")


def encode_vbytes(data):
    return encode_varint(len(data)) + data


class Reader:
    def __init__(self, data):
        self.data, self.pos = bytes(data), 0

    def at_end(self):
        return self.pos >= len(self.data)

    def varint(self, what):
        if self.at_end():
            raise BadMessage(f"truncated before {what}")
        first = self.data[self.pos]
        size = 1 << (first >> 6)
        if self.pos + size > len(self.data):
            raise BadMessage(f"truncated inside {what}")
        value = first & 0x3F
        for byte in self.data[self.pos + 1 : self.pos + size]:
            value = (value << 8) | byte
        self.pos += size
        return value

    def take(self, length, what):
        if self.pos + length > len(self.data):
            raise BadMessage(f"{what} is {length} bytes but only {len(self.data) - self.pos} remain")
        chunk = self.data[self.pos : self.pos + length]
        self.pos += length
        return chunk

    def vbytes(self, what):
        return self.take(self.varint(f"the length of {what}"), what)


def read_field_lines(reader, what):
    """Field lines up to the end of reader (known-length sections)."""
    fields = []
    while not reader.at_end():
        name = reader.vbytes(f"a field name in {what}")
        if not name:
            raise BadMessage(f"empty field name in {what}")
        fields.append((name, reader.vbytes(f"the value of {name!r} in {what}")))
    return fields


def read_fields(reader, known, what):
    """A field section. A message may end where a section would begin: the section is empty."""
    if reader.at_end():
        return []
    if known:
        return read_field_lines(Reader(reader.vbytes(what)), what)
    fields = []
    while True:
        name = reader.vbytes(f"a field name in {what}")
        if not name:  # the terminator
            return fields
        fields.append((name, reader.vbytes(f"the value of {name!r} in {what}")))


def read_content(reader, known):
    if reader.at_end():
        return b""
    if known:
        return reader.vbytes("the content")
    chunks = []
    while True:
        chunk = reader.vbytes("a content chunk")
        if not chunk:  # the terminator
            return b"".join(chunks)
        chunks.append(chunk)


def check_padding(reader):
    rest = reader.data[reader.pos :]
    if rest.strip(b"\x00"):
        raise BadMessage(f"{len(rest)} bytes after the message are not zero padding")


class Request:
    def __init__(self, method, scheme, authority, path, headers, content, trailers):
        self.method, self.scheme, self.authority, self.path = method, scheme, authority, path
        self.headers, self.content, self.trailers = headers, content, trailers

    def target(self):
        return f"{self.scheme}://{self.authority}{self.path}"


def decode_request(data):
    """A Binary HTTP request, known-length (framing 0) or indeterminate-length (framing 2)."""
    reader = Reader(data)
    framing = reader.varint("the framing indicator")
    if framing not in (0, 2):
        kind = "a response" if framing in (1, 3) else "unknown"
        raise BadMessage(f"framing indicator {framing} is {kind}, not a request")
    known = framing == 0
    control = [reader.vbytes(part) for part in ("the method", "the scheme", "the authority", "the path")]
    headers = read_fields(reader, known, "the header section")
    content = read_content(reader, known)
    trailers = read_fields(reader, known, "the trailer section")
    check_padding(reader)
    try:
        method, scheme, authority, path = (part.decode("ascii") for part in control)
        headers = [(n.decode("ascii").lower(), v.decode("latin-1")) for n, v in headers]
        trailers = [(n.decode("ascii").lower(), v.decode("latin-1")) for n, v in trailers]
    except UnicodeDecodeError:
        raise BadMessage("control data or a field name is not ASCII") from None
    return Request(method, scheme, authority, path, headers, content, trailers)


def encode_fields_known(fields):
    lines = b"".join(
        encode_vbytes(name.lower().encode("ascii")) + encode_vbytes(value.encode("latin-1"))
        for name, value in fields
    )
    return encode_vbytes(lines)


def encode_response(status, headers, content, trailers=()):
    """A known-length Binary HTTP response (framing 1), trailer section included (empty)."""
    return (
        encode_varint(1)
        + encode_varint(status)
        + encode_fields_known(headers)
        + encode_vbytes(content)
        + encode_fields_known(trailers)
    )


def decode_response(data):
    """A known-length or indeterminate-length response: (status, headers, content, trailers).
    Informational responses are skipped. For --self-test."""
    reader = Reader(data)
    framing = reader.varint("the framing indicator")
    if framing not in (1, 3):
        raise BadMessage(f"framing indicator {framing} is not a response")
    known = framing == 1
    while True:
        status = reader.varint("the status code")
        headers = read_fields(reader, known, "the header section")
        if not 100 <= status < 200:
            break
    content = read_content(reader, known)
    trailers = read_fields(reader, known, "the trailer section")
    check_padding(reader)
    return status, headers, content, trailers


# --- forwarding to the origins -------------------------------------------------------------

# Names the test origins answer to (scripts/test-servers.sh, Samples/servers/squid.hosts).
ORIGIN_ADDRESSES = {
    "origin.test": "127.0.0.21",
    "www.origin.test": "127.0.0.21",
    "internal.test": "127.0.0.21",
    "origin2.test": "127.0.0.22",
    "public.test": "127.0.0.22",
    **{f"h{n}.origin.test": "127.0.0.21" for n in range(1, 21)},
}
# Not forwarded: connection-specific fields (RFC 9110 section 7.6.1), and those http.client sets.
HOP_BY_HOP = {
    "connection", "keep-alive", "proxy-connection", "te", "transfer-encoding", "upgrade",
    "trailer", "proxy-authorization", "proxy-authenticate", "host", "content-length",
}
TOKEN = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
NO_CONTROLS = re.compile(r"^[\x21-\x7e]*$")
MAX_BODY = 64 * 1024 * 1024
ORIGIN_TIMEOUT = 15


class Upstream(Exception):
    """The gateway answers for the origin: (status, reason)."""

    def __init__(self, status, reason):
        super().__init__(reason)
        self.status, self.reason = status, reason


def split_authority(authority, scheme):
    default = 443 if scheme == "https" else 80
    match = re.fullmatch(r"(\[[^\]]*\]|[^:]*)(?::(\d{1,5}))?", authority)
    if not match or not match.group(1):
        raise Upstream(400, f"cannot read the authority {authority!r}")
    return match.group(1).lower(), int(match.group(2) or default)


def forward(request, ca_file, source):
    """Sends request to its origin; returns (status, headers, content)."""
    if request.scheme not in ("https", "http"):
        raise Upstream(400, f"unsupported scheme {request.scheme!r}")
    if not TOKEN.match(request.method):
        raise Upstream(400, f"method {request.method!r} is not a token")
    if not request.path.startswith("/") or not NO_CONTROLS.match(request.path):
        raise Upstream(400, f"path {request.path!r} is not an origin-form path")
    host, port = split_authority(request.authority, request.scheme)
    address = ORIGIN_ADDRESSES.get(host)
    if address is None:
        raise Upstream(502, f"{host} is not a test origin this gateway knows")
    for name, value in request.headers:
        if not TOKEN.match(name) or re.search(r"[\x00\r\n]", value):
            raise Upstream(400, f"invalid header field {name!r}")

    if request.scheme == "https":
        context = ssl.create_default_context(cafile=ca_file)
        context.set_alpn_protocols(["http/1.1"])
        conn = http.client.HTTPSConnection(host, port, timeout=ORIGIN_TIMEOUT, source_address=(source, 0), context=context)
    else:
        conn = http.client.HTTPConnection(host, port, timeout=ORIGIN_TIMEOUT, source_address=(source, 0))
    # Connect to the mapped address; TLS still checks the name (server_hostname is conn.host).
    conn._create_connection = lambda _addr, timeout, src: socket.create_connection((address, port), timeout, src)
    try:
        conn.putrequest(request.method, request.path, skip_host=True, skip_accept_encoding=True)
        conn.putheader("Host", request.authority)
        for name, value in request.headers:
            if name not in HOP_BY_HOP:
                conn.putheader(name, value)
        if request.content or request.method in ("POST", "PUT", "PATCH"):
            conn.putheader("Content-Length", str(len(request.content)))
        conn.endheaders(request.content or None)
        response = conn.getresponse()
        content = response.read(MAX_BODY + 1)
        if len(content) > MAX_BODY:
            raise Upstream(502, f"the origin's response is over {MAX_BODY} bytes")
        headers = [(n.lower(), v) for n, v in response.getheaders() if n.lower() not in HOP_BY_HOP - {"content-length"}]
        return response.status, headers, content
    except ssl.SSLError as error:
        raise Upstream(502, f"TLS with {host}:{port} failed: {error}") from None
    except (socket.timeout, TimeoutError):
        raise Upstream(504, f"{host}:{port} did not answer in {ORIGIN_TIMEOUT}s") from None
    except (OSError, http.client.HTTPException) as error:
        raise Upstream(502, f"{host}:{port} ({address}): {type(error).__name__}: {error}") from None
    finally:
        conn.close()


# --- the HTTP server -----------------------------------------------------------------------


def log_value(value):
    """A log field: no TABs, line breaks or other controls; empty becomes '-'."""
    text = str(value) if value not in (None, "") else "-"
    return re.sub(r"[\x00-\x1f\x7f]", lambda m: f"\\x{ord(m.group()):02x}", text)


def now_iso():
    now = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(now)) + f".{int(now % 1 * 1000):03d}" + time.strftime("%z")


class Gateway:
    def __init__(self, keys, ca_file, source, log_path):
        self.keys = {key.key_id: key for key in keys}
        self.key_list = key_list(keys)
        self.ca_file, self.source = ca_file, source
        self.log_file = open(log_path, "a", buffering=1, encoding="utf-8")
        self.log_lock = threading.Lock()

    def log(self, peer, key_id, method, target, status, note):
        key = f"0x{key_id:02x}" if key_id is not None else None
        fields = (now_iso(), peer, key, method, target, status, note)
        line = "\t".join(log_value(f) for f in fields) + "\n"
        with self.log_lock:
            self.log_file.write(line)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    gateway = None  # set in serve()

    def version_string(self):
        return "ohttp-gateway"

    def log_request(self, code="-", size="-"):
        pass  # encapsulated requests go to gateway.log; errors still reach stderr

    def reply(self, status, body, content_type="text/plain; charset=utf-8", extra=()):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store" if content_type != "application/ohttp-keys" else "max-age=60")
        for name, value in extra:
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def text(self, status, message, extra=()):
        self.reply(status, (message + "\n").encode(), extra=extra)

    def read_body(self):
        """The request's content, or None after answering an error."""
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            self.close_connection = True
            self.text(411, "send a Content-Length, not chunked transfer coding")
            return None
        try:
            length = int(self.headers.get("Content-Length", "0"))
        except ValueError:
            length = -1
        if not 0 <= length <= MAX_BODY:
            self.close_connection = True
            self.text(413 if length > MAX_BODY else 400, "bad or too large Content-Length")
            return None
        return self.rfile.read(length)

    def do_GET(self):
        path = self.path.split("?", 1)[0]
        if path in ("/ohttp-keys", "/.well-known/ohttp-gateway"):
            self.reply(200, self.gateway.key_list, "application/ohttp-keys")
        elif path in ("/gateway", "/gateway-tamper"):
            self.text(405, "POST a message/ohttp-req here", extra=[("Allow", "POST")])
        else:
            self.text(404, "not found: try /ohttp-keys, /gateway or /gateway-tamper")

    do_HEAD = do_GET

    def do_POST(self):
        body = self.read_body()
        if body is None:
            return
        path = self.path.split("?", 1)[0]
        if path not in ("/gateway", "/gateway-tamper"):
            if path in ("/ohttp-keys", "/.well-known/ohttp-gateway"):
                self.text(405, "GET the key configuration", extra=[("Allow", "GET, HEAD")])
            else:
                self.text(404, "not found")
            return
        tamper = path == "/gateway-tamper"
        peer = self.client_address[0]
        content_type = self.headers.get("Content-Type", "").split(";", 1)[0].strip().lower()
        if content_type != "message/ohttp-req":
            self.gateway.log(peer, None, None, None, None, f"415 rejected: Content-Type {content_type or 'missing'}")
            self.text(415, "Content-Type must be message/ohttp-req")
            return
        try:
            opened = decapsulate_request(self.gateway.keys, body)
        except Rejected as error:
            self.gateway.log(peer, peek_key_id(body), None, None, None, f"400 rejected: {error}")
            self.text(400, str(error))
            return

        note = "tampered" if tamper else None
        method = target = None
        try:
            request = decode_request(opened.request)
            method = request.method
            if not request.authority:  # the target may be named by a Host field instead
                request.authority = next((v for n, v in request.headers if n == "host"), "")
            target = request.target()
            status, headers, content = forward(request, self.gateway.ca_file, self.gateway.source)
        except BadMessage as error:
            status, headers, content = 400, [], f"bad Binary HTTP request: {error}\n".encode()
            note = f"gateway: bad Binary HTTP request: {error}"
        except Upstream as error:
            status, headers, content = error.status, [], f"{error.reason}\n".encode()
            note = f"gateway: {error.reason}"
        if note and note.startswith("gateway:"):
            headers = [("content-type", "text/plain; charset=utf-8"), ("content-length", str(len(content)))]
            if tamper:
                note += " (tampered)"
        sealed = bytearray(encapsulate_response(opened, encode_response(status, headers, content)))
        if tamper:
            sealed[-1] ^= 0x01
        self.gateway.log(peer, opened.key_id, method, target, status, note)
        self.reply(200, bytes(sealed), "message/ohttp-res")


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128


def load_key(state):
    """The gateway's X25519 private key, made on first start and kept in STATE/gateway.key."""
    path = os.path.join(state, "gateway.key")
    try:
        with open(path, encoding="ascii") as file:
            private = bytes.fromhex(file.read().strip())
        if len(private) != 32:
            raise ValueError(f"{len(private)} bytes, not 32")
        return private
    except FileNotFoundError:
        pass
    except ValueError as error:
        sys.exit(f"ohttp-gateway: {path} is not a hex X25519 private key ({error}); remove it for a new key")
    private = X25519PrivateKey.generate().private_bytes_raw()
    fd = os.open(path + ".tmp", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as file:
        file.write(private.hex() + "\n")
    os.replace(path + ".tmp", path)
    print(f"ohttp-gateway: made a new key pair in {path}", flush=True)
    return private


def write_atomically(path, data):
    with open(path + ".tmp", "wb") as file:
        file.write(data)
    os.replace(path + ".tmp", path)


def serve(args):
    os.makedirs(args.state, exist_ok=True)
    key = GatewayKey(KEY_ID, load_key(args.state))
    gateway = Gateway([key], args.ca, args.source, os.path.join(args.state, "gateway.log"))
    write_atomically(os.path.join(args.state, "keys.bin"), gateway.key_list)
    host, port = args.listen.rsplit(":", 1)
    Handler.gateway = gateway
    server = Server((host, int(port)), Handler)
    print(
        f"ohttp-gateway: listening on http://{args.listen}; key config {key.config().hex()}; "
        f"origins from {args.source}, verified with {args.ca}",
        flush=True,
    )
    server.serve_forever()


# --- self-test -----------------------------------------------------------------------------


def self_test():
    """Known answers from RFC 9458 Appendix A and RFC 9292 section 5 (published test values)."""
    results = []

    def check(name, got, want):
        results.append((name, got == want))
        print(f"{'ok  ' if got == want else 'FAIL'} {name}" + ("" if got == want else f": got {got!r}, want {want!r}"))

    h = bytes.fromhex
    # RFC 9458 Appendix A: the gateway's key and configuration, one request, one response.
    key = GatewayKey(0x01, h("3c168975674b2fa8e465970b79c8dcf09f1c741626480bd4c6162fc5b6a98e1a"), SUITES)
    check("RFC 9458 A: key configuration", key.config().hex(),
          "01002031e1f05a740102115220e9af918f738674aec95f54db6e04eb705aae8e79815500080001000100010003")
    encapsulated = h(
        "010020000100014b28f881333e7c164ffc499ad9796f877f4e1051ee6d31bad1"
        "9dec96c208b4726374e469135906992e1268c594d2a10c695d858c40a026e796"
        "5e7d86b83dd440b2c0185204b4d63525"
    )
    opened = decapsulate_request({0x01: key}, encapsulated)
    check("RFC 9458 A: decapsulated request", opened.request.hex(), "00034745540568747470730b6578616d706c652e636f6d012f")
    request = decode_request(opened.request)
    check("RFC 9458 A: request control data", (request.method, request.target()), ("GET", "https://example.com/"))
    sealed = encapsulate_response(opened, h("0140c8"), response_nonce=h("c789e7151fcba46158ca84b04464910d"))
    check("RFC 9458 A: encapsulated response", sealed.hex(),
          "c789e7151fcba46158ca84b04464910d86f9013e404feea014e7be4a441f234f857fbd")
    check("RFC 9458 A: response decodes to 200", decode_response(h("0140c8"))[0], 200)
    for name, message, reason in (
        ("unknown key id", b"\x02" + encapsulated[1:], "unknown key id 0x02"),
        ("unsupported suite", encapsulated[:5] + b"\x00\x02" + encapsulated[7:], "unsupported symmetric suite"),
        ("flipped ciphertext bit", encapsulated[:-1] + bytes([encapsulated[-1] ^ 1]), "cannot decrypt"),
    ):
        try:
            decapsulate_request({0x01: key}, message)
            check(f"rejects {name}", "accepted", reason)
        except Rejected as error:
            check(f"rejects {name}", reason in str(error), True)

    # RFC 9292 section 5: the request of Figure 7 known-length (Figure 8) and indeterminate-length
    # with padding (Figure 9); responses with informational responses (Figure 11), a trailer (13).
    fields = [("user-agent", "curl/7.16.3 libcurl/7.16.3 OpenSSL/0.9.7l zlib/1.2.3"),
              ("host", "www.example.com"), ("accept-language", "en, mi")]
    figure8 = h(
        "0003474554056874747073000a2f68656c6c6f2e747874406c0a757365722d6167656e74346375726c2f372e3136"
        "2e33206c69626375726c2f372e31362e33204f70656e53534c2f302e392e376c207a6c69622f312e322e3304686f"
        "73740f7777772e6578616d706c652e636f6d0f6163636570742d6c616e677561676506656e2c206d690000")
    known = decode_request(figure8)
    check("RFC 9292 figure 8: known-length request",
          (known.method, known.scheme, known.authority, known.path, known.headers, known.content, known.trailers),
          ("GET", "https", "", "/hello.txt", fields, b"", []))
    figure9 = h(
        "0203474554056874747073000a2f68656c6c6f2e7478740a757365722d6167656e74346375726c2f372e31362e33"
        "206c69626375726c2f372e31362e33204f70656e53534c2f302e392e376c207a6c69622f312e322e3304686f7374"
        "0f7777772e6578616d706c652e636f6d0f6163636570742d6c616e677561676506656e2c206d6900000000000000"
        "000000000000")
    for cut in (0, 1, 12):
        padded = decode_request(figure9[: len(figure9) - cut])
        check(f"RFC 9292 figure 9: indeterminate-length request, padded, {cut} bytes cut",
              (padded.path, padded.headers, padded.content), ("/hello.txt", fields, b""))
    for name, message in (("figure 8 cut inside the header section", figure8[:40]),
                          ("figure 9 without its header terminator", figure9[:-13])):
        try:
            decode_request(message)
            check(f"rejects {name}", "accepted", "BadMessage")
        except BadMessage:
            check(f"rejects {name}", True, True)
    figure11 = decode_response(h(
        "0340660772756e6e696e670a22736c65657020313522004067046c696e6b233c2f7374796c652e6373733e3b2072"
        "656c3d7072656c6f61643b2061733d7374796c65046c696e6b243c2f7363726970742e6a733e3b2072656c3d7072"
        "656c6f61643b2061733d7363726970740040c804646174651d4d6f6e2c203237204a756c20323030392031323a32"
        "383a353320474d5406736572766572064170616368650d6c6173742d6d6f6469666965641d5765642c203232204a"
        "756c20323030392031393a31353a353620474d5404657461671422333461613338372d642d313536386562303022"
        "0d6163636570742d72616e6765730562797465730e636f6e74656e742d6c656e67746802353104766172790f4163"
        "636570742d456e636f64696e670c636f6e74656e742d747970650a746578742f706c61696e003348656c6c6f2057"
        "6f726c6421204d7920636f6e74656e7420696e636c75646573206120747261696c696e672043524c462e0d0a0000"))
    check("RFC 9292 figure 11: indeterminate-length response after 102 and 103",
          (figure11[0], figure11[1][-1], figure11[2]),
          (200, (b"content-type", b"text/plain"), b"Hello World! My content includes a trailing CRLF.\r\n"))
    figure13 = "0140c8001d5468697320636f6e74656e7420636f6e7461696e732043524c462e0d0a0d07747261696c65720474657874"
    check("RFC 9292 figure 13: known-length response with a trailer, encoded",
          encode_response(200, [], b"This content contains CRLF.\r\n", [("trailer", "text")]).hex(), figure13)
    check("RFC 9292 figure 13: decoded", decode_response(h(figure13)),
          (200, [], b"This content contains CRLF.\r\n", [(b"trailer", b"text")]))
    body = b"x" * 300
    round_trip = decode_response(encode_response(404, [("Content-Type", "text/plain")], body))
    check("response round trip", round_trip, (404, [(b"content-type", b"text/plain")], body, []))
    for name, message in (("a response as a request", h("0140c8")), ("non-zero padding", h("00034745540568747470730b6578616d706c652e636f6d012f0000000001"))):
        try:
            decode_request(message)
            check(f"rejects {name}", "accepted", "BadMessage")
        except BadMessage:
            check(f"rejects {name}", True, True)

    failed = sum(1 for _, ok in results if not ok)
    print(f"ohttp-gateway self-test: {len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--listen", default="127.0.0.31:8081", help="ADDRESS:PORT for plain HTTP")
    parser.add_argument("--state", help="directory for gateway.key, keys.bin and gateway.log")
    parser.add_argument("--ca", help="CA certificate that origin certificates chain to")
    parser.add_argument("--source", default="127.0.0.32", help="source address toward the origins")
    parser.add_argument("--self-test", action="store_true", help="check against RFC test vectors and exit")
    args = parser.parse_args()
    if args.self_test:
        sys.exit(self_test())
    if not args.state or not args.ca:
        parser.error("--state and --ca are required to serve")
    serve(args)


if __name__ == "__main__":
    main()
