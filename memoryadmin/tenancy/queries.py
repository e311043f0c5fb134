"""Reads of tenancy's tables the console shares: the console accounts with their roles and limits."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db.models import Prefetch

from memoryadmin.core.errors import NotFound
from memoryadmin.core.pagination import Page, keyset_page
from memoryadmin.tenancy.models import Namespace, OperatorNamespace
from memoryadmin.tenancy.roles import role_among


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
    page = keyset_page(
        _operators(), tag="operators", key=("username",), types=(str,), cursor=cursor, limit=limit, descending=False
    )
    return Page([_operator(user) for user in page.items], page.next_cursor)


def operator_get(username: str) -> Operator:
    user = _operators().filter(username=username).first()
    if user is None:
        raise NotFound(f"no console account {username!r}")
    return _operator(user)
