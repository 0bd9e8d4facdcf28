"""Settings for foodservice, read from the environment (see docs/configuration.md).

With no environment at all the service runs on the embedded default: a SQLite file
under ``var/`` and in-process metering. ``DATABASE_URL`` switches to PostgreSQL and
``REDIS_URL`` to Redis-backed metering and a shared key cache.
"""

from __future__ import annotations

import secrets
from pathlib import Path

from foodservice.env import (
    database_from_url,
    env_bool,
    env_choice,
    env_list,
    env_str,
)

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("FOODSERVICE_VAR_DIR", str(BASE_DIR / "var")))


def _local_secret_key() -> str:
    """A random key kept in ``var/secret_key``, so the embedded default needs no setup
    and keeps its sessions and API key hashes across restarts."""
    path = VAR_DIR / "secret_key"
    if not path.exists():
        VAR_DIR.mkdir(parents=True, exist_ok=True)
        path.touch(mode=0o600)
        path.write_text(secrets.token_urlsafe(50))
    return path.read_text().strip()


DEBUG = env_bool("DEBUG", default=False)
SECRET_KEY = env_str("SECRET_KEY") or _local_secret_key()
# The pepper keyed into every API key hash (keys/secrets.py). Defaults to a value
# derived from SECRET_KEY; set it explicitly in production so SECRET_KEY can rotate
# without invalidating every API key.
KEY_PEPPER = env_str("KEY_PEPPER") or f"key-pepper:{SECRET_KEY}"
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
# The {base_url} of the spec: problem doc_url links point at {BASE_URL}/docs#tag/<kind>.
BASE_URL = env_str("BASE_URL", "http://127.0.0.1:8000").rstrip("/")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "foodservice",
    "accounts",
    "keys",
    "metering",
    "catalogue",
]

MIDDLEWARE = [
    # First: times, logs and counts every response, and sets X-Request-ID (issue 7.4).
    "foodservice.requestlog.RequestLogMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "foodservice.security.SecurityHeadersMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "foodservice.middleware.ProblemMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "foodservice.urls"
WSGI_APPLICATION = "foodservice.wsgi.application"
ASGI_APPLICATION = "foodservice.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Durable state -----------------------------------------------------------------
DATABASE_URL = env_str("DATABASE_URL")
DATABASES = {"default": database_from_url(DATABASE_URL, sqlite_path=VAR_DIR / "db.sqlite3")}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
AUTH_USER_MODEL = "accounts.User"

# --- Redis: metering and the shared key cache ----------------------------------------
REDIS_URL = env_str("REDIS_URL")
if REDIS_URL:
    from redis import ConnectionError as _RedisConnectionError
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    _redis_options = {
        "CLIENT_CLASS": "django_redis.client.DefaultClient",
        "SOCKET_CONNECT_TIMEOUT": 0.5,
        "SOCKET_TIMEOUT": 0.5,
        # One immediate retry on a broken pooled connection, none on timeouts: redis-py's
        # default retries with backoff would stall every request for seconds while Redis
        # is down (the key cache then falls back to the database).
        "CONNECTION_POOL_KWARGS": {
            "retry": Retry(NoBackoff(), 1, supported_errors=(_RedisConnectionError,))
        },
    }
    CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "fs",
            "OPTIONS": _redis_options,
        },
        # Key look-ups (keys/selectors.py). Shared by every worker on every host and
        # invalidated by the key and account services, so a revocation, rotation or
        # tier change is seen on the next request everywhere.
        "keys": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "fs",
            "TIMEOUT": 300,
            "OPTIONS": _redis_options,
        },
    }
else:
    CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
        # Without Redis there is no cache that every process shares, so key look-ups
        # are not cached at all: a per-process cache would go stale when another
        # process (manage.py revoke_key) revokes a key.
        "keys": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"},
    }

# "redis" needs REDIS_URL; "memory" is the thread-safe in-process meter of the
# embedded default (one process only).
METER_BACKEND = env_choice("METER_BACKEND", ("redis", "memory"), "redis" if REDIS_URL else "memory")
# What a metered request gets while Redis is unreachable: "closed" answers 503
# /problems/service-unavailable; "open" serves the request unmetered and logs a warning.
METER_FAILURE_POLICY = env_choice("METER_FAILURE_POLICY", ("closed", "open"), "closed")
# Switch metering off entirely (benchmarks compare against it). Never in production.
METERING_ENABLED = env_bool("METERING_ENABLED", default=True)
# Every web worker writes its per-key usage history (metering/recorder.py) this often, in
# seconds, from a thread of its own; a crash loses at most about this much history.
METER_FLUSH_SECONDS = float(env_str("METER_FLUSH_SECONDS", "5"))

# --- Tiers (spec 8.1, 8.3). Launch values: one table, so they can change. ------------
# quota: requests per window; window: "day" (rolling 24 h in hourly steps) or "month"
# (the billing period); rate: sustained requests per second; burst: bucket size.
# rate/burst None = unthrottled. executive_chef holds the defaults an Executive Chef
# account gets until its negotiated values are set (accounts.Account.custom_*).
FOODSERVICE_TIERS: dict[str, dict[str, object]] = {
    "taster": {"quota": 250, "window": "day", "rate": 1.0, "burst": 10},
    "sous_chef": {"quota": 250_000, "window": "month", "rate": 10.0, "burst": 50},
    "head_chef": {"quota": 2_000_000, "window": "month", "rate": None, "burst": None},
    "executive_chef": {"quota": 10_000_000, "window": "month", "rate": 100.0, "burst": 500},
}
MAX_KEYS_PER_ACCOUNT = 5
# How often a worker reads the catalogue version again (catalogue/rendering.py): the
# food records and search pages it served stay in its memory until the version changes,
# so a load is seen by every worker at most this many seconds after it commits. 0 turns
# that memory off (every read asks the database; the tests do).
CATALOGUE_VERSION_SECONDS = float(env_str("CATALOGUE_VERSION_SECONDS", "1"))
# How long a worker keeps a key's principal in its own memory (keys/cache.py): each use
# still checks the account's epoch in Redis, so revocations are seen on the next
# request. 0 without Redis (the embedded default reads the database every time).
KEY_LOCAL_SECONDS = float(env_str("KEY_LOCAL_SECONDS", "60" if REDIS_URL else "0"))
# Markets offered before the catalogue holds any food (catalogue/selectors.py).
DEFAULT_MARKETS = env_list("DEFAULT_MARKETS", ["US"])

# --- Passwords: Argon2 first (argon2-cffi) --------------------------------------------
PASSWORD_HASHERS = [
    "django.contrib.auth.hashers.Argon2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# --- REST framework ------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["keys.authentication.ApiKeyAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_THROTTLE_CLASSES": [],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["foodservice.parsers.JSONParser"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "foodservice.negotiation.JSONOnlyNegotiation",
    # No OPTIONS metadata: it would describe the views from their internal docstrings.
    # OPTIONS is then a 405 problem like any other unsupported method (/docs describes
    # the API).
    "DEFAULT_METADATA_CLASS": None,
    "EXCEPTION_HANDLER": "foodservice.exception_handler.problem_exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "UNAUTHENTICATED_USER": None,
    "UNICODE_JSON": True,
    "COMPACT_JSON": True,
}
# Largest request body the API parses (PUT /v1/market is a few bytes).
API_MAX_BODY_BYTES = 16 * 1024
SPECTACULAR_SETTINGS = {
    "TITLE": "foodservice API",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # The API reference (issue 6): /openapi.json and /docs need no key; the per-view
    # descriptions live in each app's schema.py, the shared parts in foodservice/schema.py.
    "SERVE_AUTHENTICATION": [],
    "SCHEMA_PATH_PREFIX": r"/v1",
    "SCHEMA_PATH_PREFIX_TRIM": False,
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "foodservice.schema.postprocess",
    ],
}

# --- E-mail, sign-in ------------------------------------------------------------------
EMAIL_BACKEND = env_str("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
EMAIL_HOST = env_str("EMAIL_HOST", "localhost")
EMAIL_PORT = int(env_str("EMAIL_PORT", "25"))
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", default=False)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "foodservice <noreply@localhost>")
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "dashboard"
LOGOUT_REDIRECT_URL = "login"

# --- Security headers -------------------------------------------------------------------
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SECURE = not DEBUG and env_bool("SECURE_COOKIES", default=True)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
X_FRAME_OPTIONS = "DENY"
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", default=False)
SECURE_HSTS_SECONDS = int(env_str("SECURE_HSTS_SECONDS", "0"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=False)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", default=False)
# Probes and scrapers talk plain HTTP to the app inside the network: never redirected.
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$", r"^metrics$"]
# /metrics answers only "Authorization: Bearer <METRICS_TOKEN>"; unset = no metrics.
METRICS_TOKEN = env_str("METRICS_TOKEN")

# --- I18N, static -----------------------------------------------------------------------
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
WHITENOISE_USE_FINDERS = True

# LOG_FORMAT "json" (default): one JSON object per line; "text": the same fields for
# people. Both redact anything shaped like an API key (foodservice/logformat.py).
LOG_FORMAT = env_choice("LOG_FORMAT", ("json", "text"), "json")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "json": {"()": "foodservice.logformat.JsonFormatter"},
        "text": {"()": "foodservice.logformat.TextFormatter"},
    },
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": LOG_FORMAT}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {"django.server": {"level": "WARNING"}},
}
