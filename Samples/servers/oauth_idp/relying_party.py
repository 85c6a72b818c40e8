"""A small relying-party web app for the user-agent role tests, served by the same process as the
identity provider under /app/: /app/login starts an authorization code + PKCE login with the
confidential client "webapp", /app/callback checks state and exchanges the code server-side
(in-process, through Django's test client), and /app/ greets the signed-in user by email.
"""
import base64
import hashlib
import json
import secrets
from urllib.parse import urlencode

from django.http import HttpResponse, HttpResponseRedirect
from django.utils.html import escape

CLIENT_ID = "webapp"
CLIENT_SECRET = "webapp-secret"


def _redirect_uri(request):
    return "https://%s/app/callback" % request.get_host()


def login(request):
    verifier = secrets.token_urlsafe(48)
    state = secrets.token_urlsafe(16)
    request.session["rp"] = {"state": state, "verifier": verifier}
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    query = urlencode({"response_type": "code", "client_id": CLIENT_ID, "redirect_uri": _redirect_uri(request),
                       "scope": "openid email", "state": state, "code_challenge": challenge,
                       "code_challenge_method": "S256"})
    return HttpResponseRedirect("/o/authorize/?" + query)


def callback(request):
    pending = request.session.pop("rp", None)
    if "error" in request.GET:
        return HttpResponse("<html><body><p class=\"error\">Sign-in failed: %s</p></body></html>"
                            % escape(request.GET["error"]), status=403)
    if not pending or request.GET.get("state") != pending["state"]:
        return HttpResponse("<html><body><p class=\"error\">Bad state</p></body></html>", status=400)
    from django.test import Client
    answer = Client().post("/o/token/", {
        "grant_type": "authorization_code", "code": request.GET.get("code", ""), "redirect_uri": _redirect_uri(request),
        "code_verifier": pending["verifier"], "client_id": CLIENT_ID, "client_secret": CLIENT_SECRET,
    }, HTTP_HOST=request.get_host(), secure=True)
    if answer.status_code != 200:
        return HttpResponse("<html><body><p class=\"error\">Token exchange failed</p></body></html>", status=502)
    id_token = json.loads(answer.content)["id_token"]
    payload = id_token.split(".")[1]
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    request.session["user"] = claims.get("email") or claims["sub"]
    return HttpResponseRedirect("/app/")


def home(request):
    user = request.session.get("user")
    if not user:
        return HttpResponse("<html><body><a href=\"/app/login\">Sign in</a></body></html>")
    return HttpResponse("<html><head><title>Web app</title></head><body><h1>Welcome, %s</h1></body></html>" % escape(user))
