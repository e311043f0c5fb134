"""Operators of every role, for the security tests: adam (admin), otto (operator), vera (viewer), nils (no role)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from memoryadmin.tenancy.services import operator_create
from tests.conftest import SYSTEM

PASSWORD = "correct horse battery"
ROLE_USERS = {"admin": "adam", "operator": "otto", "viewer": "vera"}


def make_operator(username: str, role: str | None) -> User:
    if role is None:
        return User.objects.create_user(username=username, password=PASSWORD)
    return operator_create(username=username, role=role, password=PASSWORD, actor=SYSTEM)


def signed_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def operators(db) -> dict[str | None, User]:
    """One user per role, and one (`None`) without a role."""
    users: dict[str | None, User] = {role: make_operator(name, role) for role, name in ROLE_USERS.items()}
    users[None] = make_operator("nils", None)
    return users


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings) -> None:
    # Sign-in tests hash many passwords; the real hasher's cost is not what they test.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
