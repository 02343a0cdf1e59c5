"""Redis script calls sent without waiting for their replies (write-behind).

The get path's consumption markers go through here: MQGET sends the marker and returns
the message at once; the reply is read later, before the next command on this
connection and before any other state call of the process (redis_store settles first),
so a caller never reads state that is missing one of its own markers.

Why a marker is never lost when the process dies right after MQGET returned:
* over a unix socket (the local stack's), a write puts the bytes in Redis's receive
  queue at once, and they stay there when the writer dies: Redis reads and runs them.
  Replies may lag behind by up to UNIX_DEPTH commands.
* over TCP, every earlier reply is read before a command is sent, so at any moment at
  most the latest command's reply is unread. If that reply has arrived, Redis has run
  the command. If it has not, the socket's receive queue is empty, and the kernel
  closes it after the process dies with an orderly FIN after the bytes still queued for
  sending (an unread receive queue would make it a reset that drops them instead).
Either way the command reaches Redis unless Redis or the host fails too.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable
from typing import Any

import hiredis
import redis
from redis.exceptions import NoScriptError

log = logging.getLogger("mqk.shim.writebehind")

OnReply = Callable[[Any, bool], None]  # (reply, resent after a lost connection)
UNIX_DEPTH = 64  # unread replies allowed over a unix socket (TCP: 0, see above)


class WriteBehind:
    """One dedicated connection; thread-safe. `send` never waits for its own reply."""

    def __init__(self, client: redis.Redis) -> None:
        pool = client.connection_pool
        self._client = client
        self._connection_class = pool.connection_class
        self._kwargs = dict(pool.connection_kwargs)
        self._conn = None
        unix = issubclass(self._connection_class, redis.UnixDomainSocketConnection)
        self._depth = UNIX_DEPTH if unix else 0
        self._lock = threading.Lock()
        self._pending: deque[tuple[Any, list, list, OnReply]] = deque()
        self.sent = 0
        self.failures = 0

    @property
    def pending(self) -> int:
        return len(self._pending)

    def send(self, script, keys: list, args: list, on_reply: OnReply) -> None:
        """Send `script` (a redis-py Script) with keys and args; `on_reply(reply,
        resent)` runs when its reply is read."""
        with self._lock:
            conn = self._connection()
            self._settle(conn, self._depth)
            self._pending.append((script, keys, args, on_reply))
            try:
                # hiredis packs directly (~1.5 us; redis-py's wrapper around it ~4.6 us):
                # keys and args are str, bytes and int, which it takes as they are.
                conn.send_packed_command(
                    [hiredis.pack_command(("EVALSHA", script.sha, len(keys), *keys, *args))]
                )
            except (redis.ConnectionError, redis.TimeoutError, OSError):
                self._resend_all()
            self.sent += 1

    def settle(self) -> None:
        """Read every outstanding reply: after this, Redis has run every command sent."""
        if not self._pending:
            return
        with self._lock:
            if self._pending:
                self._settle(self._connection())

    def _settle(self, conn, keep: int = 0) -> None:
        """Read replies until at most `keep` are unread."""
        while len(self._pending) > keep:
            script, keys, args, on_reply = self._pending[0]
            try:
                reply = conn.read_response()
            except NoScriptError:
                # Redis lost its script cache (a restart): run this one through the
                # client, which loads the script, and go on with the next reply.
                reply = script(keys=keys, args=args)
            except redis.ResponseError:
                # A script error is a defect, not a state: counted, logged, not retried.
                self._pending.popleft()
                self.failures += 1
                log.error(
                    "a write-behind script call failed (%d so far)", self.failures, exc_info=True
                )
                continue
            except (redis.ConnectionError, redis.TimeoutError, OSError):
                self._resend_all()
                return
            self._pending.popleft()
            on_reply(reply, False)

    def _resend_all(self) -> None:
        """The connection broke with commands whose outcome is unknown: run them again,
        in order, through the client (its retries and reconnection); each callback is
        told it was a resend, since its command may have run once already."""
        self._drop()
        log.warning("write-behind connection lost: resending %d command(s)", len(self._pending))
        while self._pending:
            script, keys, args, on_reply = self._pending[0]
            reply = script(keys=keys, args=args)
            self._pending.popleft()
            on_reply(reply, True)

    def _connection(self):
        if self._conn is None:
            conn = self._connection_class(**self._kwargs)
            conn.connect()
            self._conn = conn
        return self._conn

    def _drop(self) -> None:
        if self._conn is not None:
            try:
                self._conn.disconnect()
            finally:
                self._conn = None

    def close(self) -> None:
        with self._lock:
            try:
                if self._conn is not None and self._pending:
                    self._settle(self._conn)
            finally:
                self._drop()


class Direct:
    """WriteBehind's interface, each call run at once through the client: Redis Cluster's
    form. A script goes to its keys' node, and redis-py's cluster client follows MOVED and
    failovers per call; one raw socket per node holding unread replies would have to
    redo all of that. The get path then pays the marker's round trip."""

    pending = 0

    def __init__(self) -> None:
        self.sent = 0
        self.failures = 0

    def send(self, script, keys: list, args: list, on_reply: OnReply) -> None:
        self.sent += 1
        on_reply(script(keys=keys, args=args), False)

    def settle(self) -> None:
        """Nothing is ever outstanding."""

    def close(self) -> None:
        """Nothing of its own to close."""
