"""An asynchronous put the queue cannot take is reported, never silently dropped: it is
counted in the connection's MQSTAT(ASYNC_ERROR) figures with MQ's reason and the queue,
and logged (MQ reports asynchronous put failures only through MQSTAT)."""

from __future__ import annotations

import logging
import time

from confluent_kafka.admin import (
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
)

import adapter.pymqi as pymqi
from adapter import config
from adapter.shim import naming
from tests.integration.conftest import drain

C = pymqi.CMQC


def _shrink_topic(bootstrap: str, topic: str, max_bytes: int) -> None:
    """The broker now refuses records above max_bytes on the queue's topic."""
    admin = AdminClient(config.kafka_client(bootstrap))
    entry = ConfigEntry(
        "max.message.bytes", str(max_bytes), incremental_operation=AlterConfigOpType.SET
    )
    res = ConfigResource(ConfigResource.Type.TOPIC, topic, incremental_configs=[entry])
    for fut in admin.incremental_alter_configs([res]).values():
        fut.result(30)
    time.sleep(1.0)  # the broker applies topic configs asynchronously


def test_failed_async_put_is_counted_with_its_reason_and_logged(
    qmgr, kafka_bootstrap, caplog
) -> None:
    qmgr.define_queue("Q.ASYNCFAIL")
    conn = qmgr.get_handle()
    q = pymqi.Queue(qmgr, "Q.ASYNCFAIL", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    async_put = pymqi.PMO(Options=C.MQPMO_ASYNC_RESPONSE | C.MQPMO_NO_SYNCPOINT)
    q.put(b"fits", pymqi.MD(), async_put)
    _shrink_topic(kafka_bootstrap, naming.data_topic(qmgr.get_name(), "Q.ASYNCFAIL", 0), 2048)
    with caplog.at_level(logging.WARNING, logger="mqk"):
        q.put(b"x" * 200_000, pymqi.MD(), async_put)  # MQPUT itself completes: async
        conn.barrier()
        status = conn.async_status()
    assert (status.put_success, status.put_failure) == (1, 1)
    assert (status.comp, status.reason) == (C.MQCC_FAILED, C.MQRC_MSG_TOO_BIG_FOR_Q)
    assert status.object_name == "Q.ASYNCFAIL" and status.object_type == C.MQOT_Q
    assert any("Q.ASYNCFAIL" in r.getMessage() and "2030" in r.getMessage() for r in caplog.records)
    # MQSTAT resets the figures; the failed message is not on the queue, nor counted.
    assert conn.async_status().put_failure == 0
    assert [d for d, _ in drain(q)] == [b"fits"]
    assert qmgr.queue_status("Q.ASYNCFAIL")["current_depth"] == 0
