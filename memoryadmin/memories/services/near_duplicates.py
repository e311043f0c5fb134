"""Near duplicates: which stored memory a new text may merge into, for one text or a whole batch."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence

import numpy as np
from django.db import connection

from memoryadmin.memories.models import (
    Memory,
)
from memoryadmin.memories.paraphrase import BRIDGE_RADIUS, semantic_target
from memoryadmin.memories.services.planning import Planned
from memoryadmin.memories.vectors import person_pools

# Memories that may take part in a near-duplicate group: neither history nor a statement of an
# attribute, which supersession settles instead, nor a turn kept as said (Planned.mergeable).
_MERGEABLE = "attribute = '' AND status <> 'superseded' AND memory_type <> 'utterance'"

# pg_trgm's default `similarity_threshold`, below which the `%` operator matches.
TRGM_DEFAULT_THRESHOLD = 0.3


# At most this many neighbours make a group to merge into (the nearest ones).
_GROUP_LIMIT = 20


def find_near_duplicates(
    *, namespace_id: int, user_id: str, text: str, threshold: float, exclude: Sequence[uuid.UUID] = ()
) -> list[tuple[uuid.UUID, float]]:
    """Memories of the same user whose trigram similarity to `text` reaches `threshold`, best first.

    For a threshold at or above pg_trgm's default, `text % q` is added: it selects a
    superset of the answer and lets PostgreSQL use the trigram index, so a user with
    tens of thousands of memories costs an index probe instead of a similarity()
    call per memory. The exact similarity test still decides.
    """
    prefilter = "AND text %% %s" if threshold >= TRGM_DEFAULT_THRESHOLD else ""
    params: list[object] = [text, namespace_id, user_id]
    if prefilter:
        params.append(text)
    params += [text, threshold, list(exclude)]
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            SELECT id, similarity(text, %s) AS sim
            FROM memories_memory
            WHERE namespace_id = %s AND user_id = %s AND {_MERGEABLE} {prefilter} AND similarity(text, %s) >= %s
              AND NOT (id = ANY(%s))
            ORDER BY sim DESC, id
            LIMIT {_GROUP_LIMIT}
            """,
            params,
        )
        return [(row[0], float(row[1])) for row in cursor.fetchall()]


def _pairwise_similar(texts: Sequence[str], threshold: float) -> bool:
    if len(texts) < 2:
        return True
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT bool_and(similarity(a.t, b.t) >= %s)
            FROM unnest(%s::text[]) WITH ORDINALITY AS a(t, i)
            JOIN unnest(%s::text[]) WITH ORDINALITY AS b(t, j) ON a.i < b.j
            """,
            [threshold, list(texts), list(texts)],
        )
        return bool(cursor.fetchone()[0])


def near_duplicate_target(*, namespace_id: int, user_id: str, text: str, threshold: float) -> Memory | None:
    """The memory a new text may merge into, or None (see near_duplicate_group)."""
    return near_duplicate_group(namespace_id=namespace_id, user_id=user_id, text=text, threshold=threshold)[0]


def near_duplicate_group(*, namespace_id: int, user_id: str, text: str, threshold: float) -> tuple[Memory | None, bool]:
    """The memory a new text may merge into (or None), and whether the text has any trigram neighbour.

    A merge is allowed only when the group (the new text and its neighbours)
    is cohesive: every member is similar to every other, and no outside
    memory bridges the group (is similar to a member without being similar
    to all of them). A loose chain of similar texts stays separate.
    """
    neighbours = find_near_duplicates(namespace_id=namespace_id, user_id=user_id, text=text, threshold=threshold)
    if not neighbours:
        return None, False
    members = dict(Memory.objects.filter(pk__in=[n[0] for n in neighbours]).values_list("id", "text"))
    texts = [text, *members.values()]
    if not _pairwise_similar(texts, threshold):
        return None, True
    for member_text in members.values():
        bridges = find_near_duplicates(
            namespace_id=namespace_id, user_id=user_id, text=member_text, threshold=threshold, exclude=list(members)
        )
        if bridges:
            return None, True
    return Memory.objects.select_for_update().filter(pk=neighbours[0][0]).first(), True


# The person's memories that cannot merge (utterances, history) are ruled out before any trigram is compared:
# PostgreSQL tests conditions of equal cost in the order written, and utterances are about half of them.
_NEAR_DUPLICATE_GROUPS = """
WITH cand AS (
    SELECT DISTINCT c.u, c.t FROM unnest(%(users)s::text[], %(texts)s::text[]) AS c(u, t)
),
cn AS (
    SELECT c.u, c.t, n.id, n.text, n.sim
    FROM cand c
    CROSS JOIN LATERAL (
        SELECT m.id, m.text, similarity(m.text, c.t) AS sim
        FROM memories_memory m
        WHERE m.namespace_id = %(namespace_id)s AND m.user_id = c.u AND m.{mergeable} {candidate_prefilter}
          AND similarity(m.text, c.t) >= %(threshold)s
        ORDER BY sim DESC, m.id
        LIMIT %(limit)s + 1
    ) n
),
ranked AS (
    SELECT cn.*, row_number() OVER w AS rank, count(*) OVER (PARTITION BY u, t) AS found
    FROM cn WINDOW w AS (PARTITION BY u, t ORDER BY sim DESC, id)
),
members AS (SELECT DISTINCT u, id, text FROM ranked WHERE rank <= %(limit)s),
crowded AS (SELECT DISTINCT u, t FROM ranked WHERE found > %(limit)s)
SELECT 'n', u, t, id, NULL::uuid, text, sim FROM cn
UNION ALL
SELECT 'm', NULL, NULL, mb.id, n.id, NULL, NULL
FROM members mb
CROSS JOIN LATERAL (
    SELECT m.id FROM memories_memory m
    WHERE m.namespace_id = %(namespace_id)s AND m.user_id = mb.u AND m.{mergeable} {member_prefilter}
      AND similarity(m.text, mb.text) >= %(threshold)s
    LIMIT %(limit)s + 1
) n
UNION ALL
SELECT 'x', mb.u, c.t, mb.id, NULL, NULL, similarity(mb.text, c.t)
FROM members mb JOIN crowded c ON c.u = mb.u
WHERE similarity(mb.text, c.t) >= %(threshold)s
UNION ALL
SELECT 'c', a.u, a.t, NULL, NULL, b.t, similarity(a.t, b.t)
FROM cand a JOIN cand b ON a.u = b.u AND a.t < b.t
WHERE similarity(a.t, b.t) >= %(threshold)s
"""


class BatchNearDuplicates:
    """near_duplicate_target for the items of a batch, in order, from one statement.

    The statement reads, for each text of the batch, its stored neighbours (best
    first, one past the group limit), each neighbour's own stored neighbours,
    and the similar pairs of texts within the batch. Memories the batch creates
    are not stored yet; `target` adds those created before the item, so each
    item sees what `near_duplicate_target` would see at its turn. A member with
    more stored neighbours than a group can hold always has one outside the
    group, so one past the limit is all that is read.
    """

    def __init__(self, namespace_id: int, pairs: Iterable[tuple[str, str]], threshold: float) -> None:
        # (user_id, text) -> stored neighbours [(id, text, sim)] best first, at most _GROUP_LIMIT + 1
        self.neighbours: dict[tuple[str, str], list[tuple[uuid.UUID, str, float]]] = {}
        # stored memory id -> ids of its stored neighbours (itself included), at most _GROUP_LIMIT + 1
        self.around: dict[uuid.UUID, set[uuid.UUID]] = {}
        # (stored id, text of the batch) -> similar, asked only for texts with too many neighbours to list
        self.crowded: set[tuple[uuid.UUID, str]] = set()
        # similar texts of the batch (both orders)
        self.within: dict[tuple[str, str], float] = {}
        self.created: dict[str, list[Planned]] = {}
        # Whether the item last asked about had any neighbour at all (a rejected group stays apart).
        self.had_neighbours = False
        pairs = sorted(set(pairs))
        if not pairs:
            return
        prefilter = threshold >= TRGM_DEFAULT_THRESHOLD
        sql = _NEAR_DUPLICATE_GROUPS.format(
            candidate_prefilter="AND m.text %% c.t" if prefilter else "",
            member_prefilter="AND m.text %% mb.text" if prefilter else "",
            mergeable=_MERGEABLE.replace(" AND ", " AND m."),
        )
        params = {
            "users": [u for u, _ in pairs],
            "texts": [t for _, t in pairs],
            "namespace_id": namespace_id,
            "threshold": threshold,
            "limit": _GROUP_LIMIT,
        }
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            rows = cursor.fetchall()
        for kind, user_id, text, first_id, second_id, other_text, sim in rows:
            if kind == "n":
                self.neighbours.setdefault((user_id, text), []).append((first_id, other_text, float(sim)))
            elif kind == "m":
                self.around.setdefault(first_id, set()).add(second_id)
            elif kind == "x":
                self.crowded.add((first_id, text))
            else:
                self.within[(text, other_text)] = self.within[(other_text, text)] = float(sim)
        for found in self.neighbours.values():
            found.sort(key=lambda n: (-n[2], n[0]))

    def add_created(self, item: Planned) -> None:
        self.created.setdefault(item.new.user_id, []).append(item)

    def _stored_near(self, user_id: str, text: str) -> list[tuple[uuid.UUID, str, float]]:
        return self.neighbours.get((user_id, text), [])

    def target(self, item: Planned) -> uuid.UUID | Planned | None:
        self.had_neighbours = False
        user_id, text = item.new.user_id, item.text
        created = self.created.get(user_id, [])
        found: list[tuple[float, uuid.UUID, uuid.UUID | Planned]] = [
            (sim, pk, pk) for pk, _, sim in self._stored_near(user_id, text)
        ]
        for other in created:
            sim = self.within.get((text, other.text))
            if sim is not None:
                found.append((sim, other.memory.pk, other))
        self.had_neighbours = bool(found)
        if not found:
            return None
        found.sort(key=lambda n: (-n[0], n[1]))
        group = found[:_GROUP_LIMIT]
        ids = {pk for _, pk, _ in group}
        members = [member for _, _, member in group]

        def stored_around(member: uuid.UUID | Planned) -> set[uuid.UUID]:
            """The member's stored neighbours: all of them, or one more than the group can hold."""
            if isinstance(member, Planned):
                return {pk for pk, _, _ in self._stored_near(user_id, member.text)}
            return self.around.get(member, set())

        def similar(stored: uuid.UUID, planned: Planned) -> bool:
            listed = self._stored_near(user_id, planned.text)
            if len(listed) <= _GROUP_LIMIT:
                return any(pk == stored for pk, _, _ in listed)
            return (stored, planned.text) in self.crowded

        # No bridge: nothing outside the group, stored or created earlier in the batch, is similar to a member.
        # (A member whose stored neighbours were cut at the limit has more than the group holds: one is outside.)
        for member in members:
            if stored_around(member) - ids:
                return None
            for other in created:
                if other.memory.pk in ids:
                    continue
                if isinstance(member, Planned):
                    if (member.text, other.text) in self.within:
                        return None
                elif similar(member, other):
                    return None
        # Cohesion: every member is similar to every other (each is similar to the new text by choice).
        for i, a in enumerate(members):
            for b in members[i + 1 :]:
                if isinstance(a, Planned) and isinstance(b, Planned):
                    ok = (a.text, b.text) in self.within
                elif isinstance(a, Planned):
                    ok = similar(b, a)  # type: ignore[arg-type]
                elif isinstance(b, Planned):
                    ok = similar(a, b)
                else:
                    ok = b in stored_around(a)
                if not ok:
                    return None
        return group[0][2]


def semantic_near_duplicate(
    *, namespace_id: int, user_id: str, text: str, vector: np.ndarray, model: str
) -> Memory | None:
    """The memory a new text merges into as the same fact in other words (memories.paraphrase), locked; or None.

    Asked only of a text with no trigram neighbour at all: one whose trigram group was
    refused (not cohesive, bridged, too crowded) stays apart whatever its meaning.
    """
    pool = [
        entry
        for entry in person_pools(namespace_id, [user_id], model)[user_id]
        if float(entry[2] @ vector) >= BRIDGE_RADIUS
    ]
    target = semantic_target(text, vector, pool)  # type: ignore[arg-type]
    if target is None:
        return None
    return Memory.objects.select_for_update().filter(pk=target).first()


class BatchSemanticDuplicates:
    """semantic_near_duplicate for the items of a batch, in order: the people's vectors are read once."""

    def __init__(self, namespace_id: int, users: Iterable[str], model: str, vectors: dict[str, np.ndarray]) -> None:
        self.vectors = vectors
        self.pools: dict[str, list[tuple[object, str, np.ndarray]]] = dict(
            person_pools(namespace_id, sorted(set(users)), model)  # type: ignore[arg-type]
        )

    def target(self, item: Planned) -> uuid.UUID | Planned | None:
        vector = self.vectors.get(item.text)
        if vector is None:
            return None
        pool = [e for e in self.pools.get(item.new.user_id, []) if float(e[2] @ vector) >= BRIDGE_RADIUS]
        return semantic_target(item.text, vector, pool)  # type: ignore[return-value]

    def add_created(self, item: Planned) -> None:
        vector = self.vectors.get(item.text)
        if vector is not None:
            self.pools.setdefault(item.new.user_id, []).append((item, item.text, vector))
