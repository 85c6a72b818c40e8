"""A bulk HTTPS origin for streaming tests and benchmarks: serves any number of bytes of a
deterministic pattern over HTTP/1.1 with keep-alive, honours Range and If-Range, can cut the
connection mid-body, and logs how many bytes it actually sent.

  GET /bulk/N             N bytes: byte i is pattern(i) (see below); Content-Length N
  GET /page/N/K           an HTML page with K images, /bulk/N?image=0 to K-1
  ?drop=B                 close the connection (no TLS close_notify) once byte B is sent
  ?chunked=1              chunked transfer coding instead of Content-Length
  ?modified=T             Last-Modified is T (unix seconds) instead of a fixed date
  ?etag=E                 send ETag E as given ("v1" strong, W/"v1" weak); If-Range must equal
                          it (strong comparison) when it is an entity-tag
  ?shift=K                the body is pattern(i + K): another version of the resource whose
                          bytes differ from the default one at every offset
  ?status=C               answer C (e.g. 404, 503) with a short text body, Range or not
  Range: bytes=S-[E]      206 with Content-Range, when If-Range (if any) equals Last-Modified
                          (or the ETag); 416 with "bytes */N" when S >= N; a stale If-Range
                          gets 200, whole

pattern(i) = BASE[i % 1000003], BASE[k] = (k * 2654435761 >> 13) & 0xFF: a period that is a
prime, so chunks delivered out of order, twice or not at all change the digest.

Log lines (tab-separated): REQUEST id peer method target range if-range accept-encoding ("-"
for a field not sent), then PROGRESS id sent
every 4 MiB, then SENT id bytes complete|dropped|error. `--self-issue` issues this server a
certificate for --host (an IP) from the test CA (ca.key beside --ca) instead of --cert/--key.
"""
import datetime
import ipaddress
import itertools
import os
import socket
import ssl
import tempfile
from email.utils import formatdate
from urllib.parse import parse_qs, urlsplit

import hostile_common as common

PERIOD = 1000003
BASE = bytes(((k * 2654435761) >> 13) & 0xFF for k in range(PERIOD))
DOUBLE = memoryview(BASE + BASE)
FIXED_MODIFIED = 1764547200  # 2025-12-01 00:00:00 GMT
PIECE = 1 << 20
PROGRESS_EVERY = 4 << 20


def extra(parser):
    parser.add_argument("--self-issue", action="store_true")


def issued_context(args):
    """A TLS context with a fresh leaf for args.host signed by the test CA."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID
    folder = os.path.dirname(args.ca)
    with open(os.path.join(folder, "ca.key"), "rb") as f:
        ca_key = serialization.load_pem_private_key(f.read(), None)
    with open(args.ca, "rb") as f:
        ca = x509.load_pem_x509_certificate(f.read())
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, args.host)]))
            .issuer_name(ca.subject).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1)).not_valid_after(now + datetime.timedelta(days=2))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address(args.host))]), critical=False)
            .sign(ca_key, hashes.SHA256()))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.set_alpn_protocols(["http/1.1"])
    with tempfile.TemporaryDirectory() as folder:
        cert_path, key_path = os.path.join(folder, "c.pem"), os.path.join(folder, "k.pem")
        with open(cert_path, "wb") as f:
            f.write(cert.public_bytes(serialization.Encoding.PEM))
        with open(key_path, "wb") as f:
            f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                      serialization.NoEncryption()))
        context.load_cert_chain(cert_path, key_path)
    return context


args = common.arguments("bulk streaming origin", extra)
log = common.EventLog(args.log)
ids = itertools.count(1)


def send_range(conn, request_id, start, end, drop, chunked, shift=0):
    """Sends pattern bytes [start, end) (of the version `shift`); returns False when it cut the
    connection at `drop`."""
    position, sent, reported = start, 0, 0
    while position < end:
        count = min(PIECE, end - position, PERIOD)
        if drop is not None and position < drop <= position + count:
            count = drop - position
        offset = (position + shift) % PERIOD
        piece = DOUBLE[offset:offset + count]
        if chunked:
            conn.sendall(b"%x\r\n" % count)
        if count:
            conn.sendall(piece)
        if chunked:
            conn.sendall(b"\r\n")
        position += count
        sent += count
        if sent - reported >= PROGRESS_EVERY:
            reported = sent
            log("PROGRESS", request_id, sent)
        if drop is not None and position == drop:
            log("SENT", request_id, sent, "dropped")
            conn.shutdown(socket.SHUT_RDWR)
            return False
    if chunked:
        conn.sendall(b"0\r\n\r\n")
    log("SENT", request_id, sent, "complete")
    return True


def respond(conn, address, head):
    request_id = next(ids)
    lines = head.split("\r\n")
    method, target, _ = (lines[0].split(" ") + ["", "", ""])[:3]
    fields = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        fields[name.strip().lower()] = value.strip()
    log("REQUEST", request_id, address[0], method, target, fields.get("range", "-"), fields.get("if-range", "-"),
        fields.get("accept-encoding", "-"))
    url = urlsplit(target)
    query = {k: v[-1] for k, v in parse_qs(url.query).items()}
    if url.path.startswith("/page/"):
        size, _, count = url.path[6:].partition("/")
        if size.isdigit() and count.isdigit():
            images = "".join('<img src="/bulk/%s?image=%d">' % (size, n) for n in range(int(count)))
            page = ("<!doctype html><title>bulk</title><body>%s</body>" % images).encode()
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n" % len(page) + page)
            log("SENT", request_id, len(page), "complete")
            return True
    if not url.path.startswith("/bulk/") or not url.path[6:].isdigit():
        conn.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
        return True
    if query.get("status", "").isdigit():
        text = b"status %s from the bulk origin\n" % query["status"].encode()
        conn.sendall(b"HTTP/1.1 %s Status\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n"
                     % (query["status"].encode(), len(text)) + text)
        log("SENT", request_id, len(text), "complete")
        return True
    size = int(url.path[6:])
    modified = formatdate(int(query.get("modified", FIXED_MODIFIED)), usegmt=True)
    drop = int(query["drop"]) if "drop" in query else None
    chunked = query.get("chunked") == "1"
    shift = int(query.get("shift", "0"))
    etag = query.get("etag")
    start, end, status = 0, size, "200 OK"
    extra_headers = "Last-Modified: %s\r\nAccept-Ranges: bytes\r\n" % modified
    if etag:
        extra_headers += "ETag: %s\r\n" % etag
    wanted = fields.get("range", "")
    condition = fields.get("if-range")
    if condition is None:
        current = True
    elif condition.startswith('"') or condition.startswith("W/"):
        # An entity-tag: the strong comparison (RFC 9110 §8.8.3.2); a weak tag never matches.
        current = etag is not None and not etag.startswith("W/") and condition == etag
    else:
        current = condition == modified
    if wanted.startswith("bytes=") and current:
        first, _, last = wanted[6:].partition("-")
        if first.isdigit():
            start = int(first)
            if start >= size:
                conn.sendall(("HTTP/1.1 416 Range Not Satisfiable\r\nContent-Range: bytes */%d\r\nContent-Length: 0\r\n%s\r\n"
                              % (size, extra_headers)).encode())
                log("SENT", request_id, 0, "complete")
                return True
            end = min(size, int(last) + 1) if last.isdigit() else size
            status = "206 Partial Content"
            extra_headers += "Content-Range: bytes %d-%d/%d\r\n" % (start, end - 1, size)
    framing = "Transfer-Encoding: chunked\r\n" if chunked else "Content-Length: %d\r\n" % (end - start)
    conn.sendall(("HTTP/1.1 %s\r\nContent-Type: application/octet-stream\r\n%s%s\r\n" % (status, framing, extra_headers)).encode())
    if method == "HEAD":
        return True
    try:
        return send_range(conn, request_id, start, end, drop, chunked, shift)
    except OSError:
        log("SENT", request_id, "?", "error")
        return False


def handle(conn, address):
    for head in common.request_heads(conn):
        if not respond(conn, address, head):
            return


context = issued_context(args) if args.self_issue else common.server_tls_context(args, ["http/1.1"])
common.serve(args, handle, context)
