"""Throughput of offline extraction in one worker process, in messages per second.

    .venv/bin/python bench/extraction_throughput.py [--strategy offline] [--sessions 200] [--messages-per-session 50]

Prints two figures for the strategy (`offline`, the default, or `rules`):

- strategy: the strategy alone over the sessions' messages (parsing only, no database);
- pipeline: whole runs as a worker executes them, one session after another in this
  single process: read the unextracted messages, run the strategy, send the
  candidates down the write path together (tombstone check, exact and near
  duplicates, insert, revision, evidence, audit: `memory_create_many`), mark the
  messages and record the run's counts.

Conversations are generated deterministically (seeded): users and assistants
alternate; a share of the user messages (--fact-share, 35% by default) state a
fact, often one the same user stated in an earlier session (so duplicates and
near-duplicates occur), and one was forgotten (so a tombstone suppresses it). The runs are executed
directly rather than through Celery so the figure is the extraction work itself;
nothing is published to a broker.

The bench uses its own database (created and migrated when missing) and never
touches the development one.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/memoryadmin_bench_extraction"

CITIES = ["Lyon", "Berlin", "Lisbon", "Toronto", "Osaka", "Nairobi", "Lima", "Oslo", "Porto", "Austin", "Hanoi"]
COMPANIES = ["Acme", "Globex", "Initech", "Umbrella", "Hooli", "Stark Industries", "Wayne Enterprises", "Vandelay"]
JOBS = ["a nurse", "a software engineer", "a teacher", "an architect", "a chef", "a pilot", "a data analyst"]
LIKES = [
    "jazz",
    "hiking in the mountains",
    "spicy food",
    "board games",
    "early mornings",
    "long train journeys",
    "Italian cooking",
    "science fiction novels",
    "open-water swimming",
    "black coffee",
]
NAMES = ["Anna", "Ben", "Chloé", "Diego", "Emeka", "Farah", "Goro", "Hana", "Ivan", "Jules"]
FACTS = [
    "I live in {city}.",
    "By the way, I moved to {city} last spring.",
    "I'm originally from {city}.",
    "I work at {company} as {job}.",
    "I work as {job}.",
    "I love {like}.",
    "I really don't like {like}.",
    "I'm a big fan of {like}.",
    "My name is {name}.",
    "Call me {name}.",
    "My favourite city is {city}.",
    "Remember that I'm allergic to peanuts.",
    "I prefer {like} over {like2}.",
    "Hi, I'm {name} and I live in {city}.",
]
CHATTER = [
    "Can you help me plan a weekend in {city}?",
    "What's the weather like in {city} this week?",
    "If I lived in {city}, would I need a car?",
    "My sister lives in {city} and works at {company}.",
    "Thanks, that's really helpful!",
    "Could you summarise the last answer in three bullet points?",
    "I wonder whether {company} is hiring right now.",
    "Do you think I should learn to cook {like}?",
    "Ok, let's move on to the next question.",
    "I like that idea.",
    "Imagine I'm from {city}: what would I eat for breakfast?",
    "Write me a short poem about {like}.",
]
ASSISTANT = (
    "Here is what I found about {city}: the old town is walkable, public transport is frequent, and most "
    "museums are closed on Mondays. Would you like me to suggest an itinerary or compare neighbourhoods?"
)


def generate(
    rng: random.Random, sessions: int, per_session: int, users: int, fact_share: float
) -> list[tuple[str, str, list]]:
    """[(user_id, session_id, [(role, content), ...]), ...]"""
    conversations = []
    for s in range(sessions):
        user_id = f"user-{rng.randrange(users)}"
        messages = []
        for i in range(per_session):
            slots = {
                "city": rng.choice(CITIES),
                "company": rng.choice(COMPANIES),
                "job": rng.choice(JOBS),
                "like": rng.choice(LIKES),
                "like2": rng.choice(LIKES),
                "name": rng.choice(NAMES),
            }
            if i % 2:
                messages.append(("assistant", ASSISTANT.format(**slots)))
            elif rng.random() < fact_share:
                messages.append(("user", rng.choice(FACTS).format(**slots)))
            else:
                messages.append(("user", rng.choice(CHATTER).format(**slots)))
        conversations.append((user_id, f"bench-{s}", messages))
    return conversations


def database_round_trip(connection, samples: int = 500) -> float:
    """Median seconds of one `SELECT 1`: the floor under every query of the pipeline."""
    timings = []
    with connection.cursor() as cursor:
        for _ in range(samples):
            started = time.perf_counter()
            cursor.execute("SELECT 1")
            cursor.fetchone()
            timings.append(time.perf_counter() - started)
    return statistics.median(timings)


def setup_django(database_url: str) -> None:
    os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryadmin.settings")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    sys.path.insert(0, str(ROOT))
    from bench.common import BENCH_SECRET_KEY

    # As a worker runs in production: DEBUG off (no statement kept in connection.queries).
    os.environ.setdefault("DEBUG", "false")
    os.environ.setdefault("SECRET_KEY", BENCH_SECRET_KEY)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("ensure_database", verbosity=0)
    call_command("migrate", verbosity=0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--messages-per-session", type=int, default=50)
    parser.add_argument("--users", type=int, default=40)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--fact-share", type=float, default=0.35, help="share of user messages stating a fact")
    parser.add_argument("--strategy", default="offline", choices=("offline", "rules"))
    parser.add_argument("--database-url", default=os.environ.get("BENCH_EXTRACTION_DATABASE_URL", DEFAULT_DATABASE_URL))
    args = parser.parse_args()
    setup_django(args.database_url)

    from django.db import connection
    from django.utils import timezone

    from memoryadmin.audit.services import Actor
    from memoryadmin.conversations.services import NewMessage, session_append_messages
    from memoryadmin.conversations.signals import messages_appended
    from memoryadmin.extraction.models import ExtractionRun, RunStatus
    from memoryadmin.extraction.services import extraction_run
    from memoryadmin.extraction.strategies import Batch, SourceMessage, strategy_for
    from memoryadmin.memories.models import Memory
    from memoryadmin.memories.services import memory_create, memory_forget
    from memoryadmin.tenancy.services import namespace_create

    # This process drives the runs itself: appends must not publish tasks to a broker.
    messages_appended.receivers = []
    actor = Actor.system("bench")
    rng = random.Random(args.seed)
    conversations = generate(rng, args.sessions, args.messages_per_session, args.users, args.fact_share)
    total = sum(len(messages) for _, _, messages in conversations)

    # 1. The strategy alone, over each session as a run gives it.
    user_texts = [content for _, _, messages in conversations for role, content in messages if role == "user"]
    strategy = strategy_for(args.strategy, {})
    said_at = timezone.now()
    batches = [
        Batch(
            user_id=user_id,
            session_id=session_id,
            agent_id="",
            messages=[
                SourceMessage(pk=i, seq=i, role=role, content=content, created_at=said_at)
                for i, (role, content) in enumerate(messages, start=1)
            ],
            now=said_at,
        )
        for user_id, session_id, messages in conversations
    ]
    started = time.process_time()
    found = sum(len(strategy.extract(batch)) for batch in batches)
    strategy_seconds = time.process_time() - started

    # 2. Whole runs, as one worker process does them.
    namespace = namespace_create(slug=f"bench-{uuid.uuid4().hex[:10]}", actor=actor, extraction_strategy=args.strategy)
    forgotten = memory_create(namespace=namespace, user_id="user-0", text="User lives in Lyon", actor=actor).memory
    memory_forget(memory=forgotten, actor=actor, reason="bench: a tombstone to honour")
    sessions = []
    for user_id, session_id, messages in conversations:
        for start in range(0, len(messages), 100):
            session, _ = session_append_messages(
                namespace=namespace,
                session_id=session_id,
                user_id=user_id,
                messages=[NewMessage(role=role, content=content) for role, content in messages[start : start + 100]],
            )
        sessions.append(session)
    runs = [
        ExtractionRun.objects.create(
            namespace=namespace, session=session, strategy=args.strategy, status=RunStatus.QUEUED
        )
        for session in sessions
    ]
    queries = 0

    def count(execute, sql, params, many, context):
        nonlocal queries
        queries += 1
        return execute(sql, params, many, context)

    durations = []
    with connection.execute_wrapper(count):
        started = time.perf_counter()
        for run in runs:
            t0 = time.perf_counter()
            extraction_run(run=run)
            durations.append(time.perf_counter() - t0)
        pipeline_seconds = time.perf_counter() - started

    round_trip = database_round_trip(connection)
    done = ExtractionRun.objects.filter(pk__in=[r.pk for r in runs])
    statuses = set(done.values_list("status", flat=True))
    totals = {f: sum(done.values_list(f, flat=True)) for f in ("candidates", "created", "duplicates", "suppressed")}
    memories = Memory.objects.filter(namespace=namespace).count()

    print(
        f"conversations: {len(conversations)} sessions, {args.users} users, {total} messages "
        f"({len(user_texts)} from users)"
    )
    print(
        f"strategy:  {args.strategy}, {len(user_texts) / strategy_seconds:,.0f} user messages/s "
        f"({found} candidates in {strategy_seconds:.3f}s of CPU, no database)"
    )
    print(
        f"pipeline:  {total / pipeline_seconds:,.0f} messages/s in one worker process "
        f"({total} messages, {len(runs)} runs in {pipeline_seconds:.2f}s; "
        f"run p50 {statistics.median(durations) * 1000:.1f} ms, max {max(durations) * 1000:.1f} ms)"
    )
    print(
        f"           {totals['candidates']} candidates -> {totals['created']} created, "
        f"{totals['duplicates']} duplicates, {totals['suppressed']} suppressed; {memories} memories; "
        f"{queries / total:.2f} queries per message; run statuses {sorted(statuses)}"
    )
    print(
        f"raw limit: one database round trip (SELECT 1) takes {round_trip * 1000:.3f} ms here, so "
        f"{queries / total:.2f} queries per message cap the pipeline at {total / (queries * round_trip):,.0f} "
        f"messages/s before any work; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
    )


if __name__ == "__main__":
    main()
