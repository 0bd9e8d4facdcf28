"""PostgreSQL, with a health check that costs no round trip when nothing is wrong.

Django's ``CONN_HEALTH_CHECKS`` sends ``SELECT 1`` before the first query of every
request that reuses a connection: on this vm ~80 us of Python, ~50 us of the backend's CPU
and ~150 us of waiting (issue 41.1; RESULTS "Issue 41.1: the health check without a
round trip, and the browser's middleware off the API"). Here the check looks first at
what the connection already knows:

- libpq's status and transaction status: a connection libpq knows to be broken, or one
  left inside a transaction, is judged by ``SELECT 1`` as before;
- the socket: an idle connection has nothing to read. When PostgreSQL ends a session
  (a restart, ``pg_terminate_backend``, an idle timeout) it sends its error and closes
  the socket, and a proxy or PgBouncer going away closes it: either makes the socket
  readable, and then ``SELECT 1`` decides (it fails on a dead session, and reads away
  a harmless message such as a notice on a live one).

Nothing readable on an idle, healthy connection: usable, with nothing sent. A server that
vanished without a word (its host cut off) is not seen by either check before a query;
``SELECT 1`` would wait for the connection's timeouts there too. The query then fails,
the request answers the database's 503 (core/problems.py), and Django closes the
connection at the request's end (``errors_occurred``).
"""

from __future__ import annotations

import select

import psycopg
from django.db.backends.postgresql import base
from psycopg import pq


class DatabaseWrapper(base.DatabaseWrapper):
    def is_usable(self) -> bool:
        if self.connection is None:
            return False
        pgconn = self.connection.pgconn
        if (
            pgconn.status == pq.ConnStatus.OK
            and pgconn.transaction_status == pq.TransactionStatus.IDLE
            and not _readable(pgconn)
        ):
            return True
        return super().is_usable()


def _readable(pgconn: pq.abc.PGconn) -> bool:
    """Whether the connection's socket has anything to read now (or no socket at all)."""
    try:
        fd = pgconn.socket
    except psycopg.OperationalError:  # no socket: a connection libpq already closed
        return True
    poller = select.poll()  # not select(): a worker's descriptors may pass 1,024
    poller.register(fd, select.POLLIN)
    return bool(poller.poll(0))  # readable, hung up or in error
