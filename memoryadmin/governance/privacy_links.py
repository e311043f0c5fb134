"""Links that let a person see, download, forget or erase their own memory without an account.

A link is a row (`PrivacyLink`) and a token: 32 random bytes that name nothing.
Only the token's SHA-256 is stored, to find the row; the person's user id is
stored sealed under the token (so only the link's holder can read it back) and
as an HMAC that proves the unsealed id is theirs. A URL therefore says nothing
about whom, which namespace or which link it is for.

A link's rights are fixed when it is made and can never exceed what its maker
could do: a key's scopes (`read` -> see and download, `write` -> forget, `erase`
-> erase) or an operator's role. At every use they are bounded again by what
the maker may grant *now*: a revoked key or a deactivated operator's link no
longer opens, a demoted admin's loses its erase page. Revoking a key, or
demoting, limiting or deactivating an operator, ends or narrows the links they
made at once, each change audited (`privacy_link.revoke`, `privacy_link.narrow`).
A link is listed with the person, with its maker, revocable on its own, and
every use of it is audited.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import uuid
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import QuerySet
from django.urls import reverse
from django.utils import timezone

from memoryadmin.audit.services import Actor, AuditEntry, audit_about, audit_record, audit_record_many
from memoryadmin.core.app_ids import validate_app_id
from memoryadmin.core.errors import InvalidInput, NotFound, ServiceError, found
from memoryadmin.core.fingerprints import subject_hmac
from memoryadmin.governance.models import PrivacyLink, PrivacyRight
from memoryadmin.tenancy.models import ApiKey, Namespace
from memoryadmin.tenancy.roles import rights_of_user, role_of
from memoryadmin.tenancy.services import (
    api_key_revoke,
    operator_deactivate,
    operator_namespaces_set,
    operator_role_set,
)

MIN_TTL_SECONDS = 60
MAX_TTL_SECONDS = 30 * 24 * 3600
TOKEN_BYTES = 32
# What secrets.token_urlsafe(TOKEN_BYTES) gives; anything else is refused before the database is asked.
TOKEN_RE = re.compile(r"[A-Za-z0-9_-]{43}")
SEAL_LABEL = b"memoryadmin.privacy-link.subject\0"
RIGHTS = tuple(PrivacyRight.values)
# What each API key scope lets its holder hand on, and each operator role.
SCOPE_RIGHTS = {"read": PrivacyRight.READ, "write": PrivacyRight.FORGET, "erase": PrivacyRight.ERASE}
ROLE_RIGHTS = {
    "viewer": (),
    "operator": (PrivacyRight.READ, PrivacyRight.FORGET),
    "admin": (PrivacyRight.READ, PrivacyRight.FORGET, PrivacyRight.ERASE),
}


class LinkInvalid(ServiceError, status=403, code="link_invalid"): ...


class LinkExpired(ServiceError, status=410, code="link_expired"): ...


class LinkRevoked(ServiceError, status=410, code="link_revoked"): ...


class RightNotGrantable(ServiceError, status=403, code="forbidden"): ...


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


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _sealed(token: str, data: bytes) -> bytes:
    """`data` XORed with a keystream drawn from the token: sealing and unsealing are the same.

    Each token is 32 random bytes used for one link only, so no keystream is ever used twice;
    what is unsealed is checked against the link's subject HMAC before it is believed.
    """
    stream = hashlib.shake_256(SEAL_LABEL + token.encode()).digest(len(data))
    return bytes(a ^ b for a, b in zip(data, stream, strict=True))


def maker_grantable(link: PrivacyLink) -> tuple[str, ...] | None:
    """What the link's maker may grant now; None when it was made by the system (no maker to follow).

    A key: its scopes while it is not revoked. An operator: their role's rights while their
    account is active and may see the link's namespace. A maker since deleted: nothing.
    """
    kind = link.created_by.partition(":")[0]
    if link.made_by_key_id is not None or kind == "api_key":
        key = link.made_by_key
        if key is None or not key.is_active or key.namespace_id != link.namespace_id:
            return ()
        return rights_of_scopes(key.scopes)
    if link.made_by_user_id is not None or kind == "operator":
        user = link.made_by_user
        if user is None or not user.is_active:
            return ()
        role, limits = rights_of_user(user)
        if limits is not None and link.namespace_id not in limits:
            return ()
        return rights_of_role(role)
    return None


def privacy_link_create(
    *,
    namespace: Namespace,
    user_id: str,
    actor: Actor,
    key: ApiKey | None = None,
    operator: User | None = None,
    grantable: Collection[str] | None = None,
    rights: Collection[str] | None = None,
    ttl_seconds: int = 86400,
) -> tuple[str, PrivacyLink]:
    """(url, link). The url is absolute when PUBLIC_BASE_URL is set, else a path to join to the host.

    The maker is the API `key` or the console `operator` whose rights the link follows for its
    whole life; what they may hand on (`grantable`) is derived from them. A link with neither
    (made by the system) needs `grantable` and keeps the rights it is made with.
    `rights` is what is asked for, all of `grantable` when None.
    """
    validate_app_id(user_id, "user_id")
    if isinstance(ttl_seconds, bool) or not isinstance(ttl_seconds, int):
        raise InvalidInput("ttl_seconds must be an integer", details={"field": "ttl_seconds"})
    if not MIN_TTL_SECONDS <= ttl_seconds <= MAX_TTL_SECONDS:
        raise InvalidInput(
            f"ttl_seconds must be between {MIN_TTL_SECONDS} and {MAX_TTL_SECONDS}", details={"field": "ttl_seconds"}
        )
    if key is not None:
        grantable = rights_of_scopes(key.scopes)
    elif operator is not None:
        grantable = rights_of_role(role_of(operator))
    elif grantable is None:
        raise ValueError("a privacy link needs a maker (key or operator) or what it may grant")
    chosen = clean_rights(rights, grantable)
    token = secrets.token_urlsafe(TOKEN_BYTES)
    now = timezone.now()
    expires_at = (now + timedelta(seconds=ttl_seconds)).replace(microsecond=0)
    with transaction.atomic():
        link = PrivacyLink.objects.create(
            namespace=namespace,
            subject_hash=subject_hmac(namespace.pk, user_id),
            token_hash=token_hash(token),
            subject_sealed=_sealed(token, user_id.encode()),
            rights=chosen,
            created_by=str(actor),
            made_by_key=key,
            made_by_user=operator,
            created_at=now,
            expires_at=expires_at,
        )
        audit_about(
            link,
            actor=actor,
            action="privacy_link.create",
            user_id=user_id,
            data={"rights": chosen, "expires_at": expires_at.isoformat()},
        )
    path = reverse("privacy:home", args=[token])
    return settings.PUBLIC_BASE_URL + path, link


def privacy_link_in(namespace: Namespace, link_id: uuid.UUID | str) -> PrivacyLink:
    try:
        pk = uuid.UUID(str(link_id))
    except ValueError:
        raise NotFound("privacy link not found") from None
    return found(PrivacyLink.objects.filter(namespace=namespace, pk=pk), "privacy link not found")


def privacy_link_revoke(*, link: PrivacyLink, actor: Actor, reason: str = "") -> PrivacyLink:
    """Withdraw one link at once; the person's other links stay. Revoking twice changes nothing."""
    with transaction.atomic():
        revoked = PrivacyLink.objects.filter(pk=link.pk, revoked_at__isnull=True).update(
            revoked_at=timezone.now(), revoked_by=str(actor)
        )
        if revoked:
            # The person's event: an erasure blanks its reason, which may name them.
            audit_about(link, actor=actor, action="privacy_link.revoke", subject_hash=link.subject_hash, reason=reason)
    link.refresh_from_db()
    return link


def privacy_link_open(token: str) -> PrivacySubject:
    """The person a link stands for and what it allows now.

    LinkInvalid when the token names no link; LinkExpired when too old; LinkRevoked when
    withdrawn, or when its maker may no longer grant any of its rights.
    """
    if not isinstance(token, str) or not TOKEN_RE.fullmatch(token):
        raise LinkInvalid("this link is not valid")
    link = (
        PrivacyLink.objects.select_related("namespace", "made_by_key", "made_by_user")
        .filter(token_hash=token_hash(token))
        .first()
    )
    if link is None:
        raise LinkInvalid("this link is not valid")
    try:
        user_id = _sealed(token, bytes(link.subject_sealed)).decode()
    except (UnicodeDecodeError, ValueError):
        raise LinkInvalid("this link is not valid") from None
    if link.subject_hash != subject_hmac(link.namespace_id, user_id):
        raise LinkInvalid("this link is not valid")
    if link.expires_at <= timezone.now():
        raise LinkExpired("this link has expired")
    if link.revoked_at is not None:
        raise LinkRevoked("this link was withdrawn")
    grantable = maker_grantable(link)
    rights = [right for right in link.rights if grantable is None or right in grantable]
    if not rights:
        raise LinkRevoked("this link was withdrawn")
    return PrivacySubject(
        namespace=link.namespace,
        user_id=user_id,
        expires_at=link.expires_at,
        token=token,
        link_id=link.pk,
        rights=frozenset(rights),
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


# --- a maker's rights change: the links they made follow ------------------------------------------


def _links_follow[T](
    links: QuerySet[PrivacyLink],
    grantable_in: Callable[[PrivacyLink], Collection[str]],
    *,
    actor: Actor,
    reason: str,
    change: Callable[[], T],
) -> T:
    """Make the maker's `change`, and narrow the live links among `links` to what their maker may still
    grant; end those left with nothing. Returns what `change` returns.

    All in one transaction: the links are locked and changed first, and their audit events recorded
    after the maker's own change, so the audit chain's lock is taken after every row lock.
    """
    now = timezone.now()
    entries = []
    with transaction.atomic():
        live = links.filter(revoked_at__isnull=True, expires_at__gt=now).select_for_update().order_by("pk")
        for link in live:
            keep = [right for right in link.rights if right in grantable_in(link)]
            if keep == link.rights:
                continue
            # The person's events (by their hash): an erasure blanks their reasons with the rest.
            if keep:
                PrivacyLink.objects.filter(pk=link.pk).update(rights=keep)
                entries.append(
                    AuditEntry.about(
                        link,
                        actor=actor,
                        action="privacy_link.narrow",
                        subject_hash=link.subject_hash,
                        reason=reason,
                        data={"from": link.rights, "to": keep},
                    )
                )
            else:
                PrivacyLink.objects.filter(pk=link.pk).update(revoked_at=now, revoked_by=str(actor))
                entries.append(
                    AuditEntry.about(
                        link, actor=actor, action="privacy_link.revoke", subject_hash=link.subject_hash, reason=reason
                    )
                )
        changed = change()
        audit_record_many(entries)
    return changed


def _links_end[T](links: QuerySet[PrivacyLink], *, actor: Actor, reason: str, change: Callable[[], T]) -> T:
    """Make the maker's `change` and end every live link among `links`: their maker may grant nothing now."""
    return _links_follow(links, lambda link: (), actor=actor, reason=reason, change=change)


def api_key_revoke_with_links(*, key: ApiKey, actor: Actor, reason: str = "") -> ApiKey:
    """Revoke a key, and with it every live privacy link it made."""
    why = f"the key that made it ({key.prefix}) was revoked"
    change = partial(api_key_revoke, key=key, actor=actor, reason=reason)
    return _links_end(PrivacyLink.objects.filter(made_by_key=key), actor=actor, reason=why, change=change)


def operator_role_set_with_links(*, user: User, role: str, actor: Actor) -> User:
    """Give `user` another role; the links they made keep only what the new role may grant."""
    limits = None if role == "admin" else rights_of_user(user)[1]
    granted = rights_of_role(role)
    return _links_follow(
        PrivacyLink.objects.filter(made_by_user=user),
        lambda link: granted if limits is None or link.namespace_id in limits else (),
        actor=actor,
        reason=f"its maker ({user.username}) is now {role}",
        change=lambda: operator_role_set(user=user, role=role, actor=actor),
    )


def operator_namespaces_set_with_links(*, user: User, namespaces: Iterable[Namespace], actor: Actor) -> list[Namespace]:
    """Limit an operator to `namespaces` (none: all); their links elsewhere end."""
    namespaces = list(namespaces)
    wanted = {ns.pk for ns in namespaces}
    return _links_end(
        PrivacyLink.objects.filter(made_by_user=user).exclude(namespace_id__in=wanted)
        if wanted
        else PrivacyLink.objects.none(),
        actor=actor,
        reason=f"its maker ({user.username}) no longer sees this namespace",
        change=lambda: operator_namespaces_set(user=user, namespaces=namespaces, actor=actor),
    )


def operator_deactivate_with_links(*, user: User, actor: Actor, reason: str = "") -> User:
    """Deactivate an account, and with it every live privacy link it made."""
    why = f"its maker ({user.username}) was deactivated"
    change = partial(operator_deactivate, user=user, actor=actor, reason=reason)
    return _links_end(PrivacyLink.objects.filter(made_by_user=user), actor=actor, reason=why, change=change)
