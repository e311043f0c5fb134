"""A person's vectors, kept by each process between searches and checked against the database each time.

A person's search compares the question with every vector of theirs (candidates.py). Reading
them is most of what a search of a busy person costs: 5,000 codes are 1.4 MB to aggregate,
send and decode. So each process keeps the people it searched recently, with their vectors'
*mark* (their count and a fingerprint of their rows, `vectors.person_codes_sql`), and each
search asks the database for the mark alone: the codes come only when the mark differs, that
is when the person's vectors changed since (a memory added, edited, forgotten, erased). A
search never answers from vectors the database no longer holds.

The store is bounded (SEARCH_PEOPLE_CACHE_MB per process, least recently used out first),
holds the int8 codes as the database does (a quarter of the float vectors' bytes), and lets go of
a person not searched for SEARCH_PEOPLE_CACHE_IDLE_SECONDS: after an erasure, no process keeps
the person's vectors longer than that, though none would answer from them (their mark is gone).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.conf import settings

from memoryadmin.memories.vectors import code_dtype


@dataclass(frozen=True)
class PersonVectors:
    """One person's vectors by one model: ids (16-byte values, sorted), with their int8 codes and scales."""

    count: int
    mark: int | None
    ids: np.ndarray
    codes: np.ndarray
    scales: np.ndarray

    @classmethod
    def decoded(cls, count: int, mark: int | None, blob: bytes, dimension: int) -> PersonVectors | None:
        """From the packed (id, scale, code) records `person_codes_sql` sends; None when they do not add up."""
        records = np.frombuffer(blob, dtype=code_dtype(dimension))
        if len(records) != count:
            return None
        ids = np.ascontiguousarray(records["id"])
        order = np.argsort(ids.view("S16"), kind="stable")
        return cls(
            count=count,
            mark=mark,
            ids=np.ascontiguousarray(ids[order]),
            codes=np.ascontiguousarray(records["code"][order]),
            scales=np.ascontiguousarray(records["scale"][order]),
        )

    @property
    def nbytes(self) -> int:
        return self.ids.nbytes + self.codes.nbytes + self.scales.nbytes

    def similarity(self, vector: np.ndarray) -> np.ndarray:
        """The (approximate) cosine of each of the person's vectors with a unit `vector`, in `ids` order."""
        # Converted first: numpy's int8-by-float product is ten times slower than the conversion and BLAS.
        return (self.codes.astype(np.float32) @ vector.astype(np.float32)) * self.scales

    def vector(self, position: int) -> np.ndarray:
        return self.codes[position].astype(np.float32) * self.scales[position]

    def positions(self, wanted: list[bytes]) -> list[int | None]:
        """Where each wanted id (16 bytes) is in `ids`; None for an id the person has no vector for."""
        if not len(self.ids) or not wanted:
            return [None] * len(wanted)
        # Compared as byte strings (sortable), read back as the 16 bytes they are (`ids`).
        ids = self.ids.view("S16")
        asked = np.array(wanted, dtype="S16")
        at = np.minimum(np.searchsorted(ids, asked), len(ids) - 1)
        found = ids[at] == asked
        return [int(p) if ok else None for p, ok in zip(at, found, strict=True)]


class PeopleCache:
    """People's vectors by (database, namespace, person, model): least recently used out past the
    budget, and any left unsearched for `idle_seconds` dropped at the next search."""

    def __init__(self, budget_bytes: int | None = None, idle_seconds: float | None = None) -> None:
        self._budget = budget_bytes
        self._idle = idle_seconds
        # Least recently used first: (vectors, when last used).
        self._entries: OrderedDict[tuple[Any, ...], tuple[PersonVectors, float]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    @property
    def budget(self) -> int:
        return self._budget if self._budget is not None else settings.SEARCH_PEOPLE_CACHE_MB * 1024 * 1024

    @property
    def idle_seconds(self) -> float:
        return self._idle if self._idle is not None else settings.SEARCH_PEOPLE_CACHE_IDLE_SECONDS

    def held(self, key: tuple[Any, ...]) -> PersonVectors | None:
        now = time.monotonic()
        with self._lock:
            self._expire(now)
            found = self._entries.get(key)
            if found is None:
                return None
            self._entries[key] = (found[0], now)
            self._entries.move_to_end(key)
            return found[0]

    def keep(self, key: tuple[Any, ...], person: PersonVectors | None) -> None:
        """Hold `person` for `key` (None: hold nothing for it)."""
        with self._lock:
            self._forget(key)
            if person is None or person.nbytes > self.budget:
                return
            self._entries[key] = (person, time.monotonic())
            self._bytes += person.nbytes
            while self._bytes > self.budget:
                self._forget(next(iter(self._entries)))

    def drop(self, key: tuple[Any, ...]) -> None:
        with self._lock:
            self._forget(key)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bytes = 0

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def nbytes(self) -> int:
        return self._bytes

    def _forget(self, key: tuple[Any, ...]) -> None:
        old = self._entries.pop(key, None)
        if old is not None:
            self._bytes -= old[0].nbytes

    def _expire(self, now: float) -> None:
        cutoff = now - self.idle_seconds
        while self._entries:
            key, (_, used) = next(iter(self._entries.items()))
            if used >= cutoff:
                return
            self._forget(key)


PEOPLE = PeopleCache()


def person_key(connection: Any, namespace_id: int, user_id: str, model: str) -> tuple[Any, ...]:
    params = connection.settings_dict
    return (params.get("HOST"), params.get("PORT"), params.get("NAME"), namespace_id, user_id, model)
