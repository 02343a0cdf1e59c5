"""Periodic discard of expired messages still on queues: z/OS's EXPRYINT, or one
REFRESH QMGR TYPE(EXPIRY) pass with `once=True`.

    mqk expire QM [QUEUE] --interval S      # every queue of QM, or one queue
    mqk expire QM [QUEUE] --once

Without it an expired message stays in CURDEPTH until a get meets it. The scan reads
each queue like a getter does (the shim's QueueReader, from the low watermarks,
read_committed), and discards expired messages through the queue's consumption state:
one claim per queue and pass (QueueState.consume_many), the ack log (the pump's
record_ack) and the expiration report where the message asked for one (the engine's
report builder, put to the ReplyToQ). A claim makes the discard
exclusive: a message an MQGET, the reassembly job or another scanner discarded first is
skipped, so each expired message is reported once and never returned by a later MQGET.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass

from adapter.core import expiry as exp
from adapter.shim.connection import Connection
from adapter.shim.reader import QueueReader
from adapter.shim.store import NoEpochError

log = logging.getLogger("mqk.expire")


@dataclass
class ScanResult:
    queue: str
    expired: int = 0  # discarded by this pass
    reports: int = 0  # expiration reports put


class ExpiryScanner:
    """Scans one queue manager's queues (all, or those given)."""

    def __init__(
        self,
        qmgr: str,
        queues: list[str] | None = None,
        *,
        kafka_bootstrap: str | None = None,
        redis_url: str | None = None,
    ) -> None:
        self.conn = Connection(qmgr, kafka_bootstrap, redis_url)
        self.fixed = list(queues) if queues else None
        self.owner = f"expiry-scan:{self.conn.conn_id}"
        self._readers: dict[str, QueueReader] = {}

    def queues(self) -> list[str]:
        if self.fixed is not None:
            return self.fixed
        return self.conn.catalog.names()

    def scan_queue(self, name: str) -> ScanResult:
        result = ScanResult(name)
        conn = self.conn
        qdef = conn.lookup_queue(name, refresh=True)
        if qdef is None or not qdef.has_storage:  # gone, or a model / alias: no messages
            reader = self._readers.pop(name, None)
            if reader is not None:
                reader.close()
            return result
        reader = self._readers.get(name)
        if reader is None:
            reader = self._readers[name] = QueueReader(
                conn.log, conn.qmgr, qdef, conn.state(name), conn.clock
            )
        reader.catch_up()
        now = conn.clock.now_ms()
        expired = []
        for item in list(reader.view):
            if item.expiry < 0:
                reader.forget(item.key)  # unlimited lifetime: never this scan's business
            elif exp.is_expired(item.put_ms, item.expiry, now):
                expired.append(item)
        if not expired:
            return result
        taken, gone = self._consume(qdef, [i.key for i in expired])
        for i in taken:
            item = expired[i]
            env = reader.envelopes.get(item.key)
            conn.pump.record_ack(name, item.key)
            reader.forget(item.key)
            result.expired += 1
            if env is not None and conn.report_expiry(env):
                result.reports += 1
        for i in gone:
            reader.forget(expired[i].key)
        conn.barrier()  # the ack log and depth are published before the pass ends
        return result

    def _consume(self, qdef, cands: list[tuple]) -> tuple[list[int], list[int]]:
        """Claim calls for the whole pass: (taken indexes, gone indexes). Locks whose
        owner's lease ran out are reconciled with the ack log, then tried again."""
        taken, gone = self._consume_subset(qdef, cands, list(range(len(cands))))
        settled = set(taken) | set(gone)
        left = [i for i in range(len(cands)) if i not in settled]
        state = self.conn.state(qdef.name)
        if left and state.stale_locks() and self.conn.services.reconcile(qdef.name):
            more_taken, more_gone = self._consume_subset(qdef, cands, left)
            taken, gone = taken + more_taken, gone + more_gone
        return taken, gone

    def _consume_subset(self, qdef, cands: list[tuple], idx: list[int]) -> tuple[list, list]:
        state = self.conn.state(qdef.name)
        subset = [cands[i] for i in idx]
        try:
            res = state.consume_many(subset, self.owner)
        except NoEpochError:  # Redis lost the queue's state: rebuild it from Kafka first
            self.conn.services.rebuild(qdef)
            res = state.consume_many(subset, self.owner)
        return [idx[i] for i in res.taken], [idx[i] for i in res.gone]

    def scan(self) -> list[ScanResult]:
        """One pass over the queues (REFRESH QMGR TYPE(EXPIRY))."""
        results = []
        for name in self.queues():
            res = self.scan_queue(name)
            if res.expired:
                log.info(
                    "%s/%s: discarded %d expired message(s), %d report(s)",
                    self.conn.qmgr,
                    name,
                    res.expired,
                    res.reports,
                )
            results.append(res)
        return results

    def run(self, interval_s: float, stop: threading.Event | None = None) -> None:
        """Scan every `interval_s` seconds until `stop` is set (EXPRYINT)."""
        stop = stop or threading.Event()
        while not stop.is_set():
            started = time.monotonic()
            self.scan()
            stop.wait(max(0.0, interval_s - (time.monotonic() - started)))

    def close(self) -> None:
        for reader in self._readers.values():
            reader.close()
        self._readers.clear()
        self.conn.close()

    def __enter__(self) -> ExpiryScanner:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
