"""One DEFINE, ALTER or DELETE of an object at a time, across processes: the claim of
its name.

A definition checks what exists, then writes the catalog topic and the store's cache.
Two definers that check at once both see no object and both write: two incarnations of
one queue, and the handles opened on the first get MQRC_Q_DELETED (2052) from the
second. In IBM MQ one DEFINE wins and the other is told the object exists: PCF's
MQRCCF_OBJECT_ALREADY_EXISTS, 4001
(<https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q048200_.html>: "An attempt was
made to create an object, but the object already existed and the Replace parameter
was not specified as MQRP_YES"), which runmqsc prints as "AMQ8150E: IBM MQ object
already exists." (tools/mqscrun.py; the AMQ8xxx messages:
<https://www.ibm.com/docs/SSFKSJ_9.2.0/com.ibm.mq.ref.doc/amq8.html>); with REPLACE the
one object is changed.

So every change of a catalog object runs holding the claim of its catalog key (a
queue's name, `*TOPIC:<name>`, `*SUB:<key>`, `*CHANNEL:<name>`, `*QMGR`): a leased
field of the store's `defining` hash (store.StateStore.claim_name). A second definer
waits for the first to finish (polling, a few milliseconds apart at first) and then
sees its object: 4001, or REPLACE of that same incarnation. The lease
(config.DEFINE_LEASE_MS) is longer than a definition takes, so only a definer that
died holds a name that long; after it, the name is free again. Before its durable
write a definer confirms (renews) its claim, so one that was slower than its lease,
and lost the claim to another, fails (2009) rather than write over the other's object.

Waiting is in real time (another process's progress), the lease judged by the store's
clock as every lease is: on a test's manual clock a dead definer's claim runs out only
when the test moves the clock, and a waiter gives up after the lease in real time with
MQRC_OBJECT_IN_USE (2042).
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import redis

from adapter import config
from adapter.core import cmqc as C
from adapter.core.errors import fail
from adapter.shim.store import StateStore

log = logging.getLogger("mqk.shim.nameclaims")

_FIRST_PAUSE_S = 0.002
_MAX_PAUSE_S = 0.05
_SLACK_S = 5.0  # beyond the lease, for clocks a little apart
_sleep = time.sleep  # tests replace it to spin without sleeping
_RELEASE_ERRORS = (redis.RedisError, ConnectionError)


class NameClaims:
    """The claims of one connection's catalog (one owner per claim taken). A thread
    holding a claim may take it again (ALTER defines under its own claim)."""

    def __init__(self, store: StateStore, lease_ms: int | None = None) -> None:
        self.store = store
        self.lease_ms = config.DEFINE_LEASE_MS if lease_ms is None else lease_ms
        self._local = threading.local()

    def _held(self) -> dict[str, str]:
        held = getattr(self._local, "held", None)
        if held is None:
            held = self._local.held = {}
        return held

    @contextmanager
    def held(self, key: str) -> Iterator[None]:
        """Run the block holding the claim of `key`: waits while another definer holds
        it; released after the block, whatever its outcome."""
        held = self._held()
        if key in held:
            yield
            return
        owner = uuid.uuid4().hex
        self._take(key, owner)
        held[key] = owner
        try:
            yield
        finally:
            del held[key]
            try:
                self.store.release_name(key, owner)
            except _RELEASE_ERRORS:
                # The lease frees it: the next definer of this name waits that long.
                log.warning("could not release the claim of %s", key, exc_info=True)

    def _take(self, key: str, owner: str) -> None:
        deadline = time.monotonic() + self.lease_ms / 1000 + _SLACK_S
        pause = _FIRST_PAUSE_S
        while not self.store.claim_name(key, owner, self.lease_ms):
            if time.monotonic() >= deadline:
                log.warning("%s: another definer held it for longer than its lease", key)
                raise fail(C.MQRC_OBJECT_IN_USE)
            _sleep(pause)
            pause = min(pause * 2, _MAX_PAUSE_S)

    def confirm(self, key: str) -> None:
        """Before a durable write of `key`: the claim is still this thread's (renewed
        for another lease). Nothing to confirm when none is held: not every write of an
        object is a definition (an MQSUB's durable subscription is guarded by its
        lease, shim/subscriptions.py)."""
        owner = self._held().get(key)
        if owner is None:
            return
        if not self.store.claim_name(key, owner, self.lease_ms):
            raise fail(C.MQRC_CONNECTION_BROKEN) from RuntimeError(
                f"the claim of {key} ran out before its definition was written"
            )
