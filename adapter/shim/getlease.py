"""Get leases: destructive gets, in or outside a unit of work, without a Redis round trip each.

One claim locks a run of the handle's next candidates for a short lease (owner
`~<handle>`, store.LEASE_PREFIX). MQGET then hands out the run's messages one by one
from memory, each only when it is the first candidate of the handle's selection (so a
higher-priority message that arrived meanwhile still comes first), and sends its
consumption marker write-behind (store.settle_leased; writebehind.py says why a marker
sent before MQGET returns is applied even if the process dies at once). A get in a unit
of work is served the same way: its marker hands the message's lock over to the unit of
work instead (which commits its consumption or backs it out as for any syncpoint get).
Hence:

* each message still goes to exactly one getter: the others see the run locked;
* a getter killed after MQGET returned never gets the message again: its marker is in
  Redis; the rest of its run is free again when the lease runs out, with nothing to
  reconcile (a run-out lease lock counts as free);
* a message is handed out only in the first half of its lease, so the marker reaches
  Redis long before another getter could take the message over;
* competing getters share a queue: only a handle getting in a burst (gets less than
  GET_LEASE_IDLE_MS apart) leases; a run is at most GET_LEASE_BATCH messages (others
  pass over it to the next free ones), it grows only while the handle uses up its runs
  and shrinks when it does not; the connection's pump gives back the run of a handle
  that stopped getting for GET_LEASE_IDLE_MS, and MQCLOSE or any get this path does not
  serve gives it back at once (a lease that outlives its process runs out by itself).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from adapter import config
from adapter.core import cmqc as C
from adapter.core import getrules as gr
from adapter.core.model import Item
from adapter.shim.clock import Clock
from adapter.shim.store import LEASE_PREFIX, QueueState

log = logging.getLogger("mqk.shim.getlease")

Key = tuple[int, int, int]

# Options whose gets take something else than the next message as it is.
_NOT_SERVED = (
    C.MQGMO_BROWSE_FIRST
    | C.MQGMO_BROWSE_NEXT
    | C.MQGMO_BROWSE_MSG_UNDER_CURSOR
    | C.MQGMO_MSG_UNDER_CURSOR
    | C.MQGMO_COMPLETE_MSG
    | C.MQGMO_ALL_MSGS_AVAILABLE
    | C.MQGMO_ALL_SEGMENTS_AVAILABLE
    | C.MQGMO_LOCK
    | C.MQGMO_UNLOCK
    | C.MQGMO_MARK_SKIP_BACKOUT
)
_MIN_RUN = 2


class GetLease:
    """The leased run of one open queue handle."""

    def __init__(self, state: QueueState, handle_id: str, clock: Clock) -> None:
        self.state = state
        self.owner = LEASE_PREFIX + handle_id
        self.clock = clock
        self.enabled = config.GET_LEASE_BATCH > 0
        self._held: dict[Key, tuple[int, float]] = {}  # key -> (BackoutCount, hand out by)
        self._size = _MIN_RUN
        self._handed = 0  # handed out from the current run
        self._last = -1e9  # monotonic time of the handle's last get this path served
        self._epoch: str | None = None  # the state's epoch when the run was locked
        # take() runs on the application's thread, release_idle() on the pump's.
        self._lock = threading.Lock()
        self.on_held: Callable[[GetLease], None] = lambda lease: None

    @property
    def held(self) -> bool:
        return bool(self._held)

    def holds(self, key: Key) -> bool:
        return key in self._held

    def serves(self, req: gr.GetRequest) -> bool:
        """A plain destructive get of the next message in physical or logical order."""
        return (
            self.enabled
            and (req.in_physical_order or req.in_plain_logical_order)
            and not req.options & _NOT_SERVED
        )

    def take(
        self,
        batch: list[Item],
        req: gr.GetRequest,
        max_length: int | None,
        stats: str,
        forget: Callable[[Key], None],
        uow_owner: Callable[[], str],
    ) -> tuple[Item, int] | None:
        """The message this get returns and its added BackoutCount: consumed, or for a
        get in a unit of work locked for it (`uow_owner()`, which begins it), either
        write-behind; None: the caller claims the usual way. `batch`: the handle's next
        candidates in order (in logical order, the messages its next gets take: only the
        first may be handed out, getrules.logical_run); `forget` drops one found consumed
        by another."""
        with self._lock:
            return self._take(batch, req, max_length, stats, forget, uow_owner)

    def _take(self, batch, req, max_length, stats, forget, uow_owner):
        now = self.clock.monotonic()
        busy, self._last = now - self._last < config.GET_LEASE_IDLE_MS / 1000, now
        in_uow = bool(batch) and gr.get_in_uow(req, batch[0])
        if not busy or not batch or not self._fits(batch[0], req, max_length, in_uow):
            # The first get of a burst claims as usual: a lone get leases nothing that
            # another getter could then miss.
            self._release()
            return None
        to_owner = uow_owner() if in_uow else ""
        got = self._hand_out(batch[0], stats, to_owner)
        if got is not None:
            return batch[0], got
        run = [i for i in batch[: self._next_size()] if self._fits(i, req, max_length, in_uow)]
        claim = self.state.lock_many([i.key for i in run], self.owner, config.GET_LEASE_MS)
        until = self.clock.monotonic() + config.GET_LEASE_MS / 2000
        self._epoch = self.state.epoch_mark()
        for i, backout in zip(claim.taken, claim.backouts, strict=True):
            self._held[run[i].key] = (backout, until)
        if self._held:
            self.on_held(self)
        for i in claim.gone:
            forget(run[i].key)
        # The first one this handle now holds, in the selection's order; in logical
        # order only the next message itself (another getter's lock on it is a wait).
        for item in run[:1] if req.logical else run:
            got = self._hand_out(item, stats, to_owner)
            if got is not None:
                return item, got
        return None

    def _fits(self, item: Item, req: gr.GetRequest, max_length: int | None, in_uow: bool) -> bool:
        # One run is got one way (SYNCPOINT_IF_PERSISTENT decides per message), and one
        # that would be left on the queue as too long (2080 without
        # ACCEPT_TRUNCATED_MSG) is not ours.
        if gr.get_in_uow(req, item) != in_uow:
            return False
        return (
            max_length is None
            or item.length <= max_length
            or bool(req.options & C.MQGMO_ACCEPT_TRUNCATED_MSG)
        )

    def _next_size(self) -> int:
        """Grow the run while the handle uses its runs up, shrink it when it does not."""
        if self._handed >= self._size:
            self._size = min(config.GET_LEASE_BATCH, self._size * 2)
        elif self._handed < self._size // 2:
            self._size = max(_MIN_RUN, self._size // 2)
        self._handed = 0
        return self._size

    def _hand_out(self, item: Item, stats: str, to_owner: str) -> int | None:
        held = self._held.pop(item.key, None)
        if held is None:
            return None
        backout, until = held
        if self.clock.monotonic() > until:
            return None  # too near the lease's end to be sure no one else takes it
        if self.state.epoch_mark(in_call=True) != self._epoch:
            self._held.clear()  # the state was lost, and the run's locks with it
            return None
        lease_ms = config.LEASE_MS if to_owner else 0
        self.state.settle_leased([item.key], self.owner, stats, to_owner, lease_ms)
        self._handed += 1
        return backout

    def forget(self, keys: list[Key]) -> None:
        """Release the lease on `keys` (e.g. expired ones this handle will discard)."""
        with self._lock:
            mine = [k for k in keys if self._held.pop(k, None) is not None]
            if mine:
                self.state.release(mine, self.owner)

    def release(self) -> None:
        """Give the run back (MQCLOSE, or a get this path does not serve)."""
        with self._lock:
            self._release()

    def release_idle(self, now: float, leasing: set[GetLease]) -> None:
        """From the pump's tick: give back the run of a handle that stopped getting, so
        no other getter waits for it; off `leasing` once nothing is held (under the lock
        that on_held runs under, so a new run is never missed)."""
        if not self._lock.acquire(blocking=False):
            return  # a get is running: it is not idle
        try:
            if self._held and now - self._last >= config.GET_LEASE_IDLE_MS / 1000:
                self._release()
            if not self._held:
                leasing.discard(self)
        finally:
            self._lock.release()

    def _release(self) -> None:
        if self._held:
            keys = list(self._held)
            self._held.clear()
            self.state.release(keys, self.owner)

    def lost(self) -> None:
        """The state was lost and is being rebuilt: the locks went with it."""
        with self._lock:
            self._held.clear()
