"""PCF subscription and topic-status commands (adapter/pymqi/pcfsub.py) on the real
stack; tests/unit/test_pcf_sub_memory.py runs them on the in-memory backends."""

from __future__ import annotations

import pytest

import adapter.pymqi as pymqi
from tests.integration.test_pcf_topic import reason_of
from tests.integration.test_pubsub import _sd

C, F = pymqi.CMQC, pymqi.CMQCFC


@pytest.fixture
def pcf(qmgr):
    p = pymqi.PCFExecute(qmgr)
    yield p
    p.disconnect()


def test_create_inquire_status_delete_subscription(pcf, qmgr):
    qmgr.define_queue("PSUB.Q")
    create = {F.MQCACF_SUB_NAME: b"PSUB.1", C.MQCA_TOPIC_STRING: b"psub/#",
              F.MQCACF_DESTINATION: b"PSUB.Q", F.MQCACF_SUB_USER_DATA: b"ud",
              F.MQIACF_PUB_PRIORITY: 2}  # fmt: skip
    assert pcf.MQCMD_CREATE_SUBSCRIPTION(create) == []
    assert reason_of(pcf.MQCMD_CREATE_SUBSCRIPTION, create) == F.MQRCCF_OBJECT_ALREADY_EXISTS
    [s] = pcf.MQCMD_INQUIRE_SUBSCRIPTION({F.MQCACF_SUB_NAME: b"PSUB.*"})
    assert s[F.MQCACF_SUB_NAME] == b"PSUB.1" and s[C.MQCA_TOPIC_STRING] == b"psub/#"
    assert s[F.MQCACF_DESTINATION].rstrip() == b"PSUB.Q"
    assert s[F.MQIACF_SUB_TYPE] == C.MQSUBTYPE_ADMIN
    assert s[F.MQIACF_DURABLE_SUBSCRIPTION] == C.MQSUB_DURABLE_YES
    assert s[F.MQIACF_PUB_PRIORITY] == 2 and s[F.MQCACF_SUB_USER_DATA] == b"ud"
    assert len(s[F.MQBACF_SUB_ID]) == 24
    assert s[F.MQBACF_DESTINATION_CORREL_ID] == s[F.MQBACF_SUB_ID]

    topic = pymqi.Topic(qmgr, topic_string="psub/a")
    for i in range(3):
        topic.pub(b"m%d" % i)
    [st] = pcf.MQCMD_INQUIRE_SUB_STATUS({F.MQCACF_SUB_NAME: b"PSUB.1"})
    assert st[F.MQIACF_MESSAGE_COUNT] == 3 and st[F.MQCACF_LAST_MSG_DATE].strip()
    assert st[F.MQBACF_CONNECTION_ID] == b"\0" * 24

    # A wildcard names every node of the tree it matches: the subscription's own topic
    # string and the one published on.
    nodes = pcf.MQCMD_INQUIRE_TOPIC_STATUS({C.MQCA_TOPIC_STRING: b"psub/#"})
    by_topic = {n[C.MQCA_TOPIC_STRING]: n for n in nodes}
    assert sorted(by_topic) == [b"psub/#", b"psub/a"]
    ts = by_topic[b"psub/#"]
    assert ts[C.MQIA_SUB_COUNT] == 1 and by_topic[b"psub/a"][C.MQIA_PUB_COUNT] == 1
    assert ts[C.MQIA_INHIBIT_PUB] == C.MQTA_PUB_ALLOWED  # resolved from SYSTEM.BASE.TOPIC
    [pub] = pcf.MQCMD_INQUIRE_TOPIC_STATUS(
        {C.MQCA_TOPIC_STRING: b"psub/a", F.MQIACF_TOPIC_STATUS_TYPE: F.MQIACF_TOPIC_PUB}
    )
    assert pub[F.MQIACF_PUBLISH_COUNT] == 3
    [sub_st] = pcf.MQCMD_INQUIRE_TOPIC_STATUS(
        {C.MQCA_TOPIC_STRING: b"psub/#", F.MQIACF_TOPIC_STATUS_TYPE: F.MQIACF_TOPIC_SUB}
    )
    assert sub_st[F.MQIACF_MESSAGE_COUNT] == 3

    sub = pymqi.Subscription(qmgr)
    sub.sub(sub_desc=_sd("", C.MQSO_RESUME | C.MQSO_DURABLE, "PSUB.1"))
    name = {F.MQCACF_SUB_NAME: b"PSUB.1"}
    assert reason_of(pcf.MQCMD_DELETE_SUBSCRIPTION, name) == C.MQRC_SUBSCRIPTION_IN_USE
    sub.close(C.MQCO_KEEP_SUB)
    assert pcf.MQCMD_DELETE_SUBSCRIPTION(name) == []
    assert reason_of(pcf.MQCMD_INQUIRE_SUBSCRIPTION, name) == C.MQRC_UNKNOWN_OBJECT_NAME
    assert reason_of(pcf.MQCMD_DELETE_SUBSCRIPTION, name) == C.MQRC_UNKNOWN_OBJECT_NAME


def test_subscription_command_failures(pcf, qmgr):
    name = {F.MQCACF_SUB_NAME: b"PBAD.1"}
    assert reason_of(pcf.MQCMD_CREATE_SUBSCRIPTION, name) == F.MQRCCF_PARM_COUNT_TOO_SMALL
    no_dest = {**name, C.MQCA_TOPIC_STRING: b"x"}
    assert reason_of(pcf.MQCMD_CREATE_SUBSCRIPTION, no_dest) == F.MQRCCF_PARM_COUNT_TOO_SMALL
    managed = {**no_dest, F.MQIACF_DESTINATION_CLASS: C.MQDC_MANAGED}
    bad = {**managed, F.MQIACF_PUB_PRIORITY: 10}
    assert reason_of(pcf.MQCMD_CREATE_SUBSCRIPTION, bad) == F.MQRCCF_ATTR_VALUE_ERROR
    assert pcf.MQCMD_CREATE_SUBSCRIPTION(managed) == []
    [s] = pcf.MQCMD_INQUIRE_SUBSCRIPTION({**name, F.MQIACF_SUB_ATTRS: [F.MQIACF_DESTINATION_CLASS]})
    assert s[F.MQIACF_DESTINATION_CLASS] == C.MQDC_MANAGED and C.MQCA_TOPIC_STRING not in s
    assert pcf.MQCMD_DELETE_SUBSCRIPTION(name) == []
    absent = {C.MQCA_TOPIC_STRING: b"never/used"}
    assert reason_of(pcf.MQCMD_INQUIRE_TOPIC_STATUS, absent) == C.MQRC_UNKNOWN_OBJECT_NAME


def test_change_and_delete_a_subscription_by_its_sub_id(pcf, qmgr):
    """SubId (MQBACF_SUB_ID) selects the subscription when given in a dict: the face
    sends it as the MQCFBS it is, so every byte arrives (as an MQCFST, read as text,
    the bytes below were damaged and nothing was found); pymqi's ByteString and a CFBS
    structure do the same, an MQCFST for it is refused (3015)."""
    # SubIds whose bytes are no text: not UTF-8, a null inside.
    qmgr.get_handle().services._id_prefix = b"MQK \xff\xfe\x80\x00\xc3(\x00\x00 a\xe9\x00"
    qmgr.define_queue("PSID.Q")
    create = {F.MQCACF_SUB_NAME: b"PSID.1", C.MQCA_TOPIC_STRING: b"psid/#",
              F.MQCACF_DESTINATION: b"PSID.Q"}  # fmt: skip
    assert pcf.MQCMD_CREATE_SUBSCRIPTION(create) == []
    [s] = pcf.MQCMD_INQUIRE_SUBSCRIPTION({F.MQCACF_SUB_NAME: b"PSID.1"})
    sub_id = s[F.MQBACF_SUB_ID]
    assert len(sub_id) == 24 and b"\xff\xfe\x80\x00" in sub_id

    assert (
        pcf.MQCMD_CHANGE_SUBSCRIPTION({F.MQBACF_SUB_ID: sub_id, F.MQCACF_SUB_USER_DATA: b"by id"})
        == []
    )
    [s] = pcf.MQCMD_INQUIRE_SUBSCRIPTION({F.MQBACF_SUB_ID: sub_id})
    assert (s[F.MQCACF_SUB_NAME], s[F.MQCACF_SUB_USER_DATA]) == (b"PSID.1", b"by id")
    assert (
        pcf.MQCMD_CHANGE_SUBSCRIPTION(
            {F.MQBACF_SUB_ID: pymqi.ByteString(sub_id), F.MQIACF_PUB_PRIORITY: 4}
        )
        == []
    )
    as_structs = [pymqi.CFBS(Parameter=F.MQBACF_SUB_ID, String=sub_id),
                  pymqi.CFST(Parameter=F.MQCACF_SUB_USER_DATA, String=b"cfbs")]  # fmt: skip
    assert pcf.MQCMD_CHANGE_SUBSCRIPTION(as_structs) == []
    [s] = pcf.MQCMD_INQUIRE_SUBSCRIPTION({F.MQCACF_SUB_NAME: b"PSID.1"})
    assert (s[F.MQIACF_PUB_PRIORITY], s[F.MQCACF_SUB_USER_DATA]) == (4, b"cfbs")

    as_text = [pymqi.CFST(Parameter=F.MQBACF_SUB_ID, String=sub_id)]
    assert reason_of(pcf.MQCMD_DELETE_SUBSCRIPTION, as_text) == F.MQRCCF_CFST_PARM_ID_ERROR
    other = {F.MQBACF_SUB_ID: bytes(24)}
    assert reason_of(pcf.MQCMD_DELETE_SUBSCRIPTION, other) == C.MQRC_UNKNOWN_OBJECT_NAME
    assert pcf.MQCMD_DELETE_SUBSCRIPTION({F.MQBACF_SUB_ID: sub_id}) == []
    name = {F.MQCACF_SUB_NAME: b"PSID.1"}
    assert reason_of(pcf.MQCMD_INQUIRE_SUBSCRIPTION, name) == C.MQRC_UNKNOWN_OBJECT_NAME
