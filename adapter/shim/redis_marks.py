"""Definition marks and the run state are read on every MQPUT and MQGET, so they are
cached in the process and kept current by Redis itself: `DefinitionMarks` reads them on
its own RESP3 connection with CLIENT TRACKING on, and Redis pushes an invalidation on that
connection whenever a mark it read changes (or the database is flushed). A check is then a
poll of that socket, not a round trip. (redis-py's own client-side cache needs Redis 7.4;
CLIENT TRACKING itself is Redis 6.)

One poll per MQI call on the hot path, not one per mark read: each poll lets another
thread take the interpreter lock (an async MQPUT read three marks: 89 us a call with a
poll each, 52 us with none). Every MQI call starts with the run-state check
(runstate.py), whose read polls; the marks the engine reads later in the same call
(QueueHandle.current, the queue manager's attributes, a get lease's epoch) are read
`in_call`: from the cache as it stood at that thread's poll, if that was within CALL_S.
So a call sees every ALTER, DELETE or endmqm that completed before it started, and reads
marks as of its start. Any other read polls first, as before.
"""

from __future__ import annotations

import logging
import select
import threading
from time import perf_counter

import redis

log = logging.getLogger("mqk.shim.redis_marks")

# How long after a thread's poll its reads trust the cache: longer than any call's reads
# after its start (microseconds apart), short enough that a thread outside MQI calls
# (which never polls through `current`) is never behind by more than this.
CALL_S = 0.002
_UNREAD = object()


class DefinitionMarks:
    """Definition marks read through one RESP3 connection with CLIENT TRACKING on:
    Redis remembers which keys this connection read and pushes an invalidation on it
    when one changes, so a cached mark is current once the pushes waiting on the socket
    are applied (a non-blocking poll). Writers of marks make one more round trip after
    the write (set_definition, drop), by which time Redis has sent the pushes, so any
    call that follows an ALTER or a DELETE in time sees it. A lost connection loses the
    pushes: the cache is dropped with it."""

    def __init__(self, client: redis.Redis) -> None:
        pool = client.connection_pool
        self._kwargs = {**pool.connection_kwargs, "protocol": 3}
        self._connection_class = pool.connection_class
        self._conn = None
        self._poller = None  # a select.poll() on the connection's socket, once connected
        self._cache: dict[str, bytes | None] = {}
        # The application's threads and the pump may ask at once; one socket.
        self._lock = threading.Lock()
        self._polled = threading.local()  # .at: perf_counter() of this thread's last poll

    def _invalidated(self, message) -> None:
        keys = message[1] if len(message) > 1 else None
        if keys is None:  # FLUSHALL / FLUSHDB: everything
            self._cache.clear()
            return
        for key in keys:
            self._cache.pop(key.decode() if isinstance(key, bytes) else key, None)

    def _connection(self):
        if self._conn is None:
            conn = self._connection_class(**self._kwargs)
            conn.connect()
            # redis-py's own cache registers its handler on the parser the same way.
            conn._parser.set_invalidation_push_handler(self._invalidated)
            conn.send_command("CLIENT", "TRACKING", "ON")
            conn.read_response()
            self._drain(conn)
            # poll(0) on the socket is the hot path's whole cost (~0.5 µs; redis-py's
            # can_read takes ~2 µs): the parser's buffer is empty after every call here.
            self._poller = select.poll()
            self._poller.register(conn._sock, select.POLLIN)
            self._conn = conn
        return self._conn

    @staticmethod
    def _drain(conn) -> None:
        """Apply every push waiting in the parser's buffer or on the socket."""
        while conn.can_read(timeout=0):
            conn.read_response(push_request=True)

    def get(self, key: str, *, in_call: bool = False) -> bytes | None:
        """The mark now (every push that arrived applied first); `in_call`: a read later
        in an MQI call, which may take it as of this thread's poll at the call's start
        (within CALL_S)."""
        now = perf_counter()
        if in_call and now - getattr(self._polled, "at", -1.0) < CALL_S:
            value = self._cache.get(key, _UNREAD)  # one dict read: atomic under the GIL
            if value is not _UNREAD:
                return value
        return self._read(key, now)

    def _read(self, key: str, now: float) -> bytes | None:
        with self._lock:
            for attempt in (1, 2):
                try:
                    conn = self._connection()
                    if self._poller.poll(0):  # pushes arrived (or the server hung up)
                        self._drain(conn)
                    self._polled.at = now
                    if key in self._cache:
                        return self._cache[key]
                    conn.send_command("GET", key)
                    value = conn.read_response()
                    self._cache[key] = value
                    # Pushes that came with the reply: one for this key pops it again.
                    self._drain(conn)
                    return value
                except (redis.ConnectionError, redis.TimeoutError, OSError):
                    self._drop()
                    if attempt == 2:
                        raise
                    log.info("definition marks: connection lost, reconnecting")
        raise AssertionError("unreachable")

    def _drop(self) -> None:
        self._cache.clear()
        self._poller = None
        if self._conn is not None:
            try:
                self._conn.disconnect()
            finally:
                self._conn = None

    def close(self) -> None:
        with self._lock:
            self._drop()


class PlainMarks:
    """The marks read with a plain GET each time: Redis Cluster's form. CLIENT TRACKING
    works per node, and a key's node changes with resharding and failover, so instead of
    one tracking socket per node, a cluster pays a round trip per read (to the key's
    node, by redis-py's slot map)."""

    def __init__(self, client) -> None:
        self._client = client

    def get(self, key: str, *, in_call: bool = False) -> bytes | None:
        return self._client.get(key)

    def close(self) -> None:
        """Nothing of its own to close."""
