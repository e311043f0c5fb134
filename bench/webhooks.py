"""Webhooks under load: every event delivered once by id and in order per person through a receiver outage,
the delivery lag, and what subscribed endpoints cost the writes.

    .venv/bin/python bench/webhooks.py [--changes 10000] [--outage 300] [--clients 8] [--people 200]

Serves the app as in production (gunicorn, DEBUG off) on its own database (recreated each run, never the
development one), with two Celery workers and beat, and a receiver in this process on loopback.

1. **Outage.** `--changes` changes through the API (memories created, edited and forgotten, by
   `--clients` clients, each changing its own people in order) to a namespace with an endpoint subscribed
   to every event. After 40 % of them the receiver goes down for `--outage` seconds (five minutes by
   default; retries are compressed: first wait 1 s, cap 8 s, where production waits 5 s up to an hour, so
   that the writes and the retries overlap the whole outage), then comes back. Checked: every event
   acknowledged, each event id once, and each person's events acknowledged in the order their changes
   were made.
2. **Lag.** Of the events of changes made before the outage (receiver up), the time from the change to the
   receiver's acknowledgement: p50, p95, max.
3. **Cost to writes.** In the same run, memory creates and message appends alternate between a namespace
   with no endpoint and one with two endpoints subscribed to every event (their receiver in a process of
   its own), `--cost-clients` clients; p50 and p95 of each, and the ratio subscribed / none.

The results are printed and written to var/bench/webhooks.json.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections import defaultdict
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import bench_environ, database_recreate  # noqa: E402
from bench.server import LOG_DIR, VENV_BIN, AppServer, CeleryWorker, Process  # noqa: E402

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/memoryadmin_bench_webhooks"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/11"
# Retries compressed with the outage (production: 5 s doubling up to an hour).
WEBHOOK_ENV = {
    "WEBHOOK_ALLOW_PRIVATE_URLS": "true",
    "WEBHOOK_RETRY_BASE_SECONDS": "1",
    "WEBHOOK_RETRY_MAX_SECONDS": "8",
    "WEBHOOK_SWEEP_SECONDS": "5",
    "EXTRACTION_DEBOUNCE_SECONDS": "5",
}


_HANDED_OUT: set[int] = set()


def free_port() -> int:
    """A free port below the ephemeral range, so no outgoing connection takes it while a receiver is down."""
    for port in range(random.randrange(20000, 30000), 32000):
        if port in _HANDED_OUT:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            _HANDED_OUT.add(port)
            return port
    raise RuntimeError("no free port")


class Receiver:
    """Acknowledges every POST with 204 while up; records the first acknowledgement of each event id."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.lock = threading.Lock()
        self.acks: list[tuple[str, dict[str, Any], float]] = []
        self.server: ThreadingHTTPServer | None = None

    def start(self) -> None:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                # Recorded as it is answered: a person's next event is sent only once this answer is read.
                with receiver.lock:
                    receiver.acks.append((self.headers["webhook-id"], json.loads(body), time.time()))
                self.send_response(204)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        ThreadingHTTPServer.allow_reuse_address = True
        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
            self.server = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"


def _answer_forever(port: int) -> None:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(204)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    server.serve_forever()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def manage(env: dict[str, str], *args: str) -> str:
    result = subprocess.run(
        [str(VENV_BIN / "python"), "manage.py", *args], env=env, cwd=ROOT, capture_output=True, text=True, check=True
    )
    return result.stdout.strip().splitlines()[-1] if result.stdout.strip() else ""


def send(client: httpx.Client, method: str, path: str, body: Any = None) -> httpx.Response:
    """One change, sent again once if the connection failed: a repeat changes nothing a second time (the same
    text is deduplicated to the same memory, the same topics are no edit), so it makes no second event."""
    try:
        return client.request(method, path, json=body)
    except httpx.TransportError:
        time.sleep(0.5)
        response = client.request(method, path, json=body)
        if method == "DELETE" and response.status_code == 404:
            return httpx.Response(204, request=response.request)  # the first one did forget it
        return response


class Changes:
    """Clients, each changing its own people in order: what each person's events must arrive in."""

    def __init__(self, base: str, key: str, people: int, clients: int) -> None:
        self.base, self.key, self.clients = base, key, clients
        self.people = [f"person-{i}" for i in range(people)]
        self.expected: dict[str, list[tuple[str, str]]] = defaultdict(list)  # person -> [(type, memory_id)]
        self.made_at: dict[tuple[str, str], float] = {}
        self.memories: dict[str, list[str]] = defaultdict(list)
        self.done = 0
        self.lock = threading.Lock()

    def run(self, count: int, *, tag: str) -> None:
        share = [count // self.clients + (1 if i < count % self.clients else 0) for i in range(self.clients)]
        failures: list[BaseException] = []

        def guarded(index: int, n: int) -> None:
            try:
                self._client(index, n, tag)
            except BaseException as exc:
                failures.append(exc)

        threads = [threading.Thread(target=guarded, args=(i, n)) for i, n in enumerate(share)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if failures:
            raise failures[0]

    def _client(self, index: int, count: int, tag: str) -> None:
        mine = self.people[index :: self.clients]
        rng = random.Random(f"{tag}-{index}")
        headers = {"Authorization": f"Bearer {self.key}"}
        with httpx.Client(base_url=self.base, headers=headers, timeout=60) as client:
            for n in range(count):
                person = rng.choice(mine)
                kept = self.memories[person]
                roll = rng.random()
                if kept and roll < 0.2:
                    memory_id = kept.pop(rng.randrange(len(kept)))
                    response = send(client, "DELETE", f"/api/v1/memories/{memory_id}")
                    event = "memory.forgotten"
                elif kept and roll < 0.4:
                    memory_id = rng.choice(kept)
                    response = send(client, "PATCH", f"/api/v1/memories/{memory_id}", {"topics": [f"t{tag}{n}"]})
                    event = "memory.updated"
                else:
                    body = {"text": f"{person} fact {tag}-{index}-{n}", "user_id": person}
                    response = send(client, "POST", "/api/v1/memories", body)
                    memory_id = response.json()["id"]
                    kept.append(memory_id)
                    event = "memory.created"
                if response.status_code >= 300:
                    raise RuntimeError(f"{response.status_code} {response.text}")
                with self.lock:
                    self.expected[person].append((event, memory_id))
                    self.made_at[(event, memory_id)] = time.time()
                    self.done += 1


def outage_phase(args: argparse.Namespace, base: str, key: str, receiver: Receiver) -> dict[str, Any]:
    changes = Changes(base, key, args.people, args.clients)
    before = int(args.changes * 0.4)
    started = time.time()
    changes.run(before, tag="a")
    up_until = time.time()
    receiver.stop()
    down_at = time.time()
    writer = threading.Thread(target=changes.run, args=(args.changes - before,), kwargs={"tag": "b"})
    writer.start()
    time.sleep(args.outage)
    receiver.start()
    back_at = time.time()
    writer.join()
    written_at = time.time()
    total = sum(len(v) for v in changes.expected.values())
    deadline = time.time() + args.drain_timeout
    while time.time() < deadline:
        with receiver.lock:
            if len({ack[0] for ack in receiver.acks}) >= total:
                break
        time.sleep(0.5)
    drained_at = time.time()
    with receiver.lock:
        acks = list(receiver.acks)

    first_ack: dict[str, tuple[dict[str, Any], float]] = {}
    for event_id, body, at in acks:
        first_ack.setdefault(event_id, (body, at))
    by_memory = {(b["type"], b["data"]["memory_id"]): (event_id, at) for event_id, (b, at) in first_ack.items()}
    arrived: dict[str, list[tuple[str, str]]] = defaultdict(list)
    owner = {item: person for person, items in changes.expected.items() for item in items}
    for _event_id, (body, _at) in sorted(first_ack.items(), key=lambda kv: kv[1][1]):
        item = (body["type"], body["data"]["memory_id"])
        if item in owner:
            arrived[owner[item]].append(item)
    out_of_order = [p for p, items in changes.expected.items() if arrived.get(p, []) != items]
    missing = [item for items in changes.expected.values() for item in items if item not in by_memory]
    # From the change (its event's time, taken in its transaction) to the receiver's acknowledgement.
    happened = {
        (b["type"], b["data"]["memory_id"]): datetime.fromisoformat(b["timestamp"]).timestamp()
        for b, _ in first_ack.values()
    }
    lags = [
        by_memory[item][1] - happened[item]
        for item, made in changes.made_at.items()
        if made <= up_until and item in by_memory
    ]
    return {
        "changes": total,
        "events_acknowledged": len(first_ack),
        "acknowledgements": len(acks),
        "acknowledged_more_than_once": len(acks) - len(first_ack),
        "missing": len(missing),
        "people": len(changes.expected),
        "people_out_of_order": len(out_of_order),
        "outage_seconds": round(back_at - down_at, 1),
        "writes_seconds": round(written_at - started, 1),
        "all_acknowledged_after_receiver_back_seconds": round(drained_at - back_at, 1),
        "all_acknowledged_after_last_write_seconds": round(drained_at - written_at, 1),
        "lag_receiver_up": {
            "events": len(lags),
            "p50_s": round(statistics.median(lags), 3) if lags else None,
            "p95_s": round(percentile(lags, 0.95), 3) if lags else None,
            "max_s": round(max(lags), 3) if lags else None,
        },
    }


def cost_phase(args: argparse.Namespace, base: str, keys: dict[str, str]) -> dict[str, Any]:
    """Creates and appends alternating between the namespace with endpoints and the one without."""
    timings: dict[tuple[str, str], list[float]] = defaultdict(list)
    lock = threading.Lock()

    def client(index: int) -> None:
        rng = random.Random(index)
        clients = {
            name: httpx.Client(base_url=base, headers={"Authorization": f"Bearer {key}"}, timeout=60)
            for name, key in keys.items()
        }
        try:
            for n in range(args.cost_samples // args.cost_clients):
                order = list(keys)
                rng.shuffle(order)
                for name in order:
                    person = f"cost-{index}-{n % 20}"
                    started = time.perf_counter()
                    response = clients[name].post(
                        "/api/v1/memories", json={"text": f"{person} said thing {n}", "user_id": person}
                    )
                    create = time.perf_counter() - started
                    started = time.perf_counter()
                    appended = clients[name].post(
                        f"/api/v1/sessions/{person}/messages",
                        json={"user_id": person, "messages": [{"role": "user", "content": f"I like item {n}"}]},
                    )
                    append = time.perf_counter() - started
                    if response.status_code >= 300 or appended.status_code >= 300:
                        raise RuntimeError(f"{response.status_code} {appended.status_code}")
                    with lock:
                        timings[(name, "create")].append(create * 1000)
                        timings[(name, "append")].append(append * 1000)
        finally:
            for c in clients.values():
                c.close()

    failures: list[BaseException] = []

    def guarded(index: int) -> None:
        try:
            client(index)
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=guarded, args=(i,)) for i in range(args.cost_clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise failures[0]
    result: dict[str, Any] = {}
    for operation in ("create", "append"):
        none, hooked = timings[("none", operation)], timings[("subscribed", operation)]
        result[operation] = {
            "samples_each": len(none),
            "none_p50_ms": round(statistics.median(none), 2),
            "subscribed_p50_ms": round(statistics.median(hooked), 2),
            "none_p95_ms": round(percentile(none, 0.95), 2),
            "subscribed_p95_ms": round(percentile(hooked, 0.95), 2),
            "ratio_p50": round(statistics.median(hooked) / statistics.median(none), 3),
            "ratio_p95": round(percentile(hooked, 0.95) / percentile(none, 0.95), 3),
        }
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    parser.add_argument("--redis-url", default=DEFAULT_REDIS_URL)
    parser.add_argument("--changes", type=int, default=10_000)
    parser.add_argument("--outage", type=float, default=300.0, help="seconds the receiver is down")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--people", type=int, default=200)
    parser.add_argument("--cost-samples", type=int, default=1600, help="creates (and appends) per namespace")
    parser.add_argument("--drain-timeout", type=float, default=600.0)
    parser.add_argument("--cost-clients", type=int, default=4, help="clients of the write-cost phase")
    parser.add_argument("--phases", default="outage,cost", help="outage,cost or cost alone")
    args = parser.parse_args()

    database_recreate(args.database_url)
    env = bench_environ(args.database_url, args.redis_url) | WEBHOOK_ENV
    manage(env, "migrate", "--no-input", "-v0")
    import redis

    redis.Redis.from_url(args.redis_url).flushdb()
    keys = {}
    for slug in ("hooked", "plain", "cost-none", "cost-subscribed"):
        manage(env, "create_namespace", slug)
    keys["hooked"] = manage(env, "create_api_key", "hooked", "--scopes", "read,write,webhooks")
    keys["none"] = manage(env, "create_api_key", "cost-none", "--scopes", "read,write")
    keys["subscribed"] = manage(env, "create_api_key", "cost-subscribed", "--scopes", "read,write,webhooks")

    # In a process of its own: answering in this one would take the interpreter from the clients that time.
    # Started first, so it holds no copy of the other receiver's socket (which must close during the outage).
    cost_port = free_port()
    cost_receiver = multiprocessing.Process(target=_answer_forever, args=(cost_port,), daemon=True)
    cost_receiver.start()
    cost_url = f"http://127.0.0.1:{cost_port}/hook"
    receiver = Receiver(free_port())
    receiver.start()
    port = free_port()
    server = AppServer(
        name="webhooks-web",
        database_url=args.database_url,
        redis_url=args.redis_url,
        port=port,
        workers=2,
        threads=4,
        extra_env=WEBHOOK_ENV,
    )
    worker = CeleryWorker(
        database_url=args.database_url, redis_url=args.redis_url, concurrency=2, extra_env=WEBHOOK_ENV
    )
    beat = Process(
        "webhooks-beat",
        [
            str(VENV_BIN / "celery"),
            "-A",
            "memoryadmin",
            "beat",
            "--loglevel",
            "warning",
            "--schedule",
            str(LOG_DIR / "webhooks-beat-schedule"),
        ],
        env,
    )
    try:
        server.wait_ready()
        worker.wait_ready()
        base = f"http://127.0.0.1:{port}"
        events = ["memory.created", "memory.updated", "memory.forgotten", "erasure.completed"]
        for name, url in (
            ("hooked", receiver.url),
            ("subscribed", cost_url),
            ("subscribed", cost_url),
        ):
            response = httpx.post(
                f"{base}/api/v1/webhooks",
                headers={"Authorization": f"Bearer {keys[name]}"},
                json={"url": url, "events": events},
            )
            response.raise_for_status()
        started = datetime.now().astimezone().isoformat(timespec="seconds")
        outage = outage_phase(args, base, keys["hooked"], receiver) if "outage" in args.phases else None
        cost = cost_phase(args, base, {"none": keys["none"], "subscribed": keys["subscribed"]})
    finally:
        beat.stop()
        worker.stop()
        server.stop()
        receiver.stop()
        cost_receiver.terminate()
    results = {
        "started": started,
        "command": " ".join(["bench/webhooks.py", *sys.argv[1:]]),
        "settings": WEBHOOK_ENV,
        "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
        "outage": outage,
        "write_cost": cost,
    }
    LOG_DIR.mkdir(parents=True, exist_ok=True)
    (LOG_DIR / "webhooks.json").write_text(json.dumps(results, indent=2))
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
