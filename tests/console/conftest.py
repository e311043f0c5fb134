"""Personas and data for console tests: alice (admin), olivia (operator), victor (viewer), nora (no role)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from memoryadmin.audit.services import Actor
from memoryadmin.conversations.models import Message, Session
from memoryadmin.conversations.services import NewMessage, session_append_messages
from memoryadmin.memories.models import Memory, MemorySource
from memoryadmin.memories.services import memory_create
from memoryadmin.tenancy.models import Namespace
from memoryadmin.tenancy.services import operator_create

SYSTEM = Actor.system("tests")
PASSWORD = "correct horse battery"


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings) -> None:
    # Personas are created in nearly every test; a deliberately slow hash would dominate the suite.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def _user(username: str, role: str | None) -> User:
    if role is None:
        return User.objects.create_user(username=username, password=PASSWORD)
    return operator_create(username=username, role=role, password=PASSWORD, actor=SYSTEM)


def _client(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def alice(db) -> User:
    return _user("alice", "admin")


@pytest.fixture
def olivia(db) -> User:
    return _user("olivia", "operator")


@pytest.fixture
def victor(db) -> User:
    return _user("victor", "viewer")


@pytest.fixture
def admin_client(alice) -> Client:
    return _client(alice)


@pytest.fixture
def operator_client(olivia) -> Client:
    return _client(olivia)


@pytest.fixture
def viewer_client(victor) -> Client:
    return _client(victor)


@pytest.fixture
def norole_client(db) -> Client:
    return _client(_user("nora", None))


@pytest.fixture
def htmx() -> dict[str, str]:
    """Headers of a request htmx makes."""
    return {"HX-Request": "true"}


@pytest.fixture
def make_memory(namespace) -> Callable[..., Memory]:
    def make(text: str = "User likes jazz", *, ns: Namespace | None = None, **kwargs: Any) -> Memory:
        kwargs.setdefault("user_id", "u1")
        result = memory_create(namespace=ns or namespace, text=text, actor=SYSTEM, **kwargs)
        assert result.memory is not None, result.outcome
        return result.memory

    return make


@pytest.fixture
def make_candidate(make_memory) -> Callable[..., Memory]:
    def make(text: str = "User prefers aisle seats", **kwargs: Any) -> Memory:
        return make_memory(text, status="candidate", source=MemorySource.EXTRACTION, **kwargs)

    return make


@pytest.fixture
def make_session(namespace) -> Callable[..., tuple[Session, list[Message]]]:
    def make(
        session_id: str = "s1",
        messages: list[NewMessage] | None = None,
        *,
        ns: Namespace | None = None,
        user_id: str = "u1",
        agent_id: str = "agent-1",
    ) -> tuple[Session, list[Message]]:
        batch = messages or [
            NewMessage(role="system", kind="instruction", content="Be brief."),
            NewMessage(role="user", content="I live in Lyon."),
            NewMessage(role="assistant", content="Noted."),
        ]
        return session_append_messages(
            namespace=ns or namespace, session_id=session_id, user_id=user_id, agent_id=agent_id, messages=batch
        )

    return make
