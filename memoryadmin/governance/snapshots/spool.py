"""The records of a restore's first pass, kept on disk for its second: each line is parsed once.

A snapshot may hold millions of records, so they are not kept in memory: they go to a temporary
file in chunks (pickled, as only this process reads them back) and come back in the same order.
"""

from __future__ import annotations

import pickle
import tempfile
from collections.abc import Iterator
from typing import Any

CHUNK = 1000


class Spool:
    def __init__(self) -> None:
        self.file = tempfile.TemporaryFile()  # noqa: SIM115 - closed by close(), after the second pass
        self.pending: list[tuple[str, dict[str, Any]]] = []

    def add(self, kind: str, record: dict[str, Any]) -> None:
        self.pending.append((kind, record))
        if len(self.pending) >= CHUNK:
            self._flush()

    def _flush(self) -> None:
        if self.pending:
            pickle.dump(self.pending, self.file, protocol=pickle.HIGHEST_PROTOCOL)
            self.pending = []

    def __iter__(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """Every record added, in order, as (kind, record)."""
        self._flush()
        self.file.seek(0)
        while True:
            try:
                chunk = pickle.load(self.file)  # noqa: S301 - written by this process, above
            except EOFError:
                return
            yield from chunk

    def close(self) -> None:
        self.file.close()
