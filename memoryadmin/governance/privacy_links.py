"""Signed, expiring links that let a person see, download and erase their own memory without an account.

A link carries the namespace, the user id and an expiry, signed with Django's
signing (SECRET_KEY, a salt of its own). Nothing is stored: a link is valid
until it expires, and a tampered one fails the signature.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.core import signing
from django.urls import reverse
from django.utils import timezone

from memoryadmin.audit.services import Actor, audit_record
from memoryadmin.core.app_ids import validate_app_id
from memoryadmin.core.errors import InvalidInput, ServiceError
from memoryadmin.tenancy.models import Namespace

SALT = "memoryadmin.privacy-link"
MIN_TTL_SECONDS = 60
MAX_TTL_SECONDS = 30 * 24 * 3600
MAX_TOKEN_CHARS = 1000


class LinkInvalid(ServiceError):
    status = 403
    code = "link_invalid"


class LinkExpired(ServiceError):
    status = 410
    code = "link_expired"


@dataclass(frozen=True)
class PrivacySubject:
    namespace: Namespace
    user_id: str
    expires_at: datetime
    token: str


def privacy_link_create(
    *, namespace: Namespace, user_id: str, ttl_seconds: int = 86400, actor: Actor | None = None
) -> tuple[str, datetime]:
    """(url, expires_at). The url is absolute when PUBLIC_BASE_URL is set, else a path to join to the host."""
    validate_app_id(user_id, "user_id")
    if isinstance(ttl_seconds, bool) or not isinstance(ttl_seconds, int):
        raise InvalidInput("ttl_seconds must be an integer", details={"field": "ttl_seconds"})
    if not MIN_TTL_SECONDS <= ttl_seconds <= MAX_TTL_SECONDS:
        raise InvalidInput(
            f"ttl_seconds must be between {MIN_TTL_SECONDS} and {MAX_TTL_SECONDS}", details={"field": "ttl_seconds"}
        )
    expires_at = (timezone.now() + timedelta(seconds=ttl_seconds)).replace(microsecond=0)
    token = signing.dumps({"n": namespace.pk, "u": user_id, "e": int(expires_at.timestamp())}, salt=SALT)
    audit_record(
        actor=actor or Actor.system("privacy-link"),
        action="privacy_link.create",
        namespace_id=namespace.pk,
        target_type="subject",
        user_id=user_id,
        data={"expires_at": expires_at.isoformat()},
    )
    path = reverse("privacy:home", args=[token])
    return getattr(settings, "PUBLIC_BASE_URL", "").rstrip("/") + path, expires_at


def privacy_link_open(token: str) -> PrivacySubject:
    """The person a link stands for; LinkInvalid when tampered with, LinkExpired when too old."""
    if not token or len(token) > MAX_TOKEN_CHARS:
        raise LinkInvalid("this link is not valid")
    try:
        payload = signing.loads(token, salt=SALT)
    except signing.BadSignature:
        raise LinkInvalid("this link is not valid") from None
    try:
        namespace_id, user_id, expires = int(payload["n"]), str(payload["u"]), int(payload["e"])
    except (KeyError, TypeError, ValueError):
        raise LinkInvalid("this link is not valid") from None
    expires_at = datetime.fromtimestamp(expires, tz=UTC)
    if expires_at <= timezone.now():
        raise LinkExpired("this link has expired")
    namespace = Namespace.objects.filter(pk=namespace_id).first()
    if namespace is None:
        raise LinkInvalid("this link is not valid")
    return PrivacySubject(namespace=namespace, user_id=user_id, expires_at=expires_at, token=token)
