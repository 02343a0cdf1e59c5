"""Definitions made at the same time by two connections, on the in-memory backends.

Two connections DEFINE the same new object while a turnstile decides which of them
takes its next step: every call to the state store and every topic creation is a step,
and hypothesis draws the order. Whatever the order: one incarnation, the second DEFINE
without REPLACE gets MQRCCF_OBJECT_ALREADY_EXISTS (4001), REPLACE keeps the one queue,
and no handle opened on the queue gets MQRC_Q_DELETED (2052). Without the name claim
(shim/nameclaims.py) the same turnstile finds the race (a test below shows it does).
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import adapter.pymqi as pymqi
from adapter import config
from adapter.shim import nameclaims
from adapter.shim.channeldef import RCVR, ChannelCatalog, ChannelDef
from adapter.shim.clock import ManualClock
from adapter.shim.memory_store import MemoryServer, MemoryStore

C = pymqi.CMQC
_TIMEOUT_S = 20.0
_names = itertools.count()


class Turnstile:
    """Runs worker threads one step at a time. A worker in its gated part parks before
    each step until the conductor gives it the turn; the conductor gives turns by the
    drawn choices, then alternately once they are used up (so a waiting definer never
    starves the one it waits for)."""

    def __init__(self, choices: list[int]) -> None:
        self.cv = threading.Condition()
        self.choices = choices
        self.gated: dict[threading.Thread, int] = {}
        self.live: set[int] = set()
        self.parked: set[int] = set()
        self.turn: int | None = None
        self.steps = 0
        self.absent = 0  # workers that failed before their gated part

    def never_started(self) -> None:
        with self.cv:
            self.absent += 1
            self.cv.notify_all()

    def gate(self) -> None:
        who = self.gated.get(threading.current_thread())
        if who is None:  # not a worker's gated part (a pump thread, the set-up)
            return
        with self.cv:
            self.parked.add(who)
            self.cv.notify_all()
            if not self.cv.wait_for(lambda: self.turn == who, _TIMEOUT_S):
                raise RuntimeError(f"worker {who} never got its turn")
            self.turn = None
            self.parked.discard(who)

    @contextmanager
    def gated_part(self, who: int) -> Iterator[None]:
        with self.cv:
            self.gated[threading.current_thread()] = who
            self.live.add(who)
        try:
            self.gate()
            yield
        finally:
            with self.cv:
                del self.gated[threading.current_thread()]
                self.live.discard(who)
                self.cv.notify_all()

    def conduct(self, workers: int) -> None:
        with self.cv:
            ready = lambda: (  # noqa: E731
                len(self.live) + self.absent == workers and self.parked == self.live
            )
            if not self.cv.wait_for(ready, _TIMEOUT_S):
                raise RuntimeError("the workers did not all start")
            while True:
                settled = lambda: self.turn is None and self.live <= self.parked  # noqa: E731
                if not self.cv.wait_for(settled, _TIMEOUT_S):
                    raise RuntimeError("a worker neither parked nor ended")
                if not self.live:
                    return
                live = sorted(self.live)
                i = self.steps
                pick = self.choices[i] if i < len(self.choices) else i
                self.turn = live[pick % len(live)]
                self.steps += 1
                self.cv.notify_all()


class Race:
    """Two (or more) connections of one world, each in a thread of its own, whose store
    and log calls go through one turnstile."""

    def __init__(self, clock: ManualClock, cluster: Any, server: MemoryServer, qmgr: str) -> None:
        self.clock, self.cluster, self.server, self.qmgr = clock, cluster, server, qmgr
        self.waits = 0  # how often a definer found the name claimed (and waited)

    def waited(self, _seconds: float) -> None:
        self.waits += 1

    def connect(self, turnstile: Turnstile) -> pymqi.QueueManager:
        from adapter.shim.memory_log import MemoryLog

        store = MemoryStore(self.qmgr, self.clock.now_ms, self.server)
        log = MemoryLog(self.clock, self.cluster)
        for obj, name in ((store, "_call"), (store, "_call_retried"), (log, "create_topics")):
            real = getattr(obj, name)
            setattr(obj, name, _gated(turnstile, real))
        return _CONNECT(self.qmgr, log_backend=log, store=store, clock=self.clock)

    def run(
        self,
        choices: list[int],
        work: list[Callable[[pymqi.QueueManager], Any]],
        after: Callable[[pymqi.QueueManager, Any], Any] | None = None,
    ) -> tuple[list[Any], list[Any]]:
        """Each `work[i]` in its own thread on its own connection, gated; then, once
        every one has ended, `after(qm, what work[i] returned)` in the same thread (a
        connection's handles belong to the thread that made them), ungated. Returns
        what each work and each after returned (or raised)."""
        turnstile = Turnstile(choices)
        results: list[Any] = [None] * len(work)
        later: list[Any] = [None] * len(work)
        all_done = threading.Event()

        def worker(i: int) -> None:
            try:
                qm = self.connect(turnstile)
            except BaseException as exc:  # noqa: BLE001 (handed to the test)
                results[i] = exc
                turnstile.never_started()
                return
            with turnstile.gated_part(i):
                try:
                    results[i] = work[i](qm)
                except BaseException as exc:  # noqa: BLE001
                    results[i] = exc
            all_done.wait(_TIMEOUT_S)
            try:
                if after is not None and not isinstance(results[i], BaseException):
                    later[i] = after(qm, results[i])
            except BaseException as exc:  # noqa: BLE001
                later[i] = exc
            finally:
                qm.disconnect()

        threads = [threading.Thread(target=worker, args=(i,)) for i in range(len(work))]
        for t in threads:
            t.start()
        try:
            turnstile.conduct(len(work))
        finally:
            all_done.set()
        for t in threads:
            t.join(_TIMEOUT_S)
            assert not t.is_alive()
        return results, later


def _gated(turnstile: Turnstile, real: Callable[..., Any]) -> Callable[..., Any]:
    def call(*args: Any, **kw: Any) -> Any:
        turnstile.gate()
        return real(*args, **kw)

    return call


_CONNECT = pymqi.connect


@pytest.fixture
def race(world, qmgr_name, monkeypatch) -> Race:
    r = Race(world.clock, world.cluster, world.server, qmgr_name)
    monkeypatch.setattr(nameclaims, "_sleep", r.waited)  # a waiter spins by turns
    return r


def _outcome(fn: Callable[[], Any]) -> Any:
    try:
        return fn()
    except pymqi.MQMIError as err:
        return err.reason


def _define_and_put(name: str, replace: bool, who: str):
    """Define the queue, open it and put one message (a 4001 loser opens the winner's)."""

    def work(qm: pymqi.QueueManager) -> tuple[Any, pymqi.Queue]:
        got = _outcome(lambda: qm.define_queue(name, replace=replace, description=who))
        q = pymqi.Queue(qm, name, C.MQOO_OUTPUT)
        q.put(who.encode())
        return got, q

    return work


def _put_again(qm: pymqi.QueueManager, result: tuple[Any, pymqi.Queue]) -> int | None:
    """After both definitions: the handle opened during the race still puts (None), or
    the reason it got."""
    q = result[1]
    try:
        q.put(b"after")
    except pymqi.MQMIError as err:
        return err.reason
    q.close()
    return None


def _check_one_queue(qmgr, name, replaces, results, later) -> None:
    outcomes = []
    for r in results:
        if isinstance(r, BaseException):
            raise r
        outcomes.append(r[0])
    ok = [o for o in outcomes if not isinstance(o, int)]
    failed = [(o, rep) for o, rep in zip(outcomes, replaces, strict=True) if isinstance(o, int)]
    assert all(o == C.MQRCCF_OBJECT_ALREADY_EXISTS and not rep for o, rep in failed), outcomes
    assert ok, outcomes
    if not any(replaces):
        assert len(ok) == 1, outcomes  # one DEFINE wins, the other is told it exists
    final = qmgr.get_handle().catalog.lookup(name, refresh=True)
    assert {o.incarnation for o in ok} == {final.incarnation}  # REPLACE keeps the queue
    assert final.description in {o.description for o in ok}
    # Every handle opened during the race still puts: nobody's queue was defined again.
    assert later == [None] * len(results), later
    assert qmgr.queue_status(name)["current_depth"] == 2 * len(results)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    choices=st.lists(st.integers(0, 1), max_size=60),
    replaces=st.tuples(st.booleans(), st.booleans()),
)
def test_two_connections_defining_one_queue_make_one_queue(race, qmgr, choices, replaces):
    name = f"RACE.Q.{next(_names)}"
    work = [_define_and_put(name, rep, f"by {i}") for i, rep in enumerate(replaces)]
    waits = race.waits
    results, later = race.run(choices, work, _put_again)
    event(f"a definer waited for the other: {race.waits > waits}")
    event(
        "outcomes: "
        + " ".join("ok" if r and not isinstance(r[0], int) else str(r[0]) for r in results)
    )
    _check_one_queue(qmgr, name, replaces, results, later)


def test_without_the_claim_the_turnstile_finds_the_race(race, qmgr, monkeypatch):
    """The same race with the claim taken away: both see no queue, both define it, and
    the first's handle gets 2052. (What the property above would find, were the claim
    missing.)"""

    @contextmanager
    def no_claim(self, key: str) -> Iterator[None]:
        yield

    monkeypatch.setattr(nameclaims.NameClaims, "held", no_claim)
    name = "RACE.OLD"
    work = [_define_and_put(name, False, f"by {i}") for i in range(2)]
    # In step until both have looked, then the first alone: it opens its handle before
    # the second writes.
    results, later = race.run([0, 1] * 6 + [0] * 200, work, _put_again)
    outcomes = [r[0] for r in results]
    assert not any(isinstance(o, int) for o in outcomes), outcomes  # both "defined" it
    assert outcomes[0].incarnation != outcomes[1].incarnation
    assert C.MQRC_Q_DELETED in later


# -- topic objects, channels, subscriptions: the same claim ---------------------------
def _topic(name: str, replace: bool, who: str):
    return lambda qm: qm.define_topic(name, f"race/{name}", who, replace=replace)


def _channel(name: str, replace: bool, who: str):
    def work(qm):
        cat = ChannelCatalog(qm.get_handle().catalog)
        return cat.define(ChannelDef(name, channel_type=RCVR, description=who), replace=replace)

    return work


def _sub(name: str, replace: bool, who: str):
    def work(qm):
        admin = qm.get_handle().subadmin
        return admin.define(
            name, topic_string="race/subs", dest="RACE.DEST", user_data=who, replace=replace
        )

    return work


def _stored(qm, kind: str, name: str) -> tuple[Any, str]:
    """The stored object and the `who` it was defined by."""
    h = qm.get_handle()
    if kind == "topic":
        t = h.pubsub.topics.lookup(name)
        return t, t.description
    if kind == "channel":
        c = ChannelCatalog(h.catalog).lookup(name)
        return c, c.description
    s = h.subadmin.find(name)
    return s, s.user_data


_KINDS = {"topic": _topic, "channel": _channel, "sub": _sub}


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    kind=st.sampled_from(sorted(_KINDS)),
    choices=st.lists(st.integers(0, 1), max_size=60),
    replaces=st.tuples(st.booleans(), st.booleans()),
)
def test_two_connections_defining_one_object_make_one(race, qmgr, kind, choices, replaces):
    """DEFINE TOPIC / CHANNEL / SUB by two connections at once: without REPLACE one
    wins and the other gets 4001; the object stored is one of theirs, whole."""
    if qmgr.get_handle().catalog.lookup("RACE.DEST") is None:
        qmgr.define_queue("RACE.DEST")
    name = f"RACE.{kind.upper()}.{next(_names)}"
    work = [_KINDS[kind](name, rep, f"by{i}") for i, rep in enumerate(replaces)]
    results, _ = race.run(choices, work)
    for r in results:
        if isinstance(r, BaseException) and not isinstance(r, pymqi.MQMIError):
            raise r
    reasons = [r.reason if isinstance(r, pymqi.MQMIError) else None for r in results]
    for reason, rep in zip(reasons, replaces, strict=True):
        assert reason is None or (reason == C.MQRCCF_OBJECT_ALREADY_EXISTS and not rep), reasons
    winners = [f"by{i}" for i, reason in enumerate(reasons) if reason is None]
    assert winners and (any(replaces) or len(winners) == 1), reasons
    obj, who = _stored(qmgr, kind, name)
    assert who in winners
    if kind == "sub":  # REPLACE keeps the subscription's identity
        ids = {r.subscription_id for r in results if not isinstance(r, BaseException)}
        assert ids == {obj.subscription_id}


# -- the claim's lease ------------------------------------------------------------------
def test_claims_on_the_memory_store():
    """Taken when free, renewed by its owner, refused to another while its lease runs,
    taken over once it ran out, released only by its owner."""
    clock = ManualClock()
    server = MemoryServer()
    a, b = (MemoryStore("QM", clock.now_ms, server) for _ in range(2))
    assert a.claim_name("Q", "me", 1000)
    assert not b.claim_name("Q", "you", 1000)
    assert a.claim_name("Q", "me", 1000)  # renewed: until now + 1000
    clock.advance(0.999)
    assert not b.claim_name("Q", "you", 1000)
    b.release_name("Q", "you")  # not its claim: nothing happens
    assert a.name_claims()["Q"][0] == "me"
    clock.advance(0.001)
    assert b.claim_name("Q", "you", 1000)  # ran out: taken over
    assert not a.claim_name("Q", "me", 1000)
    assert a.claim_name("OTHER", "me", 1000)  # one claim per key
    b.release_name("Q", "you")
    assert "Q" not in a.name_claims()
    assert a.claim_name("Q", "me", 1000)


def test_a_dead_definers_claim_holds_the_name_until_its_lease_ends(world, qmgr):
    """A definer that died holding the claim: another DEFINE waits, and goes ahead once
    the lease ran out (on the store's clock)."""
    store = qmgr.get_handle().store
    assert store.claim_name("DEAD.Q", "a dead definer", config.DEFINE_LEASE_MS)
    done: list[Any] = []

    def define() -> None:
        other = world.connect(qmgr.get_handle().qmgr)
        done.append(_outcome(lambda: other.define_queue("DEAD.Q")))
        other.disconnect()

    t = threading.Thread(target=define)
    t.start()
    t.join(0.3)
    assert t.is_alive() and not done  # waiting for the claim
    assert qmgr.get_handle().catalog.lookup("DEAD.Q", refresh=True) is None
    world.clock.advance(config.DEFINE_LEASE_MS / 1000)
    t.join(_TIMEOUT_S)
    assert not t.is_alive()
    assert done[0].name == "DEAD.Q"
    assert "DEAD.Q" not in store.name_claims()  # released after the definition


def test_a_definer_that_lost_its_claim_writes_nothing(world, qmgr, monkeypatch):
    """A definer slower than its lease: another took the name meanwhile, so the first
    fails (2009) before its catalog write and the other's queue stands."""
    conn = qmgr.get_handle()
    real = conn.log.create_topics

    def slow(topics):
        world.clock.advance(config.DEFINE_LEASE_MS / 1000)  # its lease ran out
        assert conn.store.claim_name("SLOW.Q", "another definer", 60_000)
        monkeypatch.setattr(conn.log, "create_topics", real)
        return real(topics)

    monkeypatch.setattr(conn.log, "create_topics", slow)
    assert _outcome(lambda: qmgr.define_queue("SLOW.Q")) == C.MQRC_CONNECTION_BROKEN
    assert conn.catalog.lookup("SLOW.Q", refresh=True) is None
    assert conn.catalog.read_topic().get("SLOW.Q") is None
    assert conn.store.name_claims()["SLOW.Q"][0] == "another definer"  # not released


def test_alter_under_its_claim_loses_no_change(race, qmgr):
    """Two ALTERs of one queue at once, each of another attribute: both changes stay
    (each reads the definition under the claim)."""
    qmgr.define_queue("ALT.Q")
    work = [
        lambda qm: qm.alter_queue("ALT.Q", max_depth=77),
        lambda qm: qm.alter_queue("ALT.Q", description="altered"),
    ]
    results, _ = race.run([0, 1] * 30, work)
    assert not any(isinstance(r, BaseException) for r in results), results
    final = qmgr.get_handle().catalog.lookup("ALT.Q", refresh=True)
    assert (final.max_depth, final.description) == (77, "altered")
