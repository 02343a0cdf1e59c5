"""The Redis state backend (store.StateStore): a queue's scripts bound to its keys, the
queue manager's catalog, run state, channel status and publish/subscribe state.

Key names: redis_keys.py; the Lua scripts and the keys each declares: redis_scripts.py;
the cached definition marks: redis_marks.py; connecting (a URL, Sentinel, Cluster):
redis_conn.py; write-behind calls: writebehind.py.
"""

from __future__ import annotations

import ssl
import time
from collections.abc import Callable

import redis
from tenacity import (
    retry,
    retry_if_exception,
    retry_if_exception_type,
    retry_if_not_exception_type,
    stop_after_delay,
    wait_exponential,
)

from adapter import config
from adapter.shim import redis_conn
from adapter.shim.authority import tls_failed
from adapter.shim.redis_keys import (
    catalog_key,
    channel_status_key,
    channel_stop_key,
    defining_key,
    purge_queue_manager,
    queue_prefix,
    status_key,
)
from adapter.shim.redis_marks import DefinitionMarks, PlainMarks
from adapter.shim.redis_pubsub import RedisPubSubState
from adapter.shim.redis_queue import RedisQueueState
from adapter.shim.redis_scripts import SPECS, source
from adapter.shim.writebehind import Direct, WriteBehind

__all__ = [
    "RedisPubSubState",
    "RedisQueueState",
    "RedisStore",
    "purge_queue_manager",
    "queue_prefix",
]


def _no_reply(reply, resent: bool) -> None:
    """A write-behind HSET's reply carries nothing (its errors are WriteBehind's)."""


def _tls_eof(exc: BaseException | None) -> bool:
    """Whether an SSL EOF is among the failure's causes."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, ssl.SSLEOFError):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


class RedisStore:
    """store.StateStore on one Redis client. Transient connection errors are retried
    for MQK_BROKEN_AFTER_S where a call is safe to repeat (ping, catalog reads)."""

    def __init__(self, url: str, qmgr: str, now_ms: Callable[[], int] | None = None) -> None:
        self.qmgr = qmgr
        self.now_ms = now_ms or (lambda: int(time.time() * 1000))
        self.url = url
        self.client = redis_conn.connect(url, qmgr)
        # MQK_REDIS_CHECK_KEYS=1 (tests): every script refuses a key it did not declare.
        check = config.REDIS_CHECK_KEYS
        self.scripts = {name: self.client.register_script(source(name, check)) for name in SPECS}
        self.marks: DefinitionMarks | PlainMarks
        self.behind: WriteBehind | Direct
        if redis_conn.is_cluster(url):
            # Tracking and the write-behind socket are per connection, a cluster's keys
            # on many nodes: their plain forms (PlainMarks, Direct say why).
            self.marks, self.behind = PlainMarks(self.client), Direct()
        else:
            self.marks, self.behind = DefinitionMarks(self.client), WriteBehind(self.client)
        self._queues: dict[str, RedisQueueState] = {}
        self._catalog = catalog_key(qmgr)
        self._status = status_key(qmgr)
        self._defining = defining_key(qmgr)
        self._transient = retry(
            # Refused credentials and a TLS handshake refused on certificates are a
            # ConnectionError to redis-py, and final: no retry.
            retry=retry_if_exception_type((redis.ConnectionError, redis.TimeoutError))
            & retry_if_not_exception_type(redis.AuthenticationError)
            & retry_if_exception(lambda exc: not tls_failed(exc)),
            stop=stop_after_delay(config.BROKEN_AFTER_S),
            wait=wait_exponential(multiplier=0.05, max=1.0),
            reraise=True,
        )

    def queue(self, name: str) -> RedisQueueState:
        st = self._queues.get(name)
        if st is None:
            st = self._queues[name] = RedisQueueState(self, name)
        return st

    def catalog_get(self, name: str) -> bytes | None:
        return self._transient(self.client.hget)(self._catalog, name)

    def catalog_put(self, name: str, definition: bytes) -> None:
        self.client.hset(self._catalog, name, definition)

    def catalog_delete(self, name: str) -> None:
        self.client.hdel(self._catalog, name)

    def catalog_all(self) -> dict[str, bytes]:
        raw = self._transient(self.client.hgetall)(self._catalog)
        return {k.decode(): v for k, v in raw.items()}

    def claim_name(self, key: str, owner: str, lease_ms: int) -> bool:
        now = self.now_ms()
        args = [key, owner, now, now + lease_ms]
        return bool(self.scripts["name_claim"](keys=[self._defining], args=args))

    def release_name(self, key: str, owner: str) -> None:
        self.scripts["name_release"](keys=[self._defining], args=[key, owner])

    def name_claims(self) -> dict[str, tuple[str, int]]:
        out = {}
        for k, v in self._transient(self.client.hgetall)(self._defining).items():
            who, _, until = v.decode().partition("|")
            out[k.decode()] = (who, int(until))
        return out

    def add_depths_once(self, token: str, seq: int, deltas: dict[str, int]) -> bool:
        applied = False
        for queue, delta in deltas.items():
            prefix = queue_prefix(self.qmgr, queue)
            keys = [prefix + "depth", f"{prefix}once:{token}"]
            applied |= bool(self.scripts["add_once"](keys=keys, args=[token, seq, delta]))
        return applied

    def run_state(self) -> str | None:
        # Every MQI call starts here (runstate.py): its poll of the marks' socket.
        raw = self.marks.get(self._status)
        return None if raw is None else raw.decode()

    def set_run_state(self, state: str | None) -> None:
        if state is None:
            self.client.delete(self._status)
        else:
            self.client.set(self._status, state)
        self.client.ping()  # the invalidations are out before this returns (set_definition)

    def restart_stats(self) -> int:
        # Queues with a state (an epoch); one slot per queue, so one key at a time.
        now, n = self.now_ms(), 0
        for key in self.client.scan_iter(match=f"mqk:{{{self.qmgr}/*}}:epoch", count=1000):
            stats = key.decode()[: -len("epoch")] + "stats"
            pipe = self.client.pipeline()
            pipe.delete(stats)
            pipe.hset(stats, "reset", now)
            pipe.execute()
            n += 1
        return n

    def channel_status(self, name: str) -> bytes | None:
        self.behind.settle()  # a status this process wrote behind is read back
        return self._transient(self.client.hget)(channel_status_key(self.qmgr), name)

    def set_channel_status(self, name: str, status: bytes | None, later: bool = False) -> None:
        key = channel_status_key(self.qmgr)
        if later and status is not None:
            # Write-behind (writebehind.py): the agent's per-batch figures; Redis has
            # them once sent, this process reads them back settled.
            self.behind.send(self.scripts["hset"], [key], [name, status], _no_reply)
            return
        self.behind.settle()  # after any status sent behind before it
        if status is None:
            self.client.hdel(key, name)
        else:
            self.client.hset(key, name, status)

    def channel_statuses(self) -> dict[str, bytes]:
        self.behind.settle()
        raw = self._transient(self.client.hgetall)(channel_status_key(self.qmgr))
        return {k.decode(): v for k, v in raw.items()}

    def request_channel_stop(self, name: str, stop: bool) -> None:
        if stop:
            self.client.sadd(channel_stop_key(self.qmgr), name)
        else:
            self.client.srem(channel_stop_key(self.qmgr), name)

    def channel_stop_requested(self, name: str) -> bool:
        key = channel_stop_key(self.qmgr)
        return bool(self._transient(self.client.sismember)(key, name))

    def ping(self) -> None:
        self._transient(self._ping)()

    def _ping(self) -> None:
        try:
            self.client.ping()
        except redis.ConnectionError as exc:
            if not _tls_eof(exc):
                raise
            # An EOF right after a TLS handshake: perhaps the server refusing our
            # certificate, its alert unread (redis_conn.tls_refusal says which). A
            # refusal is final (no retry: tls_failed).
            refusal = redis_conn.tls_refusal(self.url)
            if refusal is None:
                raise
            raise redis.ConnectionError(f"Redis refused the TLS client: {refusal}") from refusal

    def pubsub(self) -> RedisPubSubState:
        return RedisPubSubState(self)

    def close(self) -> None:
        self.marks.close()
        self.behind.close()
        self.client.close()
