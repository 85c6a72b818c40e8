"""A Privacy Pass issuer (RFC 9578, token type 0x0002 only) on plain HTTP/1.1:
GET /.well-known/private-token-issuer-directory gives the directory (issuer-request-uri, one
token key: the RSASSA-PSS SPKI of a fresh 2048-bit key); POST /token-request takes an
application/private-token-request and answers the blind signature.

Logs "DIRECTORY<TAB>peer" and "ISSUED<TAB>peer<TAB>authorization" (or "REFUSED<TAB>peer<TAB>why"):
the peer is the address the issuer saw (the last relay of a chain, never the client behind it).
With --require-authorization VALUE, a request without that Authorization field is refused (401).
"""
import json
import struct

from cryptography.hazmat.primitives.asymmetric import rsa

import hostile_common as common
import privacy_pass_common as pp


def extra(parser):
    parser.add_argument("--require-authorization", default=None)


args = common.arguments("Privacy Pass issuer", extra)
log = common.EventLog(args.log)
key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
numbers = key.private_numbers()
TOKEN_KEY = pp.token_key(key.public_key())
KEY_ID = pp.sha256(TOKEN_KEY)


def respond(conn, status, content_type, body):
    conn.sendall(("HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n"
                  % (status, content_type, len(body))).encode() + body)


def handle(conn, address):
    head, rest = common.read_head(conn)
    if head is None:
        return
    lines = head.split("\r\n")
    method, target = lines[0].split(" ")[:2]
    fields = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        fields[name.strip().lower()] = value.strip()
    peer = address[0]
    if method == "GET" and target == "/.well-known/private-token-issuer-directory":
        log("DIRECTORY", peer)
        body = json.dumps({"issuer-request-uri": "/token-request",
                           "token-keys": [{"token-type": 2, "token-key": pp.b64url(TOKEN_KEY)}]}).encode()
        respond(conn, "200 OK", "application/private-token-issuer-directory", body)
        return
    if method != "POST" or target != "/token-request":
        respond(conn, "404 Not Found", "text/plain", b"no such resource\n")
        return
    length = int(fields.get("content-length", "0"))
    body = rest
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            break
        body += chunk
    authorization = fields.get("authorization", "-")
    if args.require_authorization is not None and authorization != args.require_authorization:
        log("REFUSED", peer, "authorization")
        respond(conn, "401 Unauthorized", "text/plain", b"attestation required\n")
        return
    if fields.get("content-type") != "application/private-token-request" or len(body) != 3 + pp.NK:
        log("REFUSED", peer, "malformed")
        respond(conn, "400 Bad Request", "text/plain", b"malformed TokenRequest\n")
        return
    token_type, truncated = struct.unpack(">HB", body[:3])
    if token_type != pp.TOKEN_TYPE or truncated != KEY_ID[-1]:
        log("REFUSED", peer, "key")
        respond(conn, "422 Unprocessable Content", "text/plain", b"unknown token type or key\n")
        return
    blinded = int.from_bytes(body[3:], "big")
    if blinded >= numbers.public_numbers.n:
        log("REFUSED", peer, "range")
        respond(conn, "400 Bad Request", "text/plain", b"blinded message out of range\n")
        return
    signature = pow(blinded, numbers.d, numbers.public_numbers.n)
    log("ISSUED", peer, authorization)
    respond(conn, "200 OK", "application/private-token-response", signature.to_bytes(pp.NK, "big"))


common.serve(args, handle)
