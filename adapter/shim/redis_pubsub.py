"""The queue manager's publish/subscribe state on Redis (store.PubSubState):
subscriptions, their owners' leases, retained publications, version marks and delivery
counters (keys: redis_keys.pubsub_key)."""

from __future__ import annotations

from adapter.shim.redis_keys import pubsub_key
from adapter.shim.redis_parts import StoreParts
from adapter.shim.store import SUB_CHANGES_KEPT


class RedisPubSubState:
    """store.PubSubState: subscriptions, their owners' leases and retained publications."""

    def __init__(self, store: StoreParts) -> None:
        self.store = store
        self.r = store.client
        self._subs = pubsub_key(store.qmgr, "subs")
        self._owner = pubsub_key(store.qmgr, "subs.owner")
        self._version = pubsub_key(store.qmgr, "subs.version")
        self._retained = pubsub_key(store.qmgr, "retained")
        self._topics_version = pubsub_key(store.qmgr, "topics.version")
        self._sub_stats = pubsub_key(store.qmgr, "subs.stats")
        self._changes = pubsub_key(store.qmgr, "subs.changes")
        self._topic_stats = pubsub_key(store.qmgr, "topics.stats")

    def subs_all(self) -> dict[str, bytes]:
        raw = self.store._transient(self.r.hgetall)(self._subs)
        return {k.decode(): v for k, v in raw.items()}

    def sub_get(self, key: str) -> bytes | None:
        return self.store._transient(self.r.hget)(self._subs, key)

    def _sub_change(self, op: str, key: str, definition: bytes = b"") -> None:
        keys = [self._subs, self._owner, self._version, self._changes, self._sub_stats]
        args = [op, key, definition, SUB_CHANGES_KEPT]
        self.store.scripts["sub_change"](keys=keys, args=args)
        self.r.ping()  # the invalidations are out before this returns (set_definition)

    def sub_put(self, key: str, definition: bytes) -> None:
        self._sub_change("put", key, definition)

    def sub_delete(self, key: str) -> None:
        self._sub_change("del", key)

    def sub_changes(self, since: int) -> list[tuple[int, str]] | None:
        raw = self.store._transient(self.r.lrange)(self._changes, 0, -1)
        entries = []
        for item in raw:
            v, _, key = item.decode().partition("|")
            entries.append((int(v), key))
        if not entries or entries[0][0] > since + 1:
            return None  # the log does not reach back to `since`
        return [(v, k) for v, k in entries if v > since]

    def version(self, *, in_call: bool = False) -> str | None:
        raw = self.store.marks.get(self._version, in_call=in_call)
        return None if raw is None else raw.decode()

    def init_version(self) -> bool:
        """Set the version where there is none (after a loss of Redis): True if set."""
        return bool(self.r.set(self._version, 1, nx=True))

    def lease(self, key: str, owner: str, lease_ms: int) -> bool:
        now = self.store.now_ms()
        args = [key, owner, now, now + lease_ms]
        return bool(self.store.scripts["sub_lease"](keys=[self._owner], args=args))

    def release(self, key: str, owner: str) -> None:
        self.store.scripts["sub_release"](keys=[self._owner], args=[key, owner])

    def leases(self) -> dict[str, tuple[str, int]]:
        out = {}
        for k, v in self.store._transient(self.r.hgetall)(self._owner).items():
            who, _, until = v.decode().partition("|")
            out[k.decode()] = (who, int(until))
        return out

    def retained_get(self, topic: str) -> bytes | None:
        return self.r.hget(self._retained, topic)

    def retained_all(self) -> dict[str, bytes]:
        raw = self.store._transient(self.r.hgetall)(self._retained)
        return {k.decode(): v for k, v in raw.items()}

    def retained_put(self, topic: str, envelope: bytes | None) -> None:
        if envelope is None:
            self.r.hdel(self._retained, topic)
        else:
            self.r.hset(self._retained, topic, envelope)

    def topics_version(self, *, in_call: bool = False) -> str | None:
        raw = self.store.marks.get(self._topics_version, in_call=in_call)
        return None if raw is None else raw.decode()

    def bump_topics_version(self) -> None:
        self.r.incr(self._topics_version)
        self.r.ping()  # the invalidations are out before this returns (set_definition)

    def add_pub_counts(
        self, subs: dict[str, tuple[int, int]], topics: dict[str, tuple[int, int]]
    ) -> None:
        args: list = [len(subs)]
        for items in (subs, topics):
            for field, (count, last) in items.items():
                args.extend((field, count, last))
        keys = [self._sub_stats, self._topic_stats]
        self.store.scripts["pub_counts"](keys=keys, args=args)

    def pub_counts(self) -> tuple[dict[str, tuple[int, int]], dict[str, tuple[int, int]]]:
        def read(hash_key: str) -> dict[str, tuple[int, int]]:
            raw = self.store._transient(self.r.hgetall)(hash_key)
            out: dict[str, list[int]] = {}
            for k, v in raw.items():
                field, _, part = k.decode().rpartition("|")
                slot = out.setdefault(field, [0, 0])
                slot[0 if part == "n" else 1] = int(v)
            return {f: (c, t) for f, (c, t) in out.items()}

        return read(self._sub_stats), read(self._topic_stats)
