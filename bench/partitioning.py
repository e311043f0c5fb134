"""The partitioning plan for conversations_message, measured on a copy: today's table against the
same rows hash-partitioned by session.

    .venv/bin/python bench/generate.py --database-url postgres://postgres@127.0.0.1:5432/memoryadmin_bench_part \\
        --memories 20000 --messages 5000000 --users 10000
    .venv/bin/python bench/partitioning.py --database-url postgres://postgres@127.0.0.1:5432/memoryadmin_bench_part

The copy (`bench_message_by_session`, PARTITION BY HASH (session_id), --partitions of them) holds
the same rows with the same indexes; the app's table is not touched. Each query that matters
for messages runs on both tables in alternation (same parameters, same minutes), and the
report gives each one's p50 and p95 and the ratio partitioned / today. Writes are measured
inside transactions that roll back, so both tables stay as generated. docs/partitioning.md
reads the figures.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

TODAY = "conversations_message"
COPY = "bench_message_by_session"
COLUMNS = (
    "id, session_id, seq, role, kind, content, name, run_id, tool_calls, tool_call_id, metadata, "
    "created_at, persisted_at, extracted_at"
)


def build_copy(conn: psycopg.Connection, partitions: int) -> dict[str, float]:
    timings: dict[str, float] = {}
    with conn.cursor() as cur:
        cur.execute(f"DROP TABLE IF EXISTS {COPY}")
        cur.execute(f"CREATE TABLE {COPY} (LIKE {TODAY} INCLUDING DEFAULTS) PARTITION BY HASH (session_id)")
        for n in range(partitions):
            cur.execute(
                f"CREATE TABLE {COPY}_{n} PARTITION OF {COPY} FOR VALUES WITH (MODULUS {partitions}, REMAINDER {n})"
            )
        started = time.perf_counter()
        cur.execute(f"INSERT INTO {COPY} ({COLUMNS}) SELECT {COLUMNS} FROM {TODAY}")
        timings["copy_rows_s"] = time.perf_counter() - started
        # PostgreSQL 15 has no identity column on a partitioned table: a sequence gives the ids instead.
        cur.execute(f"DROP SEQUENCE IF EXISTS {COPY}_id_seq")
        cur.execute(f"CREATE SEQUENCE {COPY}_id_seq OWNED BY {COPY}.id")
        cur.execute(f"SELECT setval('{COPY}_id_seq', (SELECT coalesce(max(id), 0) + 1 FROM {COPY}))")
        cur.execute(f"ALTER TABLE {COPY} ALTER id SET DEFAULT nextval('{COPY}_id_seq')")
        started = time.perf_counter()
        # The primary key must hold the partition key: (session_id, id) instead of (id).
        cur.execute(f"ALTER TABLE {COPY} ADD PRIMARY KEY (session_id, id)")
        cur.execute(f"CREATE UNIQUE INDEX {COPY}_seq ON {COPY} (session_id, seq)")
        cur.execute(f"CREATE INDEX {COPY}_run ON {COPY} (session_id, run_id) WHERE run_id <> ''")
        cur.execute(f"CREATE INDEX {COPY}_unextracted ON {COPY} (session_id, seq) WHERE extracted_at IS NULL")
        timings["build_indexes_s"] = time.perf_counter() - started
    conn.commit()
    conn.autocommit = True
    with conn.cursor() as cur:
        for table in (TODAY, COPY):
            started = time.perf_counter()
            cur.execute(f"VACUUM (ANALYZE) {table}")
            timings[f"vacuum_analyze_{'today' if table == TODAY else 'partitioned'}_s"] = time.perf_counter() - started
        started = time.perf_counter()
        cur.execute(f"VACUUM (ANALYZE) {COPY}_0")
        timings["vacuum_analyze_one_partition_s"] = time.perf_counter() - started
    conn.autocommit = False
    return timings


def sizes(conn: psycopg.Connection) -> dict[str, Any]:
    with conn.cursor() as cur:
        cur.execute(
            f"""
            SELECT pg_total_relation_size('{TODAY}'),
                   (SELECT sum(pg_total_relation_size(inhrelid)) FROM pg_inherits
                    WHERE inhparent = '{COPY}'::regclass),
                   (SELECT max(pg_total_relation_size(inhrelid)) FROM pg_inherits
                    WHERE inhparent = '{COPY}'::regclass),
                   (SELECT count(*) FROM {TODAY})
            """
        )
        today, partitioned, largest, rows = cur.fetchone()
    return {
        "rows": rows,
        "today_mb": round(today / 2**20, 1),
        "partitioned_mb": round(float(partitioned) / 2**20, 1),
        "largest_partition_mb": round(largest / 2**20, 1),
    }


def sample_parameters(conn: psycopg.Connection, n: int, seed: int) -> dict[str, list[Any]]:
    rng = random.Random(seed)
    with conn.cursor() as cur:
        cur.execute(f"SELECT session_id, max(seq) FROM {TODAY} GROUP BY session_id")
        sessions = cur.fetchall()
        cur.execute(
            "SELECT namespace_id, user_id FROM conversations_session GROUP BY namespace_id, user_id HAVING count(*) > 0"
        )
        people = cur.fetchall()
    picked = rng.sample(sessions, min(n, len(sessions)))
    return {
        "pages": [(s, rng.randint(0, max(0, top - 50))) for s, top in picked],
        "appends": [(s, top + 1) for s, top in picked],
        "people": rng.sample(people, min(n, len(people))),
    }


def queries(table: str) -> dict[str, str]:
    """name: SQL with %s parameters (every statement measured is rolled back)."""
    return {
        # A transcript page: the console's and the API's message list, keyset on seq.
        "transcript page (50)": (
            f"SELECT {COLUMNS} FROM {table} WHERE session_id = %s AND seq > %s ORDER BY seq LIMIT 51"
        ),
        # An append: the next seq of a session.
        "append one message": (
            f"INSERT INTO {table} (session_id, seq, role, kind, content, name, run_id, tool_call_id, metadata, "
            "created_at, persisted_at) VALUES (%s, %s, 'user', 'message', 'I moved to Lyon last week.', '', '', "
            "'', '{}', now(), now())"
        ),
        # An erasure: every message of a person's sessions.
        "erase a person's messages": (
            f"DELETE FROM {table} WHERE session_id IN (SELECT id FROM conversations_session "
            "WHERE namespace_id = %s AND user_id = %s)"
        ),
        # A person's export: their sessions' messages in order.
        "export a person's messages": (
            f"SELECT {COLUMNS} FROM {table} WHERE session_id IN (SELECT id FROM conversations_session "
            "WHERE namespace_id = %s AND user_id = %s) ORDER BY session_id, seq"
        ),
    }


def measure(conn: psycopg.Connection, params: dict[str, list[Any]], rounds: int) -> dict[str, dict[str, float]]:
    by_query = {"transcript page (50)": "pages", "append one message": "appends"}
    results: dict[str, dict[str, list[float]]] = {}
    for _ in range(rounds):
        for name in queries(TODAY):
            values = params[by_query.get(name, "people")]
            for value in values:
                for table in (TODAY, COPY):
                    sql = queries(table)[name]
                    started = time.perf_counter()
                    with conn.cursor() as cur:
                        cur.execute(sql, value)
                        if cur.description:
                            cur.fetchall()
                    elapsed = time.perf_counter() - started
                    conn.rollback()
                    results.setdefault(name, {}).setdefault(table, []).append(elapsed * 1000)
    report: dict[str, dict[str, float]] = {}
    for name, tables in results.items():
        row: dict[str, float] = {}
        for table, label in ((TODAY, "today"), (COPY, "partitioned")):
            ms = sorted(tables[table])
            row[f"{label}_p50_ms"] = round(statistics.median(ms), 3)
            row[f"{label}_p95_ms"] = round(ms[int(0.95 * (len(ms) - 1))], 3)
        row["p95_ratio"] = round(row["partitioned_p95_ms"] / row["today_p95_ms"], 2)
        report[name] = row
    return report


def keyset_pass(conn: psycopg.Connection, table: str, batch: int = 5000) -> float:
    """A whole-table pass in keyset batches on (session_id, seq), as a namespace export streams."""
    started = time.perf_counter()
    last = (0, 0)
    with conn.cursor() as cur:
        while True:
            cur.execute(
                f"SELECT session_id, seq, content FROM {table} WHERE (session_id, seq) > (%s, %s) "
                "ORDER BY session_id, seq LIMIT %s",
                [last[0], last[1], batch],
            )
            rows = cur.fetchall()
            if not rows:
                break
            last = (rows[-1][0], rows[-1][1])
    conn.rollback()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/memoryadmin_bench_part")
    parser.add_argument("--partitions", type=int, default=16)
    parser.add_argument("--samples", type=int, default=200, help="parameters per query")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seed", type=int, default=20261204)
    parser.add_argument("--reuse-copy", action="store_true", help="keep a copy built by an earlier run")
    parser.add_argument("--out", default=str(Path(__file__).with_name("results-partitioning.json")))
    args = parser.parse_args()

    with psycopg.connect(args.database_url) as conn:
        with conn.cursor() as cur:
            cur.execute("SELECT to_regclass(%s) IS NOT NULL", [COPY])
            exists = cur.fetchone()[0]
        build = {} if (args.reuse_copy and exists) else build_copy(conn, args.partitions)
        params = sample_parameters(conn, args.samples, args.seed)
        measure(conn, params, 1)  # warm both tables' pages alike
        report = measure(conn, params, args.rounds)
        passes = {
            label: round(keyset_pass(conn, table), 2) for table, label in ((TODAY, "today"), (COPY, "partitioned"))
        }
        result = {
            "partitions": args.partitions,
            "build": build,
            "sizes": sizes(conn),
            "queries": report,
            "full_keyset_pass_s": passes,
        }
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
