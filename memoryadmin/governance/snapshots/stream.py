"""A snapshot read and checked in a thread while the restore writes what was read before.

Parsing and checking a record is Python; writing it is mostly PostgreSQL's work, during which
the writing thread waits on the connection without holding the GIL. So the file is read in a
thread of its own, a few batches ahead of the writer, and handed over in batches of one record
type. The reading thread never touches the database. Whatever it refuses is raised in the
writing thread, inside the restore's transaction, which then rolls back everything written so far.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Callable, Iterator
from typing import Any, BinaryIO

from memoryadmin.governance.snapshots.format import Header
from memoryadmin.governance.snapshots.parse import labels_remembered
from memoryadmin.governance.snapshots.validate import Reader, Records
from memoryadmin.tenancy.models import Namespace

# Batches read ahead of the writer: enough to keep it fed, few enough to keep memory flat.
AHEAD = 4
# How often a blocked reader looks whether the writer has given up.
POLL_SECONDS = 0.1


class _Stopped(Exception):
    pass


class Batches:
    """The snapshot's records in batches of one type, read in a thread: `header()`, then iterate.

    Use it as a context manager: leaving the block stops the reader, whatever happened.
    `records` is known once the iteration has ended, which is also when the whole file has
    been checked (its trailer, count and checksum).
    """

    def __init__(
        self,
        *,
        namespace: Namespace,
        source: BinaryIO,
        size: int,
        prepare: Callable[[str, dict[str, Any]], None] | None = None,
    ) -> None:
        self.reader = Reader(namespace=namespace, source=source)
        self.size = size
        # Run on each record in the reading thread: work the writer would otherwise do between its statements.
        self.prepare = prepare
        self.records: Records | None = None
        self._queue: queue.Queue[tuple[str, Any]] = queue.Queue(maxsize=AHEAD)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, name="snapshot-reader", daemon=True)

    def __enter__(self) -> Batches:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._thread.join()

    def _put(self, item: tuple[str, Any]) -> None:
        while not self._stop.is_set():
            try:
                self._queue.put(item, timeout=POLL_SECONDS)
                return
            except queue.Full:
                continue
        raise _Stopped

    def _read(self) -> None:
        try:
            with labels_remembered():
                kind: str | None = None
                batch: list[dict[str, Any]] = []
                announced = False
                for record_kind, record in self.reader.records():
                    if not announced:
                        self._put(("header", self.reader.header))
                        announced = True
                    if record_kind != kind or len(batch) >= self.size:
                        if batch:
                            self._put((kind, batch))  # type: ignore[arg-type]
                        kind, batch = record_kind, []
                    if self.prepare is not None:
                        self.prepare(record_kind, record)
                    batch.append(record)
                if not announced:
                    self._put(("header", self.reader.header))
                if batch:
                    self._put((kind, batch))  # type: ignore[arg-type]
                self._put(("end", Records(header=self.reader.header, total=self.reader.total)))  # type: ignore[arg-type]
        except _Stopped:
            pass
        except BaseException as exc:
            # Handed to the writing thread, which raises it.
            with contextlib.suppress(_Stopped):
                self._put(("error", exc))

    def _next(self) -> tuple[str, Any]:
        item = self._queue.get()
        if item[0] == "error":
            raise item[1]
        return item

    def header(self) -> Header:
        """The snapshot's header, once read and checked (before any record is handed over)."""
        item = self._next()
        if item[0] != "header":
            raise RuntimeError("the reader sent records before the header")
        return item[1]

    def __iter__(self) -> Iterator[tuple[str, list[dict[str, Any]]]]:
        while True:
            kind, value = self._next()
            if kind == "end":
                self.records = value
                return
            yield kind, value
