"""The OAuth 2.0 / OpenID Connect identity provider for the OAuthFlow tests: django-oauth-toolkit
behind a small TLS WSGI server (IdentityProvider.swift starts one per test class).

Takes hostile_common's arguments (--host, --port, --cert, --key, --ca, --log) plus --state (a
folder for the SQLite database). At start it generates an RSA key for ID tokens, creates the
test user and clients, prints "READY <port>", then logs one line per request: client address,
method, path, and whether a Proxy-Authorization header or the relay token arrived.

Clients: "public-app" (public, PKCE, consent shown), "confidential-app" (secret
"confidential-secret", consent skipped) and "service-app" (client credentials, secret
"service-secret") and "device-app" (public, device authorization grant), and "webapp" for the relying party at
/app/ (relying_party.py). User: alice / "wonderland-pw".
"""
import os
import socketserver
import ssl
import sys
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hostile"))

import hostile_common  # noqa: E402

REDIRECT_URIS = "com.example.app:/callback http://127.0.0.1/callback https://origin.test/callback"


def main():
    args = hostile_common.arguments(__doc__, lambda p: p.add_argument("--state", required=True))
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption()).decode()
    server = TLSWSGIServer((args.host, args.port), Handler)
    port = server.server_address[1]
    import idp_site
    idp_site.configure(args.state, pem, "https://origin.test:%d/o/device/" % port)
    import django
    django.setup()
    from django.core.management import call_command
    call_command("migrate", verbosity=0, interactive=False, run_syncdb=True)
    seed(port)
    from django.core.wsgi import get_wsgi_application
    serve(args, server, get_wsgi_application())


def seed(port):
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
        authorization_grant_type="authorization-code", redirect_uris="https://origin.test:%d/app/callback" % port,
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
            request.unwrap()
        except (OSError, ValueError):
            pass
        super().shutdown_request(request)


def serve(args, server, application):
    log = hostile_common.EventLog(args.log)

    def logged(environ, start_response):
        headers = " ".join(v for k, v in environ.items() if k.startswith("HTTP_"))
        log("request", environ.get("REMOTE_ADDR"), environ.get("REQUEST_METHOD"), environ.get("PATH_INFO"),
            "proxy-authorization=%s" % ("HTTP_PROXY_AUTHORIZATION" in environ),
            "relay-token=%s" % ("relay-token" in headers))
        return application(environ, start_response)

    server.set_app(logged)
    server.socket = hostile_common.server_tls_context(args).wrap_socket(server.socket, server_side=True)
    hostile_common.exit_with_parent()
    print("READY %d" % server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
