"""MemoryStore against RedisStore: the same random operations, the same answers.

The Lua scripts in redis_store.py specify every transition; memory_store.py transcribes
them. Here random sequences (hypothesis) run against both, one ManualClock driving the
two, and every result and the final content of every key must agree. Two connections
per side (two RedisStores on one Redis, two MemoryStores on one MemoryServer) check
that claims are seen across connections.

Needs a Redis: MQK_REDIS_URL (skipped without it). Needs none of the mqk plugin's
fixtures, so it runs with `-p no:mqk`. Every test uses its own queue manager name and
deletes its keys afterwards.
"""

from __future__ import annotations

import os
import uuid
from typing import Any

import pytest

redis = pytest.importorskip("redis")
hypothesis = pytest.importorskip("hypothesis")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from adapter.shim import redis_conn, redis_store  # noqa: E402
from adapter.shim.clock import ManualClock  # noqa: E402
from adapter.shim.memory_store import MemoryServer, MemoryStore  # noqa: E402
from adapter.shim.redis_store import RedisStore  # noqa: E402
from adapter.shim.store import (  # noqa: E402
    BatchClaim,
    ClaimResult,
    NoEpochError,
    QueueDeletedError,
)

URL = os.environ.get("MQK_REDIS_URL")
pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(not URL, reason="MQK_REDIS_URL not set: no Redis to compare"),
]

# Few candidates and owners, so that operations collide often.
LANES = [(0, 0), (4, 1)]
OFFSETS = range(5)
UNIVERSE = [(p, q, o) for p, q in LANES for o in OFFSETS]
OWNERS = ["a", "b", "c", "~d"]  # "~d": a get lease's owner (getlease.py)
LEASES = [1, 500, 2_000, 10_000]
KINDS = ["input", "output", "browse", "input,browse", "input,output", "other"]


@pytest.fixture
def qmgr():
    """A queue manager name of this test alone; its keys are deleted afterwards."""
    name = f"PARITY.{uuid.uuid4().hex[:10]}"
    yield name
    client = redis_conn.connect(URL, name)  # any MQK_REDIS_URL form (Sentinel, Cluster)
    try:
        redis_store.purge_queue_manager(client, name)
    finally:
        client.close()


class Pair:
    """The two backends side by side, two connections each, one clock."""

    def __init__(self, qmgr: str, queue: str) -> None:
        self.clock = ManualClock()
        self.redis = [RedisStore(URL, qmgr, now_ms=self.clock.now_ms) for _ in range(2)]
        server = MemoryServer()
        self.memory = [MemoryStore(qmgr, self.clock.now_ms, server=server) for _ in range(2)]
        self.queue = queue

    def close(self) -> None:
        """Delete the queue's keys at once (scans of a keyspace full of leftovers are
        slow), then close the connections."""
        q = self.redis[0].queue(self.queue)
        names = ["low", "lock", "bo", "depth", "native", "opens", "epoch", "ackpos", "rebuild"]
        names += ["reconcile", "def", "deleting"]
        names += [f"done:{prio}.{part}" for prio, part in LANES]
        q.r.delete(*(q.prefix + n for n in names))
        for s in self.redis + self.memory:
            s.close()

    def run(self, op: tuple) -> None:
        """Apply one operation to both sides and require the same outcome."""
        name, conn, *args = op
        if name == "tick":
            self.clock.advance(args[0])
            return
        got_r = _outcome(self.redis[conn].queue(self.queue), name, args)
        # A write-behind marker has run before the other connection's next call, as the
        # memory twin's has (Redis could otherwise serve that call first).
        self.redis[conn].behind.settle()
        got_m = _outcome(self.memory[conn].queue(self.queue), name, args)
        assert got_m == got_r, f"{op}: redis {got_r} memory {got_m}"

    def final_state(self) -> None:
        for store in self.redis:  # the write-behind markers run before the keys are read
            store.behind.settle()
        q_r = self.redis[0].queue(self.queue)
        q_m = self.memory[0].queue(self.queue)
        assert q_m.snapshot() == dump_redis(q_r)
        assert q_m.lows() == q_r.lows()
        assert q_m.depth() == q_r.depth()
        assert q_m.open_counts() == q_r.open_counts()
        assert q_m.ack_position() == q_r.ack_position()
        assert q_m.stats() == q_r.stats()
        assert sorted(q_m.stale_locks()) == sorted(q_r.stale_locks())
        if q_r.has_epoch():
            for owner in OWNERS:
                assert q_m.peek(UNIVERSE, owner) == q_r.peek(UNIVERSE, owner)


def _outcome(q: Any, name: str, args: list) -> Any:
    """The result of one call in plain values (NoEpochError as a value)."""
    try:
        res = getattr(q, name)(*args[:-1], **args[-1]) if args else getattr(q, name)()
    except NoEpochError:
        return "NoEpochError"
    except QueueDeletedError:
        return "QueueDeletedError"
    if isinstance(res, ClaimResult):
        return ("claim", res.index, res.backout, res.gone, res.locked)
    if isinstance(res, BatchClaim):
        return ("batch", res.taken, res.backouts, res.gone)
    if name == "stale_locks":
        return sorted(res)
    if isinstance(res, list):
        return [int(x) for x in res]
    return res


def dump_redis(q: redis_store.RedisQueueState) -> dict[str, Any]:
    """Every key of the queue, shaped as MemoryQueueState.snapshot()."""
    r, p = q.r, q.prefix
    done = {}
    for ln in (f"{prio}.{part}" for prio, part in LANES):
        offs = [int(score) for _, score in r.zrange(p + "done:" + ln, 0, -1, withscores=True)]
        if offs:
            done[ln] = sorted(offs)

    def text_hash(key: str) -> dict[str, str]:
        return {k.decode(): v.decode() for k, v in r.hgetall(p + key).items()}

    return {
        "low": {k: int(v) for k, v in text_hash("low").items()},
        "done": done,
        "lock": text_hash("lock"),
        "bo": {k: int(v) for k, v in text_hash("bo").items()},
        "depth": int(r.get(p + "depth") or 0),
        "native": {k: int(v) for k, v in text_hash("native").items()},
        "opens": text_hash("opens"),
        "uncom": text_hash("uncom"),
        "epoch": bool(r.exists(p + "epoch")),
        "ackpos": int(r.get(p + "ackpos") or 0),
        "def": None if r.get(p + "def") is None else r.get(p + "def").decode(),
        "deleting": None if r.get(p + "deleting") is None else r.get(p + "deleting").decode(),
    }


# ------------------------------------------------------------------------- operations
conns = st.integers(0, 1)
owners = st.sampled_from(OWNERS)
leases = st.sampled_from(LEASES)
cands = st.lists(st.sampled_from(UNIVERSE), max_size=5)
some_cands = st.lists(st.sampled_from(UNIVERSE), min_size=1, max_size=5)
lane_names = st.sampled_from([f"{p}.{q}" for p, q in LANES])
stats_flags = st.sampled_from(["", "c", "cm"])  # store.NO_STATS, COUNT, MONITORED


def _op(name: str, *parts: st.SearchStrategy, **kw: st.SearchStrategy) -> st.SearchStrategy:
    """(name, connection, positional args..., keyword args)."""
    return st.tuples(st.just(name), conns, *parts, st.fixed_dictionaries(kw))


ticks = st.tuples(st.just("tick"), st.just(0), st.sampled_from([0.001, 0.499, 0.5, 1.0, 3.0]))


def weighted(*choices: tuple[st.SearchStrategy, int]) -> st.SearchStrategy:
    """One of the strategies, each as often as its weight (st.one_of would draw a rare
    operation such as `drop` as often as a claim, and kill most sequences with it)."""
    table = [s for s, w in choices for _ in range(w)]
    return st.integers(0, len(table) - 1).flatmap(lambda i: table[i])


ops = weighted(
    (_op("claim", cands, owners, consume=st.booleans(), lease_ms=leases, stats=stats_flags), 10),
    (
        _op(
            "claim",
            some_cands,
            owners,
            consume=st.booleans(),
            lease_ms=leases,
            all_or_nothing=st.just(True),
            stats=stats_flags,
        ),
        5,
    ),
    (_op("consume_many", cands, owners, stats_flags), 3),
    (_op("lock_many", cands, owners, leases, stats_flags), 4),
    # A get lease's marker (write-behind on Redis): consumed, or handed to a unit of work.
    (_op("settle_leased", cands, owners, stats_flags, st.sampled_from(["", "b"]), leases), 4),
    (_op("peek", cands, owners), 2),
    (_op("release", cands, owners, backout=st.booleans()), 4),
    (_op("verify", cands, owners, leases), 3),
    (_op("apply_consumed", cands), 3),
    (_op("reclaim", cands), 3),
    (_op("stale_locks"), 2),
    (_op("advance", lane_names, st.integers(0, 6)), 5),
    (_op("lows"), 1),
    (_op("add_depth", st.integers(-3, 5)), 1),
    (_op("add_depth", st.integers(-3, 5), st.integers(0, 5), st.sampled_from([0, 5, 10**12])), 2),
    (_op("add_depth", *[st.just(0)] * 3, st.integers(0, 10**7), st.integers(1, 9)), 2),
    (_op("stats"), 1),
    (_op("reset_stats"), 1),
    (_op("count_native", lane_names, st.lists(st.integers(0, 8), max_size=4).map(sorted)), 2),
    (_op("set_native_marks", st.dictionaries(lane_names, st.integers(0, 8), max_size=2)), 1),
    (_op("depth"), 1),
    (_op("has_epoch"), 1),
    (_op("set_ack_position", st.integers(0, 1000)), 1),
    (_op("ack_position"), 1),
    (_op("register_open", st.sampled_from(["h1", "h2", "h3"]), st.sampled_from(KINDS), leases), 2),
    (_op("unregister_open", st.sampled_from(["h1", "h2", "h3"])), 1),
    (_op("open_counts"), 2),
    (_op("set_uncommitted", owners, st.integers(0, 3), st.integers(0, 3), leases), 2),
    (_op("depth_with_uncommitted", st.sampled_from(["", *OWNERS])), 2),
    (_op("open_live", st.sampled_from(["h1", "h2", "h3"])), 1),
    (_op("set_definition", st.sampled_from(["i1:a", "i1:b", "i2:a"])), 1),
    (_op("definition"), 2),
    (_op("begin_delete", owners, leases), 1),
    (_op("end_delete", owners), 1),
    (ticks, 8),
)
rare = st.one_of(_op("wipe"), _op("mark_complete"), _op("drop"))
sequences = st.lists(weighted((ops, 80), (rare, 1)), min_size=10, max_size=60)

SETTINGS = settings(
    max_examples=int(os.environ.get("MQK_PARITY_EXAMPLES", "200")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@SETTINGS
@given(seq=sequences)
def test_random_sequences_agree(qmgr, seq):
    pair = Pair(qmgr, f"Q.{uuid.uuid4().hex[:8]}")
    try:
        pair.run(("mark_complete", 0, {}))
        pair.run(("add_depth", 0, len(UNIVERSE), {}))
        for op in seq:
            pair.run(op)
        pair.final_state()
    finally:
        pair.close()


@SETTINGS
@given(seq=st.lists(ops, min_size=5, max_size=30))
def test_sequences_without_epoch_agree(qmgr, seq):
    """Scripts that refuse without the epoch, and those that run regardless."""
    pair = Pair(qmgr, f"Q.{uuid.uuid4().hex[:8]}")
    try:
        for op in seq:
            pair.run(op)
        pair.final_state()
    finally:
        pair.close()


def test_mutex_catalog_and_lifecycle_agree(qmgr):
    pair = Pair(qmgr, "Q.LIFE")
    try:
        for side in (pair.redis, pair.memory):
            q0, q1 = side[0].queue("Q.LIFE"), side[1].queue("Q.LIFE")
            # Mutexes: exclusive across connections, free again once dropped. (Expiry is
            # by Redis's own clock there and by the injected one here: not compared.)
            assert q0.try_mutex("rebuild", "me", 3600)
            assert not q1.try_mutex("rebuild", "you", 3600)
            assert q1.try_mutex("reconcile", "you", 3600)
            q0.wipe()  # a rebuild wipes under its mutex: the mutex stays
            assert not q1.try_mutex("rebuild", "you", 3600)
            q0.drop_mutex("rebuild")
            assert q1.try_mutex("rebuild", "you", 3600)
            q0.drop()  # every key, mutexes included
            assert q0.try_mutex("rebuild", "me", 3600)
            q0.drop_mutex("rebuild")
            # Catalog: per queue manager, bytes in and out.
            assert side[0].catalog_get("Q.LIFE") is None
            side[0].catalog_put("Q.LIFE", b'{"name": "Q.LIFE"}')
            assert side[1].catalog_get("Q.LIFE") == b'{"name": "Q.LIFE"}'
            side[1].catalog_delete("Q.LIFE")
            side[1].catalog_delete("Q.LIFE")
            assert side[0].catalog_get("Q.LIFE") is None
            side[0].ping()
        for op in [
            ("mark_complete", 0, {}),
            ("mark_complete", 1, {}),
            ("register_open", 0, "h1", "input", 10_000, {}),
            ("add_depth", 0, 3, {}),
            ("claim", 1, [(0, 0, 0)], "a", {"consume": False, "lease_ms": 10}),
            ("wipe", 0, {}),
            ("has_epoch", 1, {}),
            ("claim", 1, [(0, 0, 1)], "a", {"consume": True}),
            ("open_counts", 1, {}),
            ("mark_complete", 1, {}),
            ("claim", 1, [(0, 0, 1)], "a", {"consume": True}),
            ("drop", 0, {}),
            ("open_counts", 1, {}),
            ("depth", 1, {}),
            ("has_epoch", 1, {}),
        ]:
            pair.run(op)
        pair.final_state()
    finally:
        pair.close()


SCENARIOS = {
    # Leases end exactly at `until`: stale from that millisecond on, for every reader.
    "lease boundary": [
        ("claim", 0, [(0, 0, 1)], "a", {"consume": False, "lease_ms": 500}),
        ("lock_many", 1, [(0, 0, 2)], "a", 500, {}),
        ("register_open", 0, "h1", "input", 500, {}),
        ("tick", 0, 0.499),
        ("peek", 1, [(0, 0, 1), (0, 0, 2)], "b", {}),
        ("stale_locks", 1, {}),
        ("reclaim", 1, [(0, 0, 1)], {}),
        ("open_counts", 1, {}),
        ("tick", 0, 0.001),
        ("peek", 1, [(0, 0, 1), (0, 0, 2)], "b", {}),
        ("open_counts", 1, {}),
        ("stale_locks", 1, {}),
        ("claim", 1, [(0, 0, 1), (0, 0, 2), (0, 0, 3)], "b", {"consume": False}),
        ("reclaim", 1, [(0, 0, 1), (0, 0, 2), (0, 0, 3)], {}),
        ("claim", 1, [(0, 0, 1)], "b", {"consume": True}),
    ],
    # An all-or-nothing claim reports the BackoutCount of its first candidate, and
    # counts a repeated candidate twice off the depth (as the script does).
    "all or nothing": [
        ("claim", 0, [(0, 0, 2)], "a", {"consume": False}),
        ("release", 0, [(0, 0, 2)], "a", {"backout": True}),
        ("claim", 0, [(0, 0, 1), (0, 0, 2)], "a", {"consume": False, "all_or_nothing": True}),
        ("release", 0, [(0, 0, 1), (0, 0, 2)], "a", {"backout": True}),
        ("claim", 1, [(0, 0, 2), (0, 0, 1)], "b", {"consume": True, "all_or_nothing": True}),
        ("claim", 1, [(0, 0, 3), (0, 0, 3)], "b", {"consume": True, "all_or_nothing": True}),
        ("depth", 0, {}),
        ("claim", 1, [(0, 0, 4), (0, 0, 1)], "b", {"consume": True, "all_or_nothing": True}),
    ],
    # The watermark stops at any lock of the lane, expired or not, and only rises.
    "advance": [
        ("claim", 0, [(4, 1, 3)], "a", {"consume": False, "lease_ms": 1}),
        ("consume_many", 0, [(4, 1, 0), (4, 1, 1), (4, 1, 4)], "a", {}),
        ("tick", 0, 1.0),
        ("advance", 1, "4.1", 6, {}),
        ("lows", 1, {}),
        ("advance", 1, "4.1", 2, {}),
        ("reclaim", 0, [(4, 1, 3)], {}),
        ("advance", 1, "4.1", 6, {}),
        ("advance", 1, "4.1", 1, {}),
        ("apply_consumed", 0, [(4, 1, 5), (4, 1, 6), (4, 1, 0)], {}),
        ("peek", 0, [(4, 1, o) for o in range(8)], "a", {}),
    ],
    # DELETE QLOCAL against opens: whichever comes first wins, atomically; the mark
    # read on one connection follows writes made on the other.
    "delete lifecycle": [
        ("set_definition", 0, "i1:a", {}),
        ("definition", 1, {}),
        ("register_open", 0, "h1", "inquire", 500, {}),
        ("begin_delete", 1, "a", 1_000, {}),
        ("tick", 0, 0.5),
        ("begin_delete", 1, "a", 1_000, {}),
        ("begin_delete", 0, "b", 1_000, {}),
        ("register_open", 0, "h2", "output", 500, {}),
        ("end_delete", 0, "b", {}),
        ("register_open", 0, "h2", "output", 500, {}),
        ("end_delete", 1, "a", {}),
        ("register_open", 0, "h2", "output", 500, {}),
        ("set_definition", 1, "i1:b", {}),
        ("definition", 0, {}),
        ("definition", 1, {}),
        ("unregister_open", 0, "h2", {}),
        ("begin_delete", 1, "a", 1_000, {}),
        ("tick", 0, 1.0),
        ("register_open", 0, "h3", "input", 500, {}),
        ("begin_delete", 1, "c", 1_000, {}),
        ("drop", 1, {}),
        ("definition", 0, {}),
        ("register_open", 0, "h3", "input", 500, {}),
        ("open_counts", 0, {}),
        ("set_definition", 0, "i2:a", {}),
        ("definition", 1, {}),
        ("register_open", 0, "h3", "input", 500, {}),
    ],
}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_scenarios_agree(qmgr, name):
    pair = Pair(qmgr, f"Q.{name.replace(' ', '.')}")
    try:
        pair.run(("mark_complete", 0, {}))
        pair.run(("add_depth", 0, 10, {}))
        for op in SCENARIOS[name]:
            pair.run(op)
        pair.final_state()
    finally:
        pair.close()


def test_run_state_agrees(qmgr):
    """endmqm / strmqm's one value: written by one connection, seen by the other at once
    (Redis: through client tracking), on both backends."""
    pair = Pair(qmgr, "Q.RUN")
    try:
        seen = {}
        for label, side in (("redis", pair.redis), ("memory", pair.memory)):
            states = [side[1].run_state()]  # read (and, on Redis, cached) first
            for value in ("QUIESCING", "ENDING IMMEDIATELY", None):
                side[0].set_run_state(value)
                states.append(side[1].run_state())
            seen[label] = states
        assert seen["redis"] == seen["memory"] == [None, "QUIESCING", "ENDING IMMEDIATELY", None]
    finally:
        pair.close()


_PUBSUB_OPS = st.lists(
    st.one_of(
        st.tuples(st.just("put"), st.integers(0, 1), st.sampled_from(["s1", "s2", "s3"])),
        st.tuples(st.just("delete"), st.integers(0, 1), st.sampled_from(["s1", "s2", "s3"])),
        st.tuples(
            st.just("lease"),
            st.integers(0, 1),
            st.sampled_from(["s1", "s2"]),
            st.sampled_from(OWNERS),
            st.sampled_from(LEASES),
        ),
        st.tuples(
            st.just("release"),
            st.integers(0, 1),
            st.sampled_from(["s1", "s2"]),
            st.sampled_from(OWNERS),
        ),
        st.tuples(
            st.just("retain"), st.integers(0, 1), st.sampled_from(["a/b", "c"]), st.booleans()
        ),
        st.tuples(st.just("tick"), st.sampled_from([0.001, 0.6, 3.0])),  # seconds
    ),
    max_size=30,
)


def _pubsub_outcome(ps: Any, op: tuple) -> Any:
    name, _conn, *args = op
    if name == "put":
        ps.sub_put(args[0], f"def-{args[0]}".encode())
    elif name == "delete":
        ps.sub_delete(args[0])
    elif name == "lease":
        return ps.lease(args[0], args[1], args[2])
    elif name == "release":
        ps.release(args[0], args[1])
    elif name == "retain":
        ps.retained_put(args[0], b"env" if args[1] else None)
    return (ps.subs_all(), sorted(ps.leases().items()), ps.retained_all(), ps.version() is None)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(seq=_PUBSUB_OPS)
def test_pubsub_state_agrees(qmgr, seq):
    """Subscriptions, their owners' leases, the version and retained publications: the
    same answers from redis_store's keys and memory_store's twins (the version's value
    is each backend's own counter: only whether it is set is compared, and that it
    changes on every write, as a publisher's index needs)."""
    pair = Pair(qmgr, "Q.PUBSUB")
    try:
        stores = {
            "redis": [s.pubsub() for s in pair.redis],
            "memory": [s.pubsub() for s in pair.memory],
        }
        r = stores["redis"][0]  # the qmgr fixture is one for every example: start empty
        r.r.delete(r._subs, r._owner, r._version, r._retained)
        for op in seq:
            if op[0] == "tick":
                pair.clock.advance(op[1])
                continue
            got = {}
            for label, side in stores.items():
                before = side[1 - op[1]].version()
                got[label] = _pubsub_outcome(side[op[1]], op)
                if op[0] in ("put", "delete"):
                    assert side[1 - op[1]].version() != before  # the other connection sees it
            assert got["redis"] == got["memory"], op
    finally:
        pair.close()


_CLAIM_OPS = st.lists(
    st.one_of(
        st.tuples(
            st.just("claim"),
            st.integers(0, 1),
            st.sampled_from(["Q1", "*TOPIC:T1"]),
            st.sampled_from(OWNERS),
            st.sampled_from(LEASES),
        ),
        st.tuples(
            st.just("release"),
            st.integers(0, 1),
            st.sampled_from(["Q1", "*TOPIC:T1"]),
            st.sampled_from(OWNERS),
        ),
        st.tuples(st.just("tick"), st.sampled_from([0.001, 0.499, 0.5, 3.0])),  # seconds
    ),
    max_size=30,
)


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(seq=_CLAIM_OPS)
def test_name_claims_agree(qmgr, seq):
    """The claims of object names (DEFINE / ALTER / DELETE, shim/nameclaims.py): taken,
    renewed, refused, run out and released alike on redis_store's `defining` hash and
    memory_store's twin, each change seen by the other connection."""
    pair = Pair(qmgr, "Q.CLAIMS")
    try:
        pair.redis[0].client.delete(pair.redis[0]._defining)  # one qmgr for every example
        for op in seq:
            if op[0] == "tick":
                pair.clock.advance(op[1])
                continue
            got = {}
            for label, side in (("redis", pair.redis), ("memory", pair.memory)):
                name, conn, *args = op
                if name == "claim":
                    out = side[conn].claim_name(args[0], args[1], args[2])
                else:
                    out = side[conn].release_name(args[0], args[1])
                got[label] = (out, sorted(side[1 - conn].name_claims().items()))
            assert got["redis"] == got["memory"], op
    finally:
        pair.close()
