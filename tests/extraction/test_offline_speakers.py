"""Who said what: in a group chat each message's `name` is its speaker; otherwise the session's person."""

from __future__ import annotations

from datetime import UTC, datetime

from memoryadmin.conversations.services import NewMessage, session_append_messages
from memoryadmin.extraction.services import extraction_run, extraction_schedule
from memoryadmin.memories.models import Memory

MONDAY = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def chat(namespace, *turns: tuple[str, str], role: str = "user", session_id: str = "group-1"):
    session, said = session_append_messages(
        namespace=namespace,
        session_id=session_id,
        user_id="book-club",
        messages=[NewMessage(role=role, name=name, content=text, created_at=MONDAY) for name, text in turns],
    )
    return session, said


def extract(session):
    return extraction_run(run=extraction_schedule(session=session, delay=0))


def test_each_speaker_gets_their_own_facts_under_their_name(offline_namespace) -> None:
    session, said = chat(
        offline_namespace,
        ("Evan", "Hey Sam! I just got back from a trip with my family in my new Prius."),
        ("Sam", "Wow, that's cool! I went to a pottery class yesterday."),
        ("Evan", "Nice! My old Prius broke down, so I sold it."),
        ("Sam", "Haha, I love that. Do you like it?"),
    )
    extract(session)
    memories = {m.text: m for m in Memory.objects.filter(namespace=offline_namespace)}
    assert set(memories) == {
        "Evan has a new Prius",
        "Evan just got back from a trip with their family in their new Prius",
        "Sam went to a pottery class on 7 May 2023",
        "Evan's old Prius broke down, so Evan sold their old Prius",
    }
    prius = memories["Evan has a new Prius"]
    assert (prius.user_id, prius.subject, prius.attribute) == ("book-club", "Evan", "car")
    assert prius.entities[0] == "Evan"
    pottery = memories["Sam went to a pottery class on 7 May 2023"]
    assert pottery.subject == "Sam" and pottery.entities == ["Sam"]
    # Evidence is exactly the message each memory came from.
    assert list(prius.evidence.values_list("message_id", flat=True)) == [said[0].pk]
    assert list(pottery.evidence.values_list("message_id", flat=True)) == [said[1].pk]
    assert list(
        memories["Evan's old Prius broke down, so Evan sold their old Prius"].evidence.values_list(
            "message_id", flat=True
        )
    ) == [said[2].pk]


def test_one_speakers_words_never_become_the_others_facts(offline_namespace) -> None:
    session, _ = chat(
        offline_namespace,
        ("Evan", "I'm vegan."),
        ("Sam", "You're vegan? I could never."),
        ("Sam", "My brother is vegan too."),
    )
    extract(session)
    assert sorted(Memory.objects.filter(namespace=offline_namespace).values_list("text", "subject")) == [
        ("Evan is vegan", "Evan"),
        ("Sam's brother is vegan too", "Sam"),
    ]
    assert not Memory.objects.filter(namespace=offline_namespace, subject="Sam", attribute="diet").exists()


def test_without_a_name_the_speaker_is_the_sessions_person(offline_namespace) -> None:
    session, _ = chat(offline_namespace, ("", "I live in Lyon."), session_id="solo")
    extract(session)
    memory = Memory.objects.get(namespace=offline_namespace)
    assert (memory.text, memory.user_id, memory.subject, memory.attribute) == (
        "User lives in Lyon",
        "book-club",
        "",
        "residence",
    )


def test_the_assistant_is_never_a_source(offline_namespace) -> None:
    session, _ = chat(offline_namespace, ("", "I live in Lyon and I love jazz."), role="assistant")
    run = extract(session)
    assert run.counts["candidates"] == 0
    assert not Memory.objects.filter(namespace=offline_namespace).exists()


def test_the_same_fact_said_twice_in_a_run_is_one_memory_with_both_messages(offline_namespace) -> None:
    session, said = chat(offline_namespace, ("Evan", "I live in Lyon."), ("Sam", "Cool."), ("Evan", "I live in Lyon."))
    run = extract(session)
    memory = Memory.objects.get(namespace=offline_namespace)
    assert sorted(memory.evidence.values_list("message_id", flat=True)) == [said[0].pk, said[2].pk]
    assert run.counts["created"] == 1
