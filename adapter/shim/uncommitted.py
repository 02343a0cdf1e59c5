"""A unit of work's uncommitted puts and gets, published to its queues' state so that
every connection's CURDEPTH and MAXDEPTH check count them as MQ does.

MQ's CurrentQDepth "is incremented during an MQPUT call, and during backout of an MQGET
call. It is decremented during a nonbrowse MQGET call, and during backout of an MQPUT
call" (https://www.ibm.com/support/knowledgecenter/SSFKSJ_9.0.0/com.ibm.mq.ref.dev.doc/q106410_.htm),
for everyone. The queue's `depth` counter changes at commit (its puts are invisible in
Kafka until then, and a dead process's unit of work must leave no trace in it), so the
unit of work's own counts live beside it: one leased entry per unit of work and queue
(`uncom`, store.set_uncommitted), written when the unit of work first puts to the
queue (its puts wait in memory until MQCMIT, shim/uow.py, so only the state can say
they exist), then by the connection's pump at most once a tick from PUBLISH_AFTER_S into
the unit of work on, and again whenever a third of the lease has passed; removed when
the unit of work ends (before the commit's depth update, so no reader counts a put
twice); ignored by readers once its lease has run out (the process
died: Kafka aborts its transaction, the locks of its gets are reconciled). This module
is the only writer of `uncom`.
"""

from __future__ import annotations

import logging

from adapter import config
from adapter.shim.clock import Clock
from adapter.shim.store import StateStore

log = logging.getLogger("mqk.shim.uncommitted")

# A unit of work publishes its counts once it is this old (beyond its first put to each
# queue): most end sooner (a get-process-put of one message takes a few milliseconds)
# and then cost no further state write, while
# other connections read a queue's depth up to 0.1 s old anyway (Putter.depth_estimate).
PUBLISH_AFTER_S = 0.02


class UncommittedCounts:
    """The entries one connection's current unit of work has written."""

    def __init__(self, store: StateStore, clock: Clock) -> None:
        self.store, self.clock = store, clock
        self._owner = ""
        self._written: dict[str, tuple[int, int]] = {}  # queue -> (puts, gets) written
        self._renewed_at = 0.0
        self.failures = 0  # writes that failed (logged; the lease ends the entry)

    def publish(self, owner: str, puts: dict[str, int], got: dict[str, int]) -> None:
        """The pump's tick, under the unit of work's lock: write the counts that changed
        since the last write, and every entry again once a third of the lease passed.
        `puts` and `got`: queue -> messages, copies the caller took."""
        now = self.clock.monotonic()
        if owner != self._owner:  # a new unit of work (the last one's entries are gone)
            self._owner, self._written, self._renewed_at = owner, {}, now
        renew = now - self._renewed_at >= config.LEASE_MS / 3000
        if renew:
            self._renewed_at = now
        for queue in {*puts, *got}:
            counts = (puts.get(queue, 0), got.get(queue, 0))
            if counts == self._written.get(queue, (0, 0)) and not renew:
                continue
            if self._write(queue, owner, counts):
                self._written[queue] = counts

    def clear(self, owner: str) -> None:
        """The unit of work ended (committed or backed out): its entries go. Called
        before the commit's depth update, so another connection may count its puts once
        too few for a moment, never twice."""
        if owner == self._owner:
            for queue, counts in self._written.items():
                if counts != (0, 0):
                    self._write(queue, owner, (0, 0))
        self._owner, self._written = "", {}

    def _write(self, queue: str, owner: str, counts: tuple[int, int]) -> bool:
        try:
            self.store.queue(queue).set_uncommitted(owner, *counts, config.LEASE_MS)
            return True
        except Exception:  # noqa: BLE001 - the lease ends an entry left behind
            self.failures += 1
            log.warning(
                "writing the uncommitted counts of %s on %s failed (%d so far)",
                owner,
                queue,
                self.failures,
                exc_info=self.failures == 1,
            )
            return False
