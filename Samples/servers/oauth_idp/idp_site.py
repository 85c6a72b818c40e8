"""Django settings, URLs and the OIDC claims of the test identity provider (serve.py).

django-oauth-toolkit serves /o/authorize/, /o/token/, /o/userinfo/, /o/.well-known/...; Django's
LoginView serves /accounts/login/. Settings are made in configure() from serve.py's arguments.
"""
import os

from django.conf import settings
from django.urls import include, path

HERE = os.path.dirname(os.path.abspath(__file__))


def configure(state_dir, rsa_private_key_pem, device_verification_uri):
    settings.configure(
        DEBUG=False,
        SECRET_KEY="relayfetch-test-idp-not-secret",
        ALLOWED_HOSTS=["*"],
        INSTALLED_APPS=[
            "django.contrib.auth",
            "django.contrib.contenttypes",
            "django.contrib.sessions",
            "oauth2_provider",
        ],
        MIDDLEWARE=[
            "django.contrib.sessions.middleware.SessionMiddleware",
            "django.middleware.common.CommonMiddleware",
            "django.middleware.csrf.CsrfViewMiddleware",
            "django.contrib.auth.middleware.AuthenticationMiddleware",
        ],
        ROOT_URLCONF="idp_site",
        # Requests run on threads: IMMEDIATE transactions and a busy timeout keep concurrent
        # flows from failing with "database is locked".
        DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": os.path.join(state_dir, "idp.sqlite3"),
                               "OPTIONS": {"transaction_mode": "IMMEDIATE", "timeout": 20}}},
        TEMPLATES=[{
            "BACKEND": "django.template.backends.django.DjangoTemplates",
            "DIRS": [os.path.join(HERE, "templates")],
            "APP_DIRS": True,
            "OPTIONS": {"context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
            ]},
        }],
        LOGIN_URL="/accounts/login/",
        USE_TZ=True,
        SESSION_COOKIE_SECURE=True,
        CSRF_COOKIE_SECURE=True,
        PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"],  # fast start; test users only
        DEFAULT_AUTO_FIELD="django.db.models.AutoField",
        LOGGING_CONFIG=None,
        # Tables straight from the models (migrate --run-syncdb): seconds faster than migrations.
        MIGRATION_MODULES={app: None for app in ("auth", "contenttypes", "sessions", "oauth2_provider")},
        OAUTH2_PROVIDER={
            "OIDC_ENABLED": True,
            "OIDC_RSA_PRIVATE_KEY": rsa_private_key_pem,
            "PKCE_REQUIRED": True,
            "SCOPES": {"openid": "OpenID Connect", "profile": "Your name", "email": "Your email", "read": "Read"},
            "ALLOWED_REDIRECT_URI_SCHEMES": ["https", "http", "com.example.app"],
            "OAUTH2_VALIDATOR_CLASS": "idp_site.ClaimsValidator",
            "ACCESS_TOKEN_EXPIRE_SECONDS": 600,
            "OAUTH_DEVICE_VERIFICATION_URI": device_verification_uri,
            "DEVICE_FLOW_INTERVAL": 1,
        },
    )


def _validator_class():
    from oauth2_provider.oauth2_validators import OAuth2Validator

    class ClaimsValidator(OAuth2Validator):
        oidc_claim_scope = None  # every claim for every openid token (simple to test)

        def get_additional_claims(self, request):
            return {"email": request.user.email, "preferred_username": request.user.username}

    return ClaimsValidator


def __getattr__(name):
    # Resolved when Django first asks, after configure() (this module is imported before it).
    if name == "ClaimsValidator":
        return _validator_class()
    if name == "urlpatterns":
        return _urlpatterns()
    raise AttributeError(name)


def _urlpatterns():
    from django.contrib.auth.views import LoginView
    import relying_party
    return [
        path("app/", relying_party.home),
        path("app/login", relying_party.login),
        path("app/callback", relying_party.callback),
        path("accounts/login/", LoginView.as_view(), name="login"),
        path("o/", include("oauth2_provider.urls", namespace="oauth2_provider")),
    ]

