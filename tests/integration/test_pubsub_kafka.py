"""Publish/subscribe facts only the real stack shows: the `mqk.<QM>._pub` topic a
Kafka-native service reads (key = the full topic string, header `mqk.topic`, the
publication's properties as headers, only committed publications), the compacted
`_retained` topic, and the non-durable subscription of a SIGKILLed process, removed with
its managed queue by the next connection once its lease ran out."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import adapter.pymqi as pymqi
from adapter.shim import naming
from tests.integration.conftest import mqerror
from tests.integration.test_kafka_headers import consume_all

pytestmark = pytest.mark.integration
C = pymqi.CMQC


def test_pub_topic_for_kafka_native_consumers(qmgr, qmgr_name, kafka_bootstrap):
    sub = pymqi.Subscription(qmgr)
    sub.sub(topic_string="k/#")
    topic = pymqi.Topic(qmgr, topic_string="k/a")
    topic.pub(b"p1")
    topic.pub(b"backed out", pymqi.MD(), pymqi.PMO(Options=C.MQPMO_SYNCPOINT))
    qmgr.backout()
    pymqi.Topic(qmgr, topic_string="k/b").pub(b"p2", pymqi.MD(), pymqi.PMO(Options=C.MQPMO_RETAIN))
    recs = consume_all(kafka_bootstrap, naming.pub_topic(qmgr_name), 3, timeout=5)
    # read_committed (librdkafka's default): the backed-out publication is not there
    assert [(r.key(), dict(r.headers())["mqk.topic"]) for r in recs] == [
        (b"k/a", b"k/a"),
        (b"k/b", b"k/b"),
    ]
    [retained] = consume_all(kafka_bootstrap, naming.retained_topic(qmgr_name), 1)
    assert retained.key() == b"k/b"
    sub.close(close_sub_queue=True)


def test_killed_subscribers_non_durable_subscription_goes(qmgr, qmgr_name):
    subscriber = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(f"""
                import time, adapter.pymqi as pymqi
                qm = pymqi.connect({qmgr_name!r})
                sub = pymqi.Subscription(qm)
                sub.sub(topic_string="kill/t")
                print(sub.get_sub_queue().get_handle().name, flush=True)
                time.sleep(600)
            """),
        ],
        stdout=subprocess.PIPE,
        text=True,
        env=dict(os.environ, MQK_OPEN_LEASE_MS="3000"),
    )
    try:
        queue = subscriber.stdout.readline().strip()
        assert queue.startswith("SYSTEM.MANAGED.NDURABLE.")
        time.sleep(4)  # past one lease: the live subscriber renews it
        pymqi.connect(qmgr_name).disconnect()  # a connection starts and sweeps
        assert len(qmgr.get_handle().subs.matching("kill/t")) == 1
        pymqi.Topic(qmgr, topic_string="kill/t").pub(b"to the live one")
        subscriber.send_signal(signal.SIGKILL)
        subscriber.wait(30)
        time.sleep(3.5)  # its lease runs out
        pymqi.connect(qmgr_name).disconnect()
        assert qmgr.get_handle().subs.matching("kill/t") == []
        assert qmgr.get_handle().lookup_queue(queue, refresh=True) is None
        pmo = pymqi.PMO(Options=C.MQPMO_WARN_IF_NO_SUBS_MATCHED)
        with pytest.raises(pymqi.MQMIError) as exc:
            pymqi.Topic(qmgr, topic_string="kill/t").pub(b"nobody", pymqi.MD(), pmo)
        assert mqerror(exc) == (C.MQCC_WARNING, C.MQRC_NO_SUBS_MATCHED)
    finally:
        if subscriber.poll() is None:
            subscriber.kill()
