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


def test_durable_subscriptions_and_retained_survive_a_loss_of_the_store(world, qmgr, qmgr_name):
    """Redis restarted empty: the durable subscription comes back from the catalog
    topic, the retained publication from the compacted _retained topic."""
    durable = C.MQSO_DURABLE | C.MQSO_MANAGED
    sub = _sub(qmgr, "loss/#", C.MQSO_CREATE | durable, "LOSS.1")
    sub.close(C.MQCO_KEEP_SUB, close_sub_queue=True)
    pymqi.Topic(qmgr, topic_string="loss/r").pub(
        b"kept", pymqi.MD(), pymqi.PMO(Options=C.MQPMO_RETAIN)
    )
    qmgr.disconnect()
    world.server.flushall()
    qm = pymqi.connect(qmgr_name)
    try:
        assert [s.name for s in qm.get_handle().subs.matching("loss/x")] == ["LOSS.1"]
        fresh = _sub(qm, "loss/r")
        assert fresh.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_NO_WAIT)) == b"kept"
        fresh.close(close_sub_queue=True)
    finally:
        qm.disconnect()


def test_retained_under_syncpoint_follows_the_outcome(qmgr):
    topic = pymqi.Topic(qmgr, topic_string="rs/t")
    pmo = pymqi.PMO(Options=C.MQPMO_SYNCPOINT | C.MQPMO_RETAIN)
    topic.pub(b"backed out", pymqi.MD(), pmo)
    qmgr.backout()
    assert qmgr.get_handle().pubsub.publisher.state.retained_get("rs/t") is None
    topic.pub(b"committed", pymqi.MD(), pymqi.PMO(Options=C.MQPMO_SYNCPOINT | C.MQPMO_RETAIN))
    assert qmgr.get_handle().pubsub.publisher.state.retained_get("rs/t") is None
    qmgr.commit()
    sub = _sub(qmgr, "rs/t")
    assert sub.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_NO_WAIT)) == b"committed"
    sub.close(close_sub_queue=True)


def test_an_open_subscription_lost_by_the_store_is_registered_again(world, qmgr):
    sub = _sub(qmgr, "heal/t")
    world.server.flushall()  # Redis restarted empty while the subscriber runs
    conn = qmgr.get_handle()
    world.clock.advance(config.OPEN_LEASE_MS / 1000)
    conn._tick()  # the pump's renewal
    pymqi.Topic(qmgr, topic_string="heal/t").pub(b"still wanted")
    assert sub.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_NO_WAIT)) == b"still wanted"
