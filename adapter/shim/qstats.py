"""A local queue's statistics gathered for DISPLAY QSTATUS / MQCMD_INQUIRE_Q_STATUS, and
RESET QSTATS / MQCMD_RESET_Q_STATS (what MQ shows of them: adapter/core/qstats.py).

The counters and times live in the state's `stats` key (redis_store.py), written inside
the depth flush and the claims, so MQPUT and MQGET pay no round trip for them (QTIME's
samples, taken at each destructive get of a monitored queue, go out with the pump's
next depth flush). What is costly
to know is computed here, at inquiry time only:

- the oldest message's age (MSGAGE, OldestMsgAge; asked only while monitoring is on,
  as MQ shows it only then): a read_committed reader of the queue's topics (the same
  QueueReader MQGET uses) catches up and the state says which of its messages are still
  on the queue (consumed ones are not; locked ones, got under a unit of work not yet
  committed, still are, as in CURDEPTH). Its age counts from the message's put time
  (its MQMD PutDate / PutTime as stored: a time an application set with
  MQPMO_SET_ALL_CONTEXT counts as given).
- uncommitted changes (UNCOM, UncommittedMsgs): gets locked by a unit of work whose
  lease runs, plus the puts of live units of work: as they published them (shim/uow.py
  keeps a unit of work's puts until MQCMIT), or the records of Kafka transactions still
  open on the queue's topics if more (the high watermark past the last stable offset: a
  commit under way or a unit of work past its buffer, and any committed records behind
  its first one, so an upper bound while a transaction runs).
"""

from __future__ import annotations

import logging

from adapter.core import cmqc as C  # noqa: N812
from adapter.core.qstats import QueueFigures, ResetFigures, effective_monitoring
from adapter.shim.catalog import QueueDef, open_transaction_records
from adapter.shim.clock import Clock
from adapter.shim.log import Log
from adapter.shim.qmgrdef import QMgrDef
from adapter.shim.reader import QueueReader
from adapter.shim.store import UOW_LOCK_OWNER, ClaimStatus, QueueState

log = logging.getLogger("mqk.shim.qstats")

_PEEK_CHUNK = 500  # candidates per state read when finding the oldest message
_OWNER = "qstats"  # the peek's owner: it holds no lock, so every lock is another's


def figures(
    log_backend: Log,
    qmgr: str,
    qdef: QueueDef,
    qmgr_def: QMgrDef,
    state: QueueState,
    clock: Clock,
    depth: int,
) -> QueueFigures:
    """DISPLAY QSTATUS TYPE(QUEUE)'s figures of the local queue `qdef` (its state
    complete: the caller made its own puts visible first), CURDEPTH `depth` (MQ's count,
    units of work included: UnitsOfWork.current_depth)."""
    level = effective_monitoring(qdef.monitoring_q, qmgr_def.monitoring_q)
    stats = state.stats()
    opens = state.open_counts()
    oldest = None
    if level != C.MQMON_OFF:
        oldest = oldest_put_ms(log_backend, qmgr, qdef, state, clock)
    return QueueFigures(
        depth=depth,
        open_input=opens["input"],
        open_output=opens["output"],
        monitoring=level,
        last_put_ms=stats.last_put_ms or None,
        last_get_ms=stats.last_get_ms or None,
        oldest_put_ms=oldest,
        uncommitted=uncommitted(log_backend, qmgr, qdef, state),
        now_ms=clock.now_ms(),
        qtime_us=None if stats.qtime_short_us < 0 else (stats.qtime_short_us, stats.qtime_long_us),
    )


def oldest_put_ms(
    log_backend: Log, qmgr: str, qdef: QueueDef, state: QueueState, clock: Clock
) -> int | None:
    """The put time of the oldest message on the queue; None when it is empty."""
    reader = QueueReader(log_backend, qmgr, qdef, state, clock)
    try:
        if not reader.catch_up():
            log.warning("%s: MSGAGE from a reader that did not catch up in time", qdef.name)
        items = list(reader.view)
        oldest = None
        for start in range(0, len(items), _PEEK_CHUNK):
            chunk = items[start : start + _PEEK_CHUNK]
            statuses = state.peek([i.key for i in chunk], _OWNER)
            for item, status in zip(chunk, statuses, strict=True):
                if status != ClaimStatus.CONSUMED and (oldest is None or item.put_ms < oldest):
                    oldest = item.put_ms
        return oldest
    finally:
        reader.close()


def uncommitted(log_backend: Log, qmgr: str, qdef: QueueDef, state: QueueState) -> int:
    """Uncommitted gets and puts on the queue, from any connection (see the docstring)."""
    gets = state.live_locks(UOW_LOCK_OWNER)
    open_records = open_transaction_records(log_backend, qmgr, qdef)
    return gets + max(state.uncommitted_puts(), open_records)


def reset(name: str, state: QueueState, clock: Clock) -> ResetFigures:
    """RESET QSTATS of one local queue: its counters read and zeroed in one step."""
    enqueued, dequeued, high, since_ms = state.reset_stats()
    since_s = max(0, (clock.now_ms() - since_ms) // 1000)
    return ResetFigures(name, high, enqueued, dequeued, since_s)
