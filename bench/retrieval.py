"""Retrieval on LoCoMo conversations: memory search hit@5 and hit@10, an ablation, and latency.

    .venv/bin/python bench/retrieval.py /path/to/locomo-dev [--database-url ...]

The data is read from the folder given (the LoCoMo JSON files, one conversation each);
nothing of it is copied into the project. The figure is the one the folder's README
defines as "memory search":

- each observation (a fact a careful reader takes from a session, pointing at the turns it
  came from) becomes a memory of one person, the conversation, through `POST /memories`
  with its turns in `metadata.dia`;
- each question (category 5, the unanswerable ones, left out) is asked as written through
  `POST /memories/search` for that person, with the default configuration;
- a hit is a returned memory whose turns intersect the question's evidence. Questions
  whose evidence no observation points at cannot be hit by any search; they are counted
  apart, and hit@k is over the others.

Time is sent as an app importing its history would: each memory carries `stated_at`, its
session's `session_N_date_time` (read as UTC), and each question is asked `as_of` the end of
its conversation's last session (questions such as "last year" are about the conversation's
time, not the bench's).

The ablation runs the same questions with one component at a time (full text, vectors,
term similarity) against the fused default, through the search function itself. Latency
is each API search's time in the process (Django's test client: routing, key lookup,
validation, search, rendering), medians and p95 over all questions.

The bench uses its own database, made anew for each run.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/memoryadmin_bench_retrieval"
ADVERSARIAL = 5


@dataclass
class Question:
    text: str
    evidence: set[str]
    category: int


@dataclass
class Conversation:
    name: str
    # (fact, its turns, when its session took place)
    observations: list[tuple[str, list[str], datetime | None]] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)
    sessions: dict[int, datetime] = field(default_factory=dict)

    @property
    def as_of(self) -> datetime | None:
        return max(self.sessions.values()) + timedelta(days=1) if self.sessions else None

    @property
    def turns_observed(self) -> set[str]:
        return {turn for _, turns, _ in self.observations for turn in turns}


_SESSION_TIME = re.compile(r"(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+(\w+),?\s+(\d{4})", re.IGNORECASE)


def session_time(raw: str) -> datetime | None:
    """LoCoMo's "1:56 pm on 8 May, 2023", read as UTC."""
    match = _SESSION_TIME.search(raw or "")
    if match is None:
        return None
    hour, minute, half, day, month, year = match.groups()
    hour = int(hour) % 12 + (12 if half.lower() == "pm" else 0)
    return datetime.strptime(f"{day} {month} {year} {hour}:{minute}", "%d %B %Y %H:%M").replace(tzinfo=UTC)


def load_conversations(folder: Path) -> list[Conversation]:
    """Every LoCoMo conversation file in `folder`, with its observations and its answerable-in-principle questions."""
    conversations = []
    for path in sorted(folder.glob("*.json")):
        raw = json.loads(path.read_text())
        if "qa" not in raw:
            continue
        conversation = Conversation(path.stem)
        sessions = raw.get("conversation", raw)
        for key, value in sessions.items():
            if key.startswith("session_") and key.endswith("_date_time") and (when := session_time(value)):
                conversation.sessions[int(key.split("_")[1])] = when
        for key in sorted(k for k in raw if k.endswith("_observation")):
            number = int(key.split("_")[1])
            for facts in raw[key].values():
                for fact, turns in facts:
                    turns = turns if isinstance(turns, list) else [turns]
                    conversation.observations.append((fact, turns, conversation.sessions.get(number)))
        for qa in raw["qa"]:
            if qa.get("category") == ADVERSARIAL:
                continue
            conversation.questions.append(Question(qa["question"], set(qa["evidence"]), qa.get("category", 0)))
        conversations.append(conversation)
    if not conversations:
        raise SystemExit(f"no LoCoMo conversation (*.json with qa) in {folder}")
    return conversations


def hit(found: list[set[str]], evidence: set[str], k: int) -> bool:
    return any(turns & evidence for turns in found[:k])


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def setup_django(database_url: str) -> None:
    """A fresh bench database, migrated, and Django configured on it."""
    sys.path.insert(0, str(ROOT))
    from bench.common import database_recreate

    database_recreate(database_url)
    os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryadmin.settings")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


class Run:
    """A namespace of its own, an API key, and the memories of each conversation."""

    def __init__(self, conversations: list[Conversation]) -> None:
        from django.test import Client

        from memoryadmin.audit.services import Actor
        from memoryadmin.tenancy.models import Namespace
        from memoryadmin.tenancy.services import api_key_create

        self.conversations = conversations
        self.namespace = Namespace.objects.create(slug=f"locomo-{uuid.uuid4().hex[:8]}", name="LoCoMo bench")
        _, self.key = api_key_create(
            namespace=self.namespace, name="bench", scopes=["read", "write"], actor=Actor.system("bench")
        )
        self.client = Client(headers={"authorization": f"Bearer {self.key}"})
        self.turns: dict[str, set[str]] = {}

    def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        response = self.client.post(path, json.dumps(body), content_type="application/json")
        if response.status_code not in (200, 201):
            raise SystemExit(f"{path} answered {response.status_code}: {response.content[:300]!r}")
        return response.json()

    def remember(self) -> float:
        started = time.perf_counter()
        for conversation in self.conversations:
            for fact, turns, said in conversation.observations:
                body = {"text": fact, "user_id": conversation.name, "metadata": {"dia": turns}}
                if said is not None:
                    body["stated_at"] = said.isoformat()
                memory = self.post("/api/v1/memories", body)
                self.turns.setdefault(memory["id"], set()).update(turns)
        elapsed = time.perf_counter() - started
        from django.db import connection

        # As autovacuum would have by then: the planner's statistics of the tables just filled.
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE memories_memory, memories_memoryvector")
        return elapsed

    def questions(self) -> Iterator[tuple[Conversation, Question]]:
        for conversation in self.conversations:
            observed = conversation.turns_observed
            for question in conversation.questions:
                if question.evidence & observed:
                    yield conversation, question

    def api_search(self, conversation: Conversation, question: Question) -> tuple[list[set[str]], float]:
        started = time.perf_counter()
        ask: dict[str, Any] = {"query": question.text, "user_id": conversation.name, "limit": 10}
        if conversation.as_of is not None:
            ask["as_of"] = conversation.as_of.isoformat()
        body = self.post("/api/v1/memories/search", ask)
        elapsed = time.perf_counter() - started
        return [self.turns.get(item["memory"]["id"], set()) for item in body["items"]], elapsed

    def function_search(
        self, conversation: Conversation, question: Question, weights: dict[str, float]
    ) -> list[set[str]]:
        from memoryadmin.memories.queries import memories_search

        page = memories_search(
            self.namespace,
            query=question.text,
            user_id=conversation.name,
            limit=10,
            weights=weights,
            touch=False,
            as_of=conversation.as_of,
        )
        return [self.turns.get(str(hit.memory.pk), set()) for hit in page.items]


def paraphrase_gate() -> dict[str, Any]:
    """Precision and recall of the semantic near-duplicate gate on the labelled pairs of the tests."""
    from bench.paraphrase_pairs import DIFFERENT, SAME
    from memoryadmin.memories.embeddings import WordLlamaEmbedder
    from memoryadmin.memories.paraphrase import same_fact

    embedder = WordLlamaEmbedder()

    def merged(pairs: list[tuple[str, str]]) -> int:
        count = 0
        for a, b in pairs:
            va, vb = embedder.embed([a, b])
            count += same_fact(a, b, va, vb) and same_fact(b, a, vb, va)
        return count

    true_merges, wrong_merges = merged(SAME), merged(DIFFERENT)
    return {
        "pairs": {"same": len(SAME), "different": len(DIFFERENT)},
        "merged_same": true_merges,
        "merged_different": wrong_merges,
        "precision": round(true_merges / (true_merges + wrong_merges), 3) if true_merges + wrong_merges else None,
        "recall": round(true_merges / len(SAME), 3),
    }


ABLATION = {
    "full text only": {"fulltext": 1.0, "vector": 0.0, "terms": 0.0},
    "vectors only": {"fulltext": 0.0, "vector": 1.0, "terms": 0.0},
    "term similarity only": {"fulltext": 0.0, "vector": 0.0, "terms": 1.0},
    "full text + vectors": {"fulltext": 0.5, "vector": 0.5, "terms": 0.0},
    "fused (default)": {},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path, help="folder of LoCoMo conversation files (conv-*.json)")
    parser.add_argument("--database-url", default=os.environ.get("BENCH_RETRIEVAL_DATABASE_URL", DEFAULT_DATABASE_URL))
    parser.add_argument("--no-ablation", action="store_true", help="only the API figure and its latency")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument(
        "--minilm",
        action="store_true",
        help="embed with all-MiniLM-L6-v2 behind a loopback OpenAI-compatible endpoint (bench/minilm_server.py)",
    )
    args = parser.parse_args()
    conversations = load_conversations(args.data)
    if args.minilm:
        sys.path.insert(0, str(ROOT / "bench"))
        from minilm_server import MODEL, start

        endpoint = start()
        os.environ.update(
            EMBEDDER="openai",
            EMBEDDING_BASE_URL=f"http://127.0.0.1:{endpoint.server_address[1]}/v1",
            EMBEDDING_MODEL=MODEL,
            EMBEDDING_API_KEY="local",
            EMBEDDING_TIMEOUT_SECONDS="120",
        )
    setup_django(args.database_url)
    from django.conf import settings

    from memoryadmin.memories.embeddings import get_embedder

    run = Run(conversations)
    results: dict[str, Any] = {"embedder": get_embedder().model, "conversations": [c.name for c in conversations]}
    results["memories"] = sum(len(c.observations) for c in conversations)
    results["remember_seconds"] = round(run.remember(), 2)
    asked = list(run.questions())
    results["questions"] = sum(len(c.questions) for c in conversations)
    results["answerable"] = len(asked)
    hits5 = hits10 = 0
    latencies = []
    per_category: dict[int, list[int]] = {}
    for conversation, question in asked:
        found, elapsed = run.api_search(conversation, question)
        latencies.append(elapsed * 1000)
        h5, h10 = hit(found, question.evidence, 5), hit(found, question.evidence, 10)
        hits5 += h5
        hits10 += h10
        counts = per_category.setdefault(question.category, [0, 0, 0])
        counts[0] += 1
        counts[1] += h5
        counts[2] += h10
    results["hit@5"] = round(hits5 / len(asked), 3)
    results["hit@10"] = round(hits10 / len(asked), 3)
    results["by_category"] = {
        str(c): {"questions": n, "hit@5": round(a / n, 3), "hit@10": round(b / n, 3)}
        for c, (n, a, b) in sorted(per_category.items())
    }
    results["latency_ms"] = {
        "p50": round(statistics.median(latencies), 2),
        "p95": round(percentile(latencies, 0.95), 2),
        "max": round(max(latencies), 2),
    }
    if not args.no_ablation:
        ablation = {}
        for name, weights in ABLATION.items():
            h5 = h10 = 0
            for conversation, question in asked:
                found = run.function_search(conversation, question, weights)
                h5 += hit(found, question.evidence, 5)
                h10 += hit(found, question.evidence, 10)
            ablation[name] = {"hit@5": round(h5 / len(asked), 3), "hit@10": round(h10 / len(asked), 3)}
        results["ablation"] = ablation
    results["min_similarity"] = settings.SEARCH_MIN_SIMILARITY
    results["paraphrase_gate"] = paraphrase_gate()
    print(
        f"embedder: {results['embedder']}; {results['memories']} memories, {results['answerable']} questions "
        f"answerable of {results['questions']} (category 5 left out)"
    )
    print(f"memory search (POST /memories/search): hit@5 {results['hit@5']}, hit@10 {results['hit@10']}")
    for category, figures in results["by_category"].items():
        print(f"  category {category}: {figures}")
    print(f"latency in process: p50 {results['latency_ms']['p50']} ms, p95 {results['latency_ms']['p95']} ms")
    for name, figures in results.get("ablation", {}).items():
        print(f"  {name}: hit@5 {figures['hit@5']}, hit@10 {figures['hit@10']}")
    gate = results["paraphrase_gate"]
    print(
        f"near-duplicate gate on {gate['pairs']['same']} paraphrases and {gate['pairs']['different']} different "
        f"facts: precision {gate['precision']}, recall {gate['recall']}"
    )
    if args.json:
        args.json.write_text(json.dumps(results, indent=2, sort_keys=True))


if __name__ == "__main__":
    main()
