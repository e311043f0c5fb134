"""Django's PostgreSQL backend, with a health check that sends nothing while the connection is sound.

Persistent connections are checked at the start of each request (`CONN_HEALTH_CHECKS`). Django's
check runs `SELECT 1`: a round trip before every request's first statement, a third of a cached
search's. A connection the server closed (a restart, `pg_terminate_backend`, an idle timeout, a
pooler going away) has the server's goodbye, or the end of the stream, waiting on its socket; a
sound idle connection has nothing there. So: nothing to read is healthy, without asking; anything
to read (or a socket that cannot be polled) is checked the old way, with a `SELECT 1`.
"""

from __future__ import annotations

import select

from django.db.backends.postgresql import base
from psycopg import pq

__all__ = ["DatabaseWrapper"]


class DatabaseWrapper(base.DatabaseWrapper):
    def is_usable(self) -> bool:
        connection = self.connection
        if connection is None or connection.closed:
            return False
        pgconn = connection.pgconn
        if pgconn.status != pq.ConnStatus.OK or pgconn.transaction_status != pq.TransactionStatus.IDLE:
            return super().is_usable()
        try:
            readable, _, _ = select.select([pgconn.socket], [], [], 0)
        except (OSError, ValueError):
            return super().is_usable()
        return not readable or super().is_usable()
