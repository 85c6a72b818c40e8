"""Encrypted DNS resolver for relayfetch's tests: DNS over HTTPS (RFC 8484, GET and POST,
application/dns-message), DNS over TLS (RFC 7858) and Oblivious DoH (RFC 9230: target and
oblivious relay). DNS messages come from dnslib, HPKE from pyhpke; what ODoH adds (its config,
key id, framing and response keys) is written here.

It answers from its own zone only (--zone, dnslib's zone-file syntax) and never asks another
resolver. nginx (started and stopped by this script) terminates TLS with HTTP/2 for DoH and ODoH:
  https://dns.test/dns-query              on --addr:443     DoH
  https://odoh-target.test/dns-query      on --addr:443     ODoH target (application/oblivious-dns-message)
  https://odoh-target.test/.well-known/odohconfigs
  https://odoh-relay.test/proxy?targethost=H&targetpath=P   on --relay-addr:443, the oblivious relay:
                                           it forwards to H (dialled at --addr) from --relay-addr
DoT listens on --addr:--dot-port itself. The target's ObliviousDoHConfigs are also written to
--state/odohconfigs.bin. Certificates for these names and both addresses are
issued at start from the test CA (--ca-cert, --ca-key).

Prints "READY <dot-port>" once everything listens, appends one TAB-separated line per question
to --log (time, service, client address, HTTP version, method, name, type, rcode) and one per DoT
connection (service dot-connection), and exits
(stopping nginx) when its standard input closes.
"""
import argparse
import base64
import ctypes
import datetime
import hashlib
import hmac
import http.client
import os
import signal
import socket
import ssl
import struct
import subprocess
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

try:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    from cryptography.hazmat.primitives.kdf.hkdf import HKDFExpand
    from cryptography.x509.oid import NameOID
    from dnslib import QTYPE, RCODE, RR, DNSRecord
    from pyhpke import AEADId, CipherSuite, KDFId, KEMId
except ImportError as error:
    sys.exit(f"dns_resolver: {error}: run scripts/setup.sh, then start this with .build/venv/bin/python")

NAMES = ["dns.test", "odoh-target.test", "odoh-relay.test"]
ODOH_VERSION = 0x0001
KEM_X25519, KDF_SHA256, AEAD_AES128GCM = 0x0020, 0x0001, 0x0001
NK, NN, NH = 16, 12, 32


def issue_certificate(args, state):
    """A leaf for NAMES and both addresses, signed by the test CA."""
    ca_cert = x509.load_pem_x509_certificate(open(args.ca_cert, "rb").read())
    ca_key = serialization.load_pem_private_key(open(args.ca_key, "rb").read(), password=None)
    key = ec.generate_private_key(ec.SECP256R1())
    import ipaddress
    san = [x509.DNSName(n) for n in NAMES] + [x509.IPAddress(ipaddress.ip_address(a)) for a in (args.addr, args.relay_addr)]
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "dns.test")]))
            .issuer_name(ca_cert.subject).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=2))
            .add_extension(x509.SubjectAlternativeName(san), critical=False)
            .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .sign(ca_key, hashes.SHA256()))
    cert_path, key_path = os.path.join(state, "dns.pem"), os.path.join(state, "dns.key")
    open(cert_path, "wb").write(cert.public_bytes(serialization.Encoding.PEM))
    open(key_path, "wb").write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                 serialization.NoEncryption()))
    return cert_path, key_path


class Zone:
    def __init__(self, path):
        self.records = RR.fromZone(open(path).read())

    def answer(self, query_bytes):
        """The response to a query, and (name, type, rcode) for the log."""
        query = DNSRecord.parse(query_bytes)
        question = query.q
        name, qtype = str(question.qname).rstrip(".").lower(), QTYPE[question.qtype]
        reply = query.reply()
        owners = {str(rr.rname).rstrip(".").lower() for rr in self.records}
        current, seen = name, 0
        while seen < 8:
            seen += 1
            matches = [rr for rr in self.records if str(rr.rname).rstrip(".").lower() == current]
            exact = [rr for rr in matches if rr.rtype == question.qtype]
            alias = [rr for rr in matches if rr.rtype == QTYPE.CNAME]
            if exact:
                for rr in exact:
                    reply.add_answer(rr)
                break
            if alias and question.qtype != QTYPE.CNAME:
                reply.add_answer(alias[0])
                current = str(alias[0].rdata.label).rstrip(".").lower()
                continue
            break
        if name not in owners:
            reply.header.rcode = RCODE.NXDOMAIN
        return reply.pack(), (name, qtype, RCODE[reply.header.rcode])


class EventLog:
    def __init__(self, path):
        self.file = open(path, "a", buffering=1)
        self.lock = threading.Lock()

    def __call__(self, *parts):
        with self.lock:
            self.file.write("\t".join([datetime.datetime.now().isoformat(timespec="milliseconds")] + [str(p) for p in parts]) + "\n")
            self.file.flush()


# --- Oblivious DoH (RFC 9230) ----------------------------------------------------------------

def hkdf_extract(salt, ikm):
    return hmac.new(salt, ikm, hashlib.sha256).digest()


def hkdf_expand(prk, info, length):
    return HKDFExpand(algorithm=hashes.SHA256(), length=length, info=info).derive(prk)


def vector(data):
    return struct.pack(">H", len(data)) + data


class ObliviousTarget:
    def __init__(self):
        self.suite = CipherSuite.new(KEMId(KEM_X25519), KDFId(KDF_SHA256), AEADId(AEAD_AES128GCM))
        pair = self.suite.kem.derive_key_pair(os.urandom(32))
        self.private_key = pair.private_key
        public = pair.public_key.to_public_bytes()
        self.contents = struct.pack(">HHH", KEM_X25519, KDF_SHA256, AEAD_AES128GCM) + vector(public)
        self.key_id = hkdf_expand(hkdf_extract(b"", self.contents), b"odoh key id", NH)

    def configs(self):
        config = struct.pack(">HH", ODOH_VERSION, len(self.contents)) + self.contents
        return vector(config)

    def answer(self, message, zone):
        """Opens a query, answers it, seals the response; (response bytes, log tuple)."""
        kind, rest = message[0], message[1:]
        key_id_length = struct.unpack(">H", rest[:2])[0]
        key_id, rest = rest[2:2 + key_id_length], rest[2 + key_id_length:]
        encrypted = rest[2:2 + struct.unpack(">H", rest[:2])[0]]
        if kind != 0x01 or key_id != self.key_id:
            raise ValueError("not a query for this target's key")
        enc, ciphertext = encrypted[:32], encrypted[32:]
        context = self.suite.create_recipient_context(enc, self.private_key, info=b"odoh query")
        q_plain = context.open(ciphertext, aad=b"\x01" + vector(key_id))
        dns_length = struct.unpack(">H", q_plain[:2])[0]
        query = q_plain[2:2 + dns_length]
        response, logged = zone.answer(query)
        r_plain = vector(response) + vector(b"")
        nonce = os.urandom(max(NN, NK))
        secret = context.export(b"odoh response", NK)
        prk = hkdf_extract(q_plain + vector(nonce), secret)
        sealed = AESGCM(hkdf_expand(prk, b"odoh key", NK)).encrypt(hkdf_expand(prk, b"odoh nonce", NN), r_plain, b"\x02" + vector(nonce))
        return b"\x02" + vector(nonce) + vector(sealed), logged


# --- HTTP behind nginx -----------------------------------------------------------------------

def make_handler(args, zone, target, log, ca_file):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *_):
            pass

        def reply(self, status, body=b"", content_type="text/plain"):
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def body(self):
            return self.rfile.read(int(self.headers.get("Content-Length", "0")))

        def client(self):
            return self.headers.get("X-Real-IP", self.client_address[0]), self.headers.get("X-Server-Protocol", "-")

        def handle_request(self, method):
            url = urllib.parse.urlsplit(self.path)
            params = urllib.parse.parse_qs(url.query)
            host = (self.headers.get("Host") or "").split(":")[0]
            client, protocol = self.client()
            try:
                if host == "odoh-relay.test" and url.path == "/proxy":
                    return self.relay(method, params, client, protocol)
                if url.path == "/.well-known/odohconfigs" and method == "GET":
                    log("odoh-config", client, protocol, method, "-", "-", "-")
                    return self.reply(200, target.configs(), "application/octet-stream")
                if url.path != "/dns-query":
                    return self.reply(404, b"no such resource\n")
                if host == "odoh-target.test":
                    if method != "POST" or self.headers.get("Content-Type") != "application/oblivious-dns-message":
                        return self.reply(415, b"POST application/oblivious-dns-message\n")
                    response, (name, qtype, rcode) = target.answer(self.body(), zone)
                    log("odoh", client, protocol, method, name, qtype, rcode)
                    return self.reply(200, response, "application/oblivious-dns-message")
                if method == "GET":
                    encoded = params.get("dns", [""])[0]
                    query = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4))
                else:
                    if self.headers.get("Content-Type") != "application/dns-message":
                        return self.reply(415, b"POST application/dns-message\n")
                    query = self.body()
                response, (name, qtype, rcode) = zone.answer(query)
                log("doh", client, protocol, method, name, qtype, rcode)
                self.reply(200, response, "application/dns-message")
            except Exception as error:  # a malformed query or ODoH message
                log("error", client, protocol, method, "-", "-", f"{type(error).__name__}: {error}")
                self.reply(400, f"bad request: {error}\n".encode())

        def relay(self, method, params, client, protocol):
            """The oblivious relay: forwards to the target from its own address; tells it nothing of the client."""
            target_host, target_path = params.get("targethost", [""])[0], params.get("targetpath", [""])[0]
            log("odoh-relay", client, protocol, method, target_host, target_path, "-")
            if target_host != "odoh-target.test" or not target_path.startswith("/"):
                return self.reply(403, b"this relay only forwards to odoh-target.test\n")
            context = ssl.create_default_context(cafile=ca_file)
            connection = http.client.HTTPSConnection(args.addr, 443, context=context, source_address=(args.relay_addr, 0), timeout=10)
            connection.sock = None
            connection.connect = lambda: setattr(connection, "sock", context.wrap_socket(
                socket.create_connection((args.addr, 443), 10, (args.relay_addr, 0)), server_hostname=target_host))
            headers = {"Host": target_host}
            body = None
            if method == "POST":
                body = self.body()
                headers["Content-Type"] = self.headers.get("Content-Type", "")
            connection.request(method, target_path, body=body, headers=headers)
            answer = connection.getresponse()
            data = answer.read()
            self.reply(answer.status, data, answer.getheader("Content-Type", "application/octet-stream"))

        def do_GET(self):
            self.handle_request("GET")

        def do_POST(self):
            self.handle_request("POST")

    return Handler


def serve_dot(args, listener, context, zone, log):
    def handle(conn, peer):
        try:
            tls = context.wrap_socket(conn, server_side=True)
            log("dot-connection", peer[0], tls.selected_alpn_protocol() or "-", "-", "-", "-", "-")
            while True:
                header = recv_exact(tls, 2)
                if not header:
                    break
                query = recv_exact(tls, struct.unpack(">H", header)[0])
                response, (name, qtype, rcode) = zone.answer(query)
                log("dot", peer[0], tls.selected_alpn_protocol() or "-", "-", name, qtype, rcode)
                tls.sendall(struct.pack(">H", len(response)) + response)
        except (OSError, ssl.SSLError, ValueError) as error:
            log("dot-error", peer[0], "-", "-", "-", "-", type(error).__name__)
        finally:
            conn.close()

    while True:
        conn, peer = listener.accept()
        threading.Thread(target=handle, args=(conn, peer), daemon=True).start()


def recv_exact(sock, count):
    data = b""
    while len(data) < count:
        chunk = sock.recv(count - len(data))
        if not chunk:
            return b""
        data += chunk
    return data


NGINX_CONF = """daemon off;
master_process on;
worker_processes 1;
pid {state}/nginx.pid;
error_log {state}/nginx-error.log warn;
events {{ worker_connections 256; }}
http {{
    log_format dns "$remote_addr\\t$server_protocol\\t$request_method\\t$host\\t$uri\\t$status";
    access_log {state}/nginx-access.log dns;
    client_body_temp_path {state}/tmp; proxy_temp_path {state}/tmp; fastcgi_temp_path {state}/tmp;
    uwsgi_temp_path {state}/tmp; scgi_temp_path {state}/tmp;
    ssl_certificate {cert}; ssl_certificate_key {key};
    proxy_http_version 1.1;
    proxy_set_header Host $host;
    proxy_set_header X-Real-IP $remote_addr;
    proxy_set_header X-Server-Protocol $server_protocol;
    server {{ listen {addr}:443 ssl http2; server_name dns.test odoh-target.test;
             location / {{ proxy_pass http://127.0.0.1:{backend}; }} }}
    server {{ listen {relay_addr}:443 ssl http2; server_name odoh-relay.test;
             location / {{ proxy_pass http://127.0.0.1:{backend}; }} }}
}}
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--addr", required=True)
    parser.add_argument("--relay-addr", required=True)
    parser.add_argument("--dot-port", type=int, default=853)
    parser.add_argument("--zone", required=True)
    parser.add_argument("--ca-cert", required=True)
    parser.add_argument("--ca-key", required=True)
    parser.add_argument("--state", required=True)
    parser.add_argument("--log", required=True)
    args = parser.parse_args()
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    # A signal ends us through the finally below, which stops nginx too.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    os.makedirs(os.path.join(args.state, "tmp"), exist_ok=True)
    cert, key = issue_certificate(args, args.state)
    zone, target, log = Zone(args.zone), ObliviousTarget(), EventLog(args.log)
    with open(os.path.join(args.state, "odohconfigs.bin"), "wb") as configs:  # for clients given the configs
        configs.write(target.configs())

    backend = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(args, zone, target, log, args.ca_cert))
    backend.daemon_threads = True
    threading.Thread(target=backend.serve_forever, daemon=True).start()

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    context.set_alpn_protocols(["dot"])
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((args.addr, args.dot_port))
    listener.listen(64)
    threading.Thread(target=serve_dot, args=(args, listener, context, zone, log), daemon=True).start()

    conf = os.path.join(args.state, "nginx.conf")
    open(conf, "w").write(NGINX_CONF.format(state=args.state, cert=cert, key=key, addr=args.addr, relay_addr=args.relay_addr,
                                            backend=backend.server_address[1]))
    # PR_SET_PDEATHSIG: nginx is told to stop even if this script is killed outright.
    nginx = subprocess.Popen(["nginx", "-e", os.path.join(args.state, "nginx-error.log"), "-p", args.state, "-c", conf],
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             preexec_fn=lambda: ctypes.CDLL(None).prctl(1, signal.SIGTERM))
    try:
        deadline = time.time() + 10
        while not all(listening(a, 443) for a in (args.addr, args.relay_addr)):
            if nginx.poll() is not None or time.time() > deadline:
                sys.exit("dns_resolver: nginx did not start: " + open(os.path.join(args.state, "nginx-error.log")).read())
            time.sleep(0.05)
        time.sleep(0.2)  # another server's nginx may hold the port: ours must still be running
        if nginx.poll() is not None:
            sys.exit("dns_resolver: nginx exited: " + open(os.path.join(args.state, "nginx-error.log")).read())
        print(f"READY {listener.getsockname()[1]}", flush=True)
        sys.stdin.read()  # until the test process closes its end
    finally:
        nginx.terminate()
        nginx.wait(5)


def listening(addr, port):
    try:
        socket.create_connection((addr, port), 0.2).close()
        return True
    except OSError:
        return False


if __name__ == "__main__":
    main()
