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


def role_of(user: AbstractBaseUser | AnonymousUser) -> str | None:
    if not user.is_authenticated:
        return None
    if user.is_superuser:
        return "admin"
    names = set(user.groups.values_list("name", flat=True))  # type: ignore[attr-defined]
    for role in reversed(ROLES):
        if role in names:
            return role
    return None


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
    role = next((role for role in reversed(ROLES) if role in names), None)
    if role == "admin" or not ids:
        return role, None
    return role, frozenset(int(pk) for pk in ids)
