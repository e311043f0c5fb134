"""API keys: looked up by hash, revoked ones refused, last use written at most once a minute.

Only the Authorization header counts; a console session cookie never grants API rights.
"""

from __future__ import annotations

from datetime import timedelta

from django.db import connection
from django.db.models import Q
from django.http import HttpRequest
from django.utils import timezone
from ninja.security import HttpBearer

from memoryadmin.api.errors import ApiError
from memoryadmin.audit.services import Actor
from memoryadmin.core.rows import RowLoader
from memoryadmin.tenancy.models import ApiKey, Namespace, hash_api_key

LAST_USED_RESOLUTION = timedelta(minutes=1)
MAX_TOKEN_CHARS = 200


class ApiKeyAuth(HttpBearer):
    def __init__(self, scope: str) -> None:
        super().__init__()
        self.scope = scope

    def authenticate(self, request: HttpRequest, token: str) -> ApiKey | None:
        key = api_key_for_token(token)
        if key is None:
            # An empty, overlong or unknown token: counted per client address by the rate limiter,
            # which stops such addresses early.
            request.unknown_api_key = True  # type: ignore[attr-defined]
            return None
        # Set before the scope check, so a refused call still counts in the key's access log.
        request.api_key = key  # type: ignore[attr-defined]
        if not key.has_scope(self.scope):
            raise ApiError(403, "forbidden", f"This API key lacks the '{self.scope}' scope.")
        return key


def api_key_for_token(token: str) -> ApiKey | None:
    """The live key a bearer token names, its namespace loaded, its last use noted (at most once a minute).

    Every transport that takes a key (the REST API, MCP) authenticates through here.
    """
    if not token or len(token) > MAX_TOKEN_CHARS:
        return None
    key = _live_key(hash_api_key(token))
    if key is None:
        return None
    now = timezone.now()
    if key.last_used_at is None or now - key.last_used_at >= LAST_USED_RESOLUTION:
        ApiKey.objects.filter(pk=key.pk).filter(
            Q(last_used_at__isnull=True) | Q(last_used_at__lt=now - LAST_USED_RESOLUTION)
        ).update(last_used_at=now)
        key.last_used_at = now
    return key


# Every API request starts here, so the statement is written once instead of compiled by the
# ORM per request (that compilation cost more than the lookup itself). Each request still reads
# the key, so a revocation takes effect at once.
_KEYS = RowLoader(ApiKey, ApiKey._meta.concrete_fields)
_NAMESPACES = RowLoader(Namespace, Namespace._meta.concrete_fields)
_LIVE_KEY_SQL = (
    f"SELECT {', '.join(_KEYS.columns('k') + _NAMESPACES.columns('n'))} "
    f"FROM {ApiKey._meta.db_table} k JOIN {Namespace._meta.db_table} n ON n.id = k.namespace_id "
    "WHERE k.key_hash = %s AND k.revoked_at IS NULL"
)


def _live_key(key_hash: str) -> ApiKey | None:
    """The unrevoked key with this hash, its namespace loaded, in one query."""
    with connection.cursor() as cursor:
        cursor.execute(_LIVE_KEY_SQL, [key_hash])
        row = cursor.fetchone()
    if row is None:
        return None
    key = _KEYS.load(row[: _KEYS.width])
    key.namespace = _NAMESPACES.load(row[_KEYS.width :])
    return key


read_auth = ApiKeyAuth("read")
write_auth = ApiKeyAuth("write")
erase_auth = ApiKeyAuth("erase")
tombstones_auth = ApiKeyAuth("tombstones")
webhooks_auth = ApiKeyAuth("webhooks")


def namespace_of(request: HttpRequest) -> Namespace:
    return request.auth.namespace  # type: ignore[attr-defined]


def actor_of(request: HttpRequest) -> Actor:
    return Actor.api_key(request.auth.prefix)  # type: ignore[attr-defined]
