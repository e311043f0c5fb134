"""Shared fixtures. Tests talk to the real PostgreSQL and Redis.

Each pytest-xdist worker gets its own test database (pytest-django) and its
own Redis database number, flushed before every test, so workers never see
each other's keys. TEST_REDIS_DB_BASE moves the range (default 1).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.db.backends.postgresql.operations import DatabaseOperations
from django.test import Client

from memoryadmin.audit.services import Actor
from memoryadmin.conversations.models import Message, Session
from memoryadmin.conversations.services import NewMessage, session_append_messages
from memoryadmin.core import metrics
from memoryadmin.core.redis_client import get_redis
from memoryadmin.memories.models import Memory, MemorySource
from memoryadmin.memories.services import memory_create
from memoryadmin.tenancy import access_log
from memoryadmin.tenancy.models import ApiKey, Namespace
from memoryadmin.tenancy.services import api_key_create, namespace_create, operator_create

SYSTEM = Actor.system("tests")

# Transactional tests reset the database with TRUNCATE (Django's flush, in one transaction), which
# the audit table refuses unless the transaction allows it (migration audit 0003): the tests' flush
# does, with SET LOCAL, which also holds behind a transaction pooler (a connect option would not).
_sql_flush = DatabaseOperations.sql_flush


def _sql_flush_allowing_audit_truncate(self, style, tables, **kwargs):
    statements = _sql_flush(self, style, tables, **kwargs)
    return ["SET LOCAL memoryadmin.audit_truncate = 'allowed'", *statements] if statements else statements


DatabaseOperations.sql_flush = _sql_flush_allowing_audit_truncate


def _worker_index() -> int:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    return int(worker.removeprefix("gw") or 0)


def redis_test_url() -> str:
    base = int(os.environ.get("TEST_REDIS_DB_BASE", "1"))
    host = os.environ.get("TEST_REDIS_HOST", "127.0.0.1:6379")
    return f"redis://{host}/{base + _worker_index()}"


@pytest.fixture(autouse=True)
def _isolated_redis(settings) -> Iterator[None]:
    settings.REDIS_URL = redis_test_url()
    get_redis().flushdb()
    # A Redis failure met by an earlier test of this process pauses the access log and the metrics for a few
    # seconds, by URL ("redis://127.0.0.1:1/0" stands for a Redis that is down in many tests): none is remembered.
    access_log._paused_until.clear()
    metrics._paused_until.clear()
    yield


@pytest.fixture
def redis_client():
    return get_redis()


@pytest.fixture
def make_namespace(db) -> Callable[..., Namespace]:
    def make(slug: str = "alpha", **kwargs: object) -> Namespace:
        return namespace_create(slug=slug, actor=SYSTEM, **kwargs)  # type: ignore[arg-type]

    return make


@pytest.fixture
def namespace(make_namespace) -> Namespace:
    return make_namespace("alpha")


@pytest.fixture
def other_namespace(make_namespace) -> Namespace:
    return make_namespace("bravo")


@pytest.fixture
def make_key(db) -> Callable[..., tuple[ApiKey, str]]:
    def make(ns: Namespace, scopes: str = "read,write,erase") -> tuple[ApiKey, str]:
        return api_key_create(namespace=ns, name="test", scopes=scopes.split(","), actor=SYSTEM)

    return make


class ApiClient:
    """The Django test client with a bearer key and JSON bodies."""

    def __init__(self, raw_key: str | None) -> None:
        self.client = Client()
        self.headers = {"Authorization": f"Bearer {raw_key}"} if raw_key else {}

    def _send(self, method: str, path: str, json: object = None, **kwargs: object):
        call = getattr(self.client, method)
        if json is not None:
            kwargs.setdefault("data", json)
            kwargs.setdefault("content_type", "application/json")
        headers = {**self.headers, **kwargs.pop("headers", {})}  # type: ignore[dict-item]
        return call(path, headers=headers, **kwargs)

    def get(self, path: str, **kw: object):
        return self._send("get", path, **kw)

    def post(self, path: str, json: object = None, **kw: object):
        return self._send("post", path, json, **kw)

    def put(self, path: str, json: object = None, **kw: object):
        return self._send("put", path, json, **kw)

    def patch(self, path: str, json: object = None, **kw: object):
        return self._send("patch", path, json, **kw)

    def delete(self, path: str, **kw: object):
        return self._send("delete", path, **kw)


@pytest.fixture
def api(namespace, make_key) -> ApiClient:
    """A client with a read/write/erase key of `namespace`."""
    return ApiClient(make_key(namespace)[1])


@pytest.fixture
def other_api(other_namespace, make_key) -> ApiClient:
    """A client whose key belongs to another namespace."""
    return ApiClient(make_key(other_namespace)[1])


@pytest.fixture
def anon_api() -> ApiClient:
    return ApiClient(None)


@pytest.fixture(autouse=True, scope="session")
def _celery_broker_on_test_redis() -> None:
    """Tasks a test starts go to its worker's own Redis database, never to the development broker."""
    from memoryadmin.celery import app as celery_app

    url = redis_test_url()
    settings.CELERY_BROKER_URL = url
    celery_app.conf.broker_url = url


__all__ = ["SYSTEM", "ApiClient", "redis_test_url", "settings"]


@pytest.fixture(scope="session")
def asgi_server(django_db_setup, django_db_blocker):
    """The production ASGI app in its own uvicorn process, against this worker's test database and Redis."""
    from tests.asgi_server import AsgiServer

    server = AsgiServer().wait_ready()
    yield server
    server.stop()


LIMITED_RATE = 6


@pytest.fixture(scope="session")
def limited_asgi_server(django_db_setup, django_db_blocker):
    """The same, with a rate limit of LIMITED_RATE requests per key and minute."""
    from tests.asgi_server import AsgiServer

    server = AsgiServer(API_RATE_LIMIT_PER_MINUTE=str(LIMITED_RATE)).wait_ready()
    yield server
    server.stop()


# --- Operators: alice (admin), olivia (operator), victor (viewer), nora (no role) ---------------------

PASSWORD = "correct horse battery"


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings) -> None:
    # Operators are created in nearly every console test; a deliberately slow hash would dominate the suite.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def operator_user(username: str, role: str | None) -> User:
    """A console user with `role` (admin, operator, viewer), or with none."""
    if role is None:
        return User.objects.create_user(username=username, password=PASSWORD)
    return operator_create(username=username, role=role, password=PASSWORD, actor=SYSTEM)


def signed_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def alice(db) -> User:
    return operator_user("alice", "admin")


@pytest.fixture
def olivia(db) -> User:
    return operator_user("olivia", "operator")


@pytest.fixture
def victor(db) -> User:
    return operator_user("victor", "viewer")


@pytest.fixture
def admin_client(alice) -> Client:
    return signed_in(alice)


@pytest.fixture
def operator_client(olivia) -> Client:
    return signed_in(olivia)


@pytest.fixture
def viewer_client(victor) -> Client:
    return signed_in(victor)


@pytest.fixture
def norole_client(db) -> Client:
    return signed_in(operator_user("nora", None))


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
