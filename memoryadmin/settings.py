"""Settings, all from the environment, with working development defaults.

A bad value fails at start-up with a message naming the variable.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

BASE_DIR = Path(__file__).resolve().parent.parent

# numpy's BLAS (search's vector arithmetic) on one thread per process: its products here are
# small, the server runs several processes, and threads of its own only wait for each other.
# Set before numpy is first imported (the apps import it); an operator's own value wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    value = raw.strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (true/false), got {raw!r}")


def env_int(name: str, default: int, *, minimum: int = 0) -> int:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer, got {raw!r}") from None
    if value < minimum:
        raise ImproperlyConfigured(f"{name} must be >= {minimum}, got {value}")
    return value


def env_float(name: str, default: float, *, minimum: float = 0.0) -> float:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a number, got {raw!r}") from None
    if value < minimum:
        raise ImproperlyConfigured(f"{name} must be >= {minimum}, got {value}")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


DEBUG = env_bool("DEBUG", True)

SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY is required when DEBUG is off")
    SECRET_KEY = "dev-insecure-" + "memoryadmin-development-secret-key-not-for-production"

# Fingerprints of memory text are HMACs under this key; derived from SECRET_KEY
# when unset so a development setup needs nothing.
TOMBSTONE_KEY = os.environ.get("TOMBSTONE_KEY") or hashlib.sha256(("tombstone:" + SECRET_KEY).encode()).hexdigest()

# The audit trail's digests are HMACs under this key, so nobody who can only write the database
# can forge a chain that verifies. Derived from SECRET_KEY when unset; keep it: events digested
# under another key no longer verify.
AUDIT_CHAIN_KEY = (
    os.environ.get("AUDIT_CHAIN_KEY") or hashlib.sha256(("audit-chain:" + SECRET_KEY).encode()).hexdigest()
)
# Signed checkpoints of every chain's head go here (somewhere the database cannot write: another
# volume, a write-once bucket); beat writes one every AUDIT_CHECKPOINT_SECONDS. Empty: none.
AUDIT_CHECKPOINT_DIR = os.environ.get("AUDIT_CHECKPOINT_DIR", "")
AUDIT_CHECKPOINT_SECONDS = env_int("AUDIT_CHECKPOINT_SECONDS", 3600, minimum=10)

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "django_htmx",
    # For its templates and static files: the API docs page is Swagger UI served from our own origin.
    "ninja",
    "memoryadmin.tenancy",
    "memoryadmin.audit",
    "memoryadmin.conversations",
    "memoryadmin.memories",
    "memoryadmin.extraction",
    "memoryadmin.governance",
    "memoryadmin.webhooks",
    "memoryadmin.api",
    "memoryadmin.mcp",
    "memoryadmin.console",
    "memoryadmin.privacy",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "memoryadmin.api.middleware.ApiGuardMiddleware",
    "memoryadmin.api.access_log.AccessLogMiddleware",
    "memoryadmin.api.ratelimit.RateLimitMiddleware",
    "memoryadmin.api.middleware.BrowserMiddleware",
]

# The browser pages' middleware (console, privacy page): BrowserMiddleware runs it for
# every request outside /api/, which authenticates by key and never uses a session.
BROWSER_MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "memoryadmin.console.login_throttle.LoginThrottleMiddleware",
    "memoryadmin.console.middleware.NoStoreMiddleware",
    "memoryadmin.console.middleware.NotFoundMiddleware",
]

ROOT_URLCONF = "memoryadmin.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.csp",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

WSGI_APPLICATION = "memoryadmin.wsgi.application"
# Threads per web process (memoryadmin.asgi) that run Django's requests and the MCP tools.
WEB_THREADS = env_int("WEB_THREADS", 4, minimum=1)

DATABASE_URL = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/memoryadmin")
try:
    DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=60, conn_health_checks=True)}
except ValueError as exc:
    raise ImproperlyConfigured(f"DATABASE_URL is not a valid database URL: {exc}") from None
if DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
    raise ImproperlyConfigured("DATABASE_URL must point at PostgreSQL (postgres://...)")
DATABASES["default"].setdefault("OPTIONS", {})
# No JIT: its compilation (tens to hundreds of milliseconds) starts once a plan's cost passes a
# threshold that a namespace-wide search reaches as the table grows, and no statement here runs
# long enough to win it back.
# pgvector's HNSW scans (where the server has pgvector): a search list as long as search's candidate
# pool, and iterative scans, so filtered searches still fill it. Harmless placeholders elsewhere.
DATABASES["default"]["OPTIONS"].setdefault(
    "options", "-c jit=off -c hnsw.ef_search=100 -c hnsw.iterative_scan=relaxed_order"
)
DATABASES["default"]["OPTIONS"].setdefault("connect_timeout", env_int("DATABASE_CONNECT_TIMEOUT", 5, minimum=1))
# The web process serves ASGI, where each request's synchronous code runs in a thread of its own:
# persistent connections would pile up, one per thread (Django's docs say to disable them under
# ASGI). There the connections come from a pool of DATABASE_POOL_SIZE per process instead; the
# Procfile's web line sets DATABASE_POOL. Workers and commands keep one persistent connection.
if env_bool("DATABASE_POOL", False):
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"]["OPTIONS"]["pool"] = {"min_size": 1, "max_size": env_int("DATABASE_POOL_SIZE", 8, minimum=1)}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
if not REDIS_URL.startswith(("redis://", "rediss://", "unix://")):
    raise ImproperlyConfigured(f"REDIS_URL must be a redis:// URL, got {REDIS_URL!r}")
REDIS_TIMEOUT_SECONDS = env_float("REDIS_TIMEOUT_SECONDS", 1.0, minimum=0.05)

CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL") or REDIS_URL
CELERY_RESULT_BACKEND = None
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_RESULT_SERIALIZER = "json"
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A countdown longer than this would be redelivered early by the Redis broker.
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3600}
CELERY_TIMEZONE = "UTC"

EXTRACTION_DEBOUNCE_SECONDS = env_float("EXTRACTION_DEBOUNCE_SECONDS", 5.0, minimum=0.0)
# A running run renews its lease every third of this; beat takes over a run whose lease ran out.
EXTRACTION_LEASE_SECONDS = env_float("EXTRACTION_LEASE_SECONDS", 60.0, minimum=1.0)
# How often beat looks for runs whose worker died and for messages no schedule will reach.
EXTRACTION_RECOVERY_SECONDS = env_int("EXTRACTION_RECOVERY_SECONDS", 60, minimum=1)
# A session whose run failed (model down, bad config) is tried again by beat after this long.
EXTRACTION_RETRY_SECONDS = env_int("EXTRACTION_RETRY_SECONDS", 900, minimum=1)
# At most this many sessions are scheduled by one recovery tick.
EXTRACTION_RECOVERY_BATCH = env_int("EXTRACTION_RECOVERY_BATCH", 500, minimum=1)

# Every periodic schedule lives here.
CELERY_BEAT_SCHEDULE: dict[str, dict] = {
    "forgetting-policies": {
        "task": "memoryadmin.governance.tasks.run_due_forgetting_policies",
        "schedule": env_int("FORGETTING_CHECK_SECONDS", 3600, minimum=10),
    },
    "lost-erasures": {
        "task": "memoryadmin.governance.tasks.requeue_lost_erasures",
        "schedule": env_int("ERASURE_REQUEUE_SECONDS", 600, minimum=10),
    },
    "extraction-recovery": {
        "task": "memoryadmin.extraction.tasks.recover_extraction",
        "schedule": EXTRACTION_RECOVERY_SECONDS,
        # A tick that waited for a busy worker longer than the interval is dropped: the next one comes soon.
        "options": {"expires": EXTRACTION_RECOVERY_SECONDS},
    },
}
# Webhooks (docs/webhooks.md): signed events from the transactional outbox.
# Receivers on private, loopback or link-local addresses are refused unless allowed here: all of them,
# or the networks listed (CIDRs, comma-separated).
WEBHOOK_ALLOW_PRIVATE_URLS = env_bool("WEBHOOK_ALLOW_PRIVATE_URLS", False)
WEBHOOK_ALLOWED_NETWORKS = env_list("WEBHOOK_ALLOWED_NETWORKS", [])
WEBHOOK_TIMEOUT_SECONDS = env_float("WEBHOOK_TIMEOUT_SECONDS", 10.0, minimum=0.1)
# A worker's claim on the rows it sends; a worker that died leaves them to others after this long.
WEBHOOK_LEASE_SECONDS = env_float("WEBHOOK_LEASE_SECONDS", 120.0, minimum=1.0)
# Retries: exponential from the base, capped, with jitter, for this long after the event; then given up
# and the endpoint marked failing.
WEBHOOK_RETRY_BASE_SECONDS = env_float("WEBHOOK_RETRY_BASE_SECONDS", 5.0, minimum=0.01)
WEBHOOK_RETRY_MAX_SECONDS = env_float("WEBHOOK_RETRY_MAX_SECONDS", 3600.0, minimum=0.01)
WEBHOOK_RETRY_FOR_SECONDS = env_float("WEBHOOK_RETRY_FOR_SECONDS", 24 * 3600.0, minimum=0.0)
WEBHOOK_MAX_BODY_BYTES = env_int("WEBHOOK_MAX_BODY_BYTES", 64 * 1024, minimum=1024)
WEBHOOK_NUDGE_TTL_SECONDS = env_int("WEBHOOK_NUDGE_TTL_SECONDS", 10, minimum=1)
# A commit's delivery task starts this much later, with every commit of that moment.
WEBHOOK_NUDGE_DELAY_SECONDS = env_float("WEBHOOK_NUDGE_DELAY_SECONDS", 0.25, minimum=0.0)
CELERY_BEAT_SCHEDULE["webhook-sweep"] = {
    "task": "memoryadmin.webhooks.tasks.sweep_deliveries",
    "schedule": env_int("WEBHOOK_SWEEP_SECONDS", 30, minimum=1),
    "options": {"expires": env_int("WEBHOOK_SWEEP_SECONDS", 30, minimum=1)},
}

if AUDIT_CHECKPOINT_DIR:
    CELERY_BEAT_SCHEDULE["audit-checkpoint"] = {
        "task": "memoryadmin.audit.tasks.write_audit_checkpoint",
        "schedule": AUDIT_CHECKPOINT_SECONDS,
    }

LLM_BASE_URL = os.environ.get("LLM_BASE_URL", "")
LLM_API_KEY = os.environ.get("LLM_API_KEY", "")
LLM_MODEL = os.environ.get("LLM_MODEL", "gpt-4o-mini")
LLM_TIMEOUT_SECONDS = env_float("LLM_TIMEOUT_SECONDS", 30.0, minimum=0.1)
LLM_MAX_RETRIES = env_int("LLM_MAX_RETRIES", 2)

# Limits of the API contract.
MAX_REQUEST_BYTES = env_int("MAX_REQUEST_BYTES", 1024 * 1024, minimum=1024)
MAX_MESSAGE_CONTENT_BYTES = env_int("MAX_MESSAGE_CONTENT_BYTES", 64 * 1024, minimum=1)
MAX_MEMORY_TEXT_BYTES = env_int("MAX_MEMORY_TEXT_BYTES", 4 * 1024, minimum=1)
MAX_MESSAGES_PER_APPEND = env_int("MAX_MESSAGES_PER_APPEND", 100, minimum=1)
MAX_SNAPSHOT_UPLOAD_BYTES = env_int("MAX_SNAPSHOT_UPLOAD_BYTES", 256 * 1024 * 1024, minimum=1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = MAX_REQUEST_BYTES
# The request's head, answered 414 / 431 with the API's error body. The web worker's own limit
# (memoryadmin.web_worker: 64 KiB for the whole head) is above these, so Django answers first.
# The target holds every query parameter the schema allows at its longest (a 2,000-character
# context query, percent-encoded UTF-8), so no request the schema allows meets the 414.
MAX_REQUEST_LINE_BYTES = env_int("MAX_REQUEST_LINE_BYTES", 32 * 1024, minimum=256)
MAX_HEADER_BYTES = env_int("MAX_HEADER_BYTES", 8 * 1024, minimum=256)
MAX_HEADERS_BYTES = env_int("MAX_HEADERS_BYTES", 32 * 1024, minimum=1024)

DEFAULT_WORKING_MEMORY_TTL_SECONDS = env_int("DEFAULT_WORKING_MEMORY_TTL_SECONDS", 3600, minimum=1)
NEAR_DUPLICATE_THRESHOLD = env_float("NEAR_DUPLICATE_THRESHOLD", 0.8, minimum=0.0)
API_RATE_LIMIT_PER_MINUTE = env_int("API_RATE_LIMIT_PER_MINUTE", 6000)
# Unknown or revoked API keys one client address may present a minute before its keyed requests
# are refused outright (0: no such limit).
API_UNKNOWN_KEY_LIMIT_PER_MINUTE = env_int("API_UNKNOWN_KEY_LIMIT_PER_MINUTE", 30)
# Console sign-in: failures allowed per address and username, per address, and the lockout window.
LOGIN_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5, minimum=1)
LOGIN_FAILURE_LIMIT_PER_IP = env_int("LOGIN_FAILURE_LIMIT_PER_IP", 50, minimum=1)
LOGIN_LOCKOUT_SECONDS = env_int("LOGIN_LOCKOUT_SECONDS", 900, minimum=1)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 8}},
]
LOGIN_URL = "/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/login/"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
# The app serves its own static files (WhiteNoise) when no proxy does. In production they are
# collected first (`manage.py collectstatic`, DEBUG off) into STATIC_ROOT, with hashed names and
# gzip copies, and cached for good. In development WhiteNoise serves the source folders as they
# change, and there is nothing to collect.
STATIC_ROOT = os.environ.get("STATIC_ROOT") or (None if DEBUG else BASE_DIR / "var" / "static")
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}
WHITENOISE_USE_FINDERS = DEBUG
WHITENOISE_AUTOREFRESH = DEBUG

SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:"],
    "connect-src": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
    "form-action": [CSP.SELF],
    "base-uri": [CSP.NONE],
    "object-src": [CSP.NONE],
}
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SECURE = not DEBUG
CSRF_COOKIE_SECURE = not DEBUG
CSRF_FAILURE_VIEW = "memoryadmin.console.error_views.csrf_failure"
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not DEBUG)
# A load balancer's or container's health probe speaks plain HTTP to the process itself.
SECURE_REDIRECT_EXEMPT = [r"^api/v1/health$"]
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0 if DEBUG else 31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = not DEBUG
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if env_bool("BEHIND_PROXY", False) else None

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    # Privacy links are bearer tokens in URL paths: no handler ever writes one.
    "filters": {"privacy_links": {"()": "memoryadmin.privacy.log_filters.RedactPrivacyLinks"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain", "filters": ["privacy_links"]}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    # On the loggers that write request paths too, so the handlers Django sets up itself (its
    # development console) never see a link either.
    "loggers": {
        "django.db.backends": {"level": "WARNING"},
        "django.request": {"filters": ["privacy_links"]},
        "django.server": {"filters": ["privacy_links"]},
    },
}

# Embeddings for search (see memoryadmin/memories/embeddings.py and docs/search.md).
EMBEDDER = os.environ.get("EMBEDDER", "wordllama").strip().lower()
if EMBEDDER not in ("wordllama", "openai"):
    raise ImproperlyConfigured(f"EMBEDDER must be wordllama or openai, got {EMBEDDER!r}")
EMBEDDING_BASE_URL = os.environ.get("EMBEDDING_BASE_URL", "")
EMBEDDING_API_KEY = os.environ.get("EMBEDDING_API_KEY", "")
EMBEDDING_MODEL = os.environ.get("EMBEDDING_MODEL", "text-embedding-3-small")
EMBEDDING_DIMENSIONS = env_int("EMBEDDING_DIMENSIONS", 0)
EMBEDDING_TIMEOUT_SECONDS = env_float("EMBEDDING_TIMEOUT_SECONDS", 10.0, minimum=0.1)
EMBEDDING_MAX_RETRIES = env_int("EMBEDDING_MAX_RETRIES", 2)
EMBEDDING_BATCH_SIZE = env_int("EMBEDDING_BATCH_SIZE", 64, minimum=1)
if EMBEDDER == "openai" and not EMBEDDING_BASE_URL:
    raise ImproperlyConfigured("EMBEDDER=openai needs EMBEDDING_BASE_URL (an OpenAI-compatible /v1 endpoint)")
# A memory that shares no word with the query is a search result only this similar (cosine).
SEARCH_MIN_SIMILARITY = env_float("SEARCH_MIN_SIMILARITY", 0.3, minimum=-1.0)
