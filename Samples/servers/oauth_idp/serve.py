"""The OAuth 2.0 / OpenID Connect identity provider for the OAuthFlow tests: django-oauth-toolkit
behind a small TLS WSGI server. scripts/test-servers.sh runs one as https://idp.test (127.0.0.23:443,
the name known to the relays only); Benchmarks/oauth runs one in a namespace.

Takes hostile_common's arguments (--host, --port, --cert, --key, --ca, --log) plus --state (a
folder for the SQLite database, created afresh at every start), --origin (the scheme, name and
port clients use, default https://origin.test:PORT), --daemon (keep running when standard
input closes) and --plain (plain HTTP, for a TLS front such as nginx; the app still sees https). At start it generates an RSA key for ID tokens, creates the test user and
clients, prints "READY <port>", then logs one line per request: client address, method, path,
and whether a Proxy-Authorization header or the relay token arrived.

Clients: "public-app" (public, PKCE, consent shown), "confidential-app" (secret
"confidential-secret", consent skipped) and "service-app" (client credentials, secret
"service-secret") and "device-app" (public, device authorization grant), and "webapp" for the relying party at
/app/ (relying_party.py). User: alice / "wonderland-pw".
"""
import io
import json
import os
import socketserver
import ssl
import sys
from urllib.parse import parse_qsl, urlsplit
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hostile"))

import hostile_common  # noqa: E402

REDIRECT_URIS = "com.example.app:/callback http://127.0.0.1/callback https://origin.test/callback"


def main():
    def extra(parser):
        parser.add_argument("--state", required=True)
        parser.add_argument("--origin")
        parser.add_argument("--daemon", action="store_true")
        parser.add_argument("--plain", action="store_true")
    args = hostile_common.arguments(__doc__, extra)
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption()).decode()
    server = TLSWSGIServer((args.host, args.port), Handler)
    origin = args.origin or "https://origin.test:%d" % server.server_address[1]
    database = os.path.join(args.state, "idp.sqlite3")
    if os.path.exists(database):
        os.remove(database)
    import idp_site
    idp_site.configure(args.state, pem, origin + "/o/device/")
    import django
    django.setup()
    from django.core.management import call_command
    call_command("migrate", verbosity=0, interactive=False, run_syncdb=True)
    seed(origin)
    from django.core.wsgi import get_wsgi_application
    serve(args, server, get_wsgi_application())


def seed(origin):
    from django.contrib.auth import get_user_model
    from oauth2_provider.models import get_application_model
    user = get_user_model().objects.create_user("alice", "alice@origin.test", "wonderland-pw")
    Application = get_application_model()
    Application.objects.create(
        name="public-app", client_id="public-app", client_type="public", authorization_grant_type="authorization-code",
        redirect_uris=REDIRECT_URIS, algorithm="RS256", skip_authorization=False, user=user)
    Application.objects.create(
        name="confidential-app", client_id="confidential-app", client_secret="confidential-secret",
        client_type="confidential", authorization_grant_type="authorization-code", redirect_uris=REDIRECT_URIS,
        algorithm="RS256", skip_authorization=True, user=user)
    Application.objects.create(
        name="service-app", client_id="service-app", client_secret="service-secret", client_type="confidential",
        authorization_grant_type="client-credentials", algorithm="RS256", user=user)
    Application.objects.create(
        name="webapp", client_id="webapp", client_secret="webapp-secret", client_type="confidential",
        authorization_grant_type="authorization-code", redirect_uris=origin + "/app/callback",
        algorithm="RS256", skip_authorization=False, user=user)
    Application.objects.create(
        name="device-app", client_id="device-app", client_type="public",
        authorization_grant_type="urn:ietf:params:oauth:grant-type:device_code", algorithm="RS256", user=user)


class Handler(WSGIRequestHandler):
    def log_message(self, *args):
        pass

    def get_environ(self):
        environ = super().get_environ()
        environ["wsgi.url_scheme"] = "https"
        environ["HTTPS"] = "on"
        return environ


class TLSWSGIServer(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = True

    def shutdown_request(self, request):
        # End TLS with close_notify: a close-delimited body cut without it is a truncation.
        try:
            if isinstance(request, ssl.SSLSocket):
                request.unwrap()
        except (OSError, ValueError):
            pass
        super().shutdown_request(request)


# Values the tests must never find in relayfetch's output (stdout, JUnit, HAR): logged as
# "secret<TAB>name<TAB>value" lines when they pass through the provider.
SECRET_NAMES = {"state", "nonce", "code", "code_verifier", "password", "client_secret", "access_token",
                "refresh_token", "id_token", "device_code", "user_code", "csrfmiddlewaretoken"}


def log_secrets(log, pairs):
    for name, value in pairs:
        if name in SECRET_NAMES and value:
            log("secret", name, value)


def serve(args, server, application):
    log = hostile_common.EventLog(args.log)

    def logged(environ, start_response):
        headers = " ".join(v for k, v in environ.items() if k.startswith("HTTP_"))
        log("request", environ.get("REMOTE_ADDR"), environ.get("REQUEST_METHOD"), environ.get("PATH_INFO"),
            "proxy-authorization=%s" % ("HTTP_PROXY_AUTHORIZATION" in environ),
            "relay-token=%s" % ("relay-token" in headers))
        log_secrets(log, parse_qsl(environ.get("QUERY_STRING", "")))
        if environ.get("REQUEST_METHOD") == "POST":
            body = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
            environ["wsgi.input"] = io.BytesIO(body)
            if environ.get("CONTENT_TYPE", "").startswith("application/x-www-form-urlencoded"):
                log_secrets(log, parse_qsl(body.decode("latin-1")))

        def recording_start_response(status, response_headers, exc_info=None):
            for name, value in response_headers:
                if name.lower() == "location":
                    log_secrets(log, parse_qsl(urlsplit(value).query))
            return start_response(status, response_headers, exc_info)

        result = application(environ, recording_start_response)
        try:
            body = b"".join(result)
        finally:
            if hasattr(result, "close"):
                result.close()
        if body.startswith(b"{"):
            try:
                log_secrets(log, json.loads(body).items())
            except ValueError:
                pass
        return [body]

    server.set_app(logged)
    if not args.plain:
        server.socket = hostile_common.server_tls_context(args).wrap_socket(server.socket, server_side=True)
    if not args.daemon:
        hostile_common.exit_with_parent()
    print("READY %d" % server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
