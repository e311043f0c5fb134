"""Links that let a person see, download, forget or erase their own memory without an account.

A link is a row (`PrivacyLink`) and a token that names it: the namespace, the
user id, the row's id and its expiry, signed with Django's signing (SECRET_KEY,
a salt of its own). The token proves who it is for; the row says what it may do.
So a link's rights are fixed when it is made and can never exceed what its maker
could do: a key's scopes (`read` -> see and download, `write` -> forget, `erase`
-> erase) or an operator's role. A link is listed with the person, revocable on
its own, and every use of it is audited.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.core import signing
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from memoryadmin.audit.services import Actor, audit_record
from memoryadmin.core.app_ids import validate_app_id
from memoryadmin.core.errors import InvalidInput, NotFound, ServiceError
from memoryadmin.core.fingerprints import subject_hmac
from memoryadmin.governance.models import PrivacyLink, PrivacyRight
from memoryadmin.tenancy.models import Namespace

SALT = "memoryadmin.privacy-link"
MIN_TTL_SECONDS = 60
MAX_TTL_SECONDS = 30 * 24 * 3600
MAX_TOKEN_CHARS = 1000
RIGHTS = tuple(PrivacyRight.values)
# What each API key scope lets its holder hand on, and each operator role.
SCOPE_RIGHTS = {"read": PrivacyRight.READ, "write": PrivacyRight.FORGET, "erase": PrivacyRight.ERASE}
ROLE_RIGHTS = {
    "viewer": (),
    "operator": (PrivacyRight.READ, PrivacyRight.FORGET),
    "admin": (PrivacyRight.READ, PrivacyRight.FORGET, PrivacyRight.ERASE),
}


class LinkInvalid(ServiceError):
    status = 403
    code = "link_invalid"


class LinkExpired(ServiceError):
    status = 410
    code = "link_expired"


class LinkRevoked(ServiceError):
    status = 410
    code = "link_revoked"


class RightNotGrantable(ServiceError):
    status = 403
    code = "forbidden"


@dataclass(frozen=True)
class PrivacySubject:
    namespace: Namespace
    user_id: str
    expires_at: datetime
    token: str
    link_id: uuid.UUID
    rights: frozenset[str]

    def allows(self, right: str) -> bool:
        return right in self.rights

    @property
    def actor(self) -> Actor:
        return Actor.subject(str(self.link_id))


def rights_of_scopes(scopes: Iterable[str]) -> tuple[str, ...]:
    """What a key with these scopes may grant, in the order of RIGHTS."""
    granted = {SCOPE_RIGHTS[scope] for scope in scopes if scope in SCOPE_RIGHTS}
    return tuple(right for right in RIGHTS if right in granted)


def rights_of_role(role: str | None) -> tuple[str, ...]:
    return tuple(ROLE_RIGHTS.get(role or "", ()))


def clean_rights(asked: Collection[str] | None, grantable: Collection[str]) -> list[str]:
    """The rights of a new link: those asked for (all the maker may grant when None), never more."""
    if asked is None:
        rights = [right for right in RIGHTS if right in grantable]
    else:
        unknown = sorted(set(asked) - set(RIGHTS))
        if unknown:
            raise InvalidInput(
                f"unknown rights {', '.join(unknown)}; rights are {', '.join(RIGHTS)}", details={"field": "rights"}
            )
        beyond = [right for right in RIGHTS if right in asked and right not in grantable]
        if beyond:
            raise RightNotGrantable(
                f"this link cannot grant {', '.join(beyond)}: its maker may grant only "
                f"{', '.join(grantable) or 'nothing'}",
                details={"field": "rights", "grantable": list(grantable)},
            )
        rights = [right for right in RIGHTS if right in asked]
    if not rights:
        raise InvalidInput("a privacy link needs at least one right", details={"field": "rights"})
    return rights


def privacy_link_create(
    *,
    namespace: Namespace,
    user_id: str,
    actor: Actor,
    grantable: Collection[str],
    rights: Collection[str] | None = None,
    ttl_seconds: int = 86400,
) -> tuple[str, PrivacyLink]:
    """(url, link). The url is absolute when PUBLIC_BASE_URL is set, else a path to join to the host.

    `grantable` is what the maker may hand on (`rights_of_scopes`, `rights_of_role`);
    `rights` what is asked for, all of `grantable` when None.
    """
    validate_app_id(user_id, "user_id")
    if isinstance(ttl_seconds, bool) or not isinstance(ttl_seconds, int):
        raise InvalidInput("ttl_seconds must be an integer", details={"field": "ttl_seconds"})
    if not MIN_TTL_SECONDS <= ttl_seconds <= MAX_TTL_SECONDS:
        raise InvalidInput(
            f"ttl_seconds must be between {MIN_TTL_SECONDS} and {MAX_TTL_SECONDS}", details={"field": "ttl_seconds"}
        )
    chosen = clean_rights(rights, grantable)
    now = timezone.now()
    expires_at = (now + timedelta(seconds=ttl_seconds)).replace(microsecond=0)
    with transaction.atomic():
        link = PrivacyLink.objects.create(
            namespace=namespace,
            subject_hash=subject_hmac(namespace.pk, user_id),
            rights=chosen,
            created_by=str(actor),
            created_at=now,
            expires_at=expires_at,
        )
        audit_record(
            actor=actor,
            action="privacy_link.create",
            namespace_id=namespace.pk,
            target_type="privacy_link",
            target_id=str(link.pk),
            user_id=user_id,
            data={"rights": chosen, "expires_at": expires_at.isoformat()},
        )
    token = signing.dumps(
        {"l": str(link.pk), "n": namespace.pk, "u": user_id, "e": int(expires_at.timestamp())}, salt=SALT
    )
    path = reverse("privacy:home", args=[token])
    return getattr(settings, "PUBLIC_BASE_URL", "").rstrip("/") + path, link


def privacy_link_in(namespace: Namespace, link_id: uuid.UUID | str) -> PrivacyLink:
    try:
        pk = uuid.UUID(str(link_id))
    except ValueError:
        raise NotFound("privacy link not found") from None
    link = PrivacyLink.objects.filter(namespace=namespace, pk=pk).first()
    if link is None:
        raise NotFound("privacy link not found")
    return link


def privacy_link_revoke(*, link: PrivacyLink, actor: Actor, reason: str = "") -> PrivacyLink:
    """Withdraw one link at once; the person's other links stay. Revoking twice changes nothing."""
    with transaction.atomic():
        revoked = PrivacyLink.objects.filter(pk=link.pk, revoked_at__isnull=True).update(
            revoked_at=timezone.now(), revoked_by=str(actor)
        )
        if revoked:
            audit_record(
                actor=actor,
                action="privacy_link.revoke",
                namespace_id=link.namespace_id,
                target_type="privacy_link",
                target_id=str(link.pk),
                # The person's event: an erasure blanks its reason, which may name them.
                subject_hash=link.subject_hash,
                reason=reason,
            )
    link.refresh_from_db()
    return link


def privacy_link_open(token: str) -> PrivacySubject:
    """The person a link stands for and what it allows.

    LinkInvalid when it was tampered with or names no link; LinkExpired when too old;
    LinkRevoked when withdrawn.
    """
    if not token or len(token) > MAX_TOKEN_CHARS:
        raise LinkInvalid("this link is not valid")
    try:
        payload = signing.loads(token, salt=SALT)
    except signing.BadSignature:
        raise LinkInvalid("this link is not valid") from None
    try:
        link_id = uuid.UUID(str(payload["l"]))
        namespace_id, user_id, expires = int(payload["n"]), str(payload["u"]), int(payload["e"])
    except (KeyError, TypeError, ValueError):
        raise LinkInvalid("this link is not valid") from None
    link = PrivacyLink.objects.select_related("namespace").filter(pk=link_id, namespace_id=namespace_id).first()
    if link is None or link.subject_hash != subject_hmac(namespace_id, user_id):
        raise LinkInvalid("this link is not valid")
    expires_at = datetime.fromtimestamp(expires, tz=UTC)
    if min(expires_at, link.expires_at) <= timezone.now():
        raise LinkExpired("this link has expired")
    if link.revoked_at is not None:
        raise LinkRevoked("this link was withdrawn")
    return PrivacySubject(
        namespace=link.namespace,
        user_id=user_id,
        expires_at=link.expires_at,
        token=token,
        link_id=link.pk,
        rights=frozenset(link.rights),
    )


def privacy_link_use(*, subject: PrivacySubject, page: str) -> None:
    """Record one use of a link: which page, by which link, for whom (as an HMAC, like every event)."""
    with transaction.atomic():
        PrivacyLink.objects.filter(pk=subject.link_id).update(last_used_at=timezone.now())
        audit_record(
            actor=subject.actor,
            action="privacy_link.use",
            namespace_id=subject.namespace.pk,
            target_type="privacy_link",
            target_id=str(subject.link_id),
            user_id=subject.user_id,
            data={"page": page},
        )
