from __future__ import annotations

import threading
import time

import pytest
from django.db import IntegrityError, connection, transaction

from memoryadmin.conversations.models import Message, Session
from memoryadmin.conversations.services import NewMessage, session_append_messages
from memoryadmin.core.errors import Conflict, InvalidInput


def append(namespace, n: int = 2, session_id: str = "s1", user_id: str | None = "alice"):
    return session_append_messages(
        namespace=namespace,
        session_id=session_id,
        user_id=user_id,
        messages=[NewMessage(role="user", content=f"m{i}") for i in range(n)],
    )


def test_appends_number_messages_gap_free_from_one(namespace) -> None:
    append(namespace, 3)
    session, created = append(namespace, 2)
    assert [m.seq for m in created] == [4, 5]
    assert session.message_count == 5
    assert list(Message.objects.filter(session=session).order_by("seq").values_list("seq", flat=True)) == [
        1,
        2,
        3,
        4,
        5,
    ]


def test_seq_is_unique_per_session(namespace) -> None:
    session, created = append(namespace, 1)
    with pytest.raises(IntegrityError), transaction.atomic():
        Message.objects.create(
            session=session, seq=created[0].seq, role="user", content="x", created_at=created[0].created_at
        )


def test_creating_a_session_by_append_needs_a_user_id(namespace) -> None:
    with pytest.raises(InvalidInput):
        append(namespace, user_id=None)


def test_a_session_keeps_its_user(namespace) -> None:
    append(namespace)
    with pytest.raises(Conflict) as refused:
        append(namespace, user_id="mallory")
    assert refused.value.code == "user_mismatch"
    # Nothing of the refused batch was written, and the counter was not bumped.
    assert Message.objects.count() == 2
    assert Session.objects.get().message_count == 2
    _, created = append(namespace, 1)
    assert [m.seq for m in created] == [3]


def test_an_append_to_an_existing_session_is_one_statement(namespace, django_assert_num_queries) -> None:
    append(namespace, 1)
    with django_assert_num_queries(1):
        session, created = append(namespace, 3, user_id=None)
    assert [m.seq for m in created] == [2, 3, 4]
    stored = Message.objects.filter(session=session).order_by("seq")
    assert [(m.pk, m.seq, m.content) for m in stored][1:] == [(m.pk, m.seq, m.content) for m in created]


def test_a_bad_batch_writes_nothing(namespace) -> None:
    append(namespace, 1)
    with pytest.raises(InvalidInput):
        session_append_messages(
            namespace=namespace,
            session_id="s1",
            messages=[NewMessage(role="user", content="ok"), NewMessage(role="robot", content="bad")],
        )
    assert Message.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_an_append_to_a_session_deleted_meanwhile_is_refused(namespace) -> None:
    append(namespace, 1)
    locked = threading.Event()

    def delete_while_locked() -> None:
        try:
            with transaction.atomic():
                Session.objects.select_for_update().get(namespace=namespace, session_id="s1")
                locked.set()
                time.sleep(0.3)
                Session.objects.filter(namespace=namespace, session_id="s1").delete()
        finally:
            connection.close()

    deleter = threading.Thread(target=delete_while_locked)
    deleter.start()
    locked.wait(5)
    with pytest.raises(Conflict) as refused:
        append(namespace, 2)
    deleter.join(5)
    assert refused.value.code == "session_deleted"
    assert not Session.objects.exists()
    assert not Message.objects.exists()
