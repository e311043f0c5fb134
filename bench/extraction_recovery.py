"""The cost of beat's extraction recovery tick as the message table grows.

    .venv/bin/python bench/extraction_recovery.py [--scales 200000,2000000] [--waiting 500]

Fills its own database (created and migrated when missing; never the development one)
with sessions of 50 messages each, all extracted, up to each scale in turn. At every
scale the same shape waits for extraction: `--waiting` sessions with three messages
left unextracted an hour ago (what an append during a Redis outage leaves) and as many
with two messages appended a moment ago (inside their quiet period), each session with
five finished runs. After VACUUM ANALYZE it times, medians of `--repeat`:

- the sweep statement alone (`sessions_waiting_for_extraction`, one page of 500), with
  the buffers it touches (EXPLAIN ANALYZE);
- a quiet tick (`extraction_recover` when every waiting session already holds a pending
  schedule: what each tick costs in steady state);
- a tick that schedules a whole batch of lost sessions (500 queued runs and tasks).

The tasks the ticks publish go to REDIS_URL's database, which the bench empties of its
schedule keys and queue afterwards: point REDIS_URL at a database of your own.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/memoryadmin_bench_recovery"
PER_SESSION = 50


def grow_to(cursor, namespace_id: int, messages: int, have_sessions: int) -> int:
    """Add extracted sessions until the table holds `messages` messages; returns the session count."""
    sessions = messages // PER_SESSION
    if sessions <= have_sessions:
        return have_sessions
    cursor.execute(
        """
        INSERT INTO conversations_session
            (namespace_id, session_id, user_id, agent_id, metadata, message_count, created_at, updated_at,
             last_message_at, last_activity_at)
        SELECT %s, 'bench-' || g, 'user-' || (g %% 10000), '', '{}', %s, now() - interval '2 days',
               now() - interval '2 days', now() - interval '2 days', now() - interval '2 days'
        FROM generate_series(%s, %s) g
        """,
        [namespace_id, PER_SESSION, have_sessions + 1, sessions],
    )
    cursor.execute(
        """
        INSERT INTO conversations_message
            (session_id, seq, role, kind, content, name, run_id, tool_calls, tool_call_id, metadata,
             created_at, persisted_at, extracted_at)
        SELECT s.id, q, CASE WHEN q %% 2 = 1 THEN 'user' ELSE 'assistant' END, 'message',
               'I live in Lyon and I love jazz, message ' || q, '', '', NULL, '', '{}',
               now() - interval '2 days', now() - interval '2 days', now() - interval '2 days'
        FROM conversations_session s, generate_series(1, %s) q
        WHERE s.namespace_id = %s AND s.id > (SELECT COALESCE(max(session_id), 0) FROM conversations_message)
        """,
        [PER_SESSION, namespace_id],
    )
    cursor.execute(
        """
        INSERT INTO extraction_extractionrun
            (id, namespace_id, session_id, status, strategy, candidates, created, updated, duplicates, suppressed,
             error, created_at, started_at, heartbeat_at, finished_at)
        SELECT gen_random_uuid(), %s, s.id, 'succeeded', 'rules', 1, 1, 0, 0, 0, '',
               now() - interval '2 days', now() - interval '2 days', now() - interval '2 days',
               now() - interval '2 days'
        FROM conversations_session s, generate_series(1, 5)
        WHERE s.namespace_id = %s AND NOT EXISTS (SELECT 1 FROM extraction_extractionrun r WHERE r.session_id = s.id)
        """,
        [namespace_id, namespace_id],
    )
    return sessions


def shape_waiting(cursor, namespace_id: int, waiting: int) -> None:
    """Every scale gets the same waiting set: `waiting` lost sessions and `waiting` busy ones, spread out."""
    cursor.execute("UPDATE conversations_message SET extracted_at = now() WHERE extracted_at IS NULL")
    cursor.execute("SELECT id FROM conversations_session WHERE namespace_id = %s ORDER BY id", [namespace_id])
    ids = [pk for (pk,) in cursor.fetchall()]
    step = max(len(ids) // (2 * waiting), 1)
    picked = ids[::step][: 2 * waiting]
    lost, busy = picked[0::2], picked[1::2]
    cursor.execute(
        """
        UPDATE conversations_message SET extracted_at = NULL, persisted_at = now() - interval '1 hour'
        WHERE session_id = ANY(%s) AND seq > %s
        """,
        [lost, PER_SESSION - 3],
    )
    cursor.execute(
        """
        UPDATE conversations_message SET extracted_at = NULL, persisted_at = now()
        WHERE session_id = ANY(%s) AND seq > %s
        """,
        [busy, PER_SESSION - 2],
    )
    cursor.execute("DELETE FROM extraction_extractionrun WHERE status = 'queued'")


def median_ms(work, repeat: int) -> float:
    timings = []
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        timings.append(time.perf_counter() - started)
    return statistics.median(timings) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scales", default="200000,2000000", help="message counts, ascending")
    parser.add_argument("--waiting", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--database-url", default=os.environ.get("BENCH_RECOVERY_DATABASE_URL", DEFAULT_DATABASE_URL))
    args = parser.parse_args()

    from bench.extraction_throughput import setup_django

    setup_django(args.database_url)
    from django.conf import settings
    from django.db import connection
    from django.utils import timezone

    from memoryadmin.audit.services import Actor
    from memoryadmin.conversations.queries import _WAITING_SQL as WAITING_SQL
    from memoryadmin.conversations.queries import sessions_waiting_for_extraction
    from memoryadmin.core.redis_client import get_redis
    from memoryadmin.extraction.services import extraction_recover
    from memoryadmin.tenancy.models import Namespace
    from memoryadmin.tenancy.services import namespace_create

    redis = get_redis()
    namespace = Namespace.objects.filter(slug="bench-recovery").first() or namespace_create(
        slug="bench-recovery", actor=Actor.system("bench")
    )
    persisted_before = timezone.now() - timedelta(seconds=settings.EXTRACTION_DEBOUNCE_SECONDS + 60)

    def clear_schedules() -> None:
        keys = list(redis.scan_iter("extract:*", count=1000))
        for start in range(0, len(keys), 1000):
            redis.delete(*keys[start : start + 1000])
        redis.delete("celery")

    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM conversations_session WHERE namespace_id = %s", [namespace.pk])
        have = cursor.fetchone()[0]
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; {args.waiting} lost + {args.waiting} busy")
    for scale in (int(s) for s in args.scales.split(",")):
        started = time.perf_counter()
        with connection.cursor() as cursor:
            have = grow_to(cursor, namespace.pk, scale, have)
            shape_waiting(cursor, namespace.pk, args.waiting)
            cursor.execute("VACUUM ANALYZE conversations_message")
            cursor.execute("VACUUM ANALYZE extraction_extractionrun")
            cursor.execute("VACUUM ANALYZE conversations_session")
            cursor.execute("SELECT count(*) FROM conversations_message")
            messages = cursor.fetchone()[0]
        built = time.perf_counter() - started

        sweep = median_ms(
            lambda: sessions_waiting_for_extraction(persisted_before=persisted_before, limit=500), args.repeat
        )
        found = sessions_waiting_for_extraction(persisted_before=persisted_before, limit=500)
        with connection.cursor() as cursor:
            cursor.execute(
                "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + WAITING_SQL,
                {"after": 0, "before": persisted_before, "limit": 500},
            )
            plan = cursor.fetchone()[0][0]["Plan"]
        buffers = plan.get("Shared Hit Blocks", 0) + plan.get("Shared Read Blocks", 0)

        clear_schedules()
        batch_started = time.perf_counter()
        scheduled = extraction_recover()["scheduled"]
        batch_ms = (time.perf_counter() - batch_started) * 1000
        # Now every lost session holds a pending schedule: what a tick costs when there is nothing to do.
        quiet = median_ms(extraction_recover, args.repeat)
        assert extraction_recover() == {"interrupted": 0, "scheduled": 0}
        clear_schedules()
        with connection.cursor() as cursor:
            cursor.execute("DELETE FROM extraction_extractionrun WHERE status = 'queued'")

        print(
            f"{messages:>10,} messages ({have:,} sessions, built in {built:.0f}s): "
            f"sweep {sweep:.2f} ms for {len(found)} sessions ({buffers} buffers); "
            f"quiet tick {quiet:.2f} ms; tick scheduling {scheduled} sessions {batch_ms:.0f} ms"
        )


if __name__ == "__main__":
    main()
