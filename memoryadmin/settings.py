"""Settings, all from the environment, with working development defaults.

A bad value fails at start-up with a message naming the variable.
"""

from __future__ import annotations

import copy
import hashlib
import ipaddress
import os
from pathlib import Path
from urllib.parse import urlsplit

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

from memoryadmin.core.environment import env_bool, env_float, env_int, env_list

BASE_DIR = Path(__file__).resolve().parent.parent

# numpy's BLAS (search's vector arithmetic) on one thread per process: its products here are
# small, the server runs several processes, and threads of its own only wait for each other.
# Set before numpy is first imported (the apps import it); an operator's own value wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


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
# Where people reach this server (https://memory.example.com): the privacy links the API and the console
# make are absolute with it. Empty: they are paths, for the caller to join to the address it serves.
PUBLIC_BASE_URL = os.environ.get("PUBLIC_BASE_URL", "").strip().rstrip("/")
if PUBLIC_BASE_URL and not PUBLIC_BASE_URL.startswith(("https://", "http://")):
    raise ImproperlyConfigured(f"PUBLIC_BASE_URL must start with https:// or http://, got {PUBLIC_BASE_URL!r}")

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
    # First, so every request (refusals included) is timed and logged under its X-Request-ID.
    "memoryadmin.api.observability.ObservabilityMiddleware",
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
# Django's backend with a health check that sends nothing while the connection is sound (core/postgresql).
POSTGRESQL_ENGINE = "memoryadmin.core.postgresql"
DATABASES["default"]["ENGINE"] = POSTGRESQL_ENGINE
DATABASES["default"].setdefault("OPTIONS", {})
# No JIT: its compilation (tens to hundreds of milliseconds) starts once a plan's cost passes a
# threshold that a namespace-wide search reaches as the table grows, and no statement here runs
# long enough to win it back.
# pgvector's HNSW scans (where the server has pgvector): a search list as long as search's candidate
# pool, and iterative scans, so filtered searches still fill it. Harmless placeholders elsewhere.
DATABASE_SESSION_SETTINGS = {"jit": "off", "hnsw.ef_search": "100", "hnsw.iterative_scan": "relaxed_order"}
# A transaction pooler (PgBouncer, pool_mode = transaction) hands each transaction whichever server
# connection is free: nothing may outlive a transaction. Connect options are not forwarded, so the
# settings above are made per transaction where they matter (memoryadmin.core.session_settings);
# no statement is prepared (psycopg prepares one after 5 runs, on a connection the next transaction
# may not get); querysets stream in keyset batches instead of server-side cursors, which Django
# keeps open across transactions outside one. CONN_MAX_AGE and DATABASE_POOL stay as they are: a
# client connection to the pooler holds no server connection between transactions.
DATABASE_POOLER = os.environ.get("DATABASE_POOLER", "none").strip().lower() or "none"
if DATABASE_POOLER not in {"none", "transaction"}:
    raise ImproperlyConfigured(f"DATABASE_POOLER must be none or transaction, got {DATABASE_POOLER!r}")
if DATABASE_POOLER == "transaction":
    DATABASES["default"]["OPTIONS"]["prepare_threshold"] = None
    DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] = True
else:
    DATABASES["default"]["OPTIONS"].setdefault(
        "options", " ".join(f"-c {name}={value}" for name, value in DATABASE_SESSION_SETTINGS.items())
    )
DATABASES["default"]["OPTIONS"].setdefault("connect_timeout", env_int("DATABASE_CONNECT_TIMEOUT", 5, minimum=1))
# The web process serves ASGI, where each request's synchronous code runs in a thread of its own:
# persistent connections would pile up, one per thread (Django's docs say to disable them under
# ASGI). There the connections come from a pool of DATABASE_POOL_SIZE per process instead; the
# Procfile's web line sets DATABASE_POOL. Workers and commands keep one persistent connection.
if env_bool("DATABASE_POOL", False):
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"]["OPTIONS"]["pool"] = {"min_size": 1, "max_size": env_int("DATABASE_POOL_SIZE", 8, minimum=1)}

# --- Read replicas ---------------------------------------------------------------------------------
# DATABASE_REPLICA_URLS: streaming replicas of the primary, comma-separated; each is a database alias
# (replica1, replica2, ...) with the primary's options. Only reads that tolerate lag go there (search,
# lists, console pages, exports, the dashboard: memoryadmin.core.replicas), and never a caller's read
# before the replica has replayed that caller's last write. Empty: every read is on the primary.
DATABASE_REPLICA_URLS = env_list("DATABASE_REPLICA_URLS", [])
DATABASE_REPLICAS: list[str] = []
for _number, _url in enumerate(DATABASE_REPLICA_URLS, start=1):
    try:
        _replica = dj_database_url.parse(_url, conn_max_age=60, conn_health_checks=True)
    except ValueError as exc:
        raise ImproperlyConfigured(f"DATABASE_REPLICA_URLS has an invalid URL (#{_number}): {exc}") from None
    if _replica["ENGINE"] != "django.db.backends.postgresql":
        raise ImproperlyConfigured("DATABASE_REPLICA_URLS must point at PostgreSQL (postgres://...)")
    _replica["ENGINE"] = POSTGRESQL_ENGINE
    _replica["CONN_MAX_AGE"] = DATABASES["default"]["CONN_MAX_AGE"]
    _replica["OPTIONS"] = copy.deepcopy(DATABASES["default"]["OPTIONS"])
    # The test runner creates no database on a replica (it is read-only): a test database's alias
    # keeps the replica's host and port and takes the test database's name, which replication brings.
    _replica["TEST"] = {"MIRROR": "default"}
    DATABASES[f"replica{_number}"] = _replica
    DATABASE_REPLICAS.append(f"replica{_number}")
# A replica further behind than this is skipped until it catches up.
DATABASE_REPLICA_MAX_LAG_SECONDS = env_float("DATABASE_REPLICA_MAX_LAG_SECONDS", 10.0, minimum=0.0)
# How long a caller's write keeps its reads off a replica that has not replayed it. At least the
# maximum lag, so that a replica used afterwards has replayed the write.
DATABASE_REPLICA_READ_YOUR_WRITES_SECONDS = env_float(
    "DATABASE_REPLICA_READ_YOUR_WRITES_SECONDS", max(30.0, 2 * DATABASE_REPLICA_MAX_LAG_SECONDS), minimum=1.0
)
if DATABASE_REPLICA_READ_YOUR_WRITES_SECONDS < DATABASE_REPLICA_MAX_LAG_SECONDS:
    raise ImproperlyConfigured(
        "DATABASE_REPLICA_READ_YOUR_WRITES_SECONDS must be at least DATABASE_REPLICA_MAX_LAG_SECONDS"
    )
# A replica's position and lag are asked again after this long (per process).
DATABASE_REPLICA_CHECK_SECONDS = env_float("DATABASE_REPLICA_CHECK_SECONDS", 1.0, minimum=0.0)
# A replica that could not be reached is not tried again before this long (per process).
DATABASE_REPLICA_RETRY_SECONDS = env_float("DATABASE_REPLICA_RETRY_SECONDS", 10.0, minimum=0.0)
if DATABASE_REPLICAS:
    DATABASE_ROUTERS = ["memoryadmin.core.replicas.ReplicaRouter"]
    MIDDLEWARE.insert(0, "memoryadmin.core.replicas.ReadYourWritesMiddleware")
# --- end of read replicas --------------------------------------------------------------------------

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
if not REDIS_URL.startswith(("redis://", "rediss://", "unix://")):
    raise ImproperlyConfigured(f"REDIS_URL must be a redis:// URL, got {REDIS_URL!r}")
REDIS_TIMEOUT_SECONDS = env_float("REDIS_TIMEOUT_SECONDS", 1.0, minimum=0.05)
# Redis with failover: the sentinels that name the master (memoryadmin.core.redis_client). REDIS_URL
# then gives only the database number and the master's credentials.
REDIS_SENTINEL_MASTER = os.environ.get("REDIS_SENTINEL_MASTER", "").strip()
REDIS_SENTINEL_PASSWORD = os.environ.get("REDIS_SENTINEL_PASSWORD", "")
REDIS_SENTINELS: list[tuple[str, int]] = []
for _address in env_list("REDIS_SENTINELS", []):
    _host, _, _port = _address.rpartition(":")
    if not _host or not _port.isdigit():
        raise ImproperlyConfigured(f"REDIS_SENTINELS takes host:port pairs separated by commas, got {_address!r}")
    REDIS_SENTINELS.append((_host.strip("[]"), int(_port)))
if REDIS_SENTINELS and not REDIS_SENTINEL_MASTER:
    raise ImproperlyConfigured("REDIS_SENTINELS needs REDIS_SENTINEL_MASTER, the name the sentinels monitor")

CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL") or REDIS_URL
# A countdown longer than this would be redelivered early by the Redis broker.
CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, object] = {"visibility_timeout": 3600}
if REDIS_SENTINELS and not os.environ.get("CELERY_BROKER_URL"):
    # kombu's sentinel transport: the same master and database, found the same way.
    _redis = urlsplit(REDIS_URL)
    _auth = f"{_redis.username or ''}:{_redis.password}@" if _redis.password else ""
    _db = _redis.path.strip("/") or "0"
    CELERY_BROKER_URL = ";".join(f"sentinel://{_auth}{host}:{port}/{_db}" for host, port in REDIS_SENTINELS)
    CELERY_BROKER_TRANSPORT_OPTIONS["master_name"] = REDIS_SENTINEL_MASTER
    if REDIS_SENTINEL_PASSWORD:
        CELERY_BROKER_TRANSPORT_OPTIONS["sentinel_kwargs"] = {"password": REDIS_SENTINEL_PASSWORD}
CELERY_RESULT_BACKEND = None
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_RESULT_SERIALIZER = "json"
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TIMEZONE = "UTC"
# Workers and beat log through LOGGING below, as the web does: the same format (LOG_FORMAT) and each
# task's line carries the request id of what queued it (memoryadmin.core.request_ids).
CELERY_WORKER_HIJACK_ROOT_LOGGER = False

EXTRACTION_DEBOUNCE_SECONDS = env_float("EXTRACTION_DEBOUNCE_SECONDS", 5.0, minimum=0.0)
# A running run renews its lease every third of this; beat takes over a run whose lease ran out.
EXTRACTION_LEASE_SECONDS = env_float("EXTRACTION_LEASE_SECONDS", 60.0, minimum=1.0)
# How often beat looks for runs whose worker died and for messages no schedule will reach.
EXTRACTION_RECOVERY_SECONDS = env_int("EXTRACTION_RECOVERY_SECONDS", 60, minimum=1)
# A session whose run failed (model down, bad config) is tried again by beat after this long.
EXTRACTION_RETRY_SECONDS = env_int("EXTRACTION_RETRY_SECONDS", 900, minimum=1)
# At most this many sessions are scheduled by one recovery tick.
EXTRACTION_RECOVERY_BATCH = env_int("EXTRACTION_RECOVERY_BATCH", 500, minimum=1)

# Each periodic task is sent once per period however many beats run (memoryadmin.beat).
CELERY_BEAT_SCHEDULER = "memoryadmin.beat:SingleRunScheduler"
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

# Log lines: "plain" text or "json" (one object per line, for a log pipeline); each carries the
# request id of the request or task it belongs to (memoryadmin.core.request_ids).
LOG_FORMAT = os.environ.get("LOG_FORMAT", "plain").strip().lower()
if LOG_FORMAT not in ("plain", "json"):
    raise ImproperlyConfigured(f"LOG_FORMAT must be plain or json, got {LOG_FORMAT!r}")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"},
        "json": {"()": "memoryadmin.core.request_ids.JsonFormatter"},
    },
    # Privacy links are bearer tokens in URL paths: no handler ever writes one.
    "filters": {
        "privacy_links": {"()": "memoryadmin.privacy.log_filters.RedactPrivacyLinks"},
        "request_id": {"()": "memoryadmin.core.request_ids.RequestIdFilter"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": LOG_FORMAT,
            "filters": ["privacy_links", "request_id"],
        }
    },
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    # On the loggers that write request paths too, so the handlers Django sets up itself (its
    # development console) never see a link either.
    "loggers": {
        # Configured here, Django's own logger drops the handlers Django gives it (a second console under
        # DEBUG, mail to admins) and reaches the root's one: each record is written once.
        "django": {"level": "INFO"},
        "django.db.backends": {"level": "WARNING"},
        "django.request": {"filters": ["privacy_links"]},
        "django.server": {"filters": ["privacy_links"]},
    },
}

# GET /metrics (Prometheus): open to this bearer token, or without one to these networks' addresses.
METRICS_TOKEN = os.environ.get("METRICS_TOKEN", "")
try:
    METRICS_ALLOWED_NETWORKS = [
        ipaddress.ip_network(network, strict=False)
        for network in env_list("METRICS_ALLOWED_NETWORKS", ["127.0.0.0/8", "::1/128"])
    ]
except ValueError as exc:
    raise ImproperlyConfigured(f"METRICS_ALLOWED_NETWORKS: {exc}") from exc

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
# Each process keeps the vectors of the people it searched recently, up to this many megabytes
# (memories/search/people.py): a person of 5,000 memories takes 1.4 MB. One not searched for the
# idle seconds is let go.
SEARCH_PEOPLE_CACHE_MB = env_int("SEARCH_PEOPLE_CACHE_MB", 64)
SEARCH_PEOPLE_CACHE_IDLE_SECONDS = env_float("SEARCH_PEOPLE_CACHE_IDLE_SECONDS", 300.0)
