"""The publish/subscribe scenarios of tests/integration/test_pubsub.py on the in-memory
backends (tests/unit/conftest.py), plus what only a manual clock can show: a
non-durable subscription whose process died is swept when its lease runs out."""

from __future__ import annotations

import adapter.pymqi as pymqi
from adapter import config
from tests.integration.test_pubsub import *  # noqa: F403
from tests.integration.test_pubsub import _sub

C = pymqi.CMQC


def test_dead_non_durable_subscription_is_swept(world, qmgr, qmgr_name):
    sub = _sub(qmgr, "dead/t")
    queue_name = sub.get_sub_queue().get_handle().name
    # The process dies: no MQCLOSE, no MQDISC, its pump renews nothing any more.
    qmgr.get_handle().pump.stop()
    world.clock.advance(config.OPEN_LEASE_MS / 1000 + 1)
    survivor = pymqi.connect(qmgr_name)  # MQCONN sweeps
    try:
        assert survivor.get_handle().subs.matching("dead/t") == []
        assert survivor.get_handle().lookup_queue(queue_name, refresh=True) is None
        pymqi.Topic(survivor, topic_string="dead/t").pub(b"x")
    finally:
        survivor.disconnect()
    assert sub.get_sub_queue() is not None
