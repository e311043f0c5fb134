"""Data for governance tests, written through the real service functions."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import pytest

from memoryadmin.celery import app as celery_app
from memoryadmin.conversations.models import Session
from memoryadmin.conversations.services import NewMessage, session_append_messages
from memoryadmin.memories.models import Memory
from memoryadmin.memories.services import memory_create, memory_forget, memory_pin, memory_update
from memoryadmin.tenancy.models import Namespace
from tests.conftest import SYSTEM


@dataclass
class Person:
    user_id: str
    sessions: list[Session] = field(default_factory=list)
    memories: list[Memory] = field(default_factory=list)


def populate(namespace: Namespace, user_id: str, *, sessions: int = 2, messages: int = 3) -> Person:
    """Sessions with messages, memories with evidence, a revision, a pin and a tombstone."""
    person = Person(user_id)
    for s in range(sessions):
        session, created = session_append_messages(
            namespace=namespace,
            session_id=f"{user_id}-chat-{s}",
            user_id=user_id,
            messages=[
                NewMessage(role="user" if i % 2 == 0 else "assistant", content=f"{user_id} says thing {s}.{i}")
                for i in range(messages)
            ],
        )
        person.sessions.append(session)
        memory = memory_create(
            namespace=namespace,
            user_id=user_id,
            text=f"{user_id} likes topic {s}",
            actor=SYSTEM,
            session_id=session.session_id,
            topics=["likes"],
            metadata={"n": s, "nested": {"b": [1, 2], "a": None}},
            evidence_message_ids=[m.pk for m in created[:2]],
        ).memory
        person.memories.append(memory)
    edited = memory_update(memory=person.memories[0], actor=SYSTEM, text=f"{user_id} really likes topic 0")
    person.memories[0] = edited
    memory_pin(memory=person.memories[-1], actor=SYSTEM, reason="important")
    gone = memory_create(namespace=namespace, user_id=user_id, text=f"{user_id} secret", actor=SYSTEM).memory
    memory_forget(memory=gone, actor=SYSTEM, reason="asked")
    return person


@pytest.fixture
def make_person(namespace) -> Callable[..., Person]:
    def make(user_id: str = "alice", ns: Namespace | None = None, **kwargs: int) -> Person:
        return populate(ns or namespace, user_id, **kwargs)

    return make


@pytest.fixture
def eager_celery():
    """Run queued tasks in-process (tests pair this with django_capture_on_commit_callbacks)."""
    previous = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = True
    yield
    celery_app.conf.task_always_eager = previous
