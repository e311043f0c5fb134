"""Throttling of console sign-in: failed attempts are counted in Redis and too many lock the door a while.

Two counters, both over a window that starts at the first failure:
- per client address and username: `LOGIN_FAILURE_LIMIT` failures lock that
  pair out (a guesser at one account);
- per client address alone: `LOGIN_FAILURE_LIMIT_PER_IP` failures lock the
  address out (one address spraying many usernames).
Each attempt is counted before its password is checked, so parallel attempts
cannot slip past the limit between a check and a count: the limit is the number
of passwords tried, however many arrive at once. An attempt over the limit gets
429 with `Retry-After` and is not checked at all, so a guesser learns nothing
during the lockout. An attempt that was no failed sign-in gives its count back:
a success clears the pair's counter, and anything but a refused password (a
refused CSRF token, say) is not counted. Usernames and addresses are stored
only as hashes.

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


# Take one attempt back from each counter that still has one (never below zero, never reviving
# a counter whose window has ended).
GIVE_BACK = """
for _, key in ipairs(KEYS) do
    if tonumber(redis.call('GET', key) or '0') > 0 then
        redis.call('DECR', key)
    end
end
"""


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
            locked_for = self._count_attempt(pair_key, ip_key)
        except RedisError as exc:
            logger.warning("login throttling is off: redis unavailable: %s", exc)
            return self.get_response(request)
        if locked_for:
            return self._locked(request, locked_for)
        response = self.get_response(request)
        try:
            if response.status_code == 302:
                # Signed in: the pair starts afresh, and the address's count gets this attempt back.
                get_redis().delete(pair_key)
                get_redis().eval(GIVE_BACK, 1, ip_key)
            elif response.status_code != 200:
                # The login view answers a refused password by showing the form again (200);
                # anything else checked no password.
                get_redis().eval(GIVE_BACK, 2, pair_key, ip_key)
        except RedisError as exc:
            logger.warning("login throttling could not settle an attempt: redis unavailable: %s", exc)
        return response

    @staticmethod
    def _count_attempt(pair_key: str, ip_key: str) -> int:
        """Count this attempt; seconds until attempts are allowed again when it is over a limit, else 0."""
        window = settings.LOGIN_LOCKOUT_SECONDS
        pipe = get_redis().pipeline(transaction=True)
        for key in (pair_key, ip_key):
            pipe.incr(key)
            pipe.expire(key, window, nx=True)
            pipe.ttl(key)
        pair_count, _, pair_ttl, ip_count, _, ip_ttl = pipe.execute()
        waits = []
        if int(pair_count) > settings.LOGIN_FAILURE_LIMIT:
            waits.append(pair_ttl)
        if int(ip_count) > settings.LOGIN_FAILURE_LIMIT_PER_IP:
            waits.append(ip_ttl)
        return max((max(1, int(w)) for w in waits), default=0)

    @staticmethod
    def _locked(request: HttpRequest, seconds: int) -> HttpResponse:
        minutes = max(1, -(-seconds // 60))
        page = engines["django"].from_string(LOCKED_PAGE).render({"minutes": minutes}, request)
        response = HttpResponse(page, status=429)
        response["Retry-After"] = str(seconds)
        return response
