"""Reads of tenancy's tables: namespaces, API keys, and the console accounts with their roles and limits."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db import connection
from django.db.models import Prefetch, QuerySet

from memoryadmin.core.errors import found
from memoryadmin.core.pagination import Page, keyset_page
from memoryadmin.core.rows import RowLoader
from memoryadmin.tenancy.models import ApiKey, Namespace, OperatorNamespace
from memoryadmin.tenancy.roles import role_among


def namespaces_by_slug(ids: Iterable[int] | None = None) -> QuerySet[Namespace]:
    """Every namespace, or those among `ids`, in slug order."""
    qs = Namespace.objects.order_by("slug")
    return qs if ids is None else qs.filter(pk__in=ids)


def namespace_with_slug(slug: str) -> Namespace | None:
    return Namespace.objects.filter(slug=slug).first()


def namespace_with_pk(namespace_id: int) -> Namespace | None:
    return Namespace.objects.filter(pk=namespace_id).first()


def namespace_id_of(*, slug: str | None = None, namespace_id: int | None = None) -> int | None:
    """The id of the namespace with this slug (or id), None when there is none."""
    qs = Namespace.objects.filter(slug=slug) if slug is not None else Namespace.objects.filter(pk=namespace_id)
    return qs.values_list("pk", flat=True).first()


def api_keys_of(namespace: Namespace) -> list[ApiKey]:
    """The namespace's keys, newest first, revoked ones included."""
    return list(ApiKey.objects.filter(namespace=namespace).order_by("-created_at"))


def api_key_in(namespace: Namespace, key_id: int) -> ApiKey | None:
    return ApiKey.objects.filter(namespace=namespace, pk=key_id).first()


def api_key_namespace_id(key_id: int) -> int | None:
    return ApiKey.objects.filter(pk=key_id).values_list("namespace_id", flat=True).first()


# Every API request starts with this lookup (unless its process holds the row: `key_cache`), so the
# statement is written once instead of compiled by the ORM per request (that compilation cost more than
# the lookup itself).
_KEYS = RowLoader(ApiKey, ApiKey._meta.concrete_fields)
_NAMESPACES = RowLoader(Namespace, Namespace._meta.concrete_fields)
_LIVE_KEY_SQL = (
    f"SELECT {', '.join(_KEYS.columns('k') + _NAMESPACES.columns('n'))} "
    f"FROM {ApiKey._meta.db_table} k JOIN {Namespace._meta.db_table} n ON n.id = k.namespace_id "
    "WHERE k.key_hash = %s AND k.revoked_at IS NULL"
)


def api_key_live_row(key_hash: str) -> tuple | None:
    """The row of the unrevoked key with this hash and its namespace, as `api_key_from_row` takes it."""
    with connection.cursor() as cursor:
        cursor.execute(_LIVE_KEY_SQL, [key_hash])
        return cursor.fetchone()


def api_key_live(key_hash: str) -> ApiKey | None:
    """The unrevoked key with this hash, its namespace loaded, in one query."""
    row = api_key_live_row(key_hash)
    return None if row is None else api_key_from_row(row)


def api_key_from_row(row: tuple) -> ApiKey:
    """A key with its namespace loaded, new objects each call."""
    key = _KEYS.load(row[: _KEYS.width])
    # The row may be kept between requests (`key_cache`): no list of it is shared with the key.
    key.scopes = list(key.scopes)
    key.namespace = _NAMESPACES.load(row[_KEYS.width :])
    return key


@dataclass
class Operator:
    """A console account as the people pages show it."""

    user: User
    role: str | None
    # The namespaces the account is limited to; empty: every namespace.
    namespaces: list[Namespace]

    @property
    def username(self) -> str:
        return self.user.username


def _operators():
    grants = OperatorNamespace.objects.select_related("namespace").order_by("namespace__slug")
    return User.objects.prefetch_related("groups", Prefetch("namespace_grants", queryset=grants))


def _operator(user: User) -> Operator:
    names = {group.name for group in user.groups.all()}
    return Operator(
        user=user,
        role=role_among(names, superuser=user.is_superuser),
        namespaces=[grant.namespace for grant in user.namespace_grants.all()],  # type: ignore[attr-defined]
    )


def operators_page(*, cursor: str | None = None, limit: int = 50) -> Page[Operator]:
    """Accounts by username, three queries a page whatever its size."""
    page = keyset_page(_operators(), tag="operators", key=("username",), cursor=cursor, limit=limit, descending=False)
    return Page([_operator(user) for user in page.items], page.next_cursor)


def account_with_username(username: str) -> User | None:
    """The console account with this username, without its roles and limits."""
    return User.objects.filter(username=username).first()


def operator_get(username: str) -> Operator:
    return _operator(found(_operators().filter(username=username), f"no console account {username!r}"))
