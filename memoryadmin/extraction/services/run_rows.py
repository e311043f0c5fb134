"""A run's own rows, by hand-written SQL: its claim (with its session and namespace) and its counts.

Each is one statement a run makes every time; through the ORM their compiling and the
instances' setup cost more than running them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache

from django.db import connection
from django.utils import timezone

from memoryadmin.conversations.models import Message, Session
from memoryadmin.core.bulk import send_later
from memoryadmin.core.locks import subject_lock_sql
from memoryadmin.core.rows import RowLoader
from memoryadmin.extraction.models import ExtractionRun, RunStatus
from memoryadmin.tenancy.models import Namespace

RUNS = ExtractionRun._meta.db_table
# One advisory lock per session's extraction writers; the constant keeps clear of the audit chain's locks.
_WRITER_LOCK_BASE = 0x6578 << 48


@cache
def _session_loader() -> RowLoader[Session]:
    return RowLoader(Session, Session._meta.concrete_fields)


@cache
def _namespace_loader() -> RowLoader[Namespace]:
    return RowLoader(Namespace, Namespace._meta.concrete_fields)


@cache
def _run_loader() -> RowLoader[ExtractionRun]:
    return RowLoader(ExtractionRun, ExtractionRun._meta.concrete_fields)


def run_claim(
    run_pk: object, started_at: datetime, *, columns: tuple[str, ...], prefetch: int
) -> tuple[Session, bool, list[tuple[object, ...]]] | None:
    """Mark a queued (or interrupted) run running, in one statement that also reads its session with its
    namespace, and read the session's first `prefetch` unextracted messages (`columns`, in seq order) in the
    same round trip: (the session, whether the run was claimed, those messages), or None when the session
    is gone.

    The run takes its namespace's strategy as read with it, as the session's loader saw it. The messages
    are read a moment later than the session: one appended meanwhile may be among them.
    """
    sessions, namespaces = _session_loader(), _namespace_loader()
    session_table, namespace_table = Session._meta.db_table, Namespace._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            WITH claimed AS (
                UPDATE {RUNS} AS r
                SET status = %s, started_at = %s, heartbeat_at = statement_timestamp(), error = '',
                    strategy = n.extraction_strategy
                FROM {session_table} s JOIN {namespace_table} n ON n.id = s.namespace_id
                WHERE r.id = %s AND r.status IN (%s, %s) AND s.id = r.session_id
                RETURNING r.id
            )
            SELECT {", ".join([*sessions.columns("s"), *namespaces.columns("n")])}, EXISTS (SELECT 1 FROM claimed)
            FROM {RUNS} r
                JOIN {session_table} s ON s.id = r.session_id
                JOIN {namespace_table} n ON n.id = s.namespace_id
            WHERE r.id = %s;
            SELECT {", ".join(f"m.{c}" for c in columns)} FROM {Message._meta.db_table} m
            WHERE m.session_id = (SELECT session_id FROM {RUNS} WHERE id = %s)
              AND m.extracted_at IS NULL AND m.seq > 0
            ORDER BY m.seq LIMIT %s
            """,
            [RunStatus.RUNNING, started_at, run_pk, RunStatus.QUEUED, RunStatus.RUNNING, run_pk, run_pk, prefetch],
        )
        row = cursor.fetchone()
        cursor.nextset()
        messages = cursor.fetchall()
    if row is None:
        return None
    session = sessions.load(row[: sessions.width])
    namespace = namespaces.load(row[sessions.width : sessions.width + namespaces.width])
    Session._meta.get_field("namespace").set_cached_value(session, namespace)
    return session, row[-1], messages


@dataclass(frozen=True)
class Finish:
    """How a run ends, when its last write ends it."""

    status: str
    error: str
    finished_at: datetime
    duration_ms: int


def run_counts_add(
    run_pk: object,
    counts: dict[str, int],
    covered: tuple[int, int] | None,
    finish: Finish | None = None,
) -> list[ExtractionRun]:
    """Add a chunk's counts to the run and widen its range of seqs to `covered` (first, last); with
    `finish`, also end the run. Nobody waits for it (`core.bulk.send_later`): the list returned holds the
    run as it then is, once the statement has run (with `finish`, and unless the run is gone)."""
    sets = [f"{name} = {name} + %s" for name in counts]
    params: list[object] = list(counts.values())
    if covered is not None:
        sets += ["from_seq = COALESCE(from_seq, %s)", "to_seq = GREATEST(COALESCE(to_seq, 0), %s)"]
        params += list(covered)
    returning = ""
    if finish is not None:
        sets += ["status = %s", "error = %s", "finished_at = %s", "duration_ms = %s"]
        params += [finish.status, finish.error, finish.finished_at, finish.duration_ms]
        returning = "RETURNING " + ", ".join(_run_loader().columns(RUNS))
    finished: list[ExtractionRun] = []

    def read(rows: list[tuple[object, ...]]) -> None:
        finished.extend(_run_loader().load(row) for row in rows)

    send_later(
        f"UPDATE {RUNS} SET {', '.join(sets)} WHERE id = %s {returning}", [*params, run_pk], read if returning else None
    )
    return finished


def run_messages(
    session_pk: int, *, after_seq: int, upto_seq: int, columns: tuple[str, ...], limit: int
) -> list[tuple[object, ...]]:
    """`columns` of the session's unextracted messages in (after_seq, upto_seq], in seq order, at most `limit`
    (`conversations.queries.unextracted_messages`, by the partial index of unextracted messages)."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            SELECT {", ".join(columns)} FROM {Message._meta.db_table}
            WHERE session_id = %s AND extracted_at IS NULL AND seq > %s AND seq <= %s
            ORDER BY seq LIMIT %s
            """,
            [session_pk, after_seq, upto_seq, limit],
        )
        return cursor.fetchall()


def run_lock_and_mark(
    session_pk: int, user_lock: tuple[str, list[object]], message_pks: Sequence[int], subject: tuple[int, str]
) -> set[int] | None:
    """In the writing transaction, in one round trip: take turns with the session's other writers, hold off
    its deletion, and mark which of these messages no run has taken yet as extracted; returns them, or None
    when the session no longer exists (so a run never writes for a session that is gone).

    The person's supersession lock (`user_lock`: `user_lock_sql`) is taken with the writers' one: the run
    settles that person's knowledge updates. So is the person's subject lock (shared, `core.locks`), before the
    session's row, as an erasure takes them: the run adds rows about the person. The hold is
    `conversations.services.session_hold` (FOR KEY SHARE: a deletion or an erasure waits for the run, an append
    does not), the marks `messages_mark_extracted`: they commit with what the run writes for them.
    """
    lock_sql, lock_params = user_lock
    subject_sql, subject_params = subject_lock_sql(*subject)
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            SELECT pg_advisory_xact_lock(%s), {subject_sql}, (SELECT count(*) FROM ({lock_sql}) AS locked);
            SELECT 1 FROM {Session._meta.db_table} WHERE id = %s FOR KEY SHARE;
            UPDATE {Message._meta.db_table} SET extracted_at = %s
            WHERE session_id = %s AND id = ANY(%s) AND extracted_at IS NULL
            RETURNING id
            """,
            [
                _WRITER_LOCK_BASE + session_pk,
                *subject_params,
                *lock_params,
                session_pk,
                timezone.now(),
                session_pk,
                list(message_pks),
            ],
        )
        cursor.nextset()
        held = cursor.fetchone() is not None
        cursor.nextset()
        marked = {pk for (pk,) in cursor.fetchall()}
    return marked if held else None
