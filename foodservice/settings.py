"""Settings for foodservice, read from the environment (see docs/operations.md, "Configuration").

With no environment at all the service runs on the embedded default: a SQLite file
under ``var/`` and in-process metering. ``DATABASE_URL`` switches to PostgreSQL and
``REDIS_URL`` to Redis-backed metering and a shared key cache.
"""

from __future__ import annotations

import secrets
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from core.clientaddr import parse_networks
from core.env import (
    database_from_url,
    env_bool,
    env_choice,
    env_list,
    env_str,
    local_base_url,
)
from core.redis import topology_from_settings

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
# Unset, it follows the HOST and PORT the server was started on (``make run PORT=8031``
# exports them; issue 14.8), so every link the service prints and serves reaches it.
BASE_URL = (env_str("BASE_URL") or local_base_url(env_str("HOST"), env_str("PORT"))).rstrip("/")

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
    "foodservice.dashboard",
    "accounts",
    "keys",
    "metering",
    "catalogue",
    "accounts.audit",
    "metering.alerts",
]

MIDDLEWARE = [
    # First: times, logs and counts every response, and sets X-Request-ID (issue 7.4).
    "foodservice.http.requestlog.RequestLogMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "foodservice.http.security.SecurityHeadersMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Every /v1 answer: Cache-Control private and Vary on the key headers (issue 24.4).
    "foodservice.http.middleware.PerAccountCacheMiddleware",
    "foodservice.http.middleware.ProblemMiddleware",
    # Before anything reads the session or the database: NUL and other control
    # characters get a 404/400 on every route (issue 11.6).
    "core.controlchars.ControlCharacterMiddleware",
    # Django's session, user and messages middleware, passing a /v1 request (a key, never
    # a session) straight on (foodservice/http/browser.py, issue 41.1).
    "foodservice.http.browser.SessionMiddleware",
    # Before CommonMiddleware, so it strips the Content-Length that one adds to a 304.
    "foodservice.http.middleware.NotModifiedMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "foodservice.http.browser.AuthenticationMiddleware",
    "foodservice.http.browser.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # A sign-in the limit refused gets the 429 page, whichever form asked (issue 11.2).
    "accounts.middleware.SignInLimitMiddleware",
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
# PostgreSQL through foodservice/ops/postgresql: CONN_HEALTH_CHECKS without a round trip
# when the connection's socket shows nothing wrong (issue 41.1).
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    DATABASES["default"]["ENGINE"] = "foodservice.ops.postgresql"
# DATABASE_PGBOUNCER=1: DATABASE_URL (and the replicas) go through PgBouncer in transaction
# pooling mode, where a server connection belongs to a client for one transaction only:
# no server-side cursors (a cursor would outlive its transaction), no prepared statements
# (PgBouncer < 1.21 cannot route them; Django's psycopg 3 default, made explicit here).
# Run migrate and load_catalogue against PostgreSQL directly (docs/operations.md).
DATABASE_PGBOUNCER = env_bool("DATABASE_PGBOUNCER", default=False)
# DATABASE_REPLICA_URLS: PostgreSQL streaming replicas for catalogue reads (aliases
# replica1, replica2, ...; foodservice/ops/replicas.py). A replica whose replay lags more
# than DATABASE_REPLICA_MAX_LAG seconds, or is down, is skipped for the primary.
DATABASE_REPLICA_URLS = env_list("DATABASE_REPLICA_URLS", [])
DATABASE_REPLICA_MAX_LAG = float(env_str("DATABASE_REPLICA_MAX_LAG", "30"))
for _n, _url in enumerate(DATABASE_REPLICA_URLS, start=1):
    _replica = database_from_url(_url, sqlite_path=VAR_DIR / "db.sqlite3")
    if not str(_replica["ENGINE"]).endswith("postgresql"):
        raise ImproperlyConfigured("DATABASE_REPLICA_URLS must be postgres:// URLs")
    _replica["ENGINE"] = "foodservice.ops.replica_db"
    _replica["TEST"] = {"MIRROR": "default"}  # tests read the test database
    DATABASES[f"replica{_n}"] = _replica
if DATABASE_REPLICA_URLS:
    DATABASE_ROUTERS = ["foodservice.ops.replicas.ReplicaRouter"]
    MIDDLEWARE.append("foodservice.ops.replicas.ReplicaReadsMiddleware")
# Prepared statements (core/sql.py, issue 41.2): the raw statements every read runs (a
# stored record, a page's summaries, the search's statements) are prepared on each
# direct PostgreSQL connection; the ORM keeps Django's client-side binding, which never
# prepares. Off through PgBouncer, and with DATABASE_PREPARED=0.
DATABASE_PREPARED = env_bool("DATABASE_PREPARED", default=True) and not DATABASE_PGBOUNCER
for _db in DATABASES.values():
    if _db["ENGINE"] not in ("foodservice.ops.postgresql", "foodservice.ops.replica_db"):
        continue
    if DATABASE_PREPARED:
        _db["OPTIONS"].setdefault("prepare_threshold", 5)  # psycopg's own default
    else:
        _db["OPTIONS"]["prepare_threshold"] = None
    if DATABASE_PGBOUNCER:
        if _db["OPTIONS"].get("server_side_binding"):
            raise ImproperlyConfigured("server_side_binding does not work through PgBouncer")
        _db["DISABLE_SERVER_SIDE_CURSORS"] = True
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
AUTH_USER_MODEL = "accounts.User"

# --- Redis: metering and the shared key cache ----------------------------------------
REDIS_URL = env_str("REDIS_URL")
# REDIS_CLUSTER=1: REDIS_URL names one node (a seed) of a Redis Cluster (and its
# credentials); REDIS_CLUSTER_NODES (host:port,...) more seeds, tried in turn when a
# worker starts, so it connects while any one node is down. REDIS_SENTINELS
# (host:port,...) and REDIS_SENTINEL_MASTER: the primary is the one these sentinels
# name; REDIS_URL then gives only the database number and credentials. Every Redis
# client is built by core/redis.py (docs/operations.md, "Redis topologies").
REDIS_CLUSTER = env_bool("REDIS_CLUSTER", default=False)
# Every key this service writes to Redis starts with REDIS_KEY_PREFIX and a colon (the
# caches, the meter, the key epochs), so several test runs or services can share one
# Redis database (the test suite gives each run and each xdist worker its own).
REDIS_KEY_PREFIX = env_str("REDIS_KEY_PREFIX", "fs")
REDIS_SENTINEL_MASTER = env_str("REDIS_SENTINEL_MASTER")
_topology = topology_from_settings(
    url=REDIS_URL,
    cluster=REDIS_CLUSTER,
    sentinels=env_list("REDIS_SENTINELS", []),
    master=REDIS_SENTINEL_MASTER,
    cluster_nodes=env_list("REDIS_CLUSTER_NODES", []),
)
REDIS_SENTINELS = list(_topology.sentinels)
REDIS_CLUSTER_NODES = list(_topology.cluster_nodes)
if REDIS_URL:
    _redis_options = {
        "CLIENT_CLASS": "django_redis.client.DefaultClient",
        # Builds a plain, Cluster or Sentinel client with short timeouts, one immediate
        # retry on a broken pooled connection and none on timeouts: redis-py's default
        # retries with backoff would stall every request for seconds while Redis is down
        # (the key cache then falls back to the database).
        "CONNECTION_FACTORY": "core.redis.ConnectionFactory",
        "SOCKET_CONNECT_TIMEOUT": 0.5,
        "SOCKET_TIMEOUT": 0.5,
    }
    CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": REDIS_KEY_PREFIX,
            "OPTIONS": _redis_options,
        },
        # Key look-ups (keys/selectors.py). Shared by every worker on every host and
        # invalidated by the key and account services, so a revocation, rotation or
        # tier change is seen on the next request everywhere.
        "keys": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": REDIS_KEY_PREFIX,
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
# spec 8.1/8.2: Taster reads "about the first 1,000" matches of a search.
TASTER_RESULT_DEPTH = 1000
# List prices shown on the Plan page (issue 15), as display text. No payment provider is
# connected, so nothing is charged; the page says so. Executive Chef is negotiated.
PLAN_PRICES = {
    "taster": "Free",
    "sous_chef": env_str("PLAN_PRICE_SOUS_CHEF", "US$49 a month"),
    "head_chef": env_str("PLAN_PRICE_HEAD_CHEF", "US$199 a month"),
    "executive_chef": env_str("PLAN_PRICE_EXECUTIVE_CHEF", "Negotiated"),
}
# Where "contact sales" on the Executive Chef card leads (a mailto: or https: URL).
SALES_CONTACT_URL = env_str("SALES_CONTACT_URL", "mailto:sales@localhost")
# How often a worker reads the catalogue version again (catalogue/delivery/rendering.py): the
# food records and search pages it served stay in its memory until the version changes,
# so a load is seen by every worker at most this many seconds after it commits. 0 turns
# that memory off (every read asks the database; the tests do).
CATALOGUE_VERSION_SECONDS = float(env_str("CATALOGUE_VERSION_SECONDS", "1"))
# Processes that encode a first load's rows beside the loading one (issue 41.3,
# catalogue/importers/encoding.py): 0 one per CPU, 1 none (on a machine whose CPUs are
# busy with other work, the hand-over costs more than it saves).
LOAD_PROCESSES = int(env_str("LOAD_PROCESSES", "0"))
# How many megabytes of that memory each worker keeps (catalogue/delivery/memory.py: compressed,
# ~2 KB a food record; three quarters for records, a quarter for search pages and
# suggestions); the oldest entries make room for new ones.
CATALOGUE_MEMORY_MB = float(env_str("CATALOGUE_MEMORY_MB", "64"))
# How long a food record a worker read from the database stays in Redis for every
# worker on every host (catalogue/delivery/shared.py, issue 28.5), read in the meter's own round
# trip: a record missing from a worker's memory then costs no database query. Keyed by
# the catalogue version, so a load is never served stale; ~1.2 KB a record. 0 turns it
# off; it is off without Redis. Search pages are shared the same way (issue 41.1); on a
# Redis Cluster the meter reads a copy with a GET after its script (no pipelined script).
CATALOGUE_SHARED_SECONDS = float(env_str("CATALOGUE_SHARED_SECONDS", "3600"))
# Issue 41.2: a copy is written to Redis off the request's path, by a thread of the
# worker that sets what it gathered in one pipeline this many seconds after the first
# (a record's first read then costs one round trip beyond the meter: its query). 0 writes
# it during the request (the tests' default: they read Redis right after a request).
CATALOGUE_SHARE_WRITE_SECONDS = float(env_str("CATALOGUE_SHARE_WRITE_SECONDS", "0.05"))
# The catalogue's time budget (issue 36.1, catalogue/search/budget.py): on PostgreSQL each
# statement of a search, a suggestion or an analysis runs under a statement_timeout of
# this many milliseconds, and the request's reads stop at its deadline (SQLite: the
# deadline only); past either the request is answered 503 query-timeout, not counted,
# and the worker is free. Ordinary reads take 1-40 ms of these; the deadlines stay
# under gunicorn's worker timeout (30 s) and nginx's proxy_read_timeout (60 s), so the
# app, not the proxy, ends a request (and never charges what no client received).
CATALOGUE_BUDGETS = {
    kind: {
        "statement_ms": int(env_str(f"{kind.upper()}_STATEMENT_TIMEOUT_MS", statement)),
        "request_seconds": float(env_str(f"{kind.upper()}_DEADLINE_SECONDS", deadline)),
    }
    for kind, statement, deadline in (
        ("search", "2000", "5"),
        ("suggest", "1000", "2"),
        ("analysis", "2000", "10"),
    )
}
# How PostgreSQL plans the catalogue's prepared statements inside those budgets
# (plan_cache_mode, set with the statement timeout in the same statement): a generic
# plan is made once per connection and statement; PostgreSQL's "auto" planned a new
# search's ranking of the other matches and its counts again at every execution (custom
# plans), ~13 % of a new search's PostgreSQL CPU (bench/RESULTS.md, issue 41.1). "auto"
# puts PostgreSQL's own choice back.
CATALOGUE_PLAN_CACHE_MODE = env_choice(
    "CATALOGUE_PLAN_CACHE_MODE",
    ("force_generic_plan", "auto", "force_custom_plan"),
    "force_generic_plan",
)
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
    "DEFAULT_PARSER_CLASSES": ["foodservice.http.parsers.JSONParser"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "foodservice.http.negotiation.JSONOnlyNegotiation",
    # No OPTIONS metadata: it would describe the views from their internal docstrings.
    # OPTIONS is then a 405 problem like any other unsupported method (/docs describes
    # the API).
    "DEFAULT_METADATA_CLASS": None,
    "EXCEPTION_HANDLER": "foodservice.http.exception_handler.problem_exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "UNAUTHENTICATED_USER": None,
    "UNICODE_JSON": True,
    "COMPACT_JSON": True,
}
# Largest request body the API parses (PUT /v1/market is a few bytes).
API_MAX_BODY_BYTES = 16 * 1024
# POST /v1/analysis's own limit: 100 lines of 200 characters, each character up to a
# 12-byte JSON escape.
API_MAX_ANALYSIS_BODY_BYTES = 256 * 1024
# info.contact and info.license of /openapi.json (issue 14.5); set them in production.
API_CONTACT = {
    "name": env_str("API_CONTACT_NAME", "foodservice API support"),
    "url": env_str("API_CONTACT_URL", f"{BASE_URL}/docs"),
}
if env_str("API_CONTACT_EMAIL"):
    API_CONTACT["email"] = env_str("API_CONTACT_EMAIL")
API_LICENSE = {
    "name": env_str("API_LICENSE_NAME", "Proprietary"),
    "url": env_str("API_LICENSE_URL", f"{BASE_URL}/docs"),
}
SPECTACULAR_SETTINGS = {
    "TITLE": "foodservice API",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # The API reference (issue 6): /openapi.json and /docs need no key; the per-view
    # descriptions live in each app's schema.py, the shared parts in foodservice/openapi/schema.py.
    "SERVE_AUTHENTICATION": [],
    "SCHEMA_PATH_PREFIX": r"/v1",
    "SCHEMA_PATH_PREFIX_TRIM": False,
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "foodservice.openapi.schema.postprocess",
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
# An SMTP server that hangs must not hold the usage flusher (quota alerts) for long.
EMAIL_TIMEOUT = int(env_str("EMAIL_TIMEOUT", "10"))
# Every password sign-in (dashboard and admin) passes the sign-in limit (issue 11.2,
# accounts/signin_limit.py, docs/dashboard.md "Security").
AUTHENTICATION_BACKENDS = ["accounts.backends.LimitedModelBackend"]
SIGNIN_MAX_FAILURES = 10  # wrong passwords per (e-mail address, client) per 15 minutes
SIGNIN_ACCOUNT_CEILING = int(env_str("SIGNIN_ACCOUNT_CEILING", "100"))  # per address
# The client address (sign-in limit, a key's allowed addresses, the audit log) is the
# connection's, unless it comes from one of our reverse proxies: X-Forwarded-For is read
# only from TRUSTED_PROXIES (addresses or CIDR ranges they connect from), peeling at most
# TRUSTED_PROXY_COUNT entries, each only when the one before it names a trusted proxy
# (core/clientaddr.py). Either unset: the header is ignored. A count without
# trusted proxies (a configuration from before TRUSTED_PROXIES) fails the system check
# foodservice.E001 (foodservice/ops/checks.py).
try:
    TRUSTED_PROXIES = parse_networks(env_str("TRUSTED_PROXIES"))
except ValueError as exc:
    raise ImproperlyConfigured(f"TRUSTED_PROXIES: {exc}") from None
TRUSTED_PROXY_COUNT = int(env_str("TRUSTED_PROXY_COUNT", "0"))
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
# people. Both redact anything shaped like an API key (core/logformat.py).
LOG_FORMAT = env_choice("LOG_FORMAT", ("json", "text"), "json")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "json": {"()": "core.logformat.JsonFormatter"},
        "text": {"()": "core.logformat.TextFormatter"},
    },
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": LOG_FORMAT}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {"django.server": {"level": "WARNING"}},
}

# --- Quota alerts and the audit log (issue 16) --------------------------------------------
# The usage flusher checks the accounts it has written for quota alerts at most this
# often (seconds, per worker); 0 leaves the check to `manage.py send_quota_alerts`.
QUOTA_ALERT_CHECK_SECONDS = float(env_str("QUOTA_ALERT_CHECK_SECONDS", "60"))
