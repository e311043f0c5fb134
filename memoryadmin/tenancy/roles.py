"""Operator roles are Django groups; each role includes the rights of the ones before it.

An operator or viewer may also be limited to some namespaces (`OperatorNamespace` rows);
without any row they see every namespace. An admin is never limited.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, Group
from django.db.models import CharField, Value
from django.db.models.functions import Cast

from memoryadmin.tenancy.models import OperatorNamespace

ROLES = ("viewer", "operator", "admin")


def role_among(group_names: set[str], *, superuser: bool = False) -> str | None:
    """The highest role among a user's groups (a superuser is always an admin)."""
    if superuser:
        return "admin"
    return next((role for role in reversed(ROLES) if role in group_names), None)


def role_of(user: AbstractBaseUser | AnonymousUser) -> str | None:
    if not user.is_authenticated:
        return None
    if user.is_superuser:
        return "admin"
    return role_among(set(user.groups.values_list("name", flat=True)))  # type: ignore[attr-defined]


def rights_of_user(user: AbstractBaseUser | AnonymousUser) -> tuple[str | None, frozenset[int] | None]:
    """The user's role and the ids of the namespaces they are limited to (None: all), in one query."""
    if not user.is_authenticated:
        return None, None
    if user.is_superuser:
        return "admin", None
    groups = Group.objects.filter(user=user.pk).values_list(Value("role"), "name")
    grants = OperatorNamespace.objects.filter(user=user.pk).values_list(
        Value("namespace"), Cast("namespace_id", CharField())
    )
    names, ids = set(), set()
    for kind, value in groups.union(grants, all=True):
        (names if kind == "role" else ids).add(value)
    role = role_among(names)
    if role == "admin" or not ids:
        return role, None
    return role, frozenset(int(pk) for pk in ids)
