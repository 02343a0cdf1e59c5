"""The publishers' subscription index follows changes incrementally (the store's change
log, shim/subscriptions.py) on the real stack; tests/unit/test_subscription_index_memory.py
runs it on the in-memory backends with a property test besides."""

from __future__ import annotations

import adapter.pymqi as pymqi
from adapter.shim.subscriptions import SubDef

C = pymqi.CMQC
TOPICS = ("a/b", "a/c", "x/y", "a/b/c")


def sub_def(key: str, pattern: str) -> SubDef:
    return SubDef(key=key, name=key, topic=pattern, wildcard="topic", durable=False,
                  managed=False, queue="Q", correl_id="00" * 24)  # fmt: skip


def reference(subs, topic: str) -> list[str]:
    """What a full read of every subscription says."""
    fresh = type(subs)(subs.qmgr, subs.catalog.store, subs.catalog, subs.clock)
    return [sd.key for sd in fresh.matching(topic)]


def test_changes_reach_the_index_without_rereading_everything(qmgr, qmgr_name):
    writer = qmgr.get_handle().subs
    other = pymqi.connect(qmgr_name)
    try:
        reader = other.get_handle().subs
        for i in range(50):
            writer.put(sub_def(f"IDX.{i:02d}", ("a/#", "a/+", "x/y", "a/b/c")[i % 4]))
        reader.matching("a/b")
        start = reader.rebuilds
        writer.put(sub_def("IDX.NEW", "a/c"))
        writer.remove(sub_def("IDX.00", "a/#"))
        writer.put(sub_def("IDX.01", "x/#"))  # altered: its topic moved
        for topic in TOPICS:
            assert [sd.key for sd in reader.matching(topic)] == reference(reader, topic)
        assert "IDX.NEW" in [sd.key for sd in reader.matching("a/c")]
        assert "IDX.00" not in [sd.key for sd in reader.matching("a/b")]
        assert reader.rebuilds == start  # three changes: no full read
    finally:
        other.disconnect()
