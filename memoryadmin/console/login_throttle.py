"""Throttling of console sign-in: failed attempts are counted in Redis and too many lock the door a while.

Two counters, both over a window that starts at the first failure:
- per client address and username: `LOGIN_FAILURE_LIMIT` failures lock that
  pair out (a guesser at one account);
- per client address alone: `LOGIN_FAILURE_LIMIT_PER_IP` failures lock the
  address out (one address spraying many usernames).
A locked request gets 429 with `Retry-After` and is not even checked, so a
guesser learns nothing during the lockout. A successful sign-in clears the
pair's counter. Usernames and addresses are stored only as hashes.

The client address is REMOTE_ADDR: behind a proxy, the proxy must set it (for
example gunicorn's --forwarded-allow-ips), since a client-supplied
X-Forwarded-For would let a guesser pick a fresh address for every attempt.

When Redis is unreachable the throttle fails open, like the API's rate limit:
operators can still sign in during a Redis outage, protected by their
passwords alone; the outage is logged.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.template import engines
from redis.exceptions import RedisError

from memoryadmin.core.redis_client import get_redis

logger = logging.getLogger(__name__)

LOCKED_PAGE = """{% extends "base.html" %}
{% block title %}Too many attempts · memoryadmin{% endblock %}
{% block body %}
<main class="narrow">
  <h1>memoryadmin</h1>
  <section class="card">
    <p class="error" role="alert">Too many failed sign-in attempts.
      Try again in {{ minutes }} minute{{ minutes|pluralize }}.</p>
  </section>
</main>
{% endblock %}"""


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:32]


def failure_keys(ip: str, username: str) -> tuple[str, str]:
    """(the address-and-username counter, the address counter)."""
    return f"login-fail:{_digest(ip, username.strip().lower())}", f"login-fail-ip:{_digest(ip)}"


class LoginThrottleMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method != "POST" or request.path != settings.LOGIN_URL:
            return self.get_response(request)
        ip = request.META.get("REMOTE_ADDR", "") or "unknown"
        username = str(request.POST.get("username", ""))[:150]
        pair_key, ip_key = failure_keys(ip, username)
        try:
            locked_for = self._locked_for(pair_key, ip_key)
        except RedisError as exc:
            logger.warning("login throttling is off: redis unavailable: %s", exc)
            return self.get_response(request)
        if locked_for:
            return self._locked(request, locked_for)
        response = self.get_response(request)
        try:
            if response.status_code == 200:
                # The login view answers a failed attempt by showing the form again.
                self._count_failure(pair_key, ip_key)
            elif response.status_code == 302:
                get_redis().delete(pair_key)
        except RedisError as exc:
            logger.warning("login throttling could not count an attempt: redis unavailable: %s", exc)
        return response

    @staticmethod
    def _locked_for(pair_key: str, ip_key: str) -> int:
        """Seconds until this attempt may be made; 0 when it may be made now."""
        pipe = get_redis().pipeline(transaction=False)
        pipe.get(pair_key)
        pipe.ttl(pair_key)
        pipe.get(ip_key)
        pipe.ttl(ip_key)
        pair_count, pair_ttl, ip_count, ip_ttl = pipe.execute()
        waits = []
        if pair_count and int(pair_count) >= settings.LOGIN_FAILURE_LIMIT:
            waits.append(pair_ttl)
        if ip_count and int(ip_count) >= settings.LOGIN_FAILURE_LIMIT_PER_IP:
            waits.append(ip_ttl)
        return max((max(1, int(w)) for w in waits), default=0)

    @staticmethod
    def _count_failure(pair_key: str, ip_key: str) -> None:
        window = settings.LOGIN_LOCKOUT_SECONDS
        pipe = get_redis().pipeline(transaction=True)
        for key in (pair_key, ip_key):
            pipe.incr(key)
            pipe.expire(key, window, nx=True)
        pipe.execute()

    @staticmethod
    def _locked(request: HttpRequest, seconds: int) -> HttpResponse:
        minutes = max(1, -(-seconds // 60))
        page = engines["django"].from_string(LOCKED_PAGE).render({"minutes": minutes}, request)
        response = HttpResponse(page, status=429)
        response["Retry-After"] = str(seconds)
        return response
