"""Writes a block puts off to its end, to do them together: the audit events of a change, a request's
bookkeeping in Redis."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar


class Deferral[T]:
    """What writers hand over within `block()` instead of writing it, per context (a thread, a task).

    The outermost block passes everything handed over to `flush` as it ends; a nested block joins it.
    Outside a block `pending()` is None and a writer writes at once.
    """

    def __init__(self, name: str) -> None:
        self._items: ContextVar[list[T] | None] = ContextVar(name, default=None)

    def pending(self) -> list[T] | None:
        """The open block's list, to add to; None outside a block."""
        return self._items.get()

    @contextmanager
    def block(self, flush: Callable[[list[T]], None], *, even_on_error: bool = False) -> Iterator[None]:
        """Collect within the block, then `flush` once, unless the block raised (and not `even_on_error`)."""
        if self._items.get() is not None:
            yield
            return
        items: list[T] = []
        token = self._items.set(items)
        finished = False
        try:
            yield
            finished = True
        finally:
            # Closed before flushing: what `flush` itself writes goes out at once.
            self._items.reset(token)
            if finished or even_on_error:
                flush(items)
