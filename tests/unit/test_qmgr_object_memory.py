"""The queue manager object (ALTER QMGR / DISPLAY QMGR / MQINQ on the queue manager) on
the in-memory backends: MQ's defaults, ALTER seen by every other connection on its next
call, durable in Kafka when the state store lost its cache, MQSC's value ranges, and the
catalog keeping the object out of the queue names."""

from __future__ import annotations

import pytest

import adapter.pymqi as pymqi
from adapter import cli
from adapter.shim.qmgrdef import QMGR_KEY, QMgrDef
from tests.integration.conftest import mqerror

C = pymqi.CMQC


def test_defaults_are_mqs(qmgr) -> None:
    assert qmgr.inquire(C.MQIA_MAX_HANDLES) == 256
    assert qmgr.inquire(C.MQIA_MAX_UNCOMMITTED_MSGS) == 10_000
    assert qmgr.inquire(C.MQIA_MAX_MSG_LENGTH) == 4 * 1024 * 1024
    assert qmgr.inquire(C.MQIA_MAX_PRIORITY) == 9
    assert qmgr.inquire(C.MQIA_SYNCPOINT) == C.MQSP_AVAILABLE
    assert qmgr.inquire(C.MQCA_DEAD_LETTER_Q_NAME) == b" " * 48
    assert qmgr.inquire(C.MQCA_Q_MGR_DESC) == b" " * 64


def test_inquire_of_a_queue_attribute_is_a_selector_error(qmgr) -> None:
    with pytest.raises(pymqi.MQMIError) as exc:
        qmgr.inquire(C.MQIA_CURRENT_Q_DEPTH)
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_SELECTOR_ERROR)


def test_alter_is_seen_by_another_connection_at_once(world, qmgr, qmgr_name) -> None:
    other = pymqi.connect(qmgr_name)
    try:
        assert other.inquire(C.MQIA_MAX_UNCOMMITTED_MSGS) == 10_000  # cached there now
        qmgr.alter_qmgr(dead_letter_q="MY.DLQ", max_uncommitted_msgs=50)
        assert other.inquire(C.MQIA_MAX_UNCOMMITTED_MSGS) == 50
        assert other.inquire(C.MQCA_DEAD_LETTER_Q_NAME) == b"MY.DLQ".ljust(48)
        # attributes not named keep their values
        assert other.inquire(C.MQIA_MAX_HANDLES) == 256
    finally:
        other.disconnect()


def test_alter_survives_the_loss_of_the_state_store(world, qmgr, qmgr_name) -> None:
    qmgr.alter_qmgr(max_handles=7, description="payments")
    world.server.__init__()  # Redis lost everything: the object is read back from Kafka
    again = pymqi.connect(qmgr_name)
    try:
        assert again.inquire(C.MQIA_MAX_HANDLES) == 7
        assert again.inquire(C.MQCA_Q_MGR_DESC) == b"payments".ljust(64)
    finally:
        again.disconnect()


@pytest.mark.parametrize(
    "changes",
    [
        {"max_handles": -1},
        {"max_uncommitted_msgs": 0},
        {"max_msg_length": 32_767},
        {"max_msg_length": 104_857_601},
        {"dead_letter_q": "Q" * 49},
        {"description": "d" * 65},
        {"no_such_attribute": 1},
    ],
)
def test_alter_refuses_what_mqsc_refuses(qmgr, changes) -> None:
    with pytest.raises(ValueError):
        qmgr.alter_qmgr(**changes)
    assert qmgr.get_handle().qmgr_def() == QMgrDef()  # nothing changed


def test_the_object_is_not_a_queue(qmgr) -> None:
    qmgr.alter_qmgr(max_handles=9)
    qmgr.define_queue("Q1")
    assert qmgr.get_handle().catalog.names() == ["Q1"]
    assert QMGR_KEY not in qmgr.get_handle().catalog.read_topic()


def test_cli_alters_and_displays_in_runmqsc_words(world, qmgr_name, capsys) -> None:
    assert cli.main(["qmgr", qmgr_name, "--deadq", "DLQ", "--maxumsgs", "20"]) == 0
    out = capsys.readouterr().out
    assert "AMQ8005I: IBM MQ queue manager changed." in out
    assert f"QMNAME({qmgr_name}) DEADQ(DLQ)" in out and "MAXUMSGS(20)" in out
    assert cli.main(["qmgr", qmgr_name, "--maxmsgl", "10"]) == 2
    assert "MAXMSGL" in capsys.readouterr().err
