"""Generate a large, realistic, reproducible data set straight into PostgreSQL with COPY.

    .venv/bin/python bench/generate.py --memories 1000000 --messages 5000000 --users 10000

The database (default memoryadmin_bench) is dropped, re-created and migrated, so
every run with the same seed and sizes produces the same rows. Namespaces and
API keys go through the real services (audited); the bulk rows (sessions,
messages, memories, revisions, evidence, pins, tombstones) are streamed with
COPY while secondary indexes are dropped, then the indexes are rebuilt and the
tables vacuumed and analysed, as autovacuum would leave them in production.

Text is drawn from a vocabulary of real words followed by a long tail of
pronounceable synthetic ones, with Zipf-like frequencies, so full-text queries
meet realistic selectivity: a few terms are in several per cent of memories,
most in a handful. The tsvector column is computed by PostgreSQL itself.
Fingerprints use memoryadmin.core.fingerprints under the bench SECRET_KEY,
so duplicates and tombstones agree with the served app.
"""

from __future__ import annotations

import argparse
import itertools
import random
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import (
    CODE_DIR,
    DEFAULT_DATABASE_URL,
    DEFAULT_REDIS_URL,
    bench_environ,
    database_recreate,
    django_setup,
    manifest_write,
    use_code,
)

# The head of the frequency distribution: everyday content words (no English stop
# words, which the search configuration drops anyway).
REAL_WORDS = """
coffee travel music dinner family weekend project meeting garden book movie running
kitchen office train holiday birthday doctor school morning evening weather budget
vegetarian allergy peanuts gluten spicy sushi pizza pasta salad chocolate wine beer
tea breakfast lunch recipe bakery market restaurant hotel flight airport beach mountain
hiking cycling swimming yoga football tennis guitar piano painting photography reading
podcast newsletter laptop phone tablet camera headphones keyboard printer software
python javascript database server cloud deadline report invoice contract client manager
colleague team sister brother mother father daughter son wife husband friend neighbour
dog cat puppy kitten apartment house car bicycle bus subway taxi parking insurance
bank account salary rent mortgage tax pension savings loan gift present anniversary
wedding party concert festival museum theatre gallery library university course exam
lesson language spanish french german italian japanese chinese english portuguese
dutch swedish norwegian danish finnish polish czech greek turkish arabic hindi korean
london paris berlin madrid rome tokyo seoul lisbon amsterdam vienna prague dublin
boston chicago seattle denver austin toronto vancouver sydney melbourne auckland
morning-person night-owl window aisle seat meal vegan lactose decaf espresso latte
cappuccino oat almond soy honey sugar salt pepper garlic onion tomato cheese bread
rice noodles curry soup steak chicken fish shrimp tofu beans lentils mushrooms
spinach avocado banana apple orange lemon berries grapes mango pineapple coconut
blue green red yellow purple black white grey pink brown navy teal
monday tuesday wednesday thursday friday saturday sunday january february march april
june july august september october november december spring summer autumn winter
email calendar reminder appointment dentist pharmacy prescription medication vitamin
gym workout marathon diet sleep meditation therapy dentist appointment haircut
""".split()  # noqa: SIM905 (a word list reads better as prose)

MEMORY_OPENERS = [
    "I prefer",
    "I really like",
    "I do not like",
    "My favourite is",
    "I am allergic to",
    "I usually order",
    "I work on",
    "I live near",
    "I am learning",
    "My sister loves",
    "My manager wants",
    "We are planning",
    "Remember that I use",
    "I always book",
    "Please avoid",
    "I moved to",
    "I am training for",
    "My kids enjoy",
    "I switched to",
    "On weekends I do",
    "Last time I tried",
    "I need reminders about",
]
TOPICS = [
    "food",
    "travel",
    "work",
    "family",
    "health",
    "hobbies",
    "finance",
    "music",
    "sport",
    "tech",
    "home",
    "learning",
    "pets",
    "shopping",
    "schedule",
    "preferences",
]
MEMORY_TYPES = ["semantic"] * 10 + ["preference"] * 5 + ["episodic"] * 4 + ["summary"]
SPAN_DAYS = 730
TAIL_WORDS = 60_000
ZIPF_EXPONENT = 1.07
# The Mandelbrot offset flattens the head: the commonest word is in about 6% of memories, not most of them.
ZIPF_OFFSET = 20
SENTENCE_POOL = 40_000
MESSAGE_TABLES = ("conversations_session", "conversations_message")
MEMORY_TABLES = ("memories_memory", "memories_memoryrevision", "memories_memoryevidence")
BULK_TABLES = (*MESSAGE_TABLES, *MEMORY_TABLES, "memories_pin", "memories_tombstone", "memories_memoryvector")
CHUNK_ROWS = 20_000
BENCH_OPERATOR = ("bench-admin", "bench-admin-pass")


def synthetic_words(rng: random.Random, count: int, taken: set[str]) -> list[str]:
    onsets = "b c d f g h j k l m n p r s t v w z br cr dr fl gr pl st tr sh ch th".split()  # noqa: SIM905
    vowels = ["a", "e", "i", "o", "u", "ai", "ea", "io", "ou"]
    codas = ["", "n", "r", "l", "s", "t", "m", "nd", "rk", "st"]
    words: list[str] = []
    seen = set(taken)
    while len(words) < count:
        word = "".join(
            rng.choice(onsets) + rng.choice(vowels) + rng.choice(codas) for _ in range(rng.choice((2, 2, 3)))
        )
        if word not in seen:
            seen.add(word)
            words.append(word)
    return words


@dataclass
class Vocabulary:
    words: list[str]
    cum_weights: list[float]
    entities: list[str]

    @classmethod
    def build(cls, rng: random.Random) -> Vocabulary:
        head = list(dict.fromkeys(REAL_WORDS))
        words = head + synthetic_words(rng, TAIL_WORDS, set(head))
        weights = [1.0 / ((rank + ZIPF_OFFSET) ** ZIPF_EXPONENT) for rank in range(1, len(words) + 1)]
        entities = [w.capitalize() for w in synthetic_words(rng, 500, set(words))]
        return cls(words, list(itertools.accumulate(weights)), entities)

    def sample(self, rng: random.Random, k: int) -> list[str]:
        return rng.choices(self.words, cum_weights=self.cum_weights, k=k)


def ts(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(sep=" ")


def pg_array(values: list[str]) -> str:
    return "{" + ",".join(values) + "}"


@dataclass
class SessionInfo:
    pk: int
    session_id: str
    first_message_id: int
    length: int


@dataclass
class Plan:
    """What one namespace gets: its sizes and where its ids start."""

    namespace_id: int
    slug: str
    users: int
    messages: int
    memories: int
    user_sessions: dict[int, list[SessionInfo]] = field(default_factory=dict)


class CopyStream:
    """One COPY on its own connection, fed by chunks of text-format lines."""

    def __init__(self, database_url: str, table: str, columns: list[str]) -> None:
        self.conn = psycopg.connect(database_url)
        self.conn.execute("SET session_replication_role = replica")
        self.conn.execute("SET synchronous_commit = off")
        self.cursor = self.conn.cursor()
        self.table = table
        self._copy_cm = self.cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN")
        self.copy = self._copy_cm.__enter__()
        self.lines: list[str] = []
        self.rows = 0

    def add(self, line: str) -> None:
        self.lines.append(line)
        if len(self.lines) >= CHUNK_ROWS:
            self.flush()

    def flush(self) -> None:
        if self.lines:
            self.copy.write("".join(self.lines))
            self.rows += len(self.lines)
            self.lines = []

    def close(self) -> int:
        self.flush()
        self._copy_cm.__exit__(None, None, None)
        self.conn.commit()
        self.conn.close()
        return self.rows


def user_weights(users: int) -> list[float]:
    # Some people talk to the product a lot more than others.
    return list(itertools.accumulate(1.0 / (i**0.5) for i in range(1, users + 1)))


def user_id_of(index: int) -> str:
    return f"u{index:06d}"


def generate_sessions_and_messages(
    *,
    database_url: str,
    rng: random.Random,
    vocab: Vocabulary,
    plans: list[Plan],
    now: float,
    sentence_pool: list[str],
    next_ids: dict[str, int],
) -> None:
    sessions = CopyStream(
        database_url,
        "conversations_session",
        [
            "id",
            "namespace_id",
            "session_id",
            "user_id",
            "agent_id",
            "metadata",
            "message_count",
            "created_at",
            "updated_at",
            "last_message_at",
            "last_activity_at",
        ],
    )
    messages = CopyStream(
        database_url,
        "conversations_message",
        [
            "id",
            "session_id",
            "seq",
            "role",
            "kind",
            "content",
            "name",
            "run_id",
            "tool_calls",
            "tool_call_id",
            "metadata",
            "created_at",
            "persisted_at",
            "extracted_at",
        ],
    )
    pool_size = len(sentence_pool)
    session_pk = next_ids["session"]
    message_pk = next_ids["message"]
    for plan in plans:
        weights = user_weights(plan.users)
        user_range = range(1, plan.users + 1)
        remaining = plan.messages
        while remaining > 0:
            length = min(remaining, rng.randint(2, 98))
            remaining -= length
            user = rng.choices(user_range, cum_weights=weights)[0]
            start = now - rng.uniform(1, SPAN_DAYS) * 86400
            session_key = f"s{session_pk:08d}"
            agent = f"agent-{rng.randint(1, 5)}"
            t = start
            rows = []
            for seq in range(1, length + 1):
                t += rng.uniform(3, 90)
                role = "user" if seq % 2 else "assistant"
                kind = "message"
                if rng.random() < 0.02:
                    kind, role = "supporting_context", "system"
                content = sentence_pool[rng.randrange(pool_size)]
                if rng.random() < 0.5:
                    content = content + " " + sentence_pool[rng.randrange(pool_size)]
                stamp = ts(t)
                # The newest conversations are not extracted yet.
                extracted = stamp if t < now - 3600 else "\\N"
                rows.append(
                    f"{message_pk}\t{session_pk}\t{seq}\t{role}\t{kind}\t{content}\t\t\t\\N\t\t{{}}\t"
                    f"{stamp}\t{stamp}\t{extracted}\n"
                )
                message_pk += 1
            for row in rows:
                messages.add(row)
            first = ts(start)
            last = ts(t)
            sessions.add(
                f"{session_pk}\t{plan.namespace_id}\t{session_key}\t{user_id_of(user)}\t{agent}\t{{}}\t{length}\t"
                f"{first}\t{last}\t{last}\t{last}\n"
            )
            plan.user_sessions.setdefault(user, []).append(
                SessionInfo(session_pk, session_key, message_pk - length, length)
            )
            session_pk += 1
    next_ids["session"], next_ids["message"] = session_pk, message_pk
    for stream in (sessions, messages):
        stream.close()


def generate_memories(
    *,
    database_url: str,
    rng: random.Random,
    vocab: Vocabulary,
    plans: list[Plan],
    now: float,
    fingerprint: Callable[[str], str],
    next_ids: dict[str, int],
) -> dict[str, Any]:
    memories = CopyStream(
        database_url,
        "memories_memory",
        [
            "id",
            "namespace_id",
            "user_id",
            "session_id",
            "agent_id",
            "text",
            "memory_type",
            "status",
            "topics",
            "entities",
            "metadata",
            "source",
            "fingerprint",
            "created_at",
            "updated_at",
            "last_accessed_at",
            "access_count",
            "revision",
            "subject",
            "attribute",
            "stated_at",
        ],
    )
    revisions = CopyStream(
        database_url,
        "memories_memoryrevision",
        [
            "id",
            "memory_id",
            "revision",
            "text",
            "memory_type",
            "topics",
            "entities",
            "metadata",
            "actor",
            "reason",
            "created_at",
            "fingerprint",
        ],
    )
    evidence: list[str] = []
    pins: list[str] = []
    tombstones: list[str] = []
    # Every memory's vector, as the served app's embedder makes it, by COPY once the memories are in.
    to_embed: list[tuple[uuid.UUID, int, str, str, str]] = []
    revision_pk = next_ids["revision"]
    evidence_pk = next_ids["evidence"]
    tombstone_pk = next_ids["tombstone"]
    pinned_total = 0
    for plan in plans:
        weights = user_weights(plan.users)
        user_range = range(1, plan.users + 1)
        seen: set[int] = set()
        for _ in range(plan.memories):
            user = rng.choices(user_range, cum_weights=weights)[0]
            uid = user_id_of(user)
            while True:
                words = vocab.sample(rng, rng.randint(5, 12))
                text = f"{rng.choice(MEMORY_OPENERS)} {' '.join(words)}"
                key = hash((user, text))
                if key not in seen:
                    seen.add(key)
                    break
            memory_id = uuid.UUID(int=rng.getrandbits(128), version=4)
            created = now - rng.uniform(0, SPAN_DAYS) * 86400
            created_s = ts(created)
            accessed = "\\N"
            access_count = 0
            if rng.random() < 0.7:
                accessed = ts(rng.uniform(created, now))
                access_count = rng.randint(1, 40)
            memory_type = rng.choice(MEMORY_TYPES)
            topics = pg_array(rng.sample(TOPICS, rng.randint(0, 3)))
            entities = pg_array(rng.sample(vocab.entities, rng.randint(0, 2)))
            status = "candidate" if rng.random() < 0.02 else "active"
            session_key = ""
            source = "api"
            sessions = plan.user_sessions.get(user)
            if sessions and rng.random() < 0.7:
                info = rng.choice(sessions)
                session_key = info.session_id
                source = "extraction"
                message_id = info.first_message_id + rng.randrange(info.length)
                evidence.append(f"{evidence_pk}\t{memory_id}\t{message_id}\t{created_s}\n")
                evidence_pk += 1
            agent = f"agent-{rng.randint(1, 5)}" if session_key else ""
            text_print = fingerprint(text)
            memories.add(
                f"{memory_id}\t{plan.namespace_id}\t{uid}\t{session_key}\t{agent}\t{text}\t{memory_type}\t{status}\t"
                f"{topics}\t{entities}\t{{}}\t{source}\t{text_print}\t{created_s}\t{created_s}\t{accessed}\t"
                f"{access_count}\t1\t\t\t{created_s}\n"
            )
            to_embed.append((memory_id, plan.namespace_id, uid, text, created_s))
            revisions.add(
                f"{revision_pk}\t{memory_id}\t1\t{text}\t{memory_type}\t{topics}\t{entities}\t{{}}\t"
                f"system:bench\tcreated ({source})\t{created_s}\t{text_print}\n"
            )
            revision_pk += 1
            if rng.random() < 0.01:
                pins.append(f"{memory_id}\toperator:{BENCH_OPERATOR[0]}\tkeep\t{created_s}\n")
                pinned_total += 1
            if rng.random() < 0.005:
                # Something this person asked to forget: only its fingerprint stays.
                gone = f"{rng.choice(MEMORY_OPENERS)} {' '.join(vocab.sample(rng, 6))}"
                reason = rng.choice(("forgotten", "policy", "rejected"))
                kept = gone if reason == "rejected" else ""
                tombstones.append(
                    f"{tombstone_pk}\t{plan.namespace_id}\t{uid}\t{fingerprint(gone)}\t{reason}\t{kept}\t"
                    f"{memory_type}\tsystem:bench\t{created_s}\n"
                )
                tombstone_pk += 1
    memories.close()
    revisions.close()
    vector_stream = VectorStream(database_url)
    vectors_written = 0
    for start in range(0, len(to_embed), EMBED_BATCH):
        vectors_written += vector_stream.write(to_embed[start : start + EMBED_BATCH])
    vector_stream.close()
    copy_lines(database_url, "memories_memoryevidence", ["id", "memory_id", "message_id", "created_at"], iter(evidence))
    copy_lines(database_url, "memories_pin", ["memory_id", "pinned_by", "reason", "created_at"], iter(pins))
    copy_lines(
        database_url,
        "memories_tombstone",
        ["id", "namespace_id", "user_id", "fingerprint", "reason", "text", "memory_type", "actor", "created_at"],
        iter(tombstones),
    )
    next_ids["revision"], next_ids["evidence"], next_ids["tombstone"] = revision_pk, evidence_pk, tombstone_pk
    return {"evidence": len(evidence), "pins": pinned_total, "tombstones": len(tombstones), "vectors": vectors_written}


EMBED_BATCH = 5000


class VectorStream:
    """COPY into memories_memoryvector of rows made by the configured embedder: float32 vectors and int8 codes."""

    def __init__(self, database_url: str) -> None:
        from memoryadmin.memories.embeddings import get_embedder

        self.embedder = get_embedder()
        self.conn = psycopg.connect(database_url, autocommit=True)
        self.pgvector = (
            self.conn.execute(
                "SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
                "WHERE attrelid = 'memories_memoryvector'::regclass AND attname = 'embedding'"
            ).fetchone()[0]
        ).startswith("vector")
        self.cursor = self.conn.cursor()
        self._copy_cm = self.cursor.copy(
            "COPY memories_memoryvector (memory_id, namespace_id, user_id, model, dimension, embedding, code, "
            "created_at) FROM STDIN"
        )
        self.copy = self._copy_cm.__enter__()

    def write(self, rows: list[tuple[uuid.UUID, int, str, str, str]]) -> int:
        from memoryadmin.memories.vectors import vector_codes, vector_literal

        if not rows:
            return 0
        vectors = self.embedder.embed([text for _, _, _, text, _ in rows])
        codes = vector_codes(vectors)
        for (memory_id, namespace_id, uid, _, created), vector, code in zip(rows, vectors, codes, strict=True):
            embedding = vector_literal(vector) if self.pgvector else vector.astype("<f4").tobytes()
            self.copy.write_row(
                (memory_id, namespace_id, uid, self.embedder.model, self.embedder.dimension, embedding, code, created)
            )
        return len(rows)

    def close(self) -> None:
        self._copy_cm.__exit__(None, None, None)
        self.cursor.close()
        self.conn.close()


def copy_lines(database_url: str, table: str, columns: list[str], lines: Iterator[str]) -> int:
    stream = CopyStream(database_url, table, columns)
    for line in lines:
        stream.add(line)
    return stream.close()


def secondary_indexes(conn: psycopg.Connection, tables: tuple[str, ...]) -> list[tuple[str, str]]:
    """(name, definition) of the indexes not backing a constraint: the ones safe to drop and rebuild."""
    return conn.execute(
        """
        SELECT i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid)
        FROM pg_index i
        WHERE i.indrelid = ANY(%s::regclass[])
          AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)
        ORDER BY 1
        """,
        [list(tables)],
    ).fetchall()


def rebuild_indexes(database_url: str, definitions: list[tuple[str, str]]) -> None:
    """Build the dropped indexes on two connections at once (the machine has two cores)."""
    pending = list(definitions)
    lock = threading.Lock()
    failures: list[BaseException] = []

    def worker() -> None:
        with psycopg.connect(database_url, autocommit=True) as conn:
            conn.execute("SET maintenance_work_mem = '1GB'")
            conn.execute("SET max_parallel_maintenance_workers = 0")
            while True:
                with lock:
                    if not pending:
                        return
                    _, definition = pending.pop(0)
                try:
                    conn.execute(definition)
                except BaseException as exc:
                    failures.append(exc)
                    return

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise failures[0]


def hnsw_index_build(database_url: str) -> bool:
    """With pgvector, the model's HNSW index, as `manage.py embed_memories` makes it; False without pgvector.

    Built once the vectors are in, with memory enough for the graph (about 1.4 GB at a million
    256-dimension vectors): a build whose graph outgrows `maintenance_work_mem` slows down several times.
    """
    from memoryadmin.memories.embeddings import get_embedder
    from memoryadmin.memories.vectors import hnsw_index_name

    with psycopg.connect(database_url, autocommit=True) as conn:
        column = conn.execute(
            "SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
            "WHERE attrelid = 'memories_memoryvector'::regclass AND attname = 'embedding'"
        ).fetchone()[0]
        if not column.startswith("vector"):
            return False
        embedder = get_embedder()
        conn.execute("SET maintenance_work_mem = '4GB'")
        conn.execute("SET max_parallel_maintenance_workers = 1")
        conn.execute(
            sql.SQL(
                "CREATE INDEX IF NOT EXISTS {} ON memories_memoryvector "
                "USING hnsw ((embedding::vector({})) vector_cosine_ops) WHERE model = {}"
            ).format(
                sql.Identifier(hnsw_index_name(embedder.model)),
                sql.Literal(int(embedder.dimension)),
                sql.Literal(embedder.model),
            )
        )
    return True


def reset_sequences(conn: psycopg.Connection) -> None:
    for table in (
        "conversations_session",
        "conversations_message",
        "memories_memoryrevision",
        "memories_memoryevidence",
        "memories_tombstone",
    ):
        conn.execute(
            f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), COALESCE((SELECT max(id) FROM {table}), 0) + 1, "
            "false)"
        )


def build_sentence_pool(rng: random.Random, vocab: Vocabulary) -> list[str]:
    openers = ["I", "We", "Could you", "Can you", "Please", "Thanks,", "Sure,", "Actually", "Yes,", "No,", "Maybe"]
    pool = []
    for _ in range(SENTENCE_POOL):
        words = vocab.sample(rng, rng.randint(5, 22))
        pool.append(f"{rng.choice(openers)} {' '.join(words)}.")
    return pool


def setup_namespaces(slugs: list[str]) -> tuple[list[Any], dict[str, str]]:
    from memoryadmin.audit.services import Actor
    from memoryadmin.tenancy.services import api_key_create, namespace_create, operator_create

    actor = Actor.system("bench")
    namespaces = []
    keys: dict[str, str] = {}
    for slug in slugs:
        namespace = namespace_create(slug=slug, actor=actor, name=f"Bench {slug}")
        _, raw = api_key_create(namespace=namespace, name="bench", scopes=["read", "write", "erase"], actor=actor)
        namespaces.append(namespace)
        keys[slug] = raw
    operator_create(username=BENCH_OPERATOR[0], password=BENCH_OPERATOR[1], role="admin", actor=actor)
    return namespaces, keys


def migrate(database_url: str, redis_url: str) -> None:
    subprocess.run(
        [sys.executable, str(CODE_DIR[0] / "manage.py"), "migrate", "--no-input", "-v0"],
        env=bench_environ(database_url, redis_url),
        check=True,
        cwd=CODE_DIR[0],
    )


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    parser.add_argument("--redis-url", default=DEFAULT_REDIS_URL)
    parser.add_argument("--memories", type=int, default=100_000, help="memories of the main namespace")
    parser.add_argument("--messages", type=int, default=500_000, help="messages of the main namespace")
    parser.add_argument("--users", type=int, default=10_000, help="people (user_id) of the main namespace")
    parser.add_argument(
        "--namespaces", type=int, default=3, help="namespaces; each beyond the main one gets 1%% of its sizes"
    )
    parser.add_argument("--seed", type=int, default=20261129)
    parser.add_argument("--code", default="HEAD", help="commit whose migrations and services to use, or worktree")
    args = parser.parse_args(argv)
    use_code(args.code)

    started = time.monotonic()
    rng = random.Random(args.seed)
    # Anchored to the day so the same seed gives the same rows all day long.
    today = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    now = today.timestamp()

    database_recreate(args.database_url)
    migrate(args.database_url, args.redis_url)
    django_setup(args.database_url, args.redis_url)
    from memoryadmin.core.fingerprints import text_fingerprint

    slugs = ["bench", *(f"bench-{i}" for i in range(2, args.namespaces + 1))]
    namespaces, keys = setup_namespaces(slugs)
    plans = [Plan(namespaces[0].pk, slugs[0], args.users, args.messages, args.memories)]
    for namespace, slug in zip(namespaces[1:], slugs[1:], strict=True):
        plans.append(
            Plan(
                namespace.pk,
                slug,
                max(10, args.users // 100),
                max(100, args.messages // 100),
                max(100, args.memories // 100),
            )
        )
    print(f"migrated and created {len(slugs)} namespaces in {time.monotonic() - started:.1f}s", flush=True)

    vocab = Vocabulary.build(rng)
    sentence_pool = build_sentence_pool(rng, vocab)

    with psycopg.connect(args.database_url, autocommit=True) as conn:
        dropped = secondary_indexes(conn, BULK_TABLES)
        for name, _ in dropped:
            conn.execute(f"DROP INDEX {name}")

    next_ids = {"session": 1, "message": 1, "revision": 1, "evidence": 1, "tombstone": 1}
    phase = time.monotonic()
    generate_sessions_and_messages(
        database_url=args.database_url,
        rng=rng,
        vocab=vocab,
        plans=plans,
        now=now,
        sentence_pool=sentence_pool,
        next_ids=next_ids,
    )
    messages_seconds = time.monotonic() - phase
    print(f"sessions and messages copied in {messages_seconds:.1f}s", flush=True)

    phase = time.monotonic()
    extra = generate_memories(
        database_url=args.database_url,
        rng=rng,
        vocab=vocab,
        plans=plans,
        now=now,
        fingerprint=text_fingerprint,
        next_ids=next_ids,
    )
    memories_seconds = time.monotonic() - phase
    print(f"memories, revisions, evidence, pins, tombstones copied in {memories_seconds:.1f}s", flush=True)

    phase = time.monotonic()
    rebuild_indexes(args.database_url, dropped)
    index_seconds = time.monotonic() - phase
    print(f"{len(dropped)} secondary indexes rebuilt in {index_seconds:.1f}s", flush=True)

    phase = time.monotonic()
    if hnsw_index_build(args.database_url):
        print(f"HNSW index of the vectors built in {time.monotonic() - phase:.1f}s", flush=True)
    hnsw_seconds = time.monotonic() - phase

    phase = time.monotonic()
    with psycopg.connect(args.database_url, autocommit=True) as conn:
        reset_sequences(conn)
        conn.execute("VACUUM (ANALYZE)")
    vacuum_seconds = time.monotonic() - phase
    print(f"vacuumed and analysed in {vacuum_seconds:.1f}s", flush=True)

    main_plan = plans[0]
    heavy_users = sorted(main_plan.user_sessions, key=lambda u: -len(main_plan.user_sessions[u]))
    manifest = {
        "seed": args.seed,
        "generated_at": datetime.now(UTC).isoformat(),
        "anchor": today.isoformat(),
        "sizes": {
            "namespaces": len(plans),
            "users": args.users,
            "messages": args.messages,
            "memories": args.memories,
            "all_messages": next_ids["message"] - 1,
            "all_memories": sum(p.memories for p in plans),
            "sessions": next_ids["session"] - 1,
            **extra,
        },
        "namespaces": [{"id": p.namespace_id, "slug": p.slug, "api_key": keys[p.slug]} for p in plans],
        "vocabulary": {"size": len(vocab.words), "head": vocab.words[:40]},
        "users": {"busiest": [user_id_of(u) for u in heavy_users[:20]], "count": args.users},
        "operator": {"username": BENCH_OPERATOR[0], "password": BENCH_OPERATOR[1]},
        "timings_seconds": {
            "total": round(time.monotonic() - started, 1),
            "messages": round(messages_seconds, 1),
            "memories": round(memories_seconds, 1),
            "indexes": round(index_seconds, 1),
            "hnsw": round(hnsw_seconds, 1),
            "vacuum_analyze": round(vacuum_seconds, 1),
        },
    }
    path = manifest_write(args.database_url, manifest)
    print(f"done in {manifest['timings_seconds']['total']}s; manifest {path}")
    print(f"API key of namespace {slugs[0]} (read, write, erase):")
    print(keys[slugs[0]])
    return manifest


def add_subject(
    database_url: str,
    *,
    namespace_id: int,
    user_id: str,
    messages: int,
    memories: int,
    seed: int,
    fingerprint: Callable[[str], str],
) -> dict[str, int]:
    """Give one person `messages` messages (in sessions of 100) and `memories` memories.

    Used by the runner to stage the erasure figure on the live data set, so it
    can be repeated: ids come from the tables' own sequences.
    """
    rng = random.Random(seed)
    vocab = Vocabulary.build(random.Random(seed + 1))
    now = time.time()
    session_count = (messages + 99) // 100
    with psycopg.connect(database_url) as conn:
        session_pks = [
            row[0]
            for row in conn.execute(
                "SELECT nextval(pg_get_serial_sequence('conversations_session', 'id')) FROM generate_series(1, %s)",
                [session_count],
            )
        ]
        with conn.cursor().copy(
            "COPY conversations_session (id, namespace_id, session_id, user_id, agent_id, metadata, message_count,"
            " created_at, updated_at, last_message_at, last_activity_at) FROM STDIN"
        ) as copy:
            for index, pk in enumerate(session_pks):
                length = min(100, messages - index * 100)
                stamp = ts(now - rng.uniform(1, SPAN_DAYS) * 86400)
                copy.write(
                    f"{pk}\t{namespace_id}\t{user_id}-s{index}\t{user_id}\tagent-1\t{{}}\t{length}\t"
                    f"{stamp}\t{stamp}\t{stamp}\t{stamp}\n"
                )
        with conn.cursor().copy(
            "COPY conversations_message (session_id, seq, role, kind, content, name, run_id, tool_calls, tool_call_id,"
            " metadata, created_at, persisted_at, extracted_at) FROM STDIN"
        ) as copy:
            for index, pk in enumerate(session_pks):
                length = min(100, messages - index * 100)
                lines = []
                for seq in range(1, length + 1):
                    stamp = ts(now - rng.uniform(1, SPAN_DAYS) * 86400)
                    text = " ".join(vocab.sample(rng, rng.randint(6, 20)))
                    role = "user" if seq % 2 else "assistant"
                    lines.append(f"{pk}\t{seq}\t{role}\tmessage\t{text}\t\t\t\\N\t\t{{}}\t{stamp}\t{stamp}\t{stamp}\n")
                copy.write("".join(lines))
        memory_ids = []
        with conn.cursor().copy(
            "COPY memories_memory (id, namespace_id, user_id, session_id, agent_id, text, memory_type, status,"
            " topics, entities, metadata, source, fingerprint, created_at, updated_at, last_accessed_at,"
            " access_count, revision, subject, attribute) FROM STDIN"
        ) as copy:
            texts: set[str] = set()
            lines = []
            while len(texts) < memories:
                text = f"{rng.choice(MEMORY_OPENERS)} {' '.join(vocab.sample(rng, rng.randint(5, 12)))}"
                if text in texts:
                    continue
                texts.add(text)
                memory_id = uuid.UUID(int=rng.getrandbits(128), version=4)
                memory_ids.append((memory_id, text))
                stamp = ts(now - rng.uniform(1, SPAN_DAYS) * 86400)
                lines.append(
                    f"{memory_id}\t{namespace_id}\t{user_id}\t{user_id}-s0\tagent-1\t{text}\tsemantic\tactive\t{{}}\t"
                    f"{{}}\t{{}}\textraction\t{fingerprint(text)}\t{stamp}\t{stamp}\t\\N\t0\t1\t\t\n"
                )
            copy.write("".join(lines))
        with conn.cursor().copy(
            "COPY memories_memoryrevision (memory_id, revision, text, memory_type, topics, entities, metadata, actor,"
            " reason, created_at, fingerprint) FROM STDIN"
        ) as copy:
            stamp = ts(now)
            copy.write(
                "".join(
                    f"{mid}\t1\t{text}\tsemantic\t{{}}\t{{}}\t{{}}\tsystem:bench\tcreated\t{stamp}\t{fingerprint(text)}\n"
                    for mid, text in memory_ids
                )
            )
        conn.execute(
            """
            INSERT INTO memories_memoryevidence (memory_id, message_id, created_at)
            SELECT m.id, msg.id, now()
            FROM (SELECT id, row_number() OVER () AS n FROM memories_memory WHERE namespace_id = %s AND user_id = %s) m
            JOIN (
                SELECT msg.id, row_number() OVER () AS n FROM conversations_message msg
                JOIN conversations_session s ON s.id = msg.session_id
                WHERE s.namespace_id = %s AND s.user_id = %s
            ) msg ON msg.n = m.n
            """,
            [namespace_id, user_id, namespace_id, user_id],
        )
        conn.execute(
            "INSERT INTO memories_pin (memory_id, pinned_by, reason, created_at)"
            " SELECT id, 'system:bench', 'keep', now() FROM memories_memory WHERE namespace_id = %s AND user_id = %s"
            " LIMIT 10",
            [namespace_id, user_id],
        )
        conn.commit()
    return {"sessions": session_count, "messages": messages, "memories": memories}


if __name__ == "__main__":
    main()
