"""API keys: looked up by hash, revoked ones refused, last use written at most once a minute.

Only the Authorization header counts; a console session cookie never grants API rights.
"""

from __future__ import annotations

from datetime import timedelta

from django.http import HttpRequest
from ninja.security import HttpBearer

from memoryadmin.api.errors import ApiError
from memoryadmin.audit.services import Actor
from memoryadmin.tenancy.key_cache import api_key_live_cached, note_used
from memoryadmin.tenancy.models import ApiKey, Namespace, hash_api_key
from memoryadmin.tenancy.services import api_key_note_use

LAST_USED_RESOLUTION = timedelta(minutes=1)
MAX_TOKEN_CHARS = 200


class ApiKeyAuth(HttpBearer):
    def __init__(self, scope: str) -> None:
        super().__init__()
        self.scope = scope

    def authenticate(self, request: HttpRequest, token: str) -> ApiKey | None:
        key = api_key_for_token(token, getattr(request, "key_generation", None))
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


def api_key_for_token(token: str, generation: str | None = None) -> ApiKey | None:
    """The live key a bearer token names, its namespace loaded, its last use noted (at most once a minute).

    Every transport that takes a key (the REST API, MCP) authenticates through here. `generation` is
    the key generation the request's rate-limit count read from Redis: with it, a row this process
    read under the same generation answers without a query (`tenancy.key_cache`).
    """
    if not token or len(token) > MAX_TOKEN_CHARS:
        return None
    key_hash = hash_api_key(token)
    key = api_key_live_cached(key_hash, generation)
    if key is not None:
        noted = key.last_used_at
        api_key_note_use(key=key, resolution=LAST_USED_RESOLUTION)
        if key.last_used_at != noted:
            note_used(key_hash, key.last_used_at)
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
