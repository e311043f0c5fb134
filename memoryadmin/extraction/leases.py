"""A running run's lease: what tells a run whose worker died from a run that is merely slow.

While a run works, a thread of its worker renews the lease every third of
`EXTRACTION_LEASE_SECONDS`: the run's `heartbeat_at` (the database's clock) and the
TTL of the session's schedule key, which a running run holds for no longer than the
lease. The thread renews whatever the run is doing, a model call that takes minutes
included, so the lease can be short. When the worker dies the renewals stop: the key
expires (the session's next append schedules again by itself) and beat's recovery
takes the run over once its heartbeat is older than the lease.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import uuid
from datetime import timedelta
from types import TracebackType

from django.conf import settings
from django.db import DatabaseError, connection, connections
from django.db.models import DateTimeField, ExpressionWrapper
from django.db.models.functions import Now
from redis.exceptions import RedisError

from memoryadmin.core.redis_client import get_redis
from memoryadmin.extraction.models import ExtractionRun

logger = logging.getLogger(__name__)

# Extend the key only while it still holds the run's token: a later schedule owns it otherwise.
_RENEW = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end return 0"
# SKIP LOCKED: a run's own writing transaction may hold its row a moment; that beat is skipped, not waited for.
_HEARTBEAT = f"""
    UPDATE {ExtractionRun._meta.db_table} SET heartbeat_at = now()
    WHERE id IN (
        SELECT id FROM {ExtractionRun._meta.db_table} WHERE id = %s AND status = 'running' FOR UPDATE SKIP LOCKED
    )
"""


def lease_seconds() -> float:
    return float(settings.EXTRACTION_LEASE_SECONDS)


def stale_before() -> ExpressionWrapper:
    """The database time before which a running run's heartbeat means its worker is gone."""
    return ExpressionWrapper(Now() - timedelta(seconds=lease_seconds()), output_field=DateTimeField())


class RunLease:
    """Renews a running run's lease until the block ends, from the process's renewing thread (`_Renewals`).

    `key` and `token` name the schedule the run holds; without them only the heartbeat is renewed.
    """

    def __init__(self, run_id: uuid.UUID, key: str | None = None, token: str | None = None) -> None:
        self.run_id = run_id
        self.key = key
        self.token = token
        self.seconds = lease_seconds()

    def __enter__(self) -> RunLease:
        # The key kept a long TTL while the run was queued; from now on it lives only as long as the lease.
        self._renew_key()
        _renewals.hold(self)
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        _renewals.release(self)

    def renew(self) -> None:
        self._renew_heartbeat()
        self._renew_key()

    def _renew_heartbeat(self) -> None:
        try:
            with connection.cursor() as cursor:
                cursor.execute(_HEARTBEAT, [self.run_id])
        except DatabaseError:
            logger.warning("could not renew the lease of extraction run %s", self.run_id, exc_info=True)
            connection.close()

    def _renew_key(self) -> None:
        if self.key is None:
            return
        try:
            get_redis().eval(_RENEW, 1, self.key, self.token, int(self.seconds * 1000))
        except RedisError:
            # The heartbeat in the database is what recovery reads; the key only expires later than it should.
            logger.warning("could not renew the schedule of extraction run %s", self.run_id, exc_info=True)


class _Renewals:
    """One thread per process renews every lease its runs hold, each a third of its length after the last.

    Started with the process's first lease and kept (a run costs no thread of its own), it holds a database
    connection only while it has renewed a lease still held: once none is, it closes it. A lease released
    is never renewed again: its release waits out a renewal under way, and the closing of the connection
    when it was the last, so a run leaves nothing of its lease behind once it returns.
    """

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._due: dict[RunLease, float] = {}
        self._renewing: RunLease | None = None
        self._connected = False
        self._thread: threading.Thread | None = None
        self._pid = 0

    def hold(self, lease: RunLease) -> None:
        with self._changed:
            self._due[lease] = time.monotonic() + lease.seconds / 3
            # A forked worker process inherits no thread: it starts its own.
            if self._thread is None or self._pid != os.getpid() or not self._thread.is_alive():
                self._pid = os.getpid()
                self._thread = threading.Thread(target=self._keep, name="extraction-leases", daemon=True)
                self._thread.start()
            self._changed.notify_all()

    def release(self, lease: RunLease) -> None:
        with self._changed:
            self._due.pop(lease, None)
            self._changed.notify_all()
            while self._renewing is lease or (self._connected and not self._due):
                self._changed.wait()

    def _keep(self) -> None:
        while True:
            with self._changed:
                lease = self._next()
                self._renewing = lease
            try:
                if lease is None:
                    # The thread's own connection, not the run's.
                    connections.close_all()
                else:
                    lease.renew()
            except Exception:
                # The thread outlives any one renewal: the next ones, and every later run's, still need it.
                logger.exception("could not renew the lease of extraction run %s", lease.run_id if lease else None)
            with self._changed:
                self._renewing = None
                self._connected = lease is not None
                self._changed.notify_all()

    def _next(self) -> RunLease | None:
        """The lease due first, once due (under the lock); None when none is held and a connection is open."""
        while True:
            if not self._due:
                if self._connected:
                    return None
                self._changed.wait()
                continue
            lease, at = min(self._due.items(), key=lambda item: item[1])
            wait = at - time.monotonic()
            if wait <= 0:
                self._due[lease] = time.monotonic() + lease.seconds / 3
                return lease
            self._changed.wait(wait)


_renewals = _Renewals()
