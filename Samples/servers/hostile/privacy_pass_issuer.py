"""A Privacy Pass issuer (RFC 9578, token type 0x0002 only) on plain HTTP/1.1:
GET /.well-known/private-token-issuer-directory gives the directory (issuer-request-uri, one
token key: the RSASSA-PSS SPKI of a fresh 2048-bit key); POST /token-request takes an
application/private-token-request and answers the blind signature.

Logs "DIRECTORY<TAB>peer" and "ISSUED<TAB>peer<TAB>authorization" (or "REFUSED<TAB>peer<TAB>why"):
the peer is the address the issuer saw (the last relay of a chain, never the client behind it).
With --require-authorization VALUE, a request without that Authorization field is refused (401).
With --introspect-client CLIENT_ID:SECRET, a request is issued to only with "Authorization: Bearer
T" where T is an access token the identity provider (https://idp.test) says is active (RFC 7662
introspection, reached through --upstream, relay B's plain port, as token_relay_front.py does);
the log line then ends with the token's subject: "ISSUED<TAB>peer<TAB>authorization<TAB>subject".
With --directory-max-age N, the directory carries "Cache-Control: max-age=N".
With --misbehave stall, a token request is read and never answered (logs "STALLED<TAB>peer");
with --misbehave flood, it is answered 200 with a body that never ends, no Content-Length
(logs "FLOODING<TAB>peer", then "FLOODED<TAB>peer<TAB>bytes" once the client hangs up).
"""
import base64
import http.client
import json
import ssl
import struct
import urllib.parse

from cryptography.hazmat.primitives.asymmetric import rsa

import hostile_common as common
import privacy_pass_common as pp


def extra(parser):
    parser.add_argument("--require-authorization", default=None)
    parser.add_argument("--introspect", default="https://idp.test/o/introspect/")
    parser.add_argument("--introspect-client", default=None, help="CLIENT_ID:SECRET")
    parser.add_argument("--upstream", default="127.0.0.12:3128", help="HOST:PORT of the relay the IdP is reached through")
    parser.add_argument("--upstream-token", default="Bearer relay-token-B")
    parser.add_argument("--directory-max-age", type=int, default=None)
    parser.add_argument("--misbehave", choices=["stall", "flood"], default=None)


args = common.arguments("Privacy Pass issuer", extra)
log = common.EventLog(args.log)
key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
numbers = key.private_numbers()
TOKEN_KEY = pp.token_key(key.public_key())
KEY_ID = pp.sha256(TOKEN_KEY)


def introspect(authorization):
    """The token's subject if the IdP says the bearer token is active, else None."""
    if not authorization.startswith("Bearer "):
        return None
    url = urllib.parse.urlsplit(args.introspect)
    host, _, port = args.upstream.rpartition(":")
    connection = http.client.HTTPSConnection(host, int(port), context=ssl.create_default_context(cafile=args.ca), timeout=10)
    connection.set_tunnel(url.hostname, url.port or 443, headers={"Proxy-Authorization": args.upstream_token})
    credentials = base64.b64encode(args.introspect_client.encode()).decode()
    connection.request("POST", url.path, body=urllib.parse.urlencode({"token": authorization[len("Bearer "):]}),
                       headers={"Authorization": "Basic " + credentials, "Content-Type": "application/x-www-form-urlencoded",
                                "Accept": "application/json"})
    response = connection.getresponse()
    answer = json.loads(response.read()) if response.status == 200 else {}
    connection.close()
    if not answer.get("active"):
        return None
    return answer.get("client_id") or answer.get("username") or "?"


def respond(conn, status, content_type, body, extra=""):
    conn.sendall(("HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n%sConnection: close\r\n\r\n"
                  % (status, content_type, len(body), extra)).encode() + body)


def misbehave(conn, peer):
    """Never answers (stall), or answers with an endless body (flood), until the client leaves."""
    if args.misbehave == "stall":
        log("STALLED", peer)
        while conn.recv(65536):
            pass
        return
    log("FLOODING", peer)
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/private-token-response\r\nConnection: close\r\n\r\n")
    sent, chunk = 0, b"\xa5" * 65536
    try:
        while True:
            conn.sendall(chunk)
            sent += len(chunk)
    except OSError:
        log("FLOODED", peer, sent)


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
        cache = "" if args.directory_max_age is None else "Cache-Control: max-age=%d\r\n" % args.directory_max_age
        respond(conn, "200 OK", "application/private-token-issuer-directory", body, cache)
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
    if args.misbehave is not None:
        misbehave(conn, peer)
        return
    authorization = fields.get("authorization", "-")
    if args.require_authorization is not None and authorization != args.require_authorization:
        log("REFUSED", peer, "authorization")
        respond(conn, "401 Unauthorized", "text/plain", b"attestation required\n")
        return
    subject = None
    if args.introspect_client is not None:
        try:
            subject = introspect(authorization)
        except Exception as error:
            log("REFUSED", peer, "introspection-failed:%s" % error)
            respond(conn, "503 Service Unavailable", "text/plain", b"cannot check attestation\n")
            return
        if subject is None:
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
    log("ISSUED", peer, authorization, *([subject] if subject else []))
    respond(conn, "200 OK", "application/private-token-response", signature.to_bytes(pp.NK, "big"))


common.serve(args, handle)
