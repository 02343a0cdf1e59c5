"""An open queue (MQOPEN's object handle): the state MQ keeps per handle, with MQPUT,
MQGET and read-ahead in their own modules (put.py, get.py, readahead.py)."""

from __future__ import annotations

import threading
from collections import deque

from adapter.core import cmqc as C
from adapter.core import getrules as gr
from adapter.core.model import Item
from adapter.core.putrules import PutCursor, close_outcome
from adapter.shim import naming
from adapter.shim.catalog import QueueDef
from adapter.shim.connection import Connection
from adapter.shim.get import INPUT, Getting
from adapter.shim.put import Putting
from adapter.shim.readahead import ReadAhead
from adapter.shim.reader import QueueReader


class QueueHandle(Putting, Getting, ReadAhead):
    """MQOPEN's object handle: put/get state and cursors of one open queue."""

    def __init__(self, conn: Connection, qdef: QueueDef, options: int) -> None:
        self.conn = conn
        self.qdef = qdef
        self.name = qdef.name
        self.options = options
        self.handle_id = conn.new_handle_id()
        self.state = conn.state(qdef.name)
        # Topic names escape MQ names character by character: once per handle, not per put.
        self._topics = [naming.data_topic(conn.qmgr, qdef.name, p) for p in naming.PRIORITIES]
        self.put_cursor = PutCursor()
        self.get_cursor = gr.GetCursor()
        self.browse_cursor = gr.GetCursor()
        self._reader: QueueReader | None = None
        self._locked: str | None = None  # candidate locked by BROWSE + MQGMO_LOCK
        self._forgotten = 0
        self._depth_cache = (0, 0.0)
        # MQOO_READ_AHEAD / DEFREADA: non-persistent messages consumed ahead of the gets.
        # As in MQ, they are never delivered twice and may be lost if the process dies.
        self.read_ahead = bool(options & C.MQOO_READ_AHEAD) or (
            qdef.def_read_ahead and not options & C.MQOO_NO_READ_AHEAD
        )
        self._ahead: deque[Item] = deque()
        self._buffered: dict = {}
        # Syncpoint read-ahead: messages locked for the current unit of work, not yet got.
        self._uow_ahead: deque = deque()  # envelopes of the read-ahead buffer
        self._lock = threading.Lock()
        kinds = []
        if options & INPUT:
            kinds.append("input")
        if options & C.MQOO_OUTPUT:
            kinds.append("output")
        if options & C.MQOO_BROWSE:
            kinds.append("browse")
        if kinds:
            self.state.register_open(self.handle_id, ",".join(kinds))

    # ------------------------------------------------------------------ put

    def forget_prefetched(self) -> None:
        self._uow_ahead.clear()

    def take_back(self, item: Item, env: dict) -> None:
        """MQBACK: a message this handle got under syncpoint is on the queue again, in
        its original position."""
        if self._reader is not None and item.key not in self._reader.envelopes:
            self._reader.envelopes[item.key] = env
            self._reader.view.add(item)

    def close(self) -> tuple[int, int]:
        """MQCLOSE: the Table 2 outcome for an unterminated group or logical message."""
        outcome = close_outcome(self.put_cursor)
        if outcome[0] == C.MQCC_OK:
            outcome = gr.close_outcome(self.get_cursor)
        self._unlock()
        self._give_back()
        if self._reader is not None:
            if self._forgotten:
                self._advance_watermarks()
            self._reader.close()
            self._reader = None
        self.state.unregister_open(self.handle_id)
        return outcome
