"""Knowledge updates on labelled sets of pairs in everyday wording (tests/extraction/data/update_pairs*.json).

Each pair is what one person said a month apart. Every pair is said by its own speaker of one group
chat (so each has its own histories), all in one session, and one extraction run with the default
`offline` strategy reads them: the first statement of a pair on 2 March 2026, the second on 1 April.
A pair is found to be an update when a memory of its first message ends superseded by a memory of its
second. The labels say which pairs are updates (the earlier fact is no longer true) and which are not
(a visit, someone else's news, a second hobby, a wish, a question, a denial).

`update_pairs_casual.json` was written apart from the first set, in looser wording (the fact inside a
longer clause, the subject left out, news of a change): its recall bar is lower, its precision bar the same.
`update_pairs_fresh.json` was written later still, apart from the code, across more attributes (gym, bank, doctor,
team, favourites, hobbies): read first, 0.44 of its updates were found, none falsely; the readings it showed
missing were then added ("guess who's vegan now", "my manager at Deloitte…", "driving a Tesla Model 3 now").
Two more were written after that, each read first before anything was changed for it: `update_pairs_assistant.json`
(people of many kinds writing to an assistant: a retired teacher, a learner of English, a formal "Please update my
details: …"), 0.55 found at first; `update_pairs_catching_up.json` (friends catching up, each change told in its own
words: "handed my keys back", "the divorce came through", "it's oat milk and lentils for me from now on"), 0.30 found
at first, with two false updates (a second car "so my wife can get to town", a phone borrowed while one is repaired).
`update_pairs_sessions.json` (long chats between friends, as LoCoMo's: a reaction to the friend, then the news):
0.63 found at first, one false update (a weekend project car beside the daily driver).
`update_pairs_mixed.json` (friends, an assistant and short texts mixed, with look-alike non-updates: "went vegan for
a week as a challenge", "test-drove a Tesla") was read last: 0.59 found at first, one false update.
`update_pairs_voices.json` (registers none of the others has: speech-to-text dictation with its "um"s and no marks,
requests to a bank's or a carrier's assistant, an older person's letters, teenagers' slang, workplace chat) was read
first at 0.30 (no false update); what it showed general was mended (a hesitation or an "I" ends a dictated thought, a
service left for another): 0.36. Most of what it still misses is a held value said only in passing in its register.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memoryadmin.conversations.services import NewMessage, session_append_messages
from memoryadmin.extraction.models import RunStatus
from memoryadmin.extraction.services import extraction_run, extraction_schedule
from memoryadmin.memories.models import Memory, MemoryEvidence, MemoryStatus

DATA = Path(__file__).parent / "data"
PAIRS = json.loads((DATA / "update_pairs.json").read_text())["pairs"]
CASUAL_PAIRS = json.loads((DATA / "update_pairs_casual.json").read_text())["pairs"]
FIRST_SAID = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
THEN_SAID = FIRST_SAID + timedelta(days=30)


def found_updates(namespace, pairs: list[dict]) -> list[bool]:
    """For each pair, whether its second statement superseded a memory of its first."""
    messages = []
    for index, pair in enumerate(pairs):
        speaker = f"Person{index:03d}"
        messages.append(NewMessage(role="user", name=speaker, content=pair["before"], created_at=FIRST_SAID))
        messages.append(NewMessage(role="user", name=speaker, content=pair["after"], created_at=THEN_SAID))
    said = []
    for start in range(0, len(messages), 100):
        session, appended = session_append_messages(
            namespace=namespace, session_id="updates", user_id="group", messages=messages[start : start + 100]
        )
        said += appended
    run = extraction_run(run=extraction_schedule(session=session, delay=0))
    assert run.status == RunStatus.SUCCEEDED, run.error
    memories_of: dict[int, set] = {}
    for memory_id, message_id in MemoryEvidence.objects.filter(memory__namespace=namespace).values_list(
        "memory_id", "message_id"
    ):
        memories_of.setdefault(message_id, set()).add(memory_id)
    replaced = dict(
        Memory.objects.filter(namespace=namespace, status=MemoryStatus.SUPERSEDED).values_list("id", "superseded_by")
    )
    found = []
    for index in range(len(pairs)):
        before, after = said[2 * index], said[2 * index + 1]
        found.append(
            any(replaced.get(old) in memories_of.get(after.pk, set()) for old in memories_of.get(before.pk, set()))
        )
    return found


def test_the_labelled_set_has_150_pairs_of_both_kinds_across_attributes() -> None:
    assert len(PAIRS) >= 150
    updates = [p for p in PAIRS if p["update"]]
    assert 0.3 * len(PAIRS) <= len(updates) <= 0.7 * len(PAIRS)
    attributes = {p["attribute"] for p in updates}
    for attribute in (
        "residence",
        "employer",
        "occupation",
        "relationship_status",
        "partner",
        "school",
        "course",
        "car",
        "diet",
        "phone",
        "phone_number",
        "email",
        "team",
        "instrument",
    ):
        assert attribute in attributes, attribute


def measure(namespace, pairs: list[dict]) -> dict:
    found = found_updates(namespace, pairs)
    labels = [p["update"] for p in pairs]
    true_positive = sum(f and label for f, label in zip(found, labels, strict=True))
    predicted = sum(found)
    return {
        "precision": true_positive / predicted if predicted else 0.0,
        "recall": true_positive / sum(labels),
        "false_updates": [p for p, f in zip(pairs, found, strict=True) if f and not p["update"]],
        "missed": [p for p, f in zip(pairs, found, strict=True) if p["update"] and not f],
    }


@pytest.fixture
def figures(offline_namespace) -> dict:
    return measure(offline_namespace, PAIRS)


@pytest.fixture
def casual_figures(offline_namespace) -> dict:
    return measure(offline_namespace, CASUAL_PAIRS)


def test_updates_fire_with_high_precision_and_recall(figures) -> None:
    assert figures["precision"] >= 0.95, figures["false_updates"]
    assert figures["recall"] >= 0.80, figures["missed"]


def test_a_non_update_never_supersedes(figures) -> None:
    """A visit, a brother's new car, a second hobby: the first fact stays current."""
    assert figures["false_updates"] == []


def test_updates_told_as_news_or_in_passing_fire_too(casual_figures) -> None:
    """Told as news or in passing ("since the move to Denver", "new job at Target!!"): the looser set."""
    assert casual_figures["false_updates"] == []
    assert casual_figures["recall"] >= 0.70, casual_figures["missed"]


# The sets written apart from the code, each with the share of its updates that must be found; none may fire falsely.
# fresh: a conference in Vancouver or a sister moved to Austin changes nothing. assistant: "Kindly amend my profile:
# …", "From this month I am joined in Bosch", "I lost my husband Harold in March". catching up, the hardest: each
# change in its own words; a second car or a borrowed phone replaces nothing. sessions: "Thanks so much, Maya! Big
# news on my end: I finally packed up and moved to Glasgow last month." mixed: "went vegan for a week as a
# challenge" changes no diet; "it's a Kia Niro now btw, traded the Polo in" does.
WRITTEN_APART = {
    "fresh": 0.75,
    "assistant": 0.80,
    "catching_up": 0.60,
    "sessions": 0.85,
    "mixed": 0.75,
    "voices": 0.34,
}


@pytest.mark.parametrize(("name", "recall"), WRITTEN_APART.items())
def test_updates_of_a_set_written_apart_fire_without_a_false_one(offline_namespace, name: str, recall: float) -> None:
    pairs = json.loads((DATA / f"update_pairs_{name}.json").read_text())["pairs"]
    found = measure(offline_namespace, pairs)
    assert found["false_updates"] == []
    assert found["recall"] >= recall, found["missed"]
