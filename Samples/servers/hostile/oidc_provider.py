"""A small OpenID Connect provider of our own for the OAuthFlow tests that need a provider to
misbehave on purpose (HostileProviderTests, OAuthRedactionTests): HTTPS (the origin certificate,
so 127.0.0.21 or 127.0.0.22), HTTP/1.1 keep-alive, issuer https://HOST:PORT, RS256 ID tokens.

Logs one line per request, "REQUEST<TAB>method<TAB>path", and one per form field received (query
or urlencoded body), "FIELD<TAB>name<TAB>value as JSON", so a test can prove from this log alone
whether a password reached this server.

  GET  /.well-known/openid-configuration   the metadata (endpoints on this origin unless --endpoint)
  GET  /jwks                                the signing key
  GET  /authorize                           a login form (user name, password "pw"); its hidden
                                            fields carry the request, so any instance can answer it
  POST /login                               checks the password, redirects to redirect_uri with a
                                            code (stateless: the request, base64url JSON)
  POST /token                               authorization_code, refresh_token, device_code grants
  POST /device, GET /device-page, POST /device-page/code, POST /device-page/login   RFC 8628
  GET  /userinfo                            {"sub": ...}

Misbehaviours:
  --login-action URL       the login form's action attribute
  --login-formaction URL   the login form's submit button's formaction attribute
  --login-redirect URL     POST /login answers 307 to URL (a browser POSTs the same body there)
  --login-redirect-status N   that redirect's status instead of 307
  --verification-uri URL   the device grant's verification_uri
  --endpoint NAME=URL      a metadata member (token_endpoint, jwks_uri, ...) set to URL (a path: on
                           this origin)
  --redirect PATH=URL      GET PATH answers 302 to URL
  --iss-supported          the metadata has authorization_response_iss_parameter_supported: true
  --send-iss               the authorization response carries iss (RFC 9207)
  --refresh-claims JSON    claims replacing the original's in an ID token issued on refresh
  --device-claims JSON     claims replacing the normal ones in the device grant's ID token
  --password PW            the user's password (default "pw")
  --client-secret S        the client secret the token endpoint requires (post or basic)
  --echo                   echoes the password and client secret back: in the login redirect's
                           query and fragment (echo=), an X-Echo header, the token response
                           ("echo") and the token error's description
  --token-error TEXT       the token endpoint answers 400 invalid_grant with TEXT as description
  --plain                  plain HTTP instead of TLS (a sink that logs whatever reaches it over http)
"""
import base64
import hashlib
import html
import json
import secrets
import threading
import time
from urllib.parse import parse_qsl, unquote_plus, urlencode, urlsplit

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa

import hostile_common as common


def extra(parser):
    parser.add_argument("--login-action", default="/login")
    parser.add_argument("--login-formaction")
    parser.add_argument("--login-redirect")
    parser.add_argument("--login-redirect-status", default="307 Temporary Redirect")
    parser.add_argument("--verification-uri")
    parser.add_argument("--endpoint", action="append", default=[])
    parser.add_argument("--redirect", action="append", default=[])
    parser.add_argument("--iss-supported", action="store_true")
    parser.add_argument("--send-iss", action="store_true")
    parser.add_argument("--refresh-claims")
    parser.add_argument("--device-claims")
    parser.add_argument("--password", default="pw")
    parser.add_argument("--client-secret")
    parser.add_argument("--echo", action="store_true")
    parser.add_argument("--token-error")
    parser.add_argument("--plain", action="store_true")


args = common.arguments("OpenID Connect provider for hostile-provider tests", extra)
log = common.EventLog(args.log)
key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
lock = threading.Lock()
refresh_tokens = {}  # refresh token -> the claims of the original ID token
devices = {}  # device code -> {"user_code", "client_id", "approved"}
echoed = {"password": "", "secret": ""}


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64int(number):
    return b64(number.to_bytes((number.bit_length() + 7) // 8, "big"))


def sign(claims):
    header = b64(json.dumps({"alg": "RS256", "kid": "k1", "typ": "JWT"}).encode())
    payload = b64(json.dumps(claims).encode())
    signature = key.sign(("%s.%s" % (header, payload)).encode(), padding.PKCS1v15(), hashes.SHA256())
    return "%s.%s.%s" % (header, payload, b64(signature))


def half_hash(value):
    return b64(hashlib.sha256(value.encode()).digest()[:16])


def respond(conn, status, body, content_type="application/json", headers=()):
    if isinstance(body, str):
        body = body.encode()
    head = "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %d\r\nCache-Control: no-store\r\n" % (status, content_type, len(body))
    extra_lines = b"".join(name.encode() + b": " + value.encode() + b"\r\n" for name, value in headers)
    conn.sendall(head.encode() + extra_lines + b"\r\n" + body)


def page(conn, markup):
    respond(conn, "200 OK", "<!doctype html><html><body>%s</body></html>" % markup, "text/html; charset=utf-8")


def hidden(fields):
    return "".join('<input type="hidden" name="%s" value="%s">' % (html.escape(k), html.escape(v)) for k, v in fields)


def handle(conn, address):
    issuer = "%s://%s:%d" % ("http" if args.plain else "https", args.host, conn.getsockname()[1])
    redirects = dict(item.split("=", 1) for item in args.redirect)
    for head, body in common.requests(conn):
        lines = head.split("\r\n")
        method, target = (lines[0].split(" ") + ["", ""])[:2]
        headers = {line.split(":", 1)[0].strip().lower(): line.split(":", 1)[1].strip() for line in lines[1:] if ":" in line}
        parts = urlsplit(target)
        fields = parse_qsl(parts.query, keep_blank_values=True)
        if method == "POST" and headers.get("content-type", "").startswith("application/x-www-form-urlencoded"):
            fields += parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True)
        log("REQUEST", method, parts.path)
        for name, value in fields:
            log("FIELD", name, json.dumps(value))
        form = dict(fields)
        path = parts.path
        if method == "GET" and path in redirects:
            respond(conn, "302 Found", "", headers=[("Location", redirects[path])])
        elif method == "GET" and path == "/.well-known/openid-configuration":
            metadata = {"issuer": issuer, "authorization_endpoint": issuer + "/authorize", "token_endpoint": issuer + "/token",
                        "userinfo_endpoint": issuer + "/userinfo", "jwks_uri": issuer + "/jwks",
                        "device_authorization_endpoint": issuer + "/device", "code_challenge_methods_supported": ["S256"]}
            for item in args.endpoint:
                name, url = item.split("=", 1)
                metadata[name] = url if "://" in url else issuer + url
            if args.iss_supported:
                metadata["authorization_response_iss_parameter_supported"] = True
            respond(conn, "200 OK", json.dumps(metadata))
        elif method == "GET" and path == "/jwks":
            numbers = key.public_key().public_numbers()
            respond(conn, "200 OK", json.dumps({"keys": [{"kty": "RSA", "kid": "k1", "alg": "RS256", "use": "sig",
                                                          "n": b64int(numbers.n), "e": b64int(numbers.e)}]}))
        elif method == "GET" and path == "/authorize":
            request = [(k, form.get(k, "")) for k in ("client_id", "redirect_uri", "state", "nonce", "code_challenge")]
            button = '<button type="submit"%s>Sign in</button>' % (
                ' formaction="%s"' % html.escape(args.login_formaction) if args.login_formaction else "")
            page(conn, '<form method="post" action="%s"><input type="text" name="username"><input type="password" name="pw">%s%s</form>'
                 % (html.escape(args.login_action), hidden(request + [("issuer", issuer)]), button))
        elif method == "POST" and path == "/login" and args.login_redirect:
            respond(conn, args.login_redirect_status, "", headers=[("Location", args.login_redirect)])
        elif method == "POST" and path == "/login":
            if form.get("pw") != args.password:
                page(conn, '<p>wrong password</p><form method="post"><input type="text" name="username"><input type="password" name="pw"></form>')
                continue
            echoed["password"] = form["pw"]
            code = b64(json.dumps({k: form.get(k, "") for k in ("client_id", "redirect_uri", "nonce", "code_challenge")}).encode())
            query = [("code", code), ("state", form.get("state", ""))]
            if args.send_iss:
                query.append(("iss", form.get("issuer", "")))
            location = form.get("redirect_uri", "") + "?" + urlencode(query)
            extra_headers = []
            if args.echo:
                location = location + "&" + urlencode([("echo", form["pw"])]) + "#" + urlencode([("echo", form["pw"])])
                extra_headers.append(("X-Echo", form["pw"]))
            respond(conn, "302 Found", "", headers=[("Location", location)] + extra_headers)
        elif method == "POST" and path == "/token":
            token(conn, issuer, form, headers)
        elif method == "POST" and path == "/device":
            device_code, user_code = secrets.token_urlsafe(16), "WDJB-MJHT"
            with lock:
                devices[device_code] = {"user_code": user_code, "client_id": form.get("client_id", ""), "approved": False}
            respond(conn, "200 OK", json.dumps({"device_code": device_code, "user_code": user_code,
                                                "verification_uri": args.verification_uri or issuer + "/device-page",
                                                "interval": 0.2, "expires_in": 30}))
        elif method == "GET" and path == "/device-page":
            page(conn, '<form method="post" action="/device-page/code"><input type="text" name="user_code"><button>Continue</button></form>')
        elif method == "POST" and path == "/device-page/code":
            page(conn, '<form method="post" action="/device-page/login"><input type="text" name="username"><input type="password" name="pw">'
                 '%s<button>Sign in</button></form>' % hidden([("user_code", form.get("user_code", ""))]))
        elif method == "POST" and path == "/device-page/login":
            with lock:
                for device in devices.values():
                    if device["user_code"] == form.get("user_code") and form.get("pw") == args.password:
                        device["approved"] = True
            page(conn, "<p>Device approved</p>")
        elif method == "GET" and path == "/userinfo":
            respond(conn, "200 OK", json.dumps({"sub": "alice-sub"}))
        else:
            respond(conn, "404 Not Found", '{"error": "not_found"}')


def client_secret(form, headers):
    if "client_secret" in form:
        return form["client_secret"]
    authorization = headers.get("authorization", "")
    if authorization.startswith("Basic "):
        # RFC 6749 §2.3.1: each part form-encoded before Base64.
        _, _, encoded = base64.b64decode(authorization[6:]).decode("utf-8", "replace").partition(":")
        return unquote_plus(encoded)
    return None


def id_token(issuer, client_id, nonce, access_token, replacing=None):
    now = int(time.time())
    claims = {"iss": issuer, "sub": "alice-sub", "aud": client_id, "iat": now, "exp": now + 600, "at_hash": half_hash(access_token)}
    if nonce:
        claims["nonce"] = nonce
    claims.update(replacing or {})
    return claims


def token(conn, issuer, form, headers):
    secret = client_secret(form, headers)
    if args.client_secret is not None and secret != args.client_secret:
        respond(conn, "401 Unauthorized", '{"error": "invalid_client"}')
        return
    echoed["secret"] = secret or ""
    if args.token_error is not None:
        description = args.token_error + (" (you sent %s, password %s)" % (echoed["secret"], echoed["password"]) if args.echo else "")
        respond(conn, "400 Bad Request", json.dumps({"error": "invalid_grant", "error_description": description}))
        return
    access = secrets.token_urlsafe(24)
    refresh = secrets.token_urlsafe(24)
    grant = form.get("grant_type")
    if grant == "authorization_code":
        request = json.loads(base64.urlsafe_b64decode(form.get("code", "") + "=" * (-len(form.get("code", "")) % 4)))
        claims = id_token(issuer, request["client_id"], request["nonce"], access)
    elif grant == "refresh_token":
        with lock:
            original = refresh_tokens.get(form.get("refresh_token"))
        if original is None:
            respond(conn, "400 Bad Request", '{"error": "invalid_grant"}')
            return
        claims = dict(original, iat=int(time.time()), exp=int(time.time()) + 600, at_hash=half_hash(access))
        claims.pop("nonce", None)
        claims.update(json.loads(args.refresh_claims) if args.refresh_claims else {})
    elif grant == "urn:ietf:params:oauth:grant-type:device_code":
        with lock:
            device = devices.get(form.get("device_code"))
        if device is None or not device["approved"]:
            respond(conn, "400 Bad Request", '{"error": "authorization_pending"}')
            return
        claims = id_token(issuer, device["client_id"], None, access, json.loads(args.device_claims) if args.device_claims else None)
    else:
        respond(conn, "400 Bad Request", '{"error": "unsupported_grant_type"}')
        return
    with lock:
        refresh_tokens[refresh] = claims
    answer = {"access_token": access, "token_type": "Bearer", "expires_in": 600, "refresh_token": refresh,
              "id_token": sign(claims), "scope": "openid"}
    if args.echo:
        answer["echo"] = "%s / %s" % (echoed["secret"], echoed["password"])
    respond(conn, "200 OK", json.dumps(answer))


common.serve(args, handle, None if args.plain else common.server_tls_context(args))
