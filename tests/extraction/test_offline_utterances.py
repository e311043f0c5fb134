"""Nothing said is lost: a turn that yields no fact is kept as said, a memory of type `utterance`.

And what a group chat says about itself: a diet said in passing, a reply that only settles a time,
a class that happens every week, a pronoun that stands for what the turn before named.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from memoryadmin.audit.services import Actor
from memoryadmin.conversations.services import NewMessage, session_append_messages
from memoryadmin.extraction.models import RunStatus
from memoryadmin.extraction.services import extraction_run, extraction_schedule
from memoryadmin.extraction.strategies.offline.lexicon import CONFIDENTIAL_WORDS
from memoryadmin.extraction.strategies.offline.speech import SECRET_STEMS, holds_secret
from memoryadmin.memories.models import Memory, MemoryType
from memoryadmin.memories.services import memory_create, memory_create_many, memory_forget
from memoryadmin.memories.services.planning import NewMemory, Outcome
from memoryadmin.tenancy.services import namespace_update

SAID_AT = datetime(2026, 3, 11, 18, 30, tzinfo=UTC)

# (speaker, what they said, the utterance kept, or None when nothing is worth finding)
TURNS = [
    ("Caroline", "I've been craving soda all week", None),  # a fact about Caroline, no utterance
    ("Melanie", "Try flavored seltzer water instead.", "Melanie: Try flavored seltzer water instead."),
    ("Caroline", "Haha", None),
    ("Melanie", "Pepperoni of course!", "Melanie: Pepperoni of course!"),
    ("Caroline", "Thanks so much!", None),
    ("Melanie", "How are you?", None),
    ("Caroline", "Hey Mel! What game were you playing? 🎮", "Caroline: What game were you playing?"),
    ("Melanie", "ok", None),
    (
        "Caroline",
        "If it rains we'll stay home and watch movies",
        "Caroline: If it rains we'll stay home and watch movies",
    ),
    ("Melanie", "Next Friday works", None),
    ("Caroline", "Wow, that's great! Take care!", None),
    ("Melanie", "My password is hunter2", None),
    ("Caroline", "You should try yoga, it helped a lot", "Caroline: You should try yoga, it helped a lot"),
    ("Melanie", "Could you summarise the last answer in three bullet points?", None),
    (
        "Caroline",
        "Can you translate my grandma's recipe for me?",
        "Caroline: Can you translate my grandma's recipe for me?",
    ),
]


def group_chat(namespace, turns, *, session_id="group", start=SAID_AT):
    return extracted_chat(
        namespace,
        [
            NewMessage(role="user", name=name, content=text, created_at=start + timedelta(seconds=20 * i))
            for i, (name, text, *_) in enumerate(turns)
        ],
        session_id=session_id,
        user_id="friends",
    )


def extracted_chat(namespace, messages, *, session_id, user_id):
    """The messages appended to a session, and its extraction run to success."""
    session, said = session_append_messages(
        namespace=namespace, session_id=session_id, user_id=user_id, messages=messages
    )
    run = extraction_run(run=extraction_schedule(session=session, delay=0))
    assert run.status == RunStatus.SUCCEEDED, run.error
    return session, said


def memories_by_message(namespace, said, **filters):
    found = {message.pk: [] for message in said}
    for memory in Memory.objects.filter(namespace=namespace, **filters).prefetch_related("evidence"):
        for evidence in memory.evidence.all():
            found[evidence.message_id].append(memory)
    return [found[message.pk] for message in said]


def test_a_turn_with_no_fact_is_kept_as_said_under_its_speaker(offline_namespace) -> None:
    _, said = group_chat(offline_namespace, TURNS)
    kept = memories_by_message(offline_namespace, said, memory_type=MemoryType.UTTERANCE)
    wrong = []
    for (name, text, expected), memories in zip(TURNS, kept, strict=True):
        got = [m.text for m in memories]
        if got != ([expected] if expected else []):
            wrong.append(f"{name}: {text!r} -> {got}")
    assert not wrong, "\n".join(wrong)
    seltzer = kept[1][0]
    assert (seltzer.subject, seltzer.attribute, seltzer.status) == ("Melanie", "", "active")
    assert seltzer.stated_at == SAID_AT + timedelta(seconds=20)
    assert seltzer.metadata["kind"] == "utterance"


def test_a_turn_that_yields_a_fact_is_not_kept_again_as_said(offline_namespace) -> None:
    _, said = group_chat(offline_namespace, [("Caroline", "I've been craving soda all week")])
    (memories,) = memories_by_message(offline_namespace, said)
    assert [m.memory_type for m in memories] != [] and MemoryType.UTTERANCE not in [m.memory_type for m in memories]


def test_a_forgotten_utterance_does_not_come_back_when_said_again(offline_namespace) -> None:
    _, said = group_chat(offline_namespace, [("Melanie", "Try flavored seltzer water instead.")])
    (memories,) = memories_by_message(offline_namespace, said)
    memory_forget(memory=memories[0], actor=Actor.system("test"), reason="asked to forget")
    _, again = group_chat(offline_namespace, [("Melanie", "Try flavored seltzer water instead.")], session_id="later")
    assert memories_by_message(offline_namespace, again) == [[]]
    assert not Memory.objects.filter(namespace=offline_namespace).exists()


def test_a_namespace_can_leave_utterances_out(offline_namespace) -> None:
    namespace = namespace_update(
        namespace=offline_namespace, actor=Actor.system("test"), extraction_config={"kinds": ["facts", "episodes"]}
    )
    _, said = group_chat(namespace, [("Melanie", "Try flavored seltzer water instead.")])
    assert memories_by_message(namespace, said) == [[]]


def test_a_diet_said_in_passing_to_the_group_is_a_fact(offline_namespace) -> None:
    _, said = group_chat(offline_namespace, [("Sam", "I'm vegetarian now, so no more of your famous lamb stew")])
    (memories,) = memories_by_message(offline_namespace, said)
    assert [(m.text, m.attribute, m.subject) for m in memories] == [("Sam is vegetarian now", "diet", "Sam")]


def test_a_reply_that_only_settles_a_time_is_neither_a_memory_nor_an_entity(offline_namespace) -> None:
    _, said = group_chat(offline_namespace, [("Ana", "Next Friday works. I'm flying to Lisbon tomorrow")])
    (memories,) = memories_by_message(offline_namespace, said)
    assert [m.text for m in memories] == ["Ana is flying to Lisbon on 12 March 2026"]
    assert memories[0].entities == ["Ana", "Lisbon"]
    assert (memories[0].event_date, memories[0].event_date_precision) == (date(2026, 3, 12), "day")


def test_what_happens_every_week_is_dated_to_no_one_day(offline_namespace) -> None:
    _, said = group_chat(
        offline_namespace,
        [("Sam", "I started a pottery class on Friday afternoons"), ("Ana", "I go swimming every Monday")],
    )
    for memories in memories_by_message(offline_namespace, said):
        assert memories and all(m.event_date is None for m in memories), [m.text for m in memories]


def test_a_pronoun_stands_for_what_the_turn_before_named(offline_namespace) -> None:
    _, said = group_chat(
        offline_namespace,
        [("Andrew", "My dogs are so cute, look at this photo!"), ("Sam", "I walk them every morning")],
    )
    assert [m.text for m in memories_by_message(offline_namespace, said)[1]] == [
        "Sam walks Andrew's dogs every morning"
    ]


def test_last_week_in_an_imported_conversation_is_the_week_before_it_was_said(offline_namespace) -> None:
    said_then = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    _, said = group_chat(offline_namespace, [("Jon", "I got married last week!")], start=said_then)
    ((memory,),) = memories_by_message(offline_namespace, said)
    assert memory.text == "Jon got married in the week of 1 May 2023"
    assert (memory.event_date, memory.event_date_precision, memory.stated_at) == (date(2023, 5, 1), "week", said_then)
    assert memory.attribute == "relationship_status"


@pytest.mark.parametrize(
    ("first_type", "then_type", "outcome"),
    [
        (MemoryType.EPISODIC, MemoryType.EPISODIC, Outcome.MERGED),
        (MemoryType.UTTERANCE, MemoryType.UTTERANCE, Outcome.CREATED),
        (MemoryType.EPISODIC, MemoryType.UTTERANCE, Outcome.CREATED),
    ],
)
def test_a_turn_kept_as_said_never_merges_with_a_look_alike(offline_namespace, first_type, then_type, outcome) -> None:
    """A quote is not a paraphrase: an utterance is its own memory, whatever it resembles (exact
    duplicates aside), one by one and in a batch."""
    actor = Actor.system("test")
    memory_create(
        namespace=offline_namespace,
        user_id="u1",
        actor=actor,
        memory_type=first_type,
        text="Melanie went camping with the kids near the lake last summer",
    )
    one = memory_create(
        namespace=offline_namespace,
        user_id="u1",
        actor=actor,
        memory_type=then_type,
        merge_near_duplicates=True,
        text="Melanie went camping with the kids near the lake last summer too",
    )
    assert one.outcome == outcome
    memory_create(
        namespace=offline_namespace,
        user_id="u2",
        actor=actor,
        memory_type=first_type,
        text="Melanie went camping with the kids near the lake last summer",
    )
    (batch,) = memory_create_many(
        namespace=offline_namespace,
        actor=actor,
        merge_near_duplicates=True,
        items=[
            NewMemory(
                user_id="u2",
                memory_type=then_type,
                text="Melanie went camping with the kids near the lake last summer too",
            )
        ],
    )
    assert batch.outcome == outcome


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("Got married last week - how about you?", "Jon got married in the week of 2 March 2026"),
        ("I just adopted a puppy, do you have pets?", "Jon just adopted a puppy"),
        ("i went to teh beach yesterdy with my sister", "Jon went to the beach on 10 March 2026 with their sister"),
        ("I dont eat meat", "Jon doesn't eat meat"),
    ],
)
def test_a_statement_before_a_question_or_with_typos_still_yields_its_fact(offline_namespace, said, kept) -> None:
    _, messages = group_chat(offline_namespace, [("Jon", said)])
    assert [m.text for m in memories_by_message(offline_namespace, messages)[0]] == [kept]


ANSWERS = [
    (
        "Caroline",
        "Love the pics from the party! What pizza topping do you always order?",
        "Caroline: Love the pics from the party! What pizza topping do you always order?",
    ),
    (
        "Melanie",
        "Pepperoni of course!",
        "Caroline: What pizza topping do you always order? Melanie: Pepperoni of course!",
    ),
    ("Melanie", "Try flavored seltzer water instead.", "Melanie: Try flavored seltzer water instead."),
    ("Caroline", "How are you?", None),
    ("Melanie", "You should try yoga, it helped a lot", "Melanie: You should try yoga, it helped a lot"),
    ("Caroline", "Did you see the game?", "Caroline: Did you see the game?"),
    ("Melanie", "Which game do you mean?", "Melanie: Which game do you mean?"),
]


def test_an_answer_keeps_the_question_it_answers_and_is_found_by_it(offline_namespace) -> None:
    # The question before only for an answer by someone else, to a question with content words, and not for a
    # question answering a question.
    _, said = group_chat(offline_namespace, ANSWERS)
    kept = memories_by_message(offline_namespace, said, memory_type=MemoryType.UTTERANCE)
    assert [[m.text for m in memories] for memories in kept] == [[e] if e else [] for _, _, e in ANSWERS]
    from memoryadmin.memories.queries import memories_search

    hits = memories_search(offline_namespace, query="What does Melanie order on her pizza?", user_id="friends")
    assert hits.items[0].memory.pk == kept[1][0].pk


def test_an_answer_to_the_assistants_question_keeps_it(offline_namespace) -> None:
    _, said = extracted_chat(
        offline_namespace,
        [
            NewMessage(role="assistant", content="Happy to help. Which topping should I add to the order?"),
            NewMessage(role="user", content="Pepperoni of course!"),
        ],
        session_id="chat",
        user_id="alice",
    )
    (memory,) = Memory.objects.filter(namespace=offline_namespace, user_id="alice")
    assert memory.text == "Assistant: Which topping should I add to the order? Answer: Pepperoni of course!"
    assert [e.message_id for e in memory.evidence.all()] == [said[1].pk]


def test_an_answer_that_yields_a_fact_is_also_kept_with_its_question(offline_namespace) -> None:
    # The facts drawn from an answer rarely hold what was asked: the exchange is kept too.
    _, said = group_chat(
        offline_namespace,
        [
            ("Caroline", "How long have you two been married?"),
            ("Melanie", "5 years already! I moved to Lyon with him in 2019."),
        ],
    )
    _, answer = memories_by_message(offline_namespace, said)
    kinds = sorted(m.memory_type for m in answer)
    assert MemoryType.UTTERANCE in kinds and len(kinds) >= 2, [m.text for m in answer]
    (kept,) = [m for m in answer if m.memory_type == MemoryType.UTTERANCE]
    assert kept.text == (
        "Caroline: How long have you two been married? Melanie: 5 years already! I moved to Lyon with him in 2019."
    )


def test_an_offer_or_a_question_the_facts_answer_adds_no_exchange(offline_namespace) -> None:
    _, said = extracted_chat(
        offline_namespace,
        [
            NewMessage(role="assistant", content="Here are three hotels. Would you like me to compare their prices?"),
            NewMessage(role="user", content="Try the one near the station, it was great last time"),
            NewMessage(role="assistant", content="Where do you live these days?"),
            NewMessage(role="user", content="I live in Lyon now."),
            NewMessage(role="tool", content="Which hotel matches the budget?"),
            NewMessage(role="user", content="Pepperoni of course!"),
        ],
        session_id="offers",
        user_id="bob",
    )
    offer, where, after_tool = memories_by_message(offline_namespace, [said[1], said[3], said[5]])
    assert [m.text for m in offer] == ["Try the one near the station, it was great last time"]
    # A tool's output is nobody's question.
    assert [m.text for m in after_tool] == ["Pepperoni of course!"]
    assert MemoryType.UTTERANCE not in [m.memory_type for m in where] and where, [m.text for m in where]


@pytest.mark.parametrize(
    "text",
    [
        "My PASSWORD is hunter2",
        "the pin code is 1234",
        "Card Number 4111 1111 1111 1111",
        "my Social   Security number",
        "here's my api\tkey",
        "Access token: abc",
        "my IBAN is GB33BUKB20201555555555",
        "my ſecurity code is 123",  # a long s: not ASCII, read by the pattern itself
    ],
)
def test_a_secret_is_known_whatever_its_case_or_spacing(text) -> None:
    assert holds_secret(text)


def test_every_secret_the_pattern_knows_holds_one_of_the_stems_looked_for_first() -> None:
    names = [*CONFIDENTIAL_WORDS.split("|"), "access token", "bank account details", "account number", "iban"]
    for name in names:
        spelled = name.replace(r"\s+", " ")
        assert holds_secret(f"my {spelled} is here"), name
        assert any(stem in spelled for stem in SECRET_STEMS), name
    assert not holds_secret("Here is what I found about Lyon: would you like an itinerary?")


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("my bank account is 12345678", True),
        ("my bank account: 40-11-62 31926819", True),
        ("my bank account number is on the card", True),
        # Which bank an account is with is no secret.
        ("closed my Access Bank account, I use Kuda now", False),
        ("my bank account is in SBI", False),
    ],
)
def test_a_bank_accounts_numbers_are_a_secret_not_its_bank(text: str, secret: bool) -> None:
    assert holds_secret(text) is secret
