"""A relay front that admits a CONNECT only with an identity provider's bearer token, in front of
an existing squid relay (the tests' relay B, http_port 127.0.0.12:3128): what a company relay
that checks its IdP's tokens does. TLS, HTTP/1.1 CONNECT.

The test IdP (django-oauth-toolkit 3.4, https://idp.test) issues opaque access tokens, not JWTs
(its ID tokens are signed, its access tokens are random strings with no claims to verify), so
each token is checked by RFC 7662 introspection at https://idp.test/o/introspect/, the front
authenticating as --introspect-client. The front reaches the IdP through the upstream squid, so
the IdP sees the relay's address, as for every other request in the tests.

Per CONNECT it logs one line:
  VERIFIED<TAB>subject<TAB>peer<TAB>authority<TAB>token   the token is active; tunnel forwarded
  REFUSED<TAB>reason<TAB>peer<TAB>authority<TAB>token      407 with a Bearer challenge
  OPEN<TAB>peer<TAB>authority<TAB>had-token=True|False     a --open-target, admitted without a token
The upstream CONNECT carries the front's own --upstream-token, never the client's token.

--refuse-valid N answers 407 to the first N CONNECTs whose token is valid (a relay that revoked a
token early); --refuse-valid -1 refuses every one.
"""
import base64
import http.client
import json
import socket
import ssl
import threading
import urllib.parse

import hostile_common as common


def extra(parser):
    parser.add_argument("--upstream", required=True, help="HOST:PORT of a plain-HTTP squid port")
    parser.add_argument("--upstream-token", required=True, help="its Proxy-Authorization value")
    parser.add_argument("--introspect", default="https://idp.test/o/introspect/")
    parser.add_argument("--introspect-client", required=True, help="CLIENT_ID:SECRET")
    parser.add_argument("--open-target", action="append", default=[], help="authority admitted without a token")
    parser.add_argument("--refuse-valid", type=int, default=0)


args = common.arguments("relay front that checks IdP bearer tokens", extra)
log = common.EventLog(args.log)
upstream_host, _, upstream_port = args.upstream.rpartition(":")
refusals = {"left": args.refuse_valid}
lock = threading.Lock()


def introspect(token):
    """The IdP's RFC 7662 answer for token, fetched through the upstream relay."""
    url = urllib.parse.urlsplit(args.introspect)
    context = ssl.create_default_context(cafile=args.ca)
    connection = http.client.HTTPSConnection(upstream_host, int(upstream_port), context=context, timeout=10)
    connection.set_tunnel(url.hostname, url.port or 443, headers={"Proxy-Authorization": args.upstream_token})
    credentials = base64.b64encode(args.introspect_client.encode()).decode()
    connection.request("POST", url.path, body=urllib.parse.urlencode({"token": token}),
                       headers={"Authorization": "Basic " + credentials, "Content-Type": "application/x-www-form-urlencoded",
                                "Accept": "application/json"})
    response = connection.getresponse()
    body = response.read()
    connection.close()
    if response.status != 200:
        raise RuntimeError("introspection answered %d" % response.status)
    return json.loads(body)


def refuse(client, reason, peer, authority, token):
    log("REFUSED", reason, peer, authority, token or "-")
    client.sendall(b"HTTP/1.1 407 Proxy Authentication Required\r\n"
                   b"Proxy-Authenticate: Bearer realm=\"token-front\", error=\"invalid_token\"\r\n"
                   b"Content-Length: 0\r\nConnection: close\r\n\r\n")


def handle(client, address):
    peer = address[0]
    head, rest = common.read_head(client)
    if head is None:
        return
    lines = head.split("\r\n")
    method, authority = lines[0].split(" ")[0:2]
    if method != "CONNECT":
        client.sendall(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        return
    fields = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        fields[name.strip().lower()] = value.strip()
    credentials = fields.get("proxy-authorization", "")
    token = credentials[7:] if credentials.lower().startswith("bearer ") else None
    if authority in args.open_target:
        log("OPEN", peer, authority, "had-token=%s" % (token is not None))
    else:
        if token is None:
            return refuse(client, "no-bearer-token", peer, authority, None)
        try:
            answer = introspect(token)
        except Exception as error:
            return refuse(client, "introspection-failed:%s" % error, peer, authority, token)
        if not answer.get("active"):
            return refuse(client, "inactive", peer, authority, token)
        with lock:
            refused = refusals["left"] != 0
            if refusals["left"] > 0:
                refusals["left"] -= 1
        if refused:
            return refuse(client, "told-to-refuse", peer, authority, token)
        subject = answer.get("sub") or answer.get("username") or answer.get("client_id") or "?"
        log("VERIFIED", subject, peer, authority, token)
    upstream = socket.create_connection((upstream_host, int(upstream_port)), source_address=(args.host, 0))
    upstream.sendall(("CONNECT %s HTTP/1.1\r\nHost: %s\r\nProxy-Authorization: %s\r\n\r\n"
                      % (authority, authority, args.upstream_token)).encode("latin-1"))
    answer_head, upstream_rest = common.read_head(upstream)
    status = answer_head.split(" ")[1] if answer_head else "502"
    if status != "200":
        client.sendall(("HTTP/1.1 %s Upstream Refused\r\nContent-Length: 0\r\nConnection: close\r\n\r\n" % status).encode())
        upstream.close()
        return
    client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
    if rest:
        upstream.sendall(rest)
    if upstream_rest:
        client.sendall(upstream_rest)
    # splice ends both sides together: squid logs a tunnel only once it is closed.
    common.splice(client, upstream)
    upstream.close()


common.serve(args, handle, common.server_tls_context(args, ["http/1.1"]))
