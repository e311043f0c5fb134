"""Operator roles are Django groups; each role includes the rights of the ones before it."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

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
