"""QueueReader.low_watermarks (the offsets below which a lane is all consumed, raised
in the state every ADVANCE_EVERY gets) answers from per-lane heaps instead of scanning
the view: it must give exactly what the scan gives, whatever order messages leave and
come back in (a backed-out or prefetched message is taken back at its old offset)."""

from __future__ import annotations

import itertools

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import adapter.pymqi as pymqi
from adapter.shim.store import lane

C = pymqi.CMQC
_NAMES = itertools.count()


def _scanned(reader) -> dict[str, int]:
    """The definition: the read position, lowered by every item still in the view and
    every record set aside for the dead-letter queue."""
    lows = dict(reader.position)
    for ln, low in reader.corrupt.lows().items():
        lows[ln] = min(lows.get(ln, low), low)
    for item in reader.view:
        ln = lane(item.key[0], item.key[1])
        lows[ln] = min(lows.get(ln, item.key[2]), item.key[2])
    return lows


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    priorities=st.lists(st.integers(0, 9), min_size=1, max_size=40),
    steps=st.lists(st.tuples(st.booleans(), st.integers(0, 10_000)), max_size=120),
    compact=st.booleans(),
)
def test_heap_lows_equal_the_scan(world, priorities, steps, compact) -> None:
    qm = world.connect("QM.LOWS")
    name = f"Q.LOWS.{next(_NAMES)}"  # the world lives through every example
    qm.define_queue(name)
    q = pymqi.Queue(qm, name, C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    for prio in priorities:
        q.put(b"m", pymqi.MD(Priority=prio), pymqi.PMO(Options=C.MQPMO_NO_SYNCPOINT))
    reader = q.get_handle().getter.reader
    reader.catch_up()
    gone: list = []  # (item, envelope) taken out of the view, in order
    for take_back, pick in steps:
        if take_back and gone:
            item, env = gone.pop(pick % len(gone))
            reader.take_back(item, env)
        else:
            items = list(reader.view)
            if not items:
                continue
            item = items[pick % len(items)]
            gone.append((item, reader.envelopes[item.key]))
            reader.forget(item.key)
        if compact:
            reader._rebuild_offsets()
        assert reader.low_watermarks() == _scanned(reader)
    q.close()
    qm.disconnect()
