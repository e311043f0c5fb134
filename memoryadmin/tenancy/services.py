from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from datetime import timedelta
from importlib import import_module

from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.contrib.auth.models import Group, User
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ImproperlyConfigured, ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from memoryadmin.audit.services import Actor, audit_about
from memoryadmin.core.errors import Conflict, InvalidInput
from memoryadmin.tenancy.key_cache import keys_changed
from memoryadmin.tenancy.models import SCOPES, SLUG_RE, ApiKey, ExtractionStrategy, Namespace, OperatorNamespace
from memoryadmin.tenancy.roles import ROLES, role_of


def namespace_create(
    *,
    slug: str,
    actor: Actor,
    name: str = "",
    review_required: bool = False,
    extraction_strategy: str = ExtractionStrategy.OFFLINE,
    working_memory_ttl_seconds: int = 3600,
) -> Namespace:
    if not re.match(SLUG_RE, slug or ""):
        raise InvalidInput(
            f"invalid slug {slug!r}: use lowercase letters, digits and hyphens "
            "(at most 63), starting with a letter or digit",
            details={"field": "slug"},
        )
    if extraction_strategy not in ExtractionStrategy.values:
        raise InvalidInput(
            f"unknown extraction strategy {extraction_strategy!r}", details={"field": "extraction_strategy"}
        )
    with transaction.atomic():
        if Namespace.objects.filter(slug=slug).exists():
            raise Conflict(f"namespace {slug!r} already exists", code="exists")
        namespace = Namespace.objects.create(
            slug=slug,
            name=name or slug,
            review_required=review_required,
            extraction_strategy=extraction_strategy,
            working_memory_ttl_seconds=working_memory_ttl_seconds,
        )
        audit_about(
            namespace,
            actor=actor,
            action="namespace.create",
            data={"review_required": review_required, "extraction_strategy": extraction_strategy},
        )
    return namespace


def clean_scopes(scopes: Iterable[str]) -> list[str]:
    cleaned = []
    for scope in scopes:
        scope = scope.strip()
        if not scope:
            continue
        if scope not in SCOPES:
            raise InvalidInput(f"unknown scope {scope!r}; scopes are {', '.join(SCOPES)}", details={"field": "scopes"})
        if scope not in cleaned:
            cleaned.append(scope)
    if not cleaned:
        raise InvalidInput("an API key needs at least one scope", details={"field": "scopes"})
    return cleaned


def api_key_create(*, namespace: Namespace, name: str, scopes: Iterable[str], actor: Actor) -> tuple[ApiKey, str]:
    """Create a key; returns it with the raw secret, which is shown once and never stored."""
    scopes = clean_scopes(scopes)
    raw, prefix, key_hash = ApiKey.generate()
    with transaction.atomic():
        key = ApiKey.objects.create(
            namespace=namespace, name=name or "key", prefix=prefix, key_hash=key_hash, scopes=scopes
        )
        audit_about(key, actor=actor, action="api_key.create", data={"scopes": scopes, "name": key.name})
    return key, raw


def api_key_note_use(*, key: ApiKey, resolution: timedelta) -> None:
    """Note that the key was used now, at most once per `resolution`: a conditional UPDATE, so
    concurrent requests write it once between them."""
    now = timezone.now()
    if key.last_used_at is None or now - key.last_used_at >= resolution:
        ApiKey.objects.filter(pk=key.pk).filter(
            Q(last_used_at__isnull=True) | Q(last_used_at__lt=now - resolution)
        ).update(last_used_at=now)
        key.last_used_at = now


def api_key_revoke(*, key: ApiKey, actor: Actor, reason: str = "") -> ApiKey:
    with transaction.atomic():
        updated = ApiKey.objects.filter(pk=key.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())
        if updated:
            audit_about(key, actor=actor, action="api_key.revoke", reason=reason)
            keys_changed()
    key.refresh_from_db()
    return key


_USERNAME = UnicodeUsernameValidator()
# Letters of other scripts that are drawn like Latin ones (Unicode's confusables, the common part), and the
# digits read as letters: two names equal once mapped look the same on a page.
_LOOKALIKE = str.maketrans(
    "\u0430\u0435\u043e\u0440\u0441\u0443\u0445\u0456\u0458\u0455\u0501\u04cf\u04bb\u051b\u051d\u0432\u043c\u043d\u0442\u043a"
    "\u03bf\u03b1\u03bd\u03b9\u03ba\u03c1\u03c4\u03c5\u03c7\u03b5\u0131"
    "01|",
    "aeopcyxijsdlhqwbmhtkoavikptuxeioll",
)


def _skeleton(username: str) -> str:
    return unicodedata.normalize("NFKC", username).casefold().translate(_LOOKALIKE).replace("_", "-")


def _scripts(username: str) -> set[str]:
    return {unicodedata.name(ch, "?").split()[0] for ch in username if ch.isalpha()}


def clean_username(username: str) -> None:
    """Django's rules for a username (letters, digits and @ . + - _, at most 150), in one script."""
    if not username or len(username) > 150:
        raise InvalidInput("a username of 1 to 150 characters is required", details={"field": "username"})
    try:
        _USERNAME(username)
    except ValidationError:
        raise InvalidInput(
            "a username holds letters, digits and @ . + - _ only", details={"field": "username"}
        ) from None
    if unicodedata.normalize("NFKC", username) != username:
        raise InvalidInput(
            f"write the username as {unicodedata.normalize('NFKC', username)!r}", details={"field": "username"}
        )
    if len(_scripts(username)) > 1:
        raise InvalidInput(
            "a username mixes alphabets (for instance a Cyrillic letter among Latin ones); use one",
            details={"field": "username"},
        )


def _refuse_lookalike(username: str) -> None:
    """Refuse a name that reads like an existing one. Accounts are people, a short table: read it whole."""
    skeleton = _skeleton(username)
    for existing in User.objects.values_list("username", flat=True).iterator():
        if _skeleton(existing) == skeleton:
            raise Conflict(f"{username!r} looks like the existing account {existing!r}", code="exists")


def _clean_role(role: str) -> None:
    if role not in ROLES:
        raise InvalidInput(f"unknown role {role!r}; roles are {', '.join(ROLES)}", details={"field": "role"})


def _lock_admins() -> None:
    """Serialise every change of who is an active admin, so two admins cannot demote each other at once."""
    Group.objects.get_or_create(name="admin")
    Group.objects.select_for_update().get(name="admin")


def _another_admin_remains(user: User) -> bool:
    admins = User.objects.filter(is_active=True).filter(Q(is_superuser=True) | Q(groups__name="admin"))
    return admins.exclude(pk=user.pk).exists()


def _limit_names(namespaces: Iterable[Namespace]) -> list[str]:
    return sorted(ns.slug for ns in namespaces)


def operator_create(
    *, username: str, role: str, password: str, actor: Actor, namespaces: Iterable[Namespace] = ()
) -> User:
    """A console account with a role; `namespaces` limits an operator or viewer to those (none: all)."""
    _clean_role(role)
    namespaces = list(namespaces)
    clean_username(username)
    if len(password) < 8:
        raise InvalidInput("the password must have at least 8 characters", details={"field": "password"})
    if namespaces and role == "admin":
        raise InvalidInput(
            "an admin sees every namespace; limits are for operators and viewers", details={"field": "namespaces"}
        )
    with transaction.atomic():
        if User.objects.filter(username=username).exists():
            raise Conflict(f"user {username!r} already exists", code="exists")
        _refuse_lookalike(username)
        user = User.objects.create_user(username=username, password=password, is_staff=role == "admin")
        # The role groups come from a data migration; should they be missing (a flushed database),
        # giving the role recreates its group rather than failing.
        user.groups.add(Group.objects.get_or_create(name=role)[0])
        OperatorNamespace.objects.bulk_create(OperatorNamespace(user=user, namespace=ns) for ns in namespaces)
        data: dict[str, object] = {"role": role}
        if namespaces:
            data["namespaces"] = _limit_names(namespaces)
        audit_about(user, actor=actor, action="operator.create", data=data)
    return user


def operator_role_set(*, user: User, role: str, actor: Actor) -> User:
    """Give `user` another role. Made admin, their namespace limits go (an admin sees everything)."""
    _clean_role(role)
    if user.is_superuser:
        raise Conflict(f"{user.username} is a superuser, always an admin", code="superuser")
    with transaction.atomic():
        _lock_admins()
        user = User.objects.select_for_update().get(pk=user.pk)
        before = role_of(user)
        if before == role:
            return user
        if before == "admin" and user.is_active and not _another_admin_remains(user):
            raise Conflict(f"{user.username} is the last admin; make someone else admin first", code="last_admin")
        user.groups.remove(*Group.objects.filter(name__in=ROLES))
        user.groups.add(Group.objects.get_or_create(name=role)[0])
        user.is_staff = role == "admin"
        user.save(update_fields=["is_staff"])
        dropped = []
        if role == "admin":
            grants = OperatorNamespace.objects.filter(user=user)
            dropped = sorted(grants.values_list("namespace__slug", flat=True))
            grants.delete()
        data: dict[str, object] = {"from": before, "to": role}
        if dropped:
            data["limits_removed"] = dropped
        audit_about(user, actor=actor, action="operator.role", data=data)
    return user


def _operator_sessions_end(user: User) -> int:
    """Delete every session `user` is signed in with, so reactivating the account revives none of them.

    Django only refuses an inactive user's session; the session itself stays and is accepted again
    once the account is active. Sessions are stored by user id inside their encoded data, so the
    live ones are read through (few: one per signed-in browser).
    """
    store = import_module(settings.SESSION_ENGINE).SessionStore
    if not hasattr(store, "get_model_class"):
        raise ImproperlyConfigured("operator deactivation needs database-backed sessions (SESSION_ENGINE)")
    live = store.get_model_class().objects.filter(expire_date__gt=timezone.now())
    ended = [s.session_key for s in live.iterator() if s.get_decoded().get(SESSION_KEY) == str(user.pk)]
    for session_key in ended:
        store(session_key=session_key).delete()
    return len(ended)


def operator_deactivate(*, user: User, actor: Actor, reason: str = "") -> User:
    """Sign `user` out for good: an inactive account cannot sign in, and its sessions are deleted,
    so reactivating it needs a new sign-in."""
    if actor == Actor.operator(user.username):
        raise Conflict("you cannot deactivate your own account", code="self")
    with transaction.atomic():
        _lock_admins()
        user = User.objects.select_for_update().get(pk=user.pk)
        if not user.is_active:
            return user
        if role_of(user) == "admin" and not _another_admin_remains(user):
            raise Conflict(f"{user.username} is the last active admin", code="last_admin")
        user.is_active = False
        user.save(update_fields=["is_active"])
        sessions = _operator_sessions_end(user)
        audit_about(user, actor=actor, action="operator.deactivate", reason=reason, data={"sessions_ended": sessions})
    return user


def operator_reactivate(*, user: User, actor: Actor, reason: str = "") -> User:
    with transaction.atomic():
        updated = User.objects.filter(pk=user.pk, is_active=False).update(is_active=True)
        if updated:
            audit_about(user, actor=actor, action="operator.reactivate", reason=reason)
    user.refresh_from_db()
    return user


def operator_namespaces_set(*, user: User, namespaces: Iterable[Namespace], actor: Actor) -> list[Namespace]:
    """Limit an operator or viewer to `namespaces`; an empty list lifts the limit (every namespace)."""
    wanted = {ns.pk: ns for ns in namespaces}
    if wanted and role_of(user) == "admin":
        raise InvalidInput(
            "an admin sees every namespace; limits are for operators and viewers", details={"field": "namespaces"}
        )
    with transaction.atomic():
        User.objects.select_for_update().filter(pk=user.pk).values_list("pk", flat=True).first()
        held = dict(OperatorNamespace.objects.filter(user=user).values_list("namespace_id", "namespace__slug"))
        if set(held) == set(wanted):
            return list(wanted.values())
        OperatorNamespace.objects.filter(user=user).exclude(namespace_id__in=list(wanted)).delete()
        OperatorNamespace.objects.bulk_create(
            OperatorNamespace(user=user, namespace=ns) for pk, ns in wanted.items() if pk not in held
        )
        audit_about(
            user,
            actor=actor,
            action="operator.namespaces",
            data={"from": sorted(held.values()), "to": _limit_names(wanted.values())},
        )
    return list(wanted.values())


def namespace_update(
    *,
    namespace: Namespace,
    actor: Actor,
    name: str | None = None,
    review_required: bool | None = None,
    extraction_strategy: str | None = None,
    extraction_config: dict | None = None,
    working_memory_ttl_seconds: int | None = None,
) -> Namespace:
    """Change a namespace's settings. The strategy's own config rules are checked by the caller's layer
    (extraction knows them; tenancy sits below it)."""
    changes: dict[str, object] = {}
    if name is not None:
        if not name.strip() or len(name) > 200:
            raise InvalidInput("a name of 1 to 200 characters is required", details={"field": "name"})
        changes["name"] = name.strip()
    if review_required is not None:
        changes["review_required"] = bool(review_required)
    if extraction_strategy is not None:
        if extraction_strategy not in ExtractionStrategy.values:
            raise InvalidInput(
                f"unknown extraction strategy {extraction_strategy!r}", details={"field": "extraction_strategy"}
            )
        changes["extraction_strategy"] = extraction_strategy
    if extraction_config is not None:
        if not isinstance(extraction_config, dict):
            raise InvalidInput("extraction_config must be an object", details={"field": "extraction_config"})
        changes["extraction_config"] = extraction_config
    if working_memory_ttl_seconds is not None:
        if not 1 <= working_memory_ttl_seconds <= 365 * 86400:
            raise InvalidInput(
                "working_memory_ttl_seconds must be between 1 and 31536000",
                details={"field": "working_memory_ttl_seconds"},
            )
        changes["working_memory_ttl_seconds"] = working_memory_ttl_seconds
    with transaction.atomic():
        locked = Namespace.objects.select_for_update().get(pk=namespace.pk)
        changed = {key: value for key, value in changes.items() if getattr(locked, key) != value}
        if not changed:
            return locked
        for key, value in changed.items():
            setattr(locked, key, value)
        locked.save(update_fields=list(changed))
        audit_about(locked, actor=actor, action="namespace.update", data={"fields": sorted(changed)})
    return locked
