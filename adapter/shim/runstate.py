"""The queue manager's run state (endmqm / strmqm): one value in the state store
(store.StateStore.run_state; the Redis key `mqk:{QM}:status`), written only here, read
by every connection of every process on each MQI call at no round trip (client
tracking, as the definition marks).

There is no queue-manager process to stop: `endmqm -c` marks the queue manager
QUIESCING, `endmqm -i` ENDING IMMEDIATELY, and the state stays until `strmqm`. What a
call gets in each state is adapter/core/qmgrrules.py's; this module applies it and, on
an immediate end, backs out the connection's unit of work first (MQ backs out every
unit of work it coordinates when it ends immediately).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from adapter.core import cmqc as C
from adapter.core.errors import fail
from adapter.core.qmgrrules import RunState, call_error, connect_error
from adapter.shim.store import StateStore

log = logging.getLogger("mqk.shim.runstate")


class RunStateView:
    """One connection's view of the run state. `on_stopping` backs out the unit of work
    (the connection's), before a call is refused with MQRC_Q_MGR_STOPPING."""

    def __init__(self, store: StateStore, on_stopping: Callable[[], None]) -> None:
        self._store = store
        self._on_stopping = on_stopping

    def current(self) -> RunState:
        return RunState.of(self._store.run_state())

    def check(self, fail_if_quiescing: int | bool = False) -> None:
        """Raise the reason a call gets in the current state (2161, 2162), if any."""
        value = self._store.run_state()
        if value is None:  # the hot path: running
            return
        reason = call_error(RunState.of(value), bool(fail_if_quiescing))
        if reason is None:
            return
        if reason == C.MQRC_Q_MGR_STOPPING:
            self._on_stopping()
        raise fail(reason)

    def check_connect(self) -> None:
        """MQCONN: refused while the queue manager quiesces or ends."""
        reason = connect_error(self.current())
        if reason is not None:
            raise fail(reason)


def end_queue_manager(store: StateStore, immediate: bool = False) -> RunState:
    """endmqm -c (quiesce) or -i (immediate). An immediate end is not softened by a
    later quiesce: the queue manager stays ending until strmqm."""
    now = RunState.of(store.run_state())
    state = RunState.ENDING_IMMEDIATELY if immediate else RunState.QUIESCING
    if now is RunState.ENDING_IMMEDIATELY:
        state = now
    store.set_run_state(state.value)
    log.warning("queue manager run state: %s", state.value)
    return state


def start_queue_manager(store: StateStore) -> None:
    """strmqm: running again; new connections are accepted."""
    store.set_run_state(None)
    # Queue statistics (DISPLAY QSTATUS's times, RESET QSTATS's counts) are "since the
    # queue manager started": they start again (adapter/core/qstats.py).
    queues = store.restart_stats()
    log.warning(
        "queue manager run state: %s (statistics of %d queues restarted)",
        RunState.RUNNING.value,
        queues,
    )
