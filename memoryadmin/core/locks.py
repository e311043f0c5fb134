"""Transaction-scoped advisory locks that keep forgetting, erasure and restore from racing writers.

- The *namespace write lock*: every write that creates, changes or removes memories, and every
  erasure sweep, holds it shared (shared holders never wait for each other); a snapshot restore
  holds it exclusively while it validates and applies, so what it checks (tombstones, the
  erasure ledger, existing rows) cannot change under it.
- The *subject lock*, one per (namespace, person): every write that adds rows about a person
  (a new session, a memory, a tombstone) holds it shared; an erasure sweep holds it exclusively,
  so a writer in flight commits before the sweep looks (and its rows go with the rest), and one
  that starts later waits until the sweep has committed and then writes the person's new data.
- *Text locks*, one per (namespace, person, fingerprint): creating a text and forgetting it take
  the same lock, so a create can never slip between a forget's tombstone and its delete.

Locks are always taken in one order (the namespace lock, then subject locks, then text locks by
key) and in one statement, so two writers never wait for each other in a circle. They end with the transaction.
The keys use the two-integer form of advisory locks, a key space apart from the single-integer
locks of the audit chain and of extraction.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import connection

_NAMESPACE_WRITES = 0x6E73
_TEXT = 0x7478
_SUBJECT = 0x7375
# For statements that take text locks themselves (a forgetting batch).
TEXT_LOCK_CLASS = _TEXT
# For a check of who waits for a person's erasure (pg_locks.classid).
SUBJECT_LOCK_CLASS = _SUBJECT

# Volatile functions in a target list run after the sort, so the locks are taken in key order.
_LOCKS = """
SELECT count(*) FROM (
    SELECT CASE WHEN l.kind < 2 THEN pg_advisory_xact_lock_shared(l.a, l.b) ELSE pg_advisory_xact_lock(l.a, l.b) END
    FROM (
        SELECT 0 AS kind, %(namespace_class)s AS a, %(namespace_id)s AS b WHERE %(with_namespace)s
        UNION ALL
        SELECT DISTINCT 1, %(subject_class)s, hashtext(k) FROM unnest(%(subjects)s::text[]) AS k
        UNION ALL
        SELECT DISTINCT 2, %(text_class)s, hashtext(k) FROM unnest(%(keys)s::text[]) AS k
    ) AS l
    ORDER BY l.kind, l.b
) AS taken
"""


def _require_transaction() -> None:
    if not connection.in_atomic_block:
        raise RuntimeError("advisory transaction locks need the caller's transaction")


def lock_namespace_writes(namespace_id: int, *, exclusive: bool = False) -> None:
    """The namespace write lock: shared for a writer, exclusive for a restore."""
    _require_transaction()
    function = "pg_advisory_xact_lock" if exclusive else "pg_advisory_xact_lock_shared"
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {function}(%s, %s)", [_NAMESPACE_WRITES, namespace_id])


def _subject_key(namespace_id: int, user_id: str) -> str:
    return f"{namespace_id}:{user_id}"


def subject_lock_sql(namespace_id: int, user_id: str, *, exclusive: bool = False) -> tuple[str, list[object]]:
    """The subject lock as an expression, for a writer that takes it in a statement of its own."""
    function = "pg_advisory_xact_lock" if exclusive else "pg_advisory_xact_lock_shared"
    return f"{function}(%s, hashtext(%s))", [_SUBJECT, _subject_key(namespace_id, user_id)]


def lock_subject(namespace_id: int, user_id: str, *, exclusive: bool = False) -> None:
    """The subject lock of one person: shared for a writer that adds rows about them, exclusive for an erasure."""
    _require_transaction()
    sql, params = subject_lock_sql(namespace_id, user_id, exclusive=exclusive)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {sql}", params)


def lock_texts(namespace_id: int, texts: Iterable[tuple[str, str]], *, with_namespace: bool = True) -> None:
    """Text locks for (user_id, fingerprint) pairs, after the shared namespace write lock and the shared subject locks
    of their people, unless the namespace lock is held already (and so are those)."""
    _require_transaction()
    texts = list(texts)
    if not texts and not with_namespace:
        return
    with connection.cursor() as cursor:
        cursor.execute(*text_locks_sql(namespace_id, texts, with_namespace=with_namespace))


def text_locks_sql(
    namespace_id: int, texts: Iterable[tuple[str, str]], *, with_namespace: bool = True
) -> tuple[str, dict[str, object]]:
    """The statement `lock_texts` runs and its named parameters, for a caller that sends it together with the
    reads it guards (one row: how many locks it took). Run it inside a transaction."""
    # A fingerprint has a fixed length, so the key is unambiguous whatever the user id holds.
    keys = sorted({f"{namespace_id}:{user_id}:{fingerprint}" for user_id, fingerprint in texts})
    params: dict[str, object] = {
        "namespace_class": _NAMESPACE_WRITES,
        "namespace_id": namespace_id,
        "with_namespace": with_namespace,
        "subject_class": _SUBJECT,
        # A writer of a person's texts may add rows about them (a memory, a tombstone).
        "subjects": sorted({_subject_key(namespace_id, user_id) for user_id, _ in texts}) if with_namespace else [],
        "text_class": _TEXT,
        "keys": keys,
    }
    return _LOCKS, params
