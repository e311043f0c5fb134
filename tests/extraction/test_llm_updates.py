"""The LLM strategies report knowledge updates too: what a new fact replaces, by attribute or by id."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from memoryadmin.conversations.services import NewMessage, session_append_messages
from memoryadmin.extraction.models import RunStatus
from memoryadmin.extraction.services import extraction_run, extraction_schedule
from memoryadmin.memories.models import Memory, MemoryStatus
from memoryadmin.memories.services import memory_create
from tests.conftest import SYSTEM

SAID = datetime(2025, 3, 3, 9, 0, tzinfo=UTC)


@pytest.fixture
def discrete(make_namespace):
    return make_namespace("llm", extraction_strategy="discrete")


def said(namespace, text: str, *, name: str = ""):
    session, messages = session_append_messages(
        namespace=namespace,
        session_id="s1",
        user_id="alice",
        messages=[NewMessage(role="user", name=name, content=text, created_at=SAID)],
    )
    return session, messages


def extract(session):
    run = extraction_run(run=extraction_schedule(session=session, delay=0))
    assert run.status == RunStatus.SUCCEEDED, run.error
    return run


def known_lyon(namespace) -> Memory:
    return memory_create(
        namespace=namespace,
        user_id="alice",
        text="User lives in Lyon",
        actor=SYSTEM,
        attribute="residence",
        stated_at=datetime(2024, 1, 1, tzinfo=UTC),
    ).memory


def test_the_model_is_shown_the_known_facts_and_the_one_it_replaces_is_superseded(discrete, llm) -> None:
    lyon = known_lyon(discrete)
    llm.answer(
        {
            "memories": [
                {
                    "text": "User moved to Paris on 2025-03-02",
                    "type": "episodic",
                    "source_seqs": [1],
                    "replaces": ["m1"],
                    "event_date": "2025-03-02",
                }
            ]
        }
    )
    session, _ = said(discrete, "I moved to Paris yesterday!")
    run = extract(session)
    prompt = llm.requests[0]["body"]["messages"][-1]["content"]
    assert "[1] user, 2025-03-03: I moved to Paris yesterday!" in prompt
    assert "[m1] User lives in Lyon (attribute: residence)" in prompt
    paris = Memory.objects.get(text="User moved to Paris on 2025-03-02")
    lyon.refresh_from_db()
    assert (lyon.status, lyon.superseded_by) == (MemoryStatus.SUPERSEDED, paris.pk)
    # The replacement takes the attribute it replaced, so the next move finds it.
    assert (paris.attribute, paris.event_date, paris.stated_at) == ("residence", date(2025, 3, 2), SAID)
    assert run.counts["superseded"] == 1


def test_an_attribute_alone_is_enough_to_supersede(discrete, llm) -> None:
    lyon = known_lyon(discrete)
    llm.answer({"memories": [{"text": "User lives in Rome", "attribute": "Residence", "source_seqs": [1]}]})
    session, _ = said(discrete, "I live in Rome now.")
    extract(session)
    lyon.refresh_from_db()
    rome = Memory.objects.get(text="User lives in Rome")
    assert (rome.attribute, rome.status) == ("residence", MemoryStatus.ACTIVE)
    assert (lyon.status, lyon.superseded_by) == (MemoryStatus.SUPERSEDED, rome.pk)


def test_ids_and_names_the_model_invents_are_ignored(discrete, llm) -> None:
    lyon = known_lyon(discrete)
    llm.answer(
        {
            "memories": [
                {
                    "text": "Evan likes jazz",
                    "subject": "Somebody Else",
                    "replaces": ["m7", 3, str(lyon.pk)],
                    "event_date": "last week",
                    "source_seqs": [1],
                }
            ]
        }
    )
    session, _ = said(discrete, "I love jazz.", name="Evan")
    extract(session)
    jazz = Memory.objects.get(text="Evan likes jazz")
    lyon.refresh_from_db()
    assert (jazz.subject, jazz.event_date, jazz.attribute) == ("Evan", None, "")
    assert lyon.status == MemoryStatus.ACTIVE
