"""citeview's settings: everything that differs between machines comes from the environment.

The defaults run a fresh checkout locally on SQLite. A deployment sets at least ``DEBUG=false``,
``SECRET_KEY`` and ``ALLOWED_HOSTS``.
"""

from __future__ import annotations

import os
from ipaddress import IPv4Network, IPv6Network, ip_network
from pathlib import Path
from typing import Any

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

BASE_DIR = Path(__file__).resolve().parent.parent


def env_str(name: str, default: str) -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    if value.lower() in ("true", "1", "yes", "on"):
        return True
    if value.lower() in ("false", "0", "no", "off"):
        return False
    raise ImproperlyConfigured(f"{name} must be true or false, not {value!r}")


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    if value is None:
        return default
    try:
        return int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number, not {value!r}") from None


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in env_str(name, default).split(",") if item.strip()]


def env_networks(name: str, default: str) -> list[IPv4Network | IPv6Network]:
    """Comma-separated addresses (a network of one) and networks such as 10.0.0.0/8."""
    networks = []
    for item in env_list(name, default):
        try:
            networks.append(ip_network(item))
        except ValueError as error:
            raise ImproperlyConfigured(
                f"{name} must list IP addresses or networks (such as 10.0.0.0/8), not {item!r}: {error}"
            ) from None
    return networks


def env_networks_with_ports(name: str, default: str) -> list[tuple[IPv4Network | IPv6Network, int | None]]:
    """Comma-separated networks as ``env_networks`` reads them, each on any port (``10.1.0.0/16``) or
    on one (``10.1.0.0/16:8080``, ``[fd00::/8]:443``, ``[fd00::1]:8443``): (network, port or None)."""
    entries = []
    for item in env_list(name, default):
        network, port = item, None
        if item.startswith("["):  # an IPv6 network in brackets, a port perhaps after them
            network, _, rest = item[1:].partition("]")
            if rest:
                port = _port_of(name, item, rest[1:] if rest.startswith(":") else "")
        elif item.count(":") == 1:  # IPv4 with a port (a bare IPv6 network has several colons)
            network, _, number = item.partition(":")
            port = _port_of(name, item, number)
        try:
            entries.append((ip_network(network), port))
        except ValueError as error:
            raise ImproperlyConfigured(
                f"{name} must list IP addresses or networks, each perhaps with a port (10.0.0.0/8, "
                f"10.0.0.0/8:8080, [fd00::/8]:443), not {item!r}: {error}"
            ) from None
    return entries


def _port_of(name: str, item: str, number: str) -> int:
    if number.isascii() and number.isdigit() and 1 <= int(number) <= 65535:
        return int(number)
    raise ImproperlyConfigured(f"{name}: {item!r} names no port from 1 to 65535 after its network")


def env_positive_int(name: str, default: int) -> int:
    value = env_int(name, default)
    if value < 1:
        raise ImproperlyConfigured(f"{name} must be at least 1, not {value}")
    return value


DEBUG = env_bool("DEBUG", True)
_DEV_SECRET_KEY = "insecure-local-development-key-never-used-with-debug-off"
SECRET_KEY = env_str("SECRET_KEY", _DEV_SECRET_KEY if DEBUG else "")
if not SECRET_KEY:
    raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,[::1]")

# The largest dump citeview accepts, in bytes. Enforced by citeview itself on every way in; the web
# server in front should allow request bodies at least this large.
CITEVIEW_MAX_DUMP_BYTES = env_int("CITEVIEW_MAX_DUMP_BYTES", 10 * 1024 * 1024)
# A bulk import (a .zip of dumps or JSON Lines of responses); each dump in it is held to the limit above.
CITEVIEW_MAX_IMPORT_BYTES = env_int("CITEVIEW_MAX_IMPORT_BYTES", 100 * 1024 * 1024)
# The dumps one import may hold (its .zip may list twice as many entries, for folders and the like).
CITEVIEW_MAX_IMPORT_ENTRIES = env_int("CITEVIEW_MAX_IMPORT_ENTRIES", 10_000)
# What one .zip's files may unpack to in all: as much as the largest JSON Lines file holds. Storing is
# the cost: 100 MB of dumps took about 30 s to a minute and 260 to 530 MB of database here
# (docs/settings.md, CITEVIEW_MAX_IMPORT_UNPACKED_BYTES).
CITEVIEW_MAX_IMPORT_UNPACKED_BYTES = env_int("CITEVIEW_MAX_IMPORT_UNPACKED_BYTES", 100 * 1024 * 1024)
# What one dump may cost a page, whatever it holds (a dump of nothing but markers would otherwise make
# pages and checks by the hundred thousand). Reaching either is shown where it applies.
# Footnotes drawn per answer (each source of a footnote and each unresolved marker counts); the rest of
# the answer is shown as written. Answers are rendered when stored: a change makes every stored one out
# of date, rebuilt by `manage.py refresh_dumps` or when first viewed (citeview/dumps/derived.py).
CITEVIEW_MAX_CITATIONS_DRAWN = env_int("CITEVIEW_MAX_CITATIONS_DRAWN", 5_000)
# Items an editor can check in one dump (its first ones, in reading order).
CITEVIEW_MAX_ITEMS_PER_DUMP = env_int("CITEVIEW_MAX_ITEMS_PER_DUMP", 5_000)
# How many editors check each item of a new dump independently, blind to each other's verdicts (1 or
# 2): two is the workflow citeview is for. Each dump's page can change it for that dump.
CITEVIEW_CHECKS_PER_ITEM = env_int("CITEVIEW_CHECKS_PER_ITEM", 2)
if CITEVIEW_CHECKS_PER_ITEM not in (1, 2):
    raise ImproperlyConfigured("CITEVIEW_CHECKS_PER_ITEM must be 1 or 2")
# Form posts carry the pasted dump as a field. Up to twice the limit is read so that an oversized
# paste can be refused with the paste kept in the box; beyond that the body is refused unread.
DATA_UPLOAD_MAX_MEMORY_SIZE = 2 * CITEVIEW_MAX_DUMP_BYTES + 64 * 1024

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_tasks_db",
    "citeview.accounts",
    "citeview.dumps",
    "citeview.snapshots",
    "citeview.review",
    "citeview.pages",
    "citeview.webhooks",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",  # static files from the app itself, behind any proxy
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "citeview.api.auth.BearerTokenMiddleware",  # an API token stands in for the session
    "django.contrib.auth.middleware.LoginRequiredMiddleware",
    "citeview.dumps.middleware.DumpSizeLimitMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "citeview.urls"
CSRF_FAILURE_VIEW = "citeview.api.views.csrf_failure"
WSGI_APPLICATION = "citeview.wsgi.application"

TEMPLATES: list[dict[str, Any]] = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "citeview.review.context_processors.settle_link",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(env_str("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}"), conn_max_age=60)
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Writers wait for each other instead of failing with "database is locked".
    DATABASES["default"]["OPTIONS"] = {"transaction_mode": "IMMEDIATE", "timeout": 20}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "pages:home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = env_str("LANGUAGE_CODE", "en")
LANGUAGES = [("en", "English"), ("ja", "日本語")]
LOCALE_PATHS = [BASE_DIR / "locale"]  # compiled by `manage.py compile_translations` in make run/test
TIME_ZONE = env_str("TIME_ZONE", "Asia/Tokyo")  # most editors read times in Japan; shown with the zone
USE_I18N = True
USE_TZ = True
# Dates and times as every page writes them, per language: 2026/12/01 15:21 JST, 2026-12-01 15:21 JST.
FORMAT_MODULE_PATH = ["citeview.formats"]

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
# Where `collectstatic` puts the files WhiteNoise serves in production; development serves them
# straight from static/ (WhiteNoise then finds them itself).
STATIC_ROOT = None if DEBUG else env_str("STATIC_ROOT", str(BASE_DIR / "var" / "static"))
WHITENOISE_USE_FINDERS = DEBUG
# In production, files carry a hash of their content in their names (cached for a year, never
# stale); `manage.py collectstatic` writes them. Development serves the files as they are.
STORAGES: dict[str, dict[str, Any]] = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

# The bytes of dumps and of what is attached to them ("blobs", each named by its SHA-256:
# citeview/dumps/blobs.py): a folder by default, or an S3-compatible bucket when BLOB_S3_BUCKET is set.
# The database names them; a backup is the database and this folder or bucket (docs/deploying.md, Backups).
BLOB_ROOT = env_str("BLOB_ROOT", str(BASE_DIR / "var" / "blobs"))
# Each blob is on disk (fsync) before a row names it, so a power cut cannot lose stored bytes.
BLOB_FSYNC = env_bool("BLOB_FSYNC", True)
# Files written (blobs, collected static files) get the mode the process's umask allows, not Django's
# default of 0o644, which made every dump's bytes world-readable whatever the umask.
FILE_UPLOAD_PERMISSIONS = None
BLOB_S3_BUCKET = env_str("BLOB_S3_BUCKET", "")


def blob_bucket_options(bucket: str) -> dict[str, object]:
    """django-storages' S3Storage for the blobs: every key under BLOB_S3_PREFIX, a blob stored again
    replacing itself (its name is its content), and the memory an upload or a read holds bounded."""
    from boto3.s3.transfer import TransferConfig

    mib = 1024 * 1024
    transfer = TransferConfig(multipart_chunksize=8 * mib, max_concurrency=2)
    transfer.max_in_memory_upload_chunks = 2  # what an upload reads ahead: 16 MiB, not 80
    return {
        "bucket_name": bucket,
        "location": env_str("BLOB_S3_PREFIX", "blobs"),
        "endpoint_url": env_str("BLOB_S3_ENDPOINT_URL", "") or None,  # empty: AWS itself
        "region_name": env_str("BLOB_S3_REGION", "") or None,
        # Empty: boto3 finds credentials itself (AWS_ACCESS_KEY_ID, ~/.aws, an instance's role).
        "access_key": env_str("BLOB_S3_ACCESS_KEY_ID", "") or None,
        "secret_key": env_str("BLOB_S3_SECRET_ACCESS_KEY", "") or None,
        "addressing_style": env_str("BLOB_S3_ADDRESSING_STYLE", "") or None,  # "path" for most servers but AWS
        "file_overwrite": True,
        "default_acl": None,  # the bucket's own policy; blobs are never served from it
        "querystring_auth": True,
        "max_memory_size": 4 * mib,  # a larger blob being read waits on disk, not in memory
        "transfer_config": transfer,
    }


STORAGES["blobs"] = (
    {"BACKEND": "storages.backends.s3.S3Storage", "OPTIONS": blob_bucket_options(BLOB_S3_BUCKET)}
    if BLOB_S3_BUCKET
    else {"BACKEND": "citeview.dumps.blobs.BlobFolderStorage", "OPTIONS": {"location": BLOB_ROOT, "fsync": BLOB_FSYNC}}
)

# Slow work leaves the request (docs/deploying.md, "Slow work and workers"): Django's tasks in the
# database, run by `manage.py worker`: django-tasks-db's db_worker, which first re-queues the work a
# dead worker left.
# Three queues, so that a deployment can give slow network work workers of its own: `default` (reading,
# importing, rebuilding dumps), `snapshots` (citeview.snapshots.tasks.SNAPSHOT_QUEUE: fetching a
# cited page, up to 20 s on the network, and reading one fetched, uploaded or pasted) and `webhooks`
# (citeview.webhooks.tasks.WEBHOOK_QUEUE: posting to a pipeline's receiver, up to
# CITEVIEW_WEBHOOK_TIMEOUT_SECONDS an attempt). A task on a queue not named here is refused when queued.
TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default", "snapshots", "webhooks"]}}
# A dump larger than this many bytes is stored at once and read by a worker; smaller ones without a
# PDF are read in the request, as the page is then as quick as the queue; one carrying a PDF is read
# by a worker whatever its size.
CITEVIEW_READ_IN_TASK_ABOVE = env_int("CITEVIEW_READ_IN_TASK_ABOVE", 1024 * 1024)
# A worker (`manage.py worker`) records that it is alive this often; one silent for longer than the
# second is taken for dead, and the tasks it was running are queued again (citeview.dumps.lost_work). A
# task is never taken back for running long: a slow fetch run twice is a page fetched twice. (This
# replaces CITEVIEW_TASK_LOST_AFTER_SECONDS, which is no longer read.)
CITEVIEW_WORKER_HEARTBEAT_SECONDS = env_int("CITEVIEW_WORKER_HEARTBEAT_SECONDS", 10)
CITEVIEW_WORKER_SILENT_AFTER_SECONDS = env_int("CITEVIEW_WORKER_SILENT_AFTER_SECONDS", 60)
if CITEVIEW_WORKER_SILENT_AFTER_SECONDS <= 2 * CITEVIEW_WORKER_HEARTBEAT_SECONDS:  # one late beat is not death
    raise ImproperlyConfigured(
        "CITEVIEW_WORKER_SILENT_AFTER_SECONDS must be more than twice CITEVIEW_WORKER_HEARTBEAT_SECONDS"
    )
# What one task of an import stores: a .zip's dumps are shared out in pieces of this many, so that
# several workers import one file together.
CITEVIEW_IMPORT_PIECE = env_int("CITEVIEW_IMPORT_PIECE", 25)
# Whether editors may press Fetch to take a snapshot of a cited page (a worker fetches it: a GET to a
# URL an LLM chose, so a deployment turns it on knowingly). On for local use, off in production mode.
CITEVIEW_SNAPSHOT_FETCH = env_bool("CITEVIEW_SNAPSHOT_FETCH", DEBUG)
# Non-public networks a fetch may reach all the same (loopback, private: an intranet's pages), on any
# port or on the one named (10.1.0.0/16:8080), so that an intranet's web server is allowed and not its
# other services. Empty: only public addresses. The tests allow-list the loopback server they start.
CITEVIEW_SNAPSHOT_FETCH_ALLOW_NETWORKS = env_networks_with_ports("CITEVIEW_SNAPSHOT_FETCH_ALLOW_NETWORKS", "")
# Webhooks (citeview/webhooks): the endpoints staff register in the admin are posted to under the
# snapshot fetcher's address rules; these non-public networks (and ports) are allowed all the same.
CITEVIEW_WEBHOOK_ALLOW_NETWORKS = env_networks_with_ports("CITEVIEW_WEBHOOK_ALLOW_NETWORKS", "")
# How long one delivery may take, connecting and answering, before it counts as failed.
CITEVIEW_WEBHOOK_TIMEOUT_SECONDS = env_positive_int("CITEVIEW_WEBHOOK_TIMEOUT_SECONDS", 10)
# A failed delivery is tried again after each of these waits in turn (seconds: 30 s, 2 min, 10 min,
# 1 h, 6 h), then given up and left in the delivery log.
CITEVIEW_WEBHOOK_RETRY_SECONDS = [
    float(wait) for wait in env_list("CITEVIEW_WEBHOOK_RETRY_SECONDS", "30,120,600,3600,21600")
]
# Deliveries waiting to be sent (or sent again) to one endpoint: a new one past this drops the oldest
# waiting, and the delivery log says so ("dropped: more than N waiting for this endpoint"). A dead or
# slow receiver then holds at most this many in the `webhooks` queue, however busy the editors are.
# One being sent is never dropped.
CITEVIEW_WEBHOOK_WAITING_PER_ENDPOINT = env_positive_int("CITEVIEW_WEBHOOK_WAITING_PER_ENDPOINT", 100)
# The address citeview is reached at (https://citeview.example.com): a webhook's links start with it.
# Empty: the links are paths.
CITEVIEW_BASE_URL = env_str("CITEVIEW_BASE_URL", "").rstrip("/")
# The most text kept of a snapshot, in characters, whatever its type (HTML, PDF, plain text): past it
# the text is cut, with a note saying so. Every claim's passage is looked for in all of it.
CITEVIEW_SNAPSHOT_MAX_TEXT_CHARS = env_positive_int("CITEVIEW_SNAPSHOT_MAX_TEXT_CHARS", 5_000_000)
# A snapshot's HTML or PDF is read in a child process held to this many seconds and megabytes of
# memory (extract_text, through citeview/core/common/limited.py); past either it is refused, with the limit
# said. Uploads, pastes and fetches alike are read by the snapshots' worker, never in a web request.
CITEVIEW_SNAPSHOT_EXTRACT_SECONDS = env_positive_int("CITEVIEW_SNAPSHOT_EXTRACT_SECONDS", 20)
CITEVIEW_SNAPSHOT_EXTRACT_MEGABYTES = env_positive_int("CITEVIEW_SNAPSHOT_EXTRACT_MEGABYTES", 512)
# Fetches, uploads and pastes waiting or running at once, for one editor and for everyone (they share
# the snapshots queue): each may hold a worker for 20 s, so a burst would keep the snapshot workers busy
# for minutes. One past either is answered with a message, not queued, and nothing of it is stored.
CITEVIEW_SNAPSHOT_FETCHES_PER_USER = env_int("CITEVIEW_SNAPSHOT_FETCHES_PER_USER", 3)
CITEVIEW_SNAPSHOT_FETCHES_PENDING = env_int("CITEVIEW_SNAPSHOT_FETCHES_PENDING", 20)

# The cache the pages keep their fragments in (a list's rows, a viewer's header and panels:
# citeview/dumps/kept_fragments.py). A table of the database by default, so that every app server reads
# what another kept; the table is made by a migration (dumps 0012). CACHE_URL names another shared
# cache instead: redis://host:6379/0 (Django's Redis backend; needs the redis package) or
# memcached://host:11211 (needs pymemcache).
CACHE_URL = env_str("CACHE_URL", "")
CACHE_TABLE = "citeview_cache"


def cache_backend(url: str) -> dict[str, object]:
    if not url:
        # Culled past MAX_ENTRIES like any cache: a fragment is made again when next shown.
        return {
            "BACKEND": "citeview.dumps.cache.BulkDatabaseCache",  # Django's, writing many rows at once
            "LOCATION": CACHE_TABLE,
            "OPTIONS": {"MAX_ENTRIES": 100_000},
        }
    if url.startswith(("redis://", "rediss://", "unix://")):
        return {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": url}
    if url.startswith("memcached://"):
        location = url.removeprefix("memcached://")
        return {"BACKEND": "django.core.cache.backends.memcached.PyMemcacheCache", "LOCATION": location}
    raise ImproperlyConfigured(f"CACHE_URL must start with redis://, rediss://, unix:// or memcached://, not {url!r}")


# A fragment is keyed by what it shows and never goes stale; the timeout only lets unused ones go.
CACHES = {"default": {**cache_backend(CACHE_URL), "TIMEOUT": 7 * 24 * 60 * 60}}


# --- API rate limits (issue 42). Each API request counts against its token's budget and its
# account's (all its tokens and its browser session together), reads (GET, HEAD, OPTIONS) and writes apart:
# "N/u" is N requests per unit (s, m, h, d; "600/5m" is per five minutes); "" switches one off.
# Past one, the API answers 429 with Retry-After. The browser pages never call /api/ (their progress
# polls have their own URLs), so only scripts meet these. A token's budget is half its account's, so
# one runaway pipeline leaves room for the account's other tools.
def env_rate(name: str, default: str) -> str:
    """A rate as citeview.api.rate_spec reads it; a malformed one stops the start, naming it."""
    from citeview.api.rate_spec import parse_rate  # no Django app: safe to import from settings

    value = env_str(name, default)
    try:
        parse_rate(value)
    except ImproperlyConfigured as error:
        raise ImproperlyConfigured(f"{name}: {error}") from None
    return value


CITEVIEW_API_RATE_TOKEN_READS = env_rate("CITEVIEW_API_RATE_TOKEN_READS", "600/m")
CITEVIEW_API_RATE_TOKEN_WRITES = env_rate("CITEVIEW_API_RATE_TOKEN_WRITES", "60/m")
CITEVIEW_API_RATE_ACCOUNT_READS = env_rate("CITEVIEW_API_RATE_ACCOUNT_READS", "1200/m")
CITEVIEW_API_RATE_ACCOUNT_WRITES = env_rate("CITEVIEW_API_RATE_ACCOUNT_WRITES", "120/m")
# The counters (django-ratelimit's fixed windows) need a cache every app server shares and whose
# incr is atomic: Redis or memcached when CACHE_URL names one, else a table of their own in the
# database (citeview.dumps.cache.CountingDatabaseCache; Django's database cache loses counts), apart
# from the fragments so that culling one never resets the other.
CACHES["rates"] = (
    {**cache_backend(CACHE_URL), "KEY_PREFIX": "rates"}
    if CACHE_URL
    else {
        "BACKEND": "citeview.dumps.cache.CountingDatabaseCache",
        "LOCATION": "citeview_rate_cache",
        "OPTIONS": {"MAX_ENTRIES": 100_000},
    }
)
RATELIMIT_USE_CACHE = "rates"
RATELIMIT_FAIL_OPEN = True  # a count the cache did not return (evicted from memcached) lets the request in
# --- end of the API rate limits

# No inline script or style anywhere: every page works under this policy.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:"],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.NONE],
    "frame-src": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
    "form-action": [CSP.SELF],
}
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0 if DEBUG else 31_536_000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", not DEBUG)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", not DEBUG)
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not DEBUG)
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]  # load balancers probe app servers directly, over plain HTTP
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if env_bool("BEHIND_TLS_PROXY", False) else None
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_AGE = env_int("SESSION_COOKIE_AGE", 8 * 60 * 60)  # a working day, then log in again
SESSION_COOKIE_SAMESITE = "Lax"
# Failed logins per user name (and, more loosely, per address) before a pause of LOGIN_PAUSE_SECONDS.
LOGIN_FAILURES_PER_NAME = env_int("LOGIN_FAILURES_PER_NAME", 5)
LOGIN_FAILURES_PER_ADDRESS = env_int("LOGIN_FAILURES_PER_ADDRESS", 30)
LOGIN_PAUSE_SECONDS = env_int("LOGIN_PAUSE_SECONDS", 15 * 60)
# The proxies in front whose X-Forwarded-For names the visitor (for the per-address count): their
# addresses or networks. Any other sender's header is ignored, so a client that reaches an app server
# directly is counted by its own address. Empty: the connection's address always counts.
TRUSTED_PROXIES = env_networks("TRUSTED_PROXIES", "")
# Every password check (the login page, the admin's login) is refused while its name or address is paused.
AUTHENTICATION_BACKENDS = [
    "citeview.accounts.backends.PausingModelBackend",
    "citeview.accounts.oidc.RoleMappingBackend",
]

# Signing in through the company's identity provider (OpenID Connect, mozilla-django-oidc;
# citeview/accounts/oidc.py): off until the client id and the provider's endpoints are set. Local
# accounts keep working beside it. docs/identity-providers.md says what to set for Entra ID, Okta,
# Google and Keycloak.
OIDC_RP_CLIENT_ID = env_str("OIDC_RP_CLIENT_ID", "")
OIDC_RP_CLIENT_SECRET = env_str("OIDC_RP_CLIENT_SECRET", "")
OIDC_OP_AUTHORIZATION_ENDPOINT = env_str("OIDC_OP_AUTHORIZATION_ENDPOINT", "")
OIDC_OP_TOKEN_ENDPOINT = env_str("OIDC_OP_TOKEN_ENDPOINT", "")
OIDC_OP_USER_ENDPOINT = env_str("OIDC_OP_USER_ENDPOINT", "")
OIDC_OP_JWKS_ENDPOINT = env_str("OIDC_OP_JWKS_ENDPOINT", "")
# The provider's end_session_endpoint: signing out of citeview ends the provider's session too. Empty
# where the provider has none (Google): citeview's own session ends.
OIDC_OP_LOGOUT_ENDPOINT = env_str("OIDC_OP_LOGOUT_ENDPOINT", "")
OIDC_RP_SIGN_ALGO = env_str("OIDC_RP_SIGN_ALGO", "RS256")
OIDC_RP_SCOPES = env_str("OIDC_RP_SCOPES", "openid email profile")
OIDC_USE_PKCE = True
OIDC_STORE_ID_TOKEN = True  # the hint the provider's end-session endpoint asks for
LOGIN_REDIRECT_URL_FAILURE = "/accounts/login/?sign_in=failed"
# What the login page's button calls the provider ("Sign in with Okta"); empty: "your company's account".
CITEVIEW_OIDC_NAME = env_str("CITEVIEW_OIDC_NAME", "")
# The claim that names the user (their citeview user name), and the one that lists their groups there.
CITEVIEW_OIDC_USERNAME_CLAIM = env_str("CITEVIEW_OIDC_USERNAME_CLAIM", "preferred_username")
CITEVIEW_OIDC_ROLES_CLAIM = env_str("CITEVIEW_OIDC_ROLES_CLAIM", "groups")
# Whether a sign-in through the provider may take over the local account (one with a password) of the
# same user name. Off: such a sign-in is refused, so a name alone never opens someone's account.
CITEVIEW_OIDC_LINK_LOCAL_ACCOUNTS = env_bool("CITEVIEW_OIDC_LINK_LOCAL_ACCOUNTS", False)
# Issue 42, finding 8: a sign-in through the provider is matched by the ID token's issuer and subject
# (iss, sub), stored at its first sign-in (accounts.OidcIdentity), never by a name or email a user may
# change there. CITEVIEW_OIDC_ISSUER: the provider's issuer; when set, a token of another is refused
# (empty: the token's own iss is stored). CITEVIEW_OIDC_LINK_EARLIER_ACCOUNTS: whether a subject's
# first sign-in may take, by its user name, an account an earlier sign-in through the provider made
# before subjects were stored. Off: such a sign-in is refused and the log tells staff. Turn it on
# for the upgrade while the provider's names are trusted, then off again.
CITEVIEW_OIDC_ISSUER = env_str("CITEVIEW_OIDC_ISSUER", "")
CITEVIEW_OIDC_LINK_EARLIER_ACCOUNTS = env_bool("CITEVIEW_OIDC_LINK_EARLIER_ACCOUNTS", False)


def env_role_groups(name: str, default: str) -> dict[str, list[str]]:
    """``editor=citeview-editors|writers,reviewer=…,lead=…,staff=…``: the provider's groups that give
    each role (and staff). A role not in citeview's list stops the start with an error naming it."""
    mapping: dict[str, list[str]] = {}
    for entry in env_list(name, default):
        role, _, groups = entry.partition("=")
        role = role.strip()
        if role not in ("editor", "reviewer", "lead", "staff") or not groups.strip():
            raise ImproperlyConfigured(
                f"{name}: {entry!r} is not role=group|group (roles: editor, reviewer, lead, staff)"
            )
        mapping[role] = [group.strip() for group in groups.split("|") if group.strip()]
    return mapping


CITEVIEW_OIDC_ROLE_GROUPS = env_role_groups(
    "CITEVIEW_OIDC_ROLE_GROUPS", "editor=editor,reviewer=reviewer,lead=lead,staff=staff"
)
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", not DEBUG)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", not DEBUG)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
}
