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
import threading
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
    """Renews a running run's lease from a thread of its own until the block ends.

    `key` and `token` name the schedule the run holds; without them only the heartbeat is renewed.
    """

    def __init__(self, run_id: uuid.UUID, key: str | None = None, token: str | None = None) -> None:
        self.run_id = run_id
        self.key = key
        self.token = token
        self.seconds = lease_seconds()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._keep, name=f"lease-{run_id}", daemon=True)

    def __enter__(self) -> RunLease:
        # The key kept a long TTL while the run was queued; from now on it lives only as long as the lease.
        self._renew_key()
        self._thread.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._stop.set()
        self._thread.join(timeout=self.seconds)

    def _keep(self) -> None:
        try:
            while not self._stop.wait(self.seconds / 3):
                self._renew_heartbeat()
                self._renew_key()
        finally:
            # The thread's own connection, not the run's.
            connections.close_all()

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
