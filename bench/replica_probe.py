"""Read replicas under load: read-your-writes with the replica lagging, and a replica stopped mid-run.

    python bench/replica_probe.py [--probes 10000] [--clients 8] [--apply-delay 2] [--load-seconds 20]

Starts a streaming replica of the primary (bin/replica_pg.py: pg_basebackup into a temporary
folder, another port) and the app as in production (gunicorn, DEBUG off) with
DATABASE_REPLICA_URLS pointing at it, then measures over HTTP:

1. Read-your-writes, the replica lagging (`recovery_min_apply_delay`): each probe writes a memory
   for a person of its own with one key, then lists that person's memories with the same key; the
   probe passes when the list holds the memory just written. Every tenth probe, another key (which
   never writes) lists the same person right after: how often it misses the memory shows that the
   replica is lagging and in use.
2. A replica stopped in the middle of a load run: with its replay paused before a marker memory is
   written, clients that never write list and search the marker's person in a loop; the replica is
   stopped (`pg_ctl stop -m immediate`) a third of the way through. Every answer must be a 200;
   before the stop the answers come from the replica (no marker), after it from the primary (the
   marker), and the time until every answer has the marker is measured.

Prints the figures as one JSON object. Uses the database DATABASE_URL names (default ma_replica,
migrated first) and a Redis database of its own.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import database_name, django_setup  # noqa: E402
from bench.generate import migrate  # noqa: E402
from bench.server import AppServer  # noqa: E402
from bin.replica_pg import replica  # noqa: E402

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/ma_replica"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/6"


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def keys(count: int) -> list[str]:
    """`count` read/write keys of a namespace of their own (made through the services, as the app does)."""
    from memoryadmin.audit.services import Actor
    from memoryadmin.tenancy.services import api_key_create, namespace_create

    actor = Actor.system("bench")
    slug = f"replica-bench-{uuid.uuid4().hex[:8]}"
    namespace = namespace_create(slug=slug, actor=actor)
    return [
        api_key_create(namespace=namespace, name=f"bench-{i}", scopes=["read", "write"], actor=actor)[1]
        for i in range(count)
    ]


def client(base: str, key: str) -> httpx.Client:
    return httpx.Client(base_url=base, headers={"Authorization": f"Bearer {key}"}, timeout=60)


def run_threads(count: int, work: Callable[[int], None]) -> None:
    threads = [threading.Thread(target=work, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def read_your_writes(base: str, writer_keys: list[str], observer_key: str, probes: int) -> dict[str, Any]:
    lock = threading.Lock()
    counts = {"probes": 0, "seen": 0, "deduplicated": 0, "errors": 0, "control_reads": 0, "control_stale": 0}
    per_client = [
        probes // len(writer_keys) + (1 if i < probes % len(writer_keys) else 0) for i in range(len(writer_keys))
    ]

    def work(index: int) -> None:
        with client(base, writer_keys[index]) as writer, client(base, observer_key) as observer:
            for n in range(per_client[index]):
                person = f"probe-{index}-{n}-{uuid.uuid4().hex[:6]}"
                written = writer.post("/api/v1/memories", json={"user_id": person, "text": f"{person} likes tea"})
                if written.status_code not in (200, 201):
                    with lock:
                        counts["errors"] += 1
                    continue
                memory_id = written.json()["id"]
                listed = writer.get("/api/v1/memories", params={"user_id": person})
                seen = listed.status_code == 200 and memory_id in {m["id"] for m in listed.json()["items"]}
                if not seen:
                    log(f"missed: memory {memory_id} of {person} not in its writer's list ({listed.status_code})")
                control_stale = None
                if n % 10 == 0:
                    other = observer.get("/api/v1/memories", params={"user_id": person})
                    control_stale = other.status_code == 200 and not other.json()["items"]
                with lock:
                    counts["probes"] += 1
                    counts["seen"] += int(seen)
                    counts["deduplicated"] += int(written.status_code == 200)
                    counts["errors"] += int(listed.status_code != 200)
                    if control_stale is not None:
                        counts["control_reads"] += 1
                        counts["control_stale"] += int(control_stale)

    started = time.monotonic()
    run_threads(len(writer_keys), work)
    counts["seconds"] = round(time.monotonic() - started, 1)
    counts["seen_share"] = counts["seen"] / max(counts["probes"], 1)
    return counts


def stopped_mid_run(base: str, made: Any, writer_key: str, reader_keys: list[str], seconds: float) -> dict[str, Any]:
    made.pause_replay()
    with client(base, writer_key) as writer:
        marker = writer.post("/api/v1/memories", json={"user_id": "marker", "text": "The marker was written"})
        assert marker.status_code == 201, marker.text
    answers: list[tuple[float, float, bool, bool]] = []  # (start, latency, ok, saw marker)
    lock = threading.Lock()
    started = time.monotonic()
    stop_at = started + seconds / 3
    stopped: dict[str, float] = {}

    def work(index: int) -> None:
        with client(base, reader_keys[index]) as reader:
            n = 0
            while time.monotonic() - started < seconds:
                n += 1
                begin = time.monotonic()
                try:
                    if n % 2:
                        response = reader.get("/api/v1/memories", params={"user_id": "marker"})
                        texts = [m["text"] for m in response.json()["items"]] if response.status_code == 200 else []
                    else:
                        response = reader.post(
                            "/api/v1/memories/search", json={"query": "What was written?", "user_id": "marker"}
                        )
                        items = response.json()["items"] if response.status_code == 200 else []
                        texts = [hit["memory"]["text"] for hit in items]
                    ok = response.status_code == 200
                except httpx.HTTPError:
                    ok, texts = False, []
                with lock:
                    answers.append((begin - started, time.monotonic() - begin, ok, "The marker was written" in texts))

    def stopper() -> None:
        time.sleep(max(0.0, stop_at - time.monotonic()))
        made.stop("immediate")
        stopped["at"] = time.monotonic() - started

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(reader_keys))]
    threads.append(threading.Thread(target=stopper))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    stop = stopped["at"]
    before = [a for a in answers if a[0] + a[1] < stop]
    after = [a for a in answers if a[0] >= stop]
    stale_after = [a for a in after if not a[3]]
    # Reads back on the primary: from the stop until the end of the last answer without the marker.
    back_within = max((a[0] + a[1] - stop for a in stale_after), default=0.0)
    return {
        "seconds": seconds,
        "stopped_at_s": round(stop, 2),
        "answers": len(answers),
        "errors": sum(1 for a in answers if not a[2]),
        "before_stop": len(before),
        "before_stop_from_replica_share": round(sum(1 for a in before if not a[3]) / max(len(before), 1), 4),
        "after_stop": len(after),
        "after_stop_from_primary_share": round(sum(1 for a in after if a[3]) / max(len(after), 1), 4),
        "reads_back_on_primary_within_s": round(back_within, 3),
        "slowest_answer_after_stop_s": round(max((a[1] for a in after), default=0.0), 3),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default=os.environ.get("DATABASE_URL", DEFAULT_DATABASE_URL))
    parser.add_argument("--redis-url", default=DEFAULT_REDIS_URL)
    parser.add_argument("--probes", type=int, default=10_000)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--apply-delay", type=float, default=2.0, help="the replica's recovery_min_apply_delay (s)")
    parser.add_argument("--load-seconds", type=float, default=20.0)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()

    migrate(args.database_url, args.redis_url)
    django_setup(args.database_url, args.redis_url)
    # One namespace: the observer and the readers see what the writers write.
    made_keys = keys(2 * args.clients + 2)
    observer_key, marker_key = made_keys[0], made_keys[1]
    probe_keys, reader_keys = made_keys[2 : 2 + args.clients], made_keys[2 + args.clients :]
    results: dict[str, Any] = {"probes": args.probes, "clients": args.clients, "apply_delay_s": args.apply_delay}
    with replica(args.database_url) as made:
        port = free_port()
        server = AppServer(
            name="replica-probe",
            database_url=args.database_url,
            redis_url=args.redis_url,
            port=port,
            workers=args.workers,
            threads=4,
            extra_env={
                "DATABASE_REPLICA_URLS": made.url(database_name(args.database_url)),
                # Replay is paused for the whole second run: the replica stays in use however far behind.
                "DATABASE_REPLICA_MAX_LAG_SECONDS": "300",
                "DATABASE_REPLICA_READ_YOUR_WRITES_SECONDS": "300",
                "DATABASE_REPLICA_RETRY_SECONDS": "10",
            },
        )
        try:
            server.wait_ready()
            base = f"http://127.0.0.1:{port}"
            made.configure(recovery_min_apply_delay=f"{int(args.apply_delay * 1000)}ms")
            log(f"read-your-writes: {args.probes} probes, {args.clients} clients, apply delay {args.apply_delay} s")
            results["read_your_writes"] = read_your_writes(base, probe_keys, observer_key, args.probes)
            log(json.dumps(results["read_your_writes"]))
            made.configure(recovery_min_apply_delay="0")
            log(f"replica stopped in the middle of a {args.load_seconds} s load run")
            results["replica_stopped"] = stopped_mid_run(base, made, marker_key, reader_keys, args.load_seconds)
            log(json.dumps(results["replica_stopped"]))
        finally:
            server.stop()
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
