"""The incremental subscription index on the in-memory backends: the scenario of
tests/integration/test_subscription_index.py, a property test (any sequence of
creations, alterations and removals leaves the index matching what a full read says,
with no full read), and a reader too far behind the change log rebuilding."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import adapter.pymqi as pymqi
from adapter.shim import memory_store
from tests.integration.test_subscription_index import *  # noqa: F403
from tests.integration.test_subscription_index import TOPICS, reference, sub_def

_PATTERNS = st.sampled_from(["a/#", "a/+", "a/b", "#", "x/y", "+/c", "a/b/c"])
_OPS = st.lists(
    st.tuples(st.sampled_from(["put", "remove"]), st.integers(0, 7), _PATTERNS), max_size=25
)


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(ops=_OPS)
def test_any_sequence_of_changes_matches_a_full_read(qmgr, qmgr_name, ops):
    writer = qmgr.get_handle().subs
    other = pymqi.connect(qmgr_name)
    try:
        reader = other.get_handle().subs
        reader.matching("a/b")  # holds a version from here on
        start = reader.rebuilds
        for op, n, pattern in ops:
            sd = sub_def(f"P.{n}", pattern)
            writer.put(sd) if op == "put" else writer.remove(sd)
            topic = TOPICS[n % len(TOPICS)]
            assert [s.key for s in reader.matching(topic)] == reference(reader, topic)
        assert reader.rebuilds == start
    finally:
        for n in range(8):
            writer.remove(sub_def(f"P.{n}", "#"))
        other.disconnect()


def test_a_reader_behind_the_log_rebuilds(qmgr, qmgr_name, monkeypatch):
    monkeypatch.setattr(memory_store, "SUB_CHANGES_KEPT", 5)
    writer = qmgr.get_handle().subs
    other = pymqi.connect(qmgr_name)
    try:
        reader = other.get_handle().subs
        reader.matching("a/b")
        start = reader.rebuilds
        for i in range(12):
            writer.put(sub_def(f"GAP.{i}", "a/#"))
        assert len(reader.matching("a/b")) == 12
        assert reader.rebuilds == start + 1
    finally:
        other.disconnect()
