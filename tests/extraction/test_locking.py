"""The writing transaction of a run, seen from other connections: deletions wait for it, appends do not."""

from __future__ import annotations

import threading

import pytest
from django.db import connections

from memoryadmin.conversations.models import Message, Session
from memoryadmin.conversations.services import session_delete
from memoryadmin.extraction.services import extraction_run, extraction_schedule
from memoryadmin.extraction.services import runs as services
from memoryadmin.memories.models import Memory
from tests.conftest import SYSTEM
from tests.extraction.conftest import say

pytestmark = pytest.mark.django_db(transaction=True)


def in_another_connection(work) -> threading.Thread:
    def target() -> None:
        try:
            work()
        finally:
            connections.close_all()

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    return thread


def pause_inside_the_write(monkeypatch, during) -> list:
    """Run `during()` when the run's transaction writes its first memory; collect what it returns."""
    seen: list = []
    original = services.memory_create_many

    def create(**kwargs):
        if not seen:
            seen.append(during())
        return original(**kwargs)

    monkeypatch.setattr(services, "memory_create_many", create)
    return seen


def test_an_append_is_not_held_up_while_a_run_writes(namespace, monkeypatch) -> None:
    session, _ = say(namespace, "I live in Lyon.")

    def append_elsewhere() -> bool:
        thread = in_another_connection(lambda: say(namespace, "I love jazz."))
        thread.join(20)
        return not thread.is_alive()

    seen = pause_inside_the_write(monkeypatch, append_elsewhere)
    run = extraction_run(run=extraction_schedule(session=session, delay=0))
    assert seen == [True]
    assert run.created == 1 and run.to_seq == 1
    # The message that arrived mid-run is left for the run its append scheduled.
    assert list(Message.objects.filter(extracted_at__isnull=True).values_list("seq", flat=True)) == [2]


def test_a_deletion_waits_until_the_run_has_written(namespace, monkeypatch) -> None:
    session, _ = say(namespace, "I live in Lyon.")
    deleting: list[threading.Thread] = []

    def delete_elsewhere() -> bool:
        thread = in_another_connection(lambda: session_delete(session=session, actor=SYSTEM))
        thread.join(0.5)
        deleting.append(thread)
        return thread.is_alive()

    seen = pause_inside_the_write(monkeypatch, delete_elsewhere)
    run = extraction_schedule(session=session, delay=0)
    finished = extraction_run(run=run)
    assert seen == [True], "the deletion should have been waiting"
    # The deletion goes on once the write commits: the run's own row may go with the session
    # before the run records that it finished (then there is nothing to return).
    assert finished is None or finished.created == 1
    deleting[0].join(20)
    assert not deleting[0].is_alive()
    assert not Session.objects.exists()
    # Written before the deletion, the memory stays (its evidence went with the messages), as for any session.
    assert list(Memory.objects.values_list("text", flat=True)) == ["User lives in Lyon"]
