"""seed_demo: the demo data `make run` loads, written in batches, in one transaction."""

from __future__ import annotations

import io
import logging
import re
from collections.abc import Iterator

import pytest
from django.core.management import call_command
from django.test import Client

from memoryadmin.celery import app as celery_app
from memoryadmin.conversations.models import Message, Session
from memoryadmin.conversations.services import NewMessage, session_append_messages
from memoryadmin.extraction.models import ExtractionRun
from memoryadmin.memories.models import Memory, MemoryEvidence, MemoryRevision, Tombstone
from memoryadmin.tenancy.models import ApiKey, Namespace
from tests.conftest import redis_test_url
from tests.deploy.conftest import free_port

pytestmark = pytest.mark.django_db(transaction=True)

SMALL = ["--users", "6", "--sessions", "12", "--messages-per-session", "10", "--memories", "60"]


def forget_broker_connections() -> None:
    # Celery builds its connection and producer pools for one broker URL, on first use.
    celery_app._pool = None
    celery_app.amqp._producer_pool = None


@pytest.fixture
def broker_down() -> Iterator[None]:
    previous = celery_app.conf.broker_url
    celery_app.conf.broker_url = f"redis://127.0.0.1:{free_port()}/0"
    forget_broker_connections()
    try:
        yield
    finally:
        celery_app.conf.broker_url = previous
        forget_broker_connections()


def seed(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("seed_demo", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_it_seeds_sessions_memories_with_evidence_revisions_and_tombstones() -> None:
    out, err = seed(*SMALL)
    assert err == ""
    assert out.startswith("Seeded 3 namespaces, 6 users, 12 sessions, 120 messages, 60 memories in ")
    assert Session.objects.count() == 12 + 3
    assert Message.objects.filter(session__session_id__startswith="sess-").count() == 120
    assert Memory.objects.count() == 60 - 1
    assert Tombstone.objects.count() == 1
    assert MemoryRevision.objects.filter(revision=2).exists()
    # Each piece of evidence is the message in which the user said it.
    evidence = MemoryEvidence.objects.select_related("memory", "message")
    assert evidence.exists()
    for link in evidence:
        said = link.message.content.removesuffix(".").lower().split()[-1]
        assert said in link.memory.text.lower(), (link.message.content, link.memory.text)
    # A seeded session takes the next append where its messages end.
    session = Session.objects.get(session_id="sess-0000")
    _, (appended,) = session_append_messages(
        namespace=session.namespace, session_id="sess-0000", messages=[NewMessage(role="user", content="Hi")]
    )
    assert appended.seq == 11


def test_each_seeded_session_has_its_extraction_scheduled_when_the_seed_commits() -> None:
    seed(*SMALL)
    assert ExtractionRun.objects.count() == Session.objects.count()


def test_with_the_broker_down_it_says_so_in_one_line_and_seeds_everything_else(broker_down, caplog) -> None:
    with caplog.at_level(logging.WARNING):
        out, err = seed(*SMALL)

    (line,) = err.splitlines()
    assert line.startswith("Celery's broker cannot be used (OperationalError: ")
    assert "seeded without scheduling the extraction of its sessions" in line
    assert not [record for record in caplog.records if record.exc_info]
    assert out.startswith("Seeded 3 namespaces")
    assert Memory.objects.count() == 60 - 1
    assert not ExtractionRun.objects.exists()


def test_after_a_seed_without_broker_appends_schedule_extraction_again(broker_down) -> None:
    seed(*SMALL)
    celery_app.conf.broker_url = redis_test_url()
    forget_broker_connections()
    namespace = Namespace.objects.get(slug="support-bot")
    session, _ = session_append_messages(
        namespace=namespace, session_id="after-seed", user_id="u1", messages=[NewMessage(role="user", content="Hi")]
    )
    assert ExtractionRun.objects.filter(session=session).exists()


def test_prepare_demo_prints_the_logins_and_a_key_that_works() -> None:
    seed(*SMALL)
    out = io.StringIO()
    call_command("prepare_demo", "--url", "http://127.0.0.1:8123", stdout=out, stderr=io.StringIO())
    printed = out.getvalue()
    assert "Demo data already present; nothing to do." in printed
    assert "memoryadmin is starting at http://127.0.0.1:8123/" in printed
    assert "admin / admin-demo-pass (admin)" in printed
    key = printed.split("(read, write, erase):\n", 1)[1].split()[0]
    response = Client(headers={"Authorization": f"Bearer {key}"}).get("/api/v1/memories?user_id=user-000")
    assert response.status_code == 200


def test_each_make_run_replaces_its_key_instead_of_adding_one() -> None:
    seed(*SMALL)

    def printed_key() -> str:
        out = io.StringIO()
        call_command("prepare_demo", stdout=out, stderr=io.StringIO())
        return out.getvalue().split("(read, write, erase):\n", 1)[1].split()[0]

    first, second = printed_key(), printed_key()
    assert Client(headers={"Authorization": f"Bearer {first}"}).get("/api/v1/memories").status_code == 401
    assert Client(headers={"Authorization": f"Bearer {second}"}).get("/api/v1/memories").status_code == 200
    assert ApiKey.objects.filter(name="make-run", revoked_at__isnull=True).count() == 1


def test_a_demo_smaller_than_its_namespaces_still_seeds() -> None:
    _, err = seed("--users", "2", "--sessions", "4", "--messages-per-session", "4", "--memories", "10")
    assert err == ""
    assert Namespace.objects.exists()


def test_the_demo_reads_like_what_people_say() -> None:
    seed(*SMALL)
    texts = list(Memory.objects.values_list("text", flat=True))
    assert texts
    assert not [t for t in texts if re.search(r"\ba [aeiou]|on day \d|session on", t)], texts[:5]
