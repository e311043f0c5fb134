"""Extraction quality on LoCoMo-shaped conversations: dialog -> memory hit@10 and a precision proxy.

    .venv/bin/python bench/extraction_quality.py --data /path/to/locomo-dev [--strategy offline] [--sample 25]

The conversations are read from `--data` (JSON files in the LoCoMo format: `speaker_a`, `speaker_b`,
`session_N` lists of turns with `speaker`, `dia_id`, `text`, `session_N_date_time`,
`session_N_observation` and `qa`); nothing of them is stored in this repository.

Figure 2 of the data's README, measured over HTTP against the app served as in production (gunicorn,
DEBUG off) with a real Celery worker doing the extraction:

1. one namespace whose extraction strategy is `--strategy` (the default offline strategy unless told
   otherwise); every turn is appended as a message (`role: user`, `name`: the speaker,
   `metadata.dia`: the turn id, `created_at`: the session's date plus 20 s per turn), one session per
   LoCoMo session, all of one conversation under one person (the conversation's id);
2. the namespace's extraction runs by itself in the background (trailing debounce) until every message
   is extracted;
3. each question (category 5, the unanswerable ones, left out) is asked as written through
   `POST /memories/search` for that person, top 10; a hit is a returned memory whose evidence messages
   include one of the question's evidence turns.

Beside it, a reference that does not depend on the server's search: the same questions ranked by a
plain BM25 (any word, light stemming) over the extracted memories, and over the raw turns themselves,
each within the conversation. It tells whether a miss comes from extraction (the memory is not
there, or says too little) or from search (the memory is there but the served search does not rank it).

The precision proxy is the share of extracted memories whose evidence includes a turn that carries a
LoCoMo observation (`session_N_observation`: the facts careful readers took from the session, each with
the turn it came from), given for the memories drawn from turns (facts and episodes) apart from the
turns kept as said (`utterance`). Self-contained is the share of the drawn memories with no unresolved
pronoun as subject or object (the automatic check of bench/self_contained.py). A sample of memories
with their turns and observations is printed so a person can judge them.

Any LLM strategy runs through the same harness: `--strategy discrete` with `LLM_BASE_URL` (and
`LLM_API_KEY`, `LLM_MODEL`) set in the environment, which the worker inherits.

The bench uses its own database (dropped and created again on every run; its name must start with
`memoryadmin_bench`), the Redis of `--redis-url` (default: $REDIS_URL), and ports given by `--port`.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import DEFAULT_REDIS_URL, database_recreate, django_setup
from bench.generate import migrate
from bench.load import HttpClient, Request
from bench.self_contained import unresolved_pronouns
from bench.server import AppServer, CeleryWorker

API = "/api/v1"
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/memoryadmin_bench_quality"
LLM_STRATEGIES = ("discrete", "preferences", "custom", "summary")
ADVERSARIAL = 5
_SESSION = re.compile(r"session_(\d+)")


@dataclass
class Turn:
    dia_id: str
    speaker: str
    text: str
    created_at: datetime


@dataclass
class Conversation:
    name: str
    sessions: dict[int, list[Turn]]
    observations: dict[str, list[str]]  # dia id -> the observations taken from that turn
    questions: list[dict[str, Any]]
    turns: dict[str, Turn] = field(default_factory=dict)


def _when(value: str) -> datetime:
    # "1:56 pm on 8 May, 2023"
    return datetime.strptime(value.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def load_conversations(folder: Path) -> list[Conversation]:
    conversations = []
    for path in sorted(folder.glob("*.json")):
        data = json.loads(path.read_text())
        if "conversation" in data:  # the original file keeps the sessions one level down
            data = {**data["conversation"], **{k: v for k, v in data.items() if k != "conversation"}}
        sessions: dict[int, list[Turn]] = {}
        for key, turns in data.items():
            match = _SESSION.fullmatch(key)
            if not match or not isinstance(turns, list):
                continue
            number = int(match.group(1))
            start = _when(data[f"session_{number}_date_time"])
            sessions[number] = [
                Turn(t["dia_id"], t["speaker"], t["text"], start + timedelta(seconds=20 * i))
                for i, t in enumerate(turns)
            ]
        observations: dict[str, list[str]] = {}
        for key, per_speaker in data.items():
            if key.endswith("_observation") and isinstance(per_speaker, dict):
                for facts in per_speaker.values():
                    for fact, dia in facts:
                        for dia_id in dia if isinstance(dia, list) else [dia]:
                            observations.setdefault(str(dia_id), []).append(fact)
        questions = [q for q in data.get("qa", []) if q.get("category") != ADVERSARIAL and q.get("evidence")]
        conversation = Conversation(path.stem, dict(sorted(sessions.items())), observations, questions)
        conversation.turns = {t.dia_id: t for turns in conversation.sessions.values() for t in turns}
        conversations.append(conversation)
    if not conversations:
        raise SystemExit(f"no conversations (*.json) in {folder}")
    return conversations


def _ok(response: Any, what: str) -> Any:
    if response.status not in (200, 201, 202):
        raise SystemExit(f"{what}: HTTP {response.status} {response.body[:300]!r}")
    return response.json()


def append_all(client: HttpClient, conversation: Conversation) -> dict[tuple[str, int], str]:
    """Append every turn; returns (session id, seq) -> dia id."""
    where: dict[tuple[str, int], str] = {}
    for number, turns in conversation.sessions.items():
        session_id = f"{conversation.name}-s{number}"
        for start in range(0, len(turns), 100):
            batch = turns[start : start + 100]
            body = {
                "user_id": conversation.name,
                "messages": [
                    {
                        "role": "user",
                        "name": t.speaker,
                        "content": t.text,
                        "created_at": t.created_at.isoformat(),
                        "metadata": {"dia": t.dia_id},
                    }
                    for t in batch
                ],
            }
            answer = _ok(client.send(Request("POST", f"{API}/sessions/{session_id}/messages", body)), "append")
            for message, turn in zip(answer["messages"], batch, strict=True):
                where[(session_id, message["seq"])] = turn.dia_id
    return where


def wait_for_extraction(database_url: str, namespace_id: int, timeout: float, log: Any) -> float:
    """Until every message of the namespace is extracted and no run is pending; returns the seconds waited."""
    from django.db import connection

    from memoryadmin.conversations.models import Message
    from memoryadmin.extraction.models import ExtractionRun, RunStatus

    started = time.monotonic()
    last = None
    while True:
        left = Message.objects.filter(session__namespace_id=namespace_id, extracted_at__isnull=True).count()
        pending = ExtractionRun.objects.filter(
            namespace_id=namespace_id, status__in=[RunStatus.QUEUED, RunStatus.RUNNING]
        ).count()
        failed = list(
            ExtractionRun.objects.filter(namespace_id=namespace_id, status=RunStatus.FAILED).values_list(
                "error", flat=True
            )[:3]
        )
        if failed:
            raise SystemExit(f"extraction runs failed: {failed}")
        if left == 0 and pending == 0:
            return time.monotonic() - started
        if (left, pending) != last:
            log(f"  waiting for extraction: {left} messages unextracted, {pending} runs pending")
            last = (left, pending)
        if time.monotonic() - started > timeout:
            raise SystemExit(f"extraction did not finish within {timeout:.0f}s ({left} messages left)")
        connection.close()
        time.sleep(1.0)


def memories_of(client: HttpClient, user_id: str) -> Iterator[dict[str, Any]]:
    cursor = None
    while True:
        path = f"{API}/memories?user_id={user_id}&status=any&limit=200" + (f"&cursor={cursor}" if cursor else "")
        page = _ok(client.send(Request("GET", path)), "list memories")
        yield from page["items"]
        cursor = page["next_cursor"]
        if not cursor:
            return


def evidence_turns(client: HttpClient, memory_id: str, where: dict[tuple[str, int], str]) -> list[str]:
    items = _ok(client.send(Request("GET", f"{API}/memories/{memory_id}/evidence")), "evidence")["items"]
    return [where[(item["session_id"], item["seq"])] for item in items if (item["session_id"], item["seq"]) in where]


_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "so",
        "if",
        "of",
        "to",
        "in",
        "on",
        "at",
        "for",
        "with",
        "from",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "what",
        "when",
        "where",
        "who",
        "why",
        "how",
        "did",
        "does",
        "do",
        "has",
        "have",
        "had",
        "i",
        "you",
        "he",
        "she",
        "they",
        "it",
        "this",
        "that",
        "my",
        "your",
        "his",
        "her",
        "their",
    ]
)


def _terms(text: str) -> list[str]:
    terms = []
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        if word in _STOP:
            continue
        for suffix in ("ing", "ed", "es", "s"):
            if word.endswith(suffix) and len(word) - len(suffix) >= 3:
                word = word[: -len(suffix)]
                break
        terms.append(word)
    return terms


def bm25_hits(documents: list[tuple[str, set[str]]], questions: list[dict[str, Any]], k: int = 10) -> int:
    """Questions whose top `k` documents (text, evidence turns) by BM25 include one of their evidence turns."""
    docs = [Counter(_terms(text)) for text, _ in documents]
    lengths = [sum(d.values()) for d in docs]
    average = sum(lengths) / max(len(docs), 1)
    frequency = Counter(term for d in docs for term in d)
    hits = 0
    for question in questions:
        terms = _terms(question["question"])
        scored = []
        for index, (doc, length) in enumerate(zip(docs, lengths, strict=True)):
            score = 0.0
            for term in terms:
                if term in doc:
                    idf = math.log(1 + (len(docs) - frequency[term] + 0.5) / (frequency[term] + 0.5))
                    score += idf * doc[term] * 2.2 / (doc[term] + 1.2 * (0.25 + 0.75 * length / average))
            if score > 0:
                scored.append((score, index))
        top = [index for _, index in sorted(scored, reverse=True)[:k]]
        wanted = set(question["evidence"])
        hits += any(documents[index][1] & wanted for index in top)
    return hits


def measure(args: argparse.Namespace) -> dict[str, Any]:
    log = print
    conversations = load_conversations(Path(args.data))
    if args.strategy in LLM_STRATEGIES and not os.environ.get("LLM_BASE_URL"):
        raise SystemExit(f"the {args.strategy} strategy needs LLM_BASE_URL (and LLM_API_KEY, LLM_MODEL) set")
    database_recreate(args.database_url)
    migrate(args.database_url, args.redis_url)
    django_setup(args.database_url, args.redis_url)

    from memoryadmin.audit.services import Actor
    from memoryadmin.core.redis_client import get_redis
    from memoryadmin.tenancy.services import api_key_create, namespace_create

    get_redis().flushdb()
    actor = Actor.system("bench")
    namespace = namespace_create(slug="quality", actor=actor, name="Extraction quality")
    if args.strategy:
        namespace.extraction_strategy = args.strategy
        namespace.save(update_fields=["extraction_strategy"])
    _, api_key = api_key_create(namespace=namespace, name="bench", scopes=["read", "write"], actor=actor)

    server = AppServer(
        name="quality-web",
        database_url=args.database_url,
        redis_url=args.redis_url,
        port=args.port,
        workers=2,
        threads=2,
        extra_env={"EXTRACTION_DEBOUNCE_SECONDS": "0.5"},
    )
    worker = CeleryWorker(database_url=args.database_url, redis_url=args.redis_url)
    try:
        server.wait_ready()
        worker.wait_ready()
        client = HttpClient(args.port, api_key)
        where: dict[tuple[str, int], str] = {}
        started = time.monotonic()
        for conversation in conversations:
            where.update(append_all(client, conversation))
        total_turns = len(where)
        log(f"appended {total_turns} turns of {len(conversations)} conversations in {time.monotonic() - started:.1f}s")
        waited = wait_for_extraction(args.database_url, namespace.pk, args.timeout, log)
        log(f"extraction finished {waited:.1f}s after the last append")

        results: dict[str, Any] = {"conversations": {}}
        all_memories: list[tuple[Conversation, dict[str, Any], list[str]]] = []
        hits = asked = reference_memories = reference_turns = 0
        for conversation in conversations:
            evidence_of: dict[str, list[str]] = {}
            memories = list(memories_of(client, conversation.name))
            for memory in memories:
                evidence_of[memory["id"]] = evidence_turns(client, memory["id"], where)
                all_memories.append((conversation, memory, evidence_of[memory["id"]]))
            conversation_hits = 0
            for question in conversation.questions:
                answer = _ok(
                    client.send(
                        Request(
                            "POST",
                            f"{API}/memories/search",
                            {"query": question["question"], "user_id": conversation.name, "limit": 10},
                        )
                    ),
                    "search",
                )
                wanted = set(question["evidence"])
                if any(wanted & set(evidence_of.get(hit["memory"]["id"], [])) for hit in answer["items"]):
                    conversation_hits += 1
            hits += conversation_hits
            asked += len(conversation.questions)
            reference_memories += bm25_hits(
                [(m["text"], set(evidence_of[m["id"]])) for m in memories if m["status"] == "active"],
                conversation.questions,
            )
            reference_turns += bm25_hits(
                [(f"{t.speaker} {t.text}", {t.dia_id}) for t in conversation.turns.values()], conversation.questions
            )
            observed = sum(1 for m in memories if any(d in conversation.observations for d in evidence_of[m["id"]]))
            results["conversations"][conversation.name] = {
                "turns": len(conversation.turns),
                "memories": len(memories),
                "questions": len(conversation.questions),
                "hit_at_10": round(conversation_hits / max(len(conversation.questions), 1), 3),
                "precision_proxy": round(observed / max(len(memories), 1), 3),
            }
        client.close()
    finally:
        worker.stop()
        server.stop()

    extracted = [(c, m, e) for c, m, e in all_memories if m["source"] == "extraction"]
    precise = sum(1 for c, _, e in extracted if any(d in c.observations for d in e))
    drawn = [(c, m, e) for c, m, e in extracted if m["memory_type"] != "utterance"]
    drawn_precise = sum(1 for c, _, e in drawn if any(d in c.observations for d in e))
    leaning = [(m, unresolved_pronouns(m["text"], m.get("subject") or "")) for _, m, _ in drawn]
    leaning = [(m, found) for m, found in leaning if found]
    by_status: dict[str, int] = {}
    by_type: dict[str, int] = {}
    for _, memory, _ in extracted:
        by_status[memory["status"]] = by_status.get(memory["status"], 0) + 1
        by_type[memory["memory_type"]] = by_type.get(memory["memory_type"], 0) + 1
    results.update(
        {
            "strategy": namespace.extraction_strategy,
            "turns": total_turns,
            "questions": asked,
            "memories": len(extracted),
            "memories_by_status": by_status,
            "memories_by_type": by_type,
            "hit_at_10": round(hits / max(asked, 1), 3),
            "reference_bm25_hit_at_10": {
                "memories": round(reference_memories / max(asked, 1), 3),
                "raw_turns": round(reference_turns / max(asked, 1), 3),
            },
            "precision_proxy": round(precise / max(len(extracted), 1), 3),
            "precision_proxy_drawn": round(drawn_precise / max(len(drawn), 1), 3),
            "self_contained": round(1 - len(leaning) / max(len(drawn), 1), 3),
            "not_self_contained_sample": [
                {"text": m["text"], "pronouns": found}
                for m, found in random.Random(args.seed).sample(leaning, min(10, len(leaning)))
            ],
            "turns_with_a_memory": round(
                len({(c.name, d) for c, _, e in extracted for d in e}) / max(total_turns, 1), 3
            ),
            "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
        }
    )
    print_report(results, extracted, args.sample, args.seed)
    return results


def print_report(
    results: dict[str, Any], extracted: list[tuple[Any, dict[str, Any], list[str]]], sample: int, seed: int
) -> None:
    print()
    print(
        f"strategy {results['strategy']}: {results['turns']} turns -> {results['memories']} memories "
        f"{results['memories_by_type']} {results['memories_by_status']}"
    )
    for name, figures in results["conversations"].items():
        print(f"  {name}: {figures}")
    print(f"dialog -> memory hit@10: {results['hit_at_10']:.3f} ({results['questions']} questions)")
    reference = results["reference_bm25_hit_at_10"]
    print(
        f"reference, BM25 within each conversation, hit@10: {reference['memories']:.3f} over the active memories, "
        f"{reference['raw_turns']:.3f} over the raw turns"
    )
    print(
        f"precision proxy: {results['precision_proxy']:.3f} (memories whose evidence turn carries an observation); "
        f"{results['precision_proxy_drawn']:.3f} of the memories drawn from turns (utterances left out)"
    )
    print(
        f"self-contained: {results['self_contained']:.3f} of the memories drawn from turns have no unresolved "
        f"pronoun as subject or object; turns with a memory: {results['turns_with_a_memory']:.3f}"
    )
    for item in results["not_self_contained_sample"]:
        print(f"    {item['pronouns']}: {item['text'][:160]}")
    if not sample or not extracted:
        return
    print()
    print(f"A sample of {min(sample, len(extracted))} memories (seed {seed}) with the turn each came from:")
    for conversation, memory, evidence in random.Random(seed).sample(extracted, min(sample, len(extracted))):
        print()
        print(f"- [{memory['memory_type']}, {memory['status']}] {memory['text']}")
        for dia_id in evidence:
            turn = conversation.turns[dia_id]
            print(f"    {dia_id} {turn.speaker}: {turn.text[:300]}")
            for fact in conversation.observations.get(dia_id, []):
                print(f"      observation: {fact}")
            if dia_id not in conversation.observations:
                print("      (no observation on this turn)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", required=True, help="folder of LoCoMo-format conversations (*.json)")
    parser.add_argument("--strategy", default=None, help="extraction strategy (default: the namespace default)")
    parser.add_argument("--database-url", default=os.environ.get("BENCH_QUALITY_DATABASE_URL", DEFAULT_DATABASE_URL))
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL", DEFAULT_REDIS_URL))
    parser.add_argument("--port", type=int, default=8310)
    parser.add_argument("--sample", type=int, default=25, help="memories to print for a person to check")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds to wait for extraction")
    parser.add_argument("--json", help="write the figures to this file as JSON")
    args = parser.parse_args()
    results = measure(args)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
