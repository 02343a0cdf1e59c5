"""PCF topic commands (adapter/pymqi/pcftopic.py) on the real stack;
tests/unit/test_pcf_topic_memory.py runs them on the in-memory backends:
CREATE / CHANGE / DELETE / INQUIRE_TOPIC and INQUIRE_TOPIC_NAMES, what they change seen
by a publication and by MQSC, and their failures."""

from __future__ import annotations

import pytest

import adapter.pymqi as pymqi
from adapter.tools import mqsc
from tests.integration.test_pubsub import _drain, _sub

C, F = pymqi.CMQC, pymqi.CMQCFC


@pytest.fixture
def pcf(qmgr):
    p = pymqi.PCFExecute(qmgr)
    yield p
    p.disconnect()


def reason_of(call, *args) -> int:
    with pytest.raises(pymqi.MQMIError) as exc:
        call(*args)
    return exc.value.reason


def test_create_inquire_change_delete_topic(pcf, qmgr, qmgr_name):
    create = {C.MQCA_TOPIC_NAME: b"PCF.T", C.MQCA_TOPIC_STRING: b"pcf/t",
              C.MQCA_TOPIC_DESC: b"made by PCF", C.MQIA_DEF_PRIORITY: 7,
              C.MQIA_INHIBIT_PUB: C.MQTA_PUB_INHIBITED}  # fmt: skip
    assert pcf.MQCMD_CREATE_TOPIC(create) == []
    assert reason_of(pcf.MQCMD_CREATE_TOPIC, create) == F.MQRCCF_OBJECT_ALREADY_EXISTS
    [t] = pcf.MQCMD_INQUIRE_TOPIC({C.MQCA_TOPIC_NAME: b"PCF.T"})
    assert t[C.MQCA_TOPIC_NAME] == b"PCF.T".ljust(48)
    assert t[C.MQCA_TOPIC_STRING] == b"pcf/t" and t[C.MQIA_TOPIC_TYPE] == C.MQTOPT_LOCAL
    assert t[C.MQCA_TOPIC_DESC].rstrip() == b"made by PCF"
    assert t[C.MQIA_DEF_PRIORITY] == 7 and t[C.MQIA_INHIBIT_PUB] == C.MQTA_PUB_INHIBITED
    assert t[C.MQIA_INHIBIT_SUB] == C.MQTA_SUB_AS_PARENT
    assert t[C.MQIA_TOPIC_DEF_PERSISTENCE] == C.MQPER_PERSISTENCE_AS_PARENT
    assert t[C.MQIA_WILDCARD_OPERATION] == C.MQTA_PASSTHRU
    assert t[C.MQCA_MODEL_DURABLE_Q] == b" " * 48
    assert len(t[C.MQCA_ALTERATION_DATE]) == 12

    with pytest.raises(pymqi.MQMIError) as exc:
        pymqi.Topic(qmgr, topic_name="PCF.T").pub(b"no")
    assert exc.value.reason == C.MQRC_PUT_INHIBITED
    change = {C.MQCA_TOPIC_NAME: b"PCF.T", C.MQIA_INHIBIT_PUB: C.MQTA_PUB_ALLOWED}
    assert pcf.MQCMD_CHANGE_TOPIC(change) == []
    sub = _sub(qmgr, "pcf/t", PubPriority=C.MQPRI_PRIORITY_AS_PUBLISHED)
    pymqi.Topic(qmgr, topic_name="PCF.T").pub(b"yes")
    assert [(m, md.Priority) for m, md in _drain(sub)] == [(b"yes", 7)]
    sub.close(close_sub_queue=True)

    out: list[str] = []
    assert mqsc.run(qmgr, qmgr_name, ["DISPLAY TOPIC(PCF.T) PUB DEFPRTY\n"], out.append) == 0
    assert "PUB(ENABLED)" in " ".join(out) and "DEFPRTY(7)" in " ".join(out)

    only = pcf.MQCMD_INQUIRE_TOPIC(
        {C.MQCA_TOPIC_NAME: b"PCF.*", F.MQIACF_TOPIC_ATTRS: [C.MQIA_INHIBIT_PUB]}
    )
    assert only == [{C.MQCA_TOPIC_NAME: b"PCF.T".ljust(48), C.MQIA_INHIBIT_PUB: 2}]
    [names] = pcf.MQCMD_INQUIRE_TOPIC_NAMES({C.MQCA_TOPIC_NAME: b"*"})
    assert b"PCF.T".ljust(48) in names[F.MQCACF_TOPIC_NAMES]
    assert b"SYSTEM.BASE.TOPIC".ljust(48) in names[F.MQCACF_TOPIC_NAMES]

    assert pcf.MQCMD_DELETE_TOPIC({C.MQCA_TOPIC_NAME: b"PCF.T"}) == []
    assert reason_of(pcf.MQCMD_INQUIRE_TOPIC, {C.MQCA_TOPIC_NAME: b"PCF.T"}) == 2085
    assert reason_of(pcf.MQCMD_DELETE_TOPIC, {C.MQCA_TOPIC_NAME: b"PCF.T"}) == 2085


def test_topic_command_failures(pcf):
    name = {C.MQCA_TOPIC_NAME: b"PCF.F"}
    assert reason_of(pcf.MQCMD_CREATE_TOPIC, name) == F.MQRCCF_PARM_COUNT_TOO_SMALL
    full = {**name, C.MQCA_TOPIC_STRING: b"pcf/f"}
    bad = {**full, C.MQIA_DEF_PRIORITY: 12}
    assert reason_of(pcf.MQCMD_CREATE_TOPIC, bad) == F.MQRCCF_ATTR_VALUE_ERROR
    bad = {**full, C.MQIA_INHIBIT_PUB: 9}
    assert reason_of(pcf.MQCMD_CREATE_TOPIC, bad) == F.MQRCCF_ATTR_VALUE_ERROR
    unknown = {**full, C.MQIA_MAX_Q_DEPTH: 5}  # a queue attribute
    assert reason_of(pcf.MQCMD_CREATE_TOPIC, unknown) == F.MQRCCF_CFIN_PARM_ID_ERROR
    pcf.MQCMD_CREATE_TOPIC(full)
    moved = {**name, C.MQCA_TOPIC_STRING: b"elsewhere"}
    assert reason_of(pcf.MQCMD_CHANGE_TOPIC, moved) == F.MQRCCF_CFST_PARM_ID_ERROR
    absent = {C.MQCA_TOPIC_NAME: b"NO.SUCH", C.MQIA_DEF_PRIORITY: 1}
    assert reason_of(pcf.MQCMD_CHANGE_TOPIC, absent) == C.MQRC_UNKNOWN_OBJECT_NAME
    asked = {**name, F.MQIACF_TOPIC_ATTRS: [C.MQIA_MAX_Q_DEPTH]}
    assert reason_of(pcf.MQCMD_INQUIRE_TOPIC, asked) == F.MQRCCF_CFIL_PARM_ID_ERROR
