"""After a change is told, the question a person would ask finds the new value first.

Each update pair of `update_pairs_mixed.json` is said by its own person in their own session, a month apart, and one
extraction run with the default `offline` strategy reads it; then the person's memories are searched with the everyday
question about the attribute ("where does Bruno live?", "what car does Chloe drive?"). The first hit must be a memory
of the second message: the change, not the value it replaced.
"""

from __future__ import annotations

import json
from pathlib import Path

from memoryadmin.conversations.services import NewMessage, session_append_messages
from memoryadmin.extraction.models import RunStatus
from memoryadmin.extraction.services import extraction_run, extraction_schedule
from memoryadmin.memories.models import MemoryEvidence
from memoryadmin.memories.search.engine import memories_search
from tests.extraction.test_updates import FIRST_SAID, THEN_SAID

PAIRS = json.loads((Path(__file__).parent / "data" / "update_pairs_mixed.json").read_text())["pairs"]
NAMES = [
    "Alice",
    "Bruno",
    "Chloe",
    "Dmitri",
    "Elena",
    "Farid",
    "Greta",
    "Hugo",
    "Ines",
    "Jonah",
    "Kemal",
    "Lucia",
    "Marek",
    "Nadia",
    "Oscar",
    "Priya",
    "Quinn",
    "Rosa",
    "Sven",
    "Tariq",
    "Uma",
    "Viktor",
    "Wendy",
    "Xavi",
    "Yara",
    "Zane",
]
QUESTIONS = {
    "residence": "where does {p} live?",
    "employer": "where does {p} work?",
    "occupation": "what does {p} do for a living?",
    "relationship_status": "is {p} married or single?",
    "partner": "who is {p}'s partner?",
    "school": "what school does {p} go to?",
    "course": "what is {p} studying?",
    "car": "what car does {p} drive?",
    "diet": "what diet does {p} follow?",
    "phone": "what phone does {p} have?",
    "gym": "which gym does {p} go to?",
    "bank": "which bank does {p} use?",
    "mobile_carrier": "what mobile network is {p} on?",
    "internet_provider": "who is {p}'s internet provider?",
    "doctor": "who is {p}'s doctor?",
    "team": "which team does {p} support?",
    "favourite_food": "what is {p}'s favourite food?",
    "favourite_movie": "what is {p}'s favourite movie?",
    "favourite_band": "what is {p}'s favourite band?",
}


def test_the_question_finds_the_new_value_first(offline_namespace) -> None:
    changes = [pair for pair in PAIRS if pair["update"]]
    assert len(changes) >= 60
    first, missed = 0, []
    for index, pair in enumerate(changes):
        person = NAMES[index % len(NAMES)] + ("" if index < len(NAMES) else f"{index // len(NAMES) + 1}")
        session, said = session_append_messages(
            namespace=offline_namespace,
            session_id=f"chat-{index}",
            user_id=person,
            messages=[
                NewMessage(role="user", name=person, content=pair["before"], created_at=FIRST_SAID),
                NewMessage(role="user", name=person, content=pair["after"], created_at=THEN_SAID),
            ],
        )
        run = extraction_run(run=extraction_schedule(session=session, delay=0))
        assert run.status == RunStatus.SUCCEEDED, run.error
        of_the_change = set(MemoryEvidence.objects.filter(message_id=said[1].pk).values_list("memory_id", flat=True))
        question = QUESTIONS[pair["attribute"]].format(p=person)
        hits = memories_search(offline_namespace, query=question, user_id=person, limit=3, touch=False).items
        if hits and hits[0].memory.pk in of_the_change:
            first += 1
        else:
            missed.append((question, pair["after"], [hit.memory.text for hit in hits]))
    assert first / len(changes) >= 0.9, missed
