"""The offline strategy on a table of labelled sentences, through the real pipeline and database.

Every sentence of `offline_cases.CASES` is appended as a message of one session, one extraction
run reads them all, and each message's memories are found through their evidence: what a sentence
yields (or that it yields nothing) is checked against its label. A message that yields no fact is
kept as said (an `utterance`, tested in test_offline_utterances.py); the labels are the facts.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import date, datetime

from memoryadmin.conversations.services import NewMessage, session_append_messages
from memoryadmin.extraction.models import RunStatus
from memoryadmin.extraction.services import extraction_run, extraction_schedule
from memoryadmin.memories.models import Memory, MemoryEvidence, MemoryType
from tests.extraction.offline_cases import CASES, SAID_AT

NEGATIVE_REGISTERS = ("question", "hypothetical", "third party", "negation", "sarcasm", "small talk")


def extract_all(namespace):
    said = []
    for start in range(0, len(CASES), 100):
        session, appended = session_append_messages(
            namespace=namespace,
            session_id="labelled",
            user_id="alice",
            messages=[
                NewMessage(role="user", content=text, created_at=datetime.fromisoformat(SAID_AT))
                for _, text, _ in CASES[start : start + 100]
            ],
        )
        said += appended
    run = extraction_run(run=extraction_schedule(session=session, delay=0))
    assert run.status == RunStatus.SUCCEEDED, run.error
    texts: dict[int, list[str]] = defaultdict(list)
    facts = MemoryEvidence.objects.filter(memory__namespace=namespace).exclude(memory__memory_type=MemoryType.UTTERANCE)
    for memory_id, message_id in facts.values_list("memory_id", "message_id"):
        texts[message_id].append(Memory.objects.get(pk=memory_id).text)
    return run, said, texts


def test_there_are_over_a_hundred_labelled_sentences_in_every_register() -> None:
    assert len(CASES) >= 100
    registers = Counter(register for register, _, _ in CASES)
    for register in ("plain", "chatty", "typos", "emoji", *NEGATIVE_REGISTERS):
        assert registers[register] >= 4, register


def test_each_sentence_yields_exactly_what_its_label_says(offline_namespace) -> None:
    run, said, texts = extract_all(offline_namespace)
    wrong = []
    for (register, text, expected), message in zip(CASES, said, strict=True):
        got = sorted(texts.get(message.pk, []))
        if got != sorted(expected):
            wrong.append(f"[{register}] {text!r}: expected {sorted(expected)}, got {got}")
    assert not wrong, "\n".join(wrong)
    utterances = Memory.objects.filter(namespace=offline_namespace, memory_type=MemoryType.UTTERANCE).count()
    assert run.counts["created"] == sum(len(expected) for _, _, expected in CASES) + utterances


def test_a_run_writes_the_attributes_and_dates_it_read(offline_namespace) -> None:
    extract_all(offline_namespace)
    memories = {m.text: m for m in Memory.objects.filter(namespace=offline_namespace)}
    prius = memories["User has a new Prius"]
    assert (prius.attribute, prius.subject, prius.memory_type) == ("car", "", "semantic")
    lisbon = memories["User moved to Lisbon in February 2026"]
    assert (lisbon.attribute, lisbon.event_date, lisbon.memory_type) == ("residence", date(2026, 2, 1), "episodic")
    assert lisbon.metadata["date_precision"] == "month" and lisbon.stated_at == datetime.fromisoformat(SAID_AT)
    assert lisbon.event_date_precision == "month"
    assert memories["User got engaged on the weekend of 7 March 2026"].event_date_precision == "week"
    assert memories["User is vegetarian"].attribute == "diet"
    assert memories["User is allergic to peanuts"].attribute == ""  # one can have many allergies
    assert memories["User's favourite band is Radiohead"].attribute == "favourite band"
    assert memories["User quit their job on 10 March 2026"].event_date == date(2026, 3, 10)
    assert memories["User is a nurse at the children's hospital"].attribute == "occupation"
    # A trip is an event among others: it sets no attribute.
    assert memories["User just got back from a trip with their family in their new Prius"].attribute == ""


def test_nothing_is_kept_from_the_registers_that_state_no_fact(offline_namespace) -> None:
    _, said, texts = extract_all(offline_namespace)
    for (register, text, _), message in zip(CASES, said, strict=True):
        if register in NEGATIVE_REGISTERS:
            assert message.pk not in texts, (register, text, texts.get(message.pk))
