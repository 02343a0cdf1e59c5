"""The ack log: a queue's durable record of consumption (owner of its record format).

Topic `mqk.<QM>.<Q>.acks`, one partition. A record says "these offsets of this lane
left the queue": key = the lane ('priority.partition'), value = JSON {"c": [offsets]}.
Consumption outside a unit of work is batched by the pump; under syncpoint the records
are written inside the unit of work's Kafka transaction, so read_committed readers (the
reconciler and the rebuild) never count a consumption whose unit of work backed out.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from adapter.shim import naming
from adapter.shim.log import Log, read_range
from adapter.shim.store import lane

Record = tuple[str, bytes, bytes]  # (topic, key, value): what a producer sends


def encode(offsets: list[int]) -> bytes:
    return json.dumps({"c": offsets}, separators=(",", ":")).encode()


def decode(value: bytes) -> list[int]:
    return json.loads(value)["c"]


def by_lane(keys: Iterable[tuple[int, int, int]]) -> dict[str, list[int]]:
    """Candidates grouped as the ack log records them."""
    out: dict[str, list[int]] = {}
    for prio, part, off in keys:
        out.setdefault(lane(prio, part), []).append(off)
    return out


def records(qmgr: str, queue: str, offsets_by_lane: dict[str, list[int]]) -> list[Record]:
    topic = naming.ack_topic(qmgr, queue)
    return [(topic, ln.encode(), encode(offs)) for ln, offs in offsets_by_lane.items() if offs]


def read(log: Log, qmgr: str, queue: str, start: int, end: int) -> dict[str, set[int]]:
    """Consumed offsets per lane in ack-log records [start, end), read_committed."""
    consumed: dict[str, set[int]] = {}

    def on_record(msg) -> None:
        consumed.setdefault(msg.key().decode(), set()).update(decode(msg.value()))

    read_range(log, {(naming.ack_topic(qmgr, queue), 0): (start, end)}, on_record)
    return consumed


def ends(log: Log, qmgr: str, queue: str) -> tuple[int, int]:
    """(last stable offset, high watermark) of the ack log: they differ while a unit
    of work that consumed from this queue is still undecided."""
    tp = (naming.ack_topic(qmgr, queue), 0)
    lso = log.end_offsets([tp], committed=True)[tp]
    hw = log.end_offsets([tp], committed=False)[tp]
    return lso, hw
