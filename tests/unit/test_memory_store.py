"""MemoryStore: every transition of the state protocol, its traps, and its invariants
under random interleavings (no server; tests/integration/test_store_parity.py checks the
same transitions against the Redis scripts)."""

from __future__ import annotations

import inspect
import threading

import pytest
import redis
from hypothesis import given, settings
from hypothesis import strategies as st

from adapter.shim.clock import ManualClock
from adapter.shim.memory_store import (
    MemoryConnectionError,
    MemoryQueueState,
    MemoryServer,
    MemoryStore,
)
from adapter.shim.store import (
    DELETED,
    Candidate,
    ClaimResult,
    ClaimStatus,
    NoEpochError,
    QueueDeletedError,
    QueueState,
    StateStore,
)

FREE, CONSUMED, LOCKED, MINE, STALE = (
    ClaimStatus.FREE,
    ClaimStatus.CONSUMED,
    ClaimStatus.LOCKED,
    ClaimStatus.MINE,
    ClaimStatus.STALE,
)


def c(offset: int, prio: int = 0, part: int = 0) -> tuple[int, int, int]:
    return (prio, part, offset)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def store(clock):
    return MemoryStore("QM1", clock.now_ms)


@pytest.fixture
def q(store):
    """A complete queue with ten messages counted."""
    st_ = store.queue("Q1")
    assert st_.mark_complete()
    st_.add_depth(10)
    return st_


# ---------------------------------------------------------------------------- epoch
def test_claims_refuse_without_epoch(store):
    st_ = store.queue("Q1")
    assert not st_.has_epoch()
    for call in (
        lambda: st_.claim([c(0)], "a", consume=True),
        lambda: st_.claim([c(0)], "a", consume=False, all_or_nothing=True),
        lambda: st_.consume_many([c(0)], "a"),
        lambda: st_.lock_many([c(0)], "a", 1000),
        lambda: st_.peek([c(0)], "a"),
        lambda: st_.verify([c(0)], "a", 1000),
    ):
        with pytest.raises(NoEpochError):
            call()


def test_transitions_that_run_without_epoch(store):
    """Recovery replays the ack log and backouts release locks with no epoch there."""
    st_ = store.queue("Q1")
    assert st_.release([c(0)], "a", backout=True) == 0
    assert st_.apply_consumed([c(0), c(1)]) == 2
    assert st_.depth() == -2  # counted down although nothing was counted up: as DECRBY
    assert st_.reclaim([c(0)]) == 0
    st_.advance("0.0", 5)
    assert st_.lows() == {"0.0": 5}
    assert st_.verify([], "a", 10) == 0  # empty lists never reach the script
    assert not st_.has_epoch()


def test_mark_complete_sets_the_epoch_once(store):
    st_ = store.queue("Q1")
    assert st_.mark_complete()
    assert not st_.mark_complete()
    assert st_.has_epoch()


def test_wipe_keeps_opens_and_mutexes_drop_keeps_nothing(q, clock):
    q.register_open("h1", "input")
    assert q.try_mutex("rebuild", "me", 60)
    q.claim([c(0)], "a", consume=False)
    q.release([c(0)], "a", backout=True)
    q.claim([c(1)], "a", consume=True)
    q.advance("0.0", 1)
    q.set_ack_position(7)
    q.wipe()
    assert not q.has_epoch()
    assert (q.depth(), q.lows(), q.ack_position(), q.stale_locks()) == (0, {}, 0, [])
    assert q.open_counts()["input"] == 1
    assert not q.try_mutex("rebuild", "you", 60)
    assert q.snapshot()["bo"] == {} and q.snapshot()["done"] == {}
    q.mark_complete()
    assert q.peek([c(0), c(1)], "a") == [FREE, FREE]
    q.drop()
    assert q.open_counts()["input"] == 0
    assert q.try_mutex("rebuild", "you", 60)
    assert not q.has_epoch()


# ---------------------------------------------------------------------------- claim
def test_claim_consumes_the_first_free_candidate(q):
    r = q.claim([c(0), c(1)], "a", consume=True)
    assert r == ClaimResult(0, 0, [], [])
    assert q.depth() == 9
    r = q.claim([c(0), c(1)], "b", consume=True)
    assert r == ClaimResult(1, 0, [0], [])
    assert q.claim([c(0), c(1)], "b", consume=True) == ClaimResult(None, 0, [0, 1], [])
    assert q.depth() == 8


def test_claim_lock_passes_over_live_locks_and_reports_stale_ones(q, clock):
    assert q.claim([c(0)], "a", consume=False, lease_ms=1000).index == 0
    assert q.claim([c(1)], "x", consume=False, lease_ms=5000).index == 0
    assert q.depth() == 10  # a lock is no consumption
    # Held by another owner, lease running: passed over silently.
    assert q.claim([c(0), c(2)], "b", consume=False) == ClaimResult(1, 0, [], [])
    clock.advance(1.0)  # c(0)'s lease ends exactly now: stale
    assert q.peek([c(0), c(1), c(2)], "b") == [STALE, LOCKED, MINE]
    assert q.claim([c(0), c(1), c(3)], "b", consume=False) == ClaimResult(2, 0, [], [0])
    assert q.stale_locks() == [Candidate(0, 0, 0)]
    # The owner itself may still take its own (expired) lock.
    assert q.claim([c(0)], "a", consume=True) == ClaimResult(0, 0, [], [])
    assert q.stale_locks() == []


def test_claim_retakes_my_own_lock_and_returns_backout_count(q):
    q.claim([c(4)], "a", consume=False)
    q.release([c(4)], "a", backout=True)
    q.claim([c(4)], "a", consume=False)
    q.release([c(4)], "a", backout=True)
    assert q.claim([c(4)], "b", consume=False) == ClaimResult(0, 2, [], [])
    assert q.claim([c(4)], "b", consume=True) == ClaimResult(0, 2, [], [])
    assert q.peek([c(4)], "b") == [CONSUMED]


def test_all_or_nothing_takes_all_or_reports_the_first_obstacle(q, clock):
    q.claim([c(2)], "x", consume=False)
    q.release([c(2)], "x", backout=True)
    r = q.claim([c(1), c(2), c(3)], "a", consume=False, all_or_nothing=True)
    assert r == ClaimResult(0, 0, [], [])  # backout count of the first candidate
    assert q.peek([c(1), c(2), c(3)], "a") == [MINE, MINE, MINE]
    r = q.claim([c(2), c(1)], "a", consume=True, all_or_nothing=True)
    assert r == ClaimResult(0, 1, [], [])
    assert q.depth() == 8
    # Obstacles: consumed -> gone, a live lock or a stale one -> locked; nothing taken.
    assert q.claim([c(5), c(1)], "b", consume=True, all_or_nothing=True) == ClaimResult(
        None, 0, [1], []
    )
    assert q.claim([c(5), c(3)], "b", consume=True, all_or_nothing=True) == ClaimResult(
        None, 0, [], [1]
    )
    clock.advance(120)
    assert q.claim([c(3), c(5)], "b", consume=True, all_or_nothing=True) == ClaimResult(
        None, 0, [], [0]
    )
    assert q.peek([c(5)], "b") == [FREE]
    assert q.depth() == 8


def test_all_or_nothing_quirks_of_the_script(q):
    with pytest.raises(ValueError):
        q.claim([], "a", consume=True, all_or_nothing=True)
    # Statuses are read before any take: a repeated candidate is counted twice.
    assert q.claim([c(7), c(7)], "a", consume=True, all_or_nothing=True).index == 0
    assert q.depth() == 8


def test_claim_of_nothing_takes_nothing(q):
    assert q.claim([], "a", consume=True) == ClaimResult(None, 0, [], [])


def test_candidates_below_the_watermark_are_consumed(q):
    q.claim([c(0)], "a", consume=True)
    q.advance("0.0", 3)
    assert q.peek([c(1), c(2), c(3)], "a") == [CONSUMED, CONSUMED, FREE]
    assert q.claim([c(2), c(3)], "a", consume=True) == ClaimResult(1, 0, [0], [])


# ---------------------------------------------------------------------------- batches
def test_consume_many_takes_every_free_one(q, clock):
    q.claim([c(1)], "x", consume=False, lease_ms=10)
    q.claim([c(2)], "x", consume=True)
    q.claim([c(3)], "a", consume=False)
    r = q.consume_many([c(0), c(1), c(2), c(3), c(4), c(4)], "a")
    assert (r.taken, r.backouts, r.gone) == ([0, 3, 4], [0, 0, 0], [2, 5])
    assert q.depth() == 10 - 1 - 3
    clock.advance(1)
    r = q.consume_many([c(1)], "a")  # a stale lock is not free either
    assert (r.taken, r.gone) == ([], [])


def test_lock_many_locks_every_free_one(q, clock):
    q.claim([c(1)], "x", consume=False)
    q.claim([c(2)], "x", consume=True)
    q.claim([c(5)], "x", consume=False)
    q.release([c(5)], "x", backout=True)
    r = q.lock_many([c(0), c(1), c(2), c(5), c(5)], "a", 1000)
    assert (r.taken, r.backouts, r.gone) == ([0, 3, 4], [0, 1, 1], [2])
    assert q.depth() == 9
    clock.advance(1.0)
    assert sorted(q.stale_locks()) == [Candidate(0, 0, 0), Candidate(0, 0, 5)]


# ---------------------------------------------------------------------------- locks
def test_release_only_my_locks_with_optional_backout(q):
    q.lock_many([c(0), c(1)], "a", 1000)
    q.claim([c(2)], "b", consume=False)
    assert q.release([c(0), c(1), c(2), c(3)], "a", backout=True) == 2
    assert q.release([c(0)], "a", backout=True) == 0  # already released: no second count
    assert q.peek([c(0), c(1), c(2)], "a") == [FREE, FREE, LOCKED]
    assert q.snapshot()["bo"] == {"0.0:0": 1, "0.0:1": 1}
    assert q.release([c(2)], "b") == 1
    assert q.snapshot()["bo"] == {"0.0:0": 1, "0.0:1": 1}


def test_verify_extends_my_locks_and_counts_the_lost(q, clock):
    q.lock_many([c(0), c(1)], "a", 1000)
    clock.advance(0.9)
    assert q.verify([c(0), c(1)], "a", 1000) == 0
    clock.advance(0.9)  # alive thanks to verify
    assert q.peek([c(0), c(1)], "b") == [LOCKED, LOCKED]
    clock.advance(0.2)
    q.reclaim([c(1)])  # lease ran out: reclaimed, then taken by someone else
    q.claim([c(1)], "b", consume=True)
    assert q.verify([c(0), c(1), c(2)], "a", 1000) == 2


def test_apply_consumed_counts_each_once(q):
    q.claim([c(0)], "b", consume=True)
    q.claim([c(1)], "a", consume=False)
    q.advance("0.0", 2)  # stops at the lock on c(1)
    # c(0) is below the low: not counted again; c(1)'s lock goes, its get committed.
    assert q.apply_consumed([c(0), c(1), c(3), c(3), c(4, prio=1)]) == 3
    assert q.depth() == 6
    assert q.peek([c(1), c(3), c(4, prio=1)], "a") == [CONSUMED, CONSUMED, CONSUMED]
    assert q.stale_locks() == [] and q.snapshot()["lock"] == {}
    assert q.apply_consumed([c(3)]) == 0


def test_reclaim_releases_expired_locks_with_backout(q, clock):
    q.claim([c(0)], "a", consume=False, lease_ms=1000)
    q.claim([c(1)], "a", consume=False, lease_ms=5000)
    clock.advance(0.999)
    assert q.reclaim([c(0), c(1), c(2)]) == 0
    clock.advance(0.001)
    assert q.reclaim([c(0), c(1), c(2)]) == 1
    assert q.claim([c(0)], "b", consume=False).backout == 1
    assert q.reclaim([]) == 0


# ---------------------------------------------------------------------------- watermarks
def test_advance_never_passes_a_lock_nor_goes_down(q, clock):
    q.consume_many([c(0), c(1), c(3)], "a")
    q.claim([c(2)], "a", consume=False, lease_ms=1)
    q.claim([c(1, prio=1)], "a", consume=False)  # another lane's lock is no obstacle
    clock.advance(10)  # even an expired lock holds the watermark
    q.advance("0.0", 4)
    assert q.lows() == {"0.0": 2}
    assert q.snapshot()["done"] == {"0.0": [3]}  # offsets below the low are forgotten
    q.release([c(2)], "a")
    q.advance("0.0", 1)
    assert q.lows() == {"0.0": 2}
    q.advance("0.0", 4)
    assert q.lows() == {"0.0": 4}
    assert q.snapshot()["done"] == {}
    assert q.peek([c(2), c(3), c(4)], "a") == [CONSUMED, CONSUMED, FREE]


def test_counters_and_ack_position(q):
    q.add_depth(-3)
    assert q.depth() == 7
    q.set_ack_position(42)
    assert q.ack_position() == 42


# ---------------------------------------------------------------------------- opens
def test_open_counts_by_kind_and_lease(q, clock):
    q.register_open("h1", "input,browse", lease_ms=1000)
    q.register_open("h2", "output", lease_ms=2000)
    q.register_open("h3", "inquire", lease_ms=2000)
    # 'handles' counts every live handle, an inquire-only one too.
    assert q.open_counts() == {"input": 1, "output": 1, "browse": 1, "handles": 3}
    clock.advance(1.0)
    assert q.open_counts() == {"input": 0, "output": 1, "browse": 0, "handles": 2}
    q.register_open("h1", "input", lease_ms=1000)  # renewal
    q.unregister_open("h2")
    q.unregister_open("h2")
    assert q.open_counts() == {"input": 1, "output": 0, "browse": 0, "handles": 2}


# ---------------------------------------------------------------------------- mutexes
def test_mutex_is_exclusive_and_expires_by_the_clock(q, clock):
    assert q.try_mutex("rebuild", "me", 5)
    assert not q.try_mutex("rebuild", "you", 5)
    assert q.try_mutex("reconcile", "you", 5)
    assert q.mutex_owner("rebuild") == "me"
    clock.advance(5)
    assert q.mutex_owner("rebuild") is None
    assert q.try_mutex("rebuild", "you", 5)
    q.drop_mutex("rebuild")
    assert q.try_mutex("rebuild", "me", 5)
    with pytest.raises(ValueError):
        q.try_mutex("rebuild", "me", 0.0001)


# ---------------------------------------------------------------------------- sharing
def test_stores_on_one_server_share_state_others_do_not(clock):
    server = MemoryServer()
    a = MemoryStore("QM1", clock.now_ms, server=server).queue("Q1")
    b = MemoryStore("QM1", clock.now_ms, server=server).queue("Q1")
    other_qmgr = MemoryStore("QM2", clock.now_ms, server=server).queue("Q1")
    other_server = MemoryStore("QM1", clock.now_ms).queue("Q1")
    assert a.mark_complete() and not b.mark_complete()
    assert a.claim([c(0)], "a", consume=False).index == 0
    assert b.peek([c(0)], "b") == [LOCKED]
    assert not other_qmgr.has_epoch() and not other_server.has_epoch()
    assert MemoryStore("QM1", clock.now_ms, server=server).queue("Q2").has_epoch() is False


def test_catalog_per_queue_manager(clock):
    server = MemoryServer()
    s1, s2 = (MemoryStore(qm, clock.now_ms, server=server) for qm in ("QM1", "QM2"))
    assert s1.catalog_get("Q1") is None
    s1.catalog_put("Q1", b"def")
    s1.catalog_put("Q2", "text")  # type: ignore[arg-type]  - as redis-py: str -> bytes
    assert (s1.catalog_get("Q1"), s1.catalog_get("Q2"), s2.catalog_get("Q1")) == (
        b"def",
        b"text",
        None,
    )
    s1.catalog_delete("Q1")
    s1.catalog_delete("Q1")
    assert s1.catalog_get("Q1") is None


def test_flushall_loses_the_epoch(q, store):
    q.claim([c(0)], "a", consume=False)
    store.catalog_put("Q1", b"x")
    store.server.flushall()
    assert not q.has_epoch() and q.depth() == 0 and store.catalog_get("Q1") is None
    with pytest.raises(NoEpochError):
        q.claim([c(0)], "b", consume=True)


# ---------------------------------------------------------------------------- faults
def test_fail_next_breaks_calls_then_recovers(q, store):
    store.fail_next(2)
    for _ in range(2):
        with pytest.raises(ConnectionError):
            q.depth()
    assert q.depth() == 10
    store.fail_next(1)
    with pytest.raises(redis.ConnectionError):  # redis-py's class too
        q.claim([c(0)], "a", consume=True)
    assert q.depth() == 10  # the failed call changed nothing


def test_ping_and_catalog_reads_retry_a_dropped_connection(store):
    store.fail_next(3)
    store.ping()
    store.fail_next(1)
    assert store.catalog_get("Q1") is None
    store.down = True
    with pytest.raises(MemoryConnectionError):
        store.ping()
    store.down = False
    store.ping()


def test_server_down_breaks_every_store(clock):
    server = MemoryServer()
    a, b = (MemoryStore("QM1", clock.now_ms, server=server) for _ in range(2))
    server.down = True
    for call in (a.ping, lambda: b.queue("Q1").depth(), lambda: b.catalog_put("Q", b"")):
        with pytest.raises(ConnectionError):
            call()
    server.down = False
    a.ping()
    a.close()
    a.ping()  # like redis-py: a closed client reconnects on its next call


# ---------------------------------------------------------------------------- threads
def test_concurrent_claims_take_each_candidate_once(clock):
    server = MemoryServer()
    setup = MemoryStore("QM1", clock.now_ms, server=server).queue("Q1")
    setup.mark_complete()
    setup.add_depth(200)
    cands = [c(o) for o in range(200)]
    taken: list[tuple[int, int, int]] = []
    lock = threading.Lock()

    def getter(name: str) -> None:
        st_ = MemoryStore("QM1", clock.now_ms, server=server).queue("Q1")
        while True:
            r = st_.claim(cands, name, consume=True)
            if r.index is None:
                return
            with lock:
                taken.append(cands[r.index])

    threads = [threading.Thread(target=getter, args=(f"g{i}",)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(taken) == cands
    assert setup.depth() == 0


# ---------------------------------------------------------------------------- invariants
N = 6  # offsets per lane
LANES = [(0, 0), (3, 1)]
ALL = [(p, q_, o) for p, q_ in LANES for o in range(N)]
OWNERS = ["a", "b", "c"]

# Getters offer candidates in queue order, so takes crowd at the low end of each lane,
# where the watermark moves.
distinct = st.lists(st.sampled_from(ALL), max_size=4, unique=True).map(sorted)
step = st.one_of(
    st.tuples(st.just("claim"), distinct, st.sampled_from(OWNERS), st.booleans(), st.booleans()),
    st.tuples(st.just("consume_many"), distinct, st.sampled_from(OWNERS)),
    st.tuples(st.just("lock_many"), distinct, st.sampled_from(OWNERS)),
    st.tuples(st.just("release"), distinct, st.sampled_from(OWNERS), st.booleans()),
    st.tuples(st.just("commit"), st.sampled_from(OWNERS)),
    st.tuples(st.just("apply"), distinct),
    st.tuples(st.just("reclaim"), distinct),
    st.tuples(st.just("advance"), st.sampled_from(LANES)),
    st.tuples(st.just("tick"), st.sampled_from([0.5, 1.0, 2.5])),
)


@settings(max_examples=200, deadline=None)
@given(steps=st.lists(step, min_size=5, max_size=50))
def test_random_interleavings_keep_the_invariants(steps):
    """A reference model follows the reported outcomes: nothing is consumed twice, no
    live lock is taken by another owner, depth = added - consumed, advance never
    swallows a locked or a free message, statuses agree with the model."""
    clock = ManualClock()
    st_ = MemoryStore("QM1", clock.now_ms).queue("Q1")
    st_.mark_complete()
    st_.add_depth(len(ALL))
    consumed: set[tuple[int, int, int]] = set()
    locks: dict[tuple[int, int, int], tuple[str, int]] = {}  # -> (owner, until)
    lease = 1000

    def takeable(cand, owner) -> bool:
        held = locks.get(cand)
        return cand not in consumed and (held is None or held[0] == owner)

    def consume(cand, owner) -> None:
        assert takeable(cand, owner), f"{cand} taken twice or from a live owner"
        consumed.add(cand)
        locks.pop(cand, None)

    for s in steps:
        now = clock.now_ms()
        kind = s[0]
        if kind == "claim":
            _, cands, owner, do_consume, aon = s
            if aon and not cands:
                continue
            r = st_.claim(cands, owner, consume=do_consume, lease_ms=lease, all_or_nothing=aon)
            chosen = (cands if aon else [cands[r.index]]) if r.index is not None else []
            for cand in chosen:
                if do_consume:
                    consume(cand, owner)
                else:
                    assert takeable(cand, owner)
                    locks[cand] = (owner, now + lease)
            if r.index is None and not aon:
                assert not any(takeable(x, owner) for x in cands)
        elif kind == "consume_many":
            _, cands, owner = s
            r = st_.consume_many(cands, owner)
            for i in r.taken:
                consume(cands[i], owner)
            assert {cands[i] for i in r.gone} == {x for x in cands if x in consumed} - {
                cands[i] for i in r.taken
            }
        elif kind == "lock_many":
            _, cands, owner = s
            r = st_.lock_many(cands, owner, lease)
            for i in r.taken:
                assert takeable(cands[i], owner)
                locks[cands[i]] = (owner, now + lease)
        elif kind == "release":
            _, cands, owner, backout = s
            mine = [x for x in cands if locks.get(x, ("",))[0] == owner]
            assert st_.release(cands, owner, backout=backout) == len(mine)
            for x in mine:
                del locks[x]
        elif kind == "commit":  # a unit of work commits what it holds
            held = [x for x, (o, _) in locks.items() if o == s[1]]
            assert st_.verify(held, s[1], lease) == 0
            for x in held:
                locks[x] = (s[1], now + lease)
            assert st_.apply_consumed(held) == len(held)
            for x in held:
                consume(x, s[1])
        elif kind == "apply":  # consumption found in the ack log (reconcile)
            new = [x for x in s[1] if x not in consumed]
            assert st_.apply_consumed(s[1]) == len(new)
            consumed.update(s[1])
            for x in s[1]:
                locks.pop(x, None)
        elif kind == "reclaim":
            expired = [x for x in s[1] if x in locks and locks[x][1] <= now]
            assert st_.reclaim(s[1]) == len(expired)
            for x in expired:
                del locks[x]
        elif kind == "advance":
            prio, part = s[1]
            ln = f"{prio}.{part}"
            # The caller's proof: below the first offset it still sees (locked ones are
            # out of its view, so it asks past them).
            free = [o for o in range(N) if (prio, part, o) not in consumed | set(locks)]
            st_.advance(ln, min(free, default=N))
            low = st_.lows().get(ln, 0)
            held = [o for (p, q_, o) in locks if (p, q_) == (prio, part)]
            assert low <= min(held, default=N) and low <= min(free, default=N)
        else:
            clock.advance(s[1])
        # Invariants after every step.
        assert st_.depth() == len(ALL) - len(consumed)
        now = clock.now_ms()
        for owner in OWNERS:
            expect = []
            for x in ALL:
                held = locks.get(x)
                if x in consumed:
                    expect.append(CONSUMED)
                elif held is None:
                    expect.append(FREE)
                elif held[0] == owner:
                    expect.append(MINE)
                else:
                    expect.append(LOCKED if held[1] > now else STALE)
            assert st_.peek(ALL, owner) == expect


# ---------------------------------------------------------------------------- protocol
@pytest.mark.parametrize(
    ("proto", "impl"), [(QueueState, MemoryQueueState), (StateStore, MemoryStore)]
)
def test_implements_the_protocol(proto, impl):
    """Every protocol method, with the protocol's parameter names (callers pass them
    by keyword): a guard against the protocol moving on without the fake."""
    for name, fn in vars(proto).items():
        if callable(fn) and not name.startswith("_"):
            want = list(inspect.signature(fn).parameters)
            have = list(inspect.signature(getattr(impl, name)).parameters)
            assert have[: len(want)] == want, name


# ------------------------------------------------------------- DELETE QLOCAL, the mark
def test_begin_delete_and_register_open_exclude_each_other(q, clock):
    q.register_open("h1", "inquire", lease_ms=1000)
    before = q.snapshot()["opens"]
    assert not q.begin_delete("admin", 60_000)  # any live open keeps the delete out
    clock.advance(1.0)  # its lease ran out (the process died)
    assert q.begin_delete("admin", 60_000)
    assert not q.begin_delete("other", 60_000)  # one delete at a time
    with pytest.raises(QueueDeletedError):
        q.register_open("h2", "output")
    assert q.snapshot()["opens"] == before  # nothing written
    q.end_delete("other")  # not its mark: no effect
    with pytest.raises(QueueDeletedError):
        q.register_open("h2", "output")
    q.end_delete("admin")  # the delete did not happen: opens are allowed again
    assert q.register_open("h2", "output")


def test_a_delete_mark_expires_with_its_lease(q, clock):
    assert q.begin_delete("admin", 500)
    clock.advance(0.5)
    assert q.register_open("h1", "input")


def test_drop_leaves_the_deleted_mark_until_defined_again(q):
    q.set_definition("i1:abc")
    assert q.definition() == "i1:abc"
    q.drop()
    assert q.definition() == DELETED
    with pytest.raises(QueueDeletedError):
        q.register_open("h1", "input")
    q.set_definition("i2:abc")  # DEFINE QLOCAL of the same name: a new queue
    assert q.register_open("h1", "input")


# ---------------------------------------------------------------------- native records
def test_native_records_count_into_the_depth_once(store, q):
    assert q.count_native("0.0", [2, 5]) == 2
    assert q.depth() == 12
    assert q.count_native("0.0", [2, 5]) == 0  # another reader reporting the same records
    assert q.count_native("0.0", [5, 7]) == 1
    assert q.count_native("1.0", [0]) == 1  # lanes have their own marks
    assert q.depth() == 14 and q.snapshot()["native"] == {"0.0": 7, "1.0": 0}


def test_native_count_needs_the_epoch_and_a_rebuild_sets_the_marks(store):
    st_ = store.queue("Q1")
    with pytest.raises(NoEpochError):
        st_.count_native("0.0", [0])
    st_.set_native_marks({"0.0": 4})  # the rebuild counted offsets 0..3
    st_.mark_complete()
    assert st_.count_native("0.0", [3, 4]) == 1 and st_.depth() == 1
    st_.wipe()
    assert st_.snapshot()["native"] == {}
