"""The topic-attribute scenarios of tests/integration/test_pubsub_admin.py on the
in-memory backends (tests/unit/conftest.py)."""

from __future__ import annotations

import adapter.pymqi as pymqi
from tests.integration.test_pubsub_admin import *  # noqa: F403
from tests.integration.test_pubsub_admin import _fails


def test_topic_attributes_survive_a_loss_of_the_store(world, qmgr, qmgr_name):
    """Redis restarted empty: the topic tree comes back from the catalog topic, so a
    PUB(DISABLED) topic object still refuses publications."""
    cmqc = pymqi.CMQC
    qmgr.define_topic("LOST", "lost", inhibit_pub=cmqc.MQTA_PUB_INHIBITED)
    qmgr.disconnect()
    world.server.flushall()
    qm = pymqi.connect(qmgr_name)
    try:
        topic = pymqi.Topic(qm, topic_string="lost/x")
        _fails(lambda: topic.pub(b"no"), cmqc.MQRC_PUT_INHIBITED)
        qm.alter_topic("LOST", inhibit_pub=cmqc.MQTA_PUB_ALLOWED)
        topic.pub(b"yes")
    finally:
        qm.disconnect()
