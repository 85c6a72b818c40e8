"""A relay front that demands Privacy Pass (RFC 9577) on plain HTTP/1.1 CONNECT, then forwards
the tunnel through an existing relay (squid's plain port, with that relay's own bearer token).

A CONNECT without a valid token gets 407 and a fresh challenge:
  Proxy-Authenticate: PrivateToken challenge="..", token-key="..", max-age="60"
(token type 0x0002, issuer name --issuer-name, a random 32-byte redemption context, origin info
--origin-info). A token is accepted once, for a challenge this front issued and did not see
redeemed, with a valid RSASSA-PSS signature under the issuer's key (fetched from --issuer's
directory at start).

A CONNECT to an --open-target (the issuer, the identity provider that attests for it) is
forwarded without a token: a client gets its token through this relay, so the issuer sees the
upstream relay's address, never the client's. Logs "OPEN<TAB>authority" for those.

Logs "CHALLENGE<TAB>authority", "REDEEMED<TAB>authority<TAB>nonce" and
"REFUSED<TAB>authority<TAB>why" (missing, malformed, wrong-key, unknown-challenge,
double-spend, bad-signature); then "UPSTREAM<TAB>authority<TAB>status".
"""
import json
import os
import socket
import threading
import time
import urllib.request

import hostile_common as common
import privacy_pass_common as pp


def extra(parser):
    parser.add_argument("--issuer", required=True, help="the issuer's origin, e.g. http://127.0.3.2:PORT")
    parser.add_argument("--issuer-name", default="issuer.test")
    parser.add_argument("--origin-info", default="relay.test")
    parser.add_argument("--upstream", required=True, help="host:port of the relay to forward to")
    parser.add_argument("--upstream-token", required=True)
    parser.add_argument("--open-target", action="append", default=[], help="authority admitted without a token")


args = common.arguments("Privacy Pass relay front", extra)
log = common.EventLog(args.log)
with urllib.request.urlopen(args.issuer + "/.well-known/private-token-issuer-directory", timeout=10) as reply:
    directory = json.load(reply)
TOKEN_KEY = pp.unb64url(directory["token-keys"][0]["token-key"])
PUBLIC_KEY = pp.load_token_key(TOKEN_KEY)
KEY_ID = pp.sha256(TOKEN_KEY)
lock = threading.Lock()
outstanding = {}  # challenge digest -> time issued
spent = set()     # nonces redeemed
MAX_AGE = 60


def challenge_header():
    challenge = pp.challenge_bytes(args.issuer_name.encode(), os.urandom(32), args.origin_info.encode())
    with lock:
        outstanding[pp.sha256(challenge)] = time.monotonic()
    return 'PrivateToken challenge="%s", token-key="%s", max-age="%d"' % (pp.b64url(challenge), pp.b64url(TOKEN_KEY), MAX_AGE)


def refuse(client, authority, why):
    if why != "missing":
        log("REFUSED", authority, why)
    log("CHALLENGE", authority)
    client.sendall(("HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: %s\r\n"
                    "Content-Length: 0\r\nConnection: close\r\n\r\n" % challenge_header()).encode())


def check(credentials):
    """None if the token is good (and now spent), else why not."""
    if not credentials or not credentials.lower().startswith("privatetoken "):
        return "missing"
    encoded = pp.auth_param(credentials, "token")
    try:
        token = pp.unb64url(encoded or "")
    except Exception:
        return "malformed"
    parsed = pp.parse_token(token)
    if parsed is None:
        return "malformed"
    _, nonce, digest, key_id, _ = parsed
    if key_id != KEY_ID:
        return "wrong-key"
    if not pp.verify(PUBLIC_KEY, token):
        return "bad-signature"
    with lock:
        if nonce in spent:
            return "double-spend"
        issued = outstanding.pop(digest, None)
        if issued is None or time.monotonic() - issued > MAX_AGE:
            return "unknown-challenge"
        spent.add(nonce)
    return None


def handle(client, address):
    head, rest = common.read_head(client)
    if head is None:
        return
    lines = head.split("\r\n")
    method, authority = lines[0].split(" ")[:2]
    credentials = None
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "proxy-authorization":
            credentials = value.strip()
    if method != "CONNECT":
        client.sendall(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        return
    if authority.lower() in args.open_target:
        log("OPEN", authority)
    else:
        why = check(credentials)
        if why is not None:
            refuse(client, authority, why)
            return
        log("REDEEMED", authority, pp.parse_token(pp.unb64url(pp.auth_param(credentials, "token")))[1].hex())
    host, _, port = args.upstream.rpartition(":")
    upstream = socket.create_connection((host, int(port)), source_address=(args.host, 0))
    upstream.sendall(("CONNECT %s HTTP/1.1\r\nHost: %s\r\nProxy-Authorization: %s\r\n\r\n"
                      % (authority, authority, args.upstream_token)).encode())
    answer, early = common.read_head(upstream)
    status = answer.split("\r\n")[0] if answer else "HTTP/1.1 502 Bad Gateway"
    log("UPSTREAM", authority, status.split(" ")[1])
    client.sendall((status + "\r\n\r\n").encode())
    if not status.split(" ")[1].startswith("2"):
        upstream.close()
        return
    if early:
        client.sendall(early)
    if rest:
        upstream.sendall(rest)
    common.splice(client, upstream)
    upstream.close()


common.serve(args, handle)
