"""ALTER SUB (MQSC) and PCF Change / Copy Subscription on the real stack
(tests/unit/test_pubsub_subalter_memory.py runs them on the in-memory backends): the
attributes ALTER SUB may change reach the next publication; those it may not (TOPICSTR,
TOPICOBJ, WSCHEMA, SELECTOR, DESTCLAS) are a syntax error in MQSC and, given at another
value, MQSUB's MQSO_ALTER reasons in PCF (2510, 2524, 2533); a copy is a new
SUBTYPE(ADMIN) subscription with the original's attributes except those given."""

from __future__ import annotations

import pytest

import adapter.pymqi as pymqi
from tests.integration.test_pcf_topic import reason_of
from tests.integration.test_pubsub_subadmin import _get_all, _run

C, F = pymqi.CMQC, pymqi.CMQCFC


@pytest.fixture
def pcf(qmgr):
    p = pymqi.PCFExecute(qmgr)
    yield p
    p.disconnect()


def _display(qm, name: str, sub: str) -> str:
    rc, out = _run(qm, name, f"DISPLAY SUB({sub}) ALL\n")
    assert rc == 0, out
    return out


def test_alter_sub_changes_what_the_next_publication_gets(qmgr, qmgr_name):
    qmgr.define_queue("ALT.Q1")
    qmgr.define_queue("ALT.Q2")
    rc, out = _run(qmgr, qmgr_name, "DEFINE SUB(ALT.1) TOPICSTR('alt/#') DEST(ALT.Q1)\n")
    assert rc == 0, out
    before = _display(qmgr, qmgr_name, "ALT.1")
    subid = before.split("SUBID(")[1][:48]
    topic = pymqi.Topic(qmgr, topic_string="alt/a")
    topic.pub(b"one")

    correl = "AB" * 24
    rc, out = _run(
        qmgr,
        qmgr_name,
        f"ALTER SUB(ALT.1) DEST(ALT.Q2) PUBPRTY(7) USERDATA('new') DESTCORL({correl})\n",
    )
    assert rc == 0 and "AMQ8097I: IBM MQ subscription changed." in out, out
    topic.pub(b"two")
    [(first, _md)] = _get_all(qmgr, "ALT.Q1")
    [(second, md)] = _get_all(qmgr, "ALT.Q2")
    assert (first, second) == (b"one", b"two")
    assert md.Priority == 7 and md.CorrelId == bytes.fromhex(correl)
    after = _display(qmgr, qmgr_name, "ALT.1")
    for item in ("DEST(ALT.Q2)", "PUBPRTY(7)", "USERDATA(new)", f"DESTCORL({correl})",
                 f"SUBID({subid})", "TOPICSTR(alt/#)"):  # fmt: skip
        assert item in after, item

    # REQONLY(YES): nothing at publication time any more.
    rc, out = _run(qmgr, qmgr_name, f"ALTER SUB(ALT.1) SUBID({subid}) REQONLY(YES)\n")
    assert rc == 0, out
    topic.pub(b"three")
    assert _get_all(qmgr, "ALT.Q2") == []
    assert "REQONLY(YES)" in _display(qmgr, qmgr_name, "ALT.1")


def test_alter_sub_refuses_what_it_cannot_change(qmgr, qmgr_name):
    qmgr.define_queue("ALTR.Q")
    rc, out = _run(qmgr, qmgr_name, "DEFINE SUB(ALTR.1) TOPICSTR('altr/x') DEST(ALTR.Q)\n")
    assert rc == 0, out
    for keyword in ("TOPICSTR('altr/y')", "SELECTOR('a = 1')", "WSCHEMA(CHAR)",
                    "DESTCLAS(MANAGED)", "TOPICOBJ(SYSTEM.BASE.TOPIC)"):  # fmt: skip
        rc, out = _run(qmgr, qmgr_name, f"ALTER SUB(ALTR.1) {keyword}\n")
        assert rc != 0 and "AMQ8097I" not in out, keyword
    rc, out = _run(qmgr, qmgr_name, "ALTER SUB(NOPE.1) USERDATA('x')\n")
    assert rc != 0 and "AMQ8147E: IBM MQ object NOPE.1 not found." in out, out
    # SUBID must name the same subscription as the name.
    rc, out = _run(qmgr, qmgr_name, f"ALTER SUB(ALTR.1) SUBID({'00' * 24}) USERDATA('x')\n")
    assert rc != 0 and "not found" in out, out
    assert "USERDATA( )" in _display(qmgr, qmgr_name, "ALTR.1")


def test_alter_delete_display_sub_by_subid_alone(qmgr, qmgr_name):
    """ALTER SUB SUBID(id), DISPLAY SUB SUBID(id), DISPLAY SBSTATUS SUBID(id) and DELETE
    SUB SUBID(id), with no name: the forms IBM's usage notes list beside SUB(name)."""
    qmgr.define_queue("BYID.Q")
    for sub in ("BYID.1", "BYID.2"):
        rc, out = _run(qmgr, qmgr_name, f"DEFINE SUB({sub}) TOPICSTR('byid/#') DEST(BYID.Q)\n")
        assert rc == 0, out
    subid = _display(qmgr, qmgr_name, "BYID.2").split("SUBID(")[1][:48]

    rc, out = _run(qmgr, qmgr_name, f"ALTER SUB SUBID({subid}) USERDATA('by id')\n")
    assert rc == 0 and "AMQ8097I: IBM MQ subscription changed." in out, out
    assert "USERDATA(by id)" in _display(qmgr, qmgr_name, "BYID.2")
    assert "USERDATA( )" in _display(qmgr, qmgr_name, "BYID.1")  # only the one named

    rc, out = _run(qmgr, qmgr_name, f"DISPLAY SUB SUBID({subid.lower()}) USERDATA\n")
    assert rc == 0 and out.count("AMQ8096I") == 1, out
    assert "SUB(BYID.2)" in out and "USERDATA(by id)" in out and f"SUBID({subid})" in out
    rc, out = _run(qmgr, qmgr_name, f"DISPLAY SBSTATUS SUBID({subid})\n")
    assert rc == 0 and out.count("AMQ8099I") == 1 and "SUB(BYID.2)" in out, out

    missing = "00" * 24
    for text in (f"ALTER SUB SUBID({missing}) USERDATA('x')", f"DELETE SUB SUBID({missing})",
                 f"DISPLAY SUB SUBID({missing})"):  # fmt: skip
        rc, out = _run(qmgr, qmgr_name, text + "\n")
        assert rc != 0 and f"AMQ8147E: IBM MQ object {missing} not found." in out, out
    rc, out = _run(qmgr, qmgr_name, "ALTER SUB USERDATA('x')\n")  # neither name nor SUBID
    assert rc != 0 and "AMQ8405I" in out, out

    rc, out = _run(qmgr, qmgr_name, f"DELETE SUB SUBID({subid})\n")
    assert rc == 0 and "AMQ8095I: IBM MQ subscription deleted." in out, out
    rc, out = _run(qmgr, qmgr_name, "DISPLAY SUB(BYID.*)\n")
    assert "SUB(BYID.1)" in out and "BYID.2" not in out, out
    rc, out = _run(qmgr, qmgr_name, f"DELETE SUB(BYID.1) SUBID({subid})\n")  # not that one's
    assert rc != 0 and "AMQ8147E: IBM MQ object BYID.1 not found." in out, out


def test_pcf_change_subscription(pcf, qmgr):
    qmgr.define_queue("PCHG.Q")
    qmgr.define_queue("PCHG.Q2")
    pcf.MQCMD_CREATE_SUBSCRIPTION(
        {
            F.MQCACF_SUB_NAME: b"PCHG.1",
            C.MQCA_TOPIC_STRING: b"pchg/#",
            F.MQCACF_DESTINATION: b"PCHG.Q",
            F.MQCACF_SUB_SELECTOR: b"n > 1",
        }  # fmt: skip
    )
    [s] = pcf.MQCMD_INQUIRE_SUBSCRIPTION({F.MQCACF_SUB_NAME: b"PCHG.1"})
    sub_id = s[F.MQBACF_SUB_ID]
    # The unchanged topic string and selector may be given again.
    change = {F.MQCACF_SUB_NAME: b"PCHG.1", F.MQCACF_DESTINATION: b"PCHG.Q2",
              F.MQIACF_PUB_PRIORITY: 4, C.MQCA_TOPIC_STRING: b"pchg/#",
              F.MQCACF_SUB_SELECTOR: b"n > 1"}  # fmt: skip
    assert pcf.MQCMD_CHANGE_SUBSCRIPTION(change) == []
    [s] = pcf.MQCMD_INQUIRE_SUBSCRIPTION({F.MQCACF_SUB_NAME: b"PCHG.1"})
    assert s[F.MQCACF_DESTINATION].rstrip() == b"PCHG.Q2" and s[F.MQIACF_PUB_PRIORITY] == 4
    assert s[F.MQBACF_SUB_ID] == sub_id

    name = {F.MQCACF_SUB_NAME: b"PCHG.1"}
    fixed = [
        ({C.MQCA_TOPIC_STRING: b"pchg/other"}, C.MQRC_TOPIC_NOT_ALTERABLE),
        ({F.MQIACF_WILDCARD_SCHEMA: C.MQWS_CHAR}, C.MQRC_TOPIC_NOT_ALTERABLE),
        ({F.MQCACF_SUB_SELECTOR: b"n > 2"}, C.MQRC_SELECTOR_NOT_ALTERABLE),
        ({F.MQIACF_DESTINATION_CLASS: C.MQDC_MANAGED}, C.MQRC_DEST_CLASS_NOT_ALTERABLE),
        ({F.MQIACF_PUB_PRIORITY: 12}, F.MQRCCF_ATTR_VALUE_ERROR),
    ]
    for extra, reason in fixed:
        assert reason_of(pcf.MQCMD_CHANGE_SUBSCRIPTION, {**name, **extra}) == reason, extra
    missing = {F.MQCACF_SUB_NAME: b"PCHG.NONE", F.MQIACF_PUB_PRIORITY: 1}
    assert reason_of(pcf.MQCMD_CHANGE_SUBSCRIPTION, missing) == C.MQRC_UNKNOWN_OBJECT_NAME
    [s] = pcf.MQCMD_INQUIRE_SUBSCRIPTION({F.MQCACF_SUB_NAME: b"PCHG.1"})
    assert s[C.MQCA_TOPIC_STRING] == b"pchg/#" and s[F.MQIACF_PUB_PRIORITY] == 4


def test_pcf_copy_subscription(pcf, qmgr):
    qmgr.define_queue("PCPY.Q")
    qmgr.define_queue("PCPY.Q2")
    pcf.MQCMD_CREATE_SUBSCRIPTION(
        {
            F.MQCACF_SUB_NAME: b"PCPY.1",
            C.MQCA_TOPIC_STRING: b"pcpy/+",
            F.MQCACF_DESTINATION: b"PCPY.Q",
            F.MQCACF_SUB_USER_DATA: b"ud",
            F.MQIACF_PUB_PRIORITY: 2,
        }  # fmt: skip
    )
    copy = {F.MQCACF_FROM_SUB_NAME: b"PCPY.1", F.MQCACF_TO_SUB_NAME: b"PCPY.2",
            F.MQCACF_DESTINATION: b"PCPY.Q2"}  # fmt: skip
    assert pcf.MQCMD_COPY_SUBSCRIPTION(copy) == []
    assert reason_of(pcf.MQCMD_COPY_SUBSCRIPTION, copy) == F.MQRCCF_OBJECT_ALREADY_EXISTS
    assert pcf.MQCMD_COPY_SUBSCRIPTION({**copy, F.MQIACF_REPLACE: 1}) == []
    source_missing = {**copy, F.MQCACF_FROM_SUB_NAME: b"PCPY.NONE"}
    assert reason_of(pcf.MQCMD_COPY_SUBSCRIPTION, source_missing) == C.MQRC_UNKNOWN_OBJECT_NAME
    subs = {s[F.MQCACF_SUB_NAME]: s for s in pcf.MQCMD_INQUIRE_SUBSCRIPTION(
        {F.MQCACF_SUB_NAME: b"PCPY.*"})}  # fmt: skip
    one, two = subs[b"PCPY.1"], subs[b"PCPY.2"]
    assert two[C.MQCA_TOPIC_STRING] == b"pcpy/+" and two[F.MQCACF_SUB_USER_DATA] == b"ud"
    assert two[F.MQIACF_PUB_PRIORITY] == 2 and two[F.MQIACF_SUB_TYPE] == C.MQSUBTYPE_ADMIN
    assert two[F.MQCACF_DESTINATION].rstrip() == b"PCPY.Q2"
    assert two[F.MQBACF_SUB_ID] != one[F.MQBACF_SUB_ID]

    # Both receive each publication, each on its own queue.
    pymqi.Topic(qmgr, topic_string="pcpy/a").pub(b"p")
    assert [m for m, _ in _get_all(qmgr, "PCPY.Q")] == [b"p"]
    [(msg, md)] = _get_all(qmgr, "PCPY.Q2")
    assert msg == b"p" and md.CorrelId == two[F.MQBACF_SUB_ID] and md.Priority == 2


def test_define_sub_like(qmgr, qmgr_name):
    qmgr.define_queue("LIKE.Q1")
    qmgr.define_queue("LIKE.Q2")
    rc, out = _run(
        qmgr, qmgr_name, "DEFINE SUB(LIKE.1) TOPICSTR('like/#') DEST(LIKE.Q1) USERDATA('u1')\n"
    )
    assert rc == 0, out
    rc, out = _run(qmgr, qmgr_name, "DEFINE SUB(LIKE.2) LIKE(LIKE.1) DEST(LIKE.Q2) PUBPRTY(6)\n")
    assert rc == 0 and "AMQ8094I: IBM MQ subscription created." in out, out
    shown = _display(qmgr, qmgr_name, "LIKE.2")
    for item in ("TOPICSTR(like/#)", "DEST(LIKE.Q2)", "USERDATA(u1)", "PUBPRTY(6)",
                 "SUBTYPE(ADMIN)"):  # fmt: skip
        assert item in shown, item
    rc, out = _run(qmgr, qmgr_name, "DEFINE SUB(LIKE.3) LIKE(LIKE.NONE) DEST(LIKE.Q2)\n")
    assert rc != 0 and "AMQ8147E: IBM MQ object LIKE.NONE not found." in out, out
    pymqi.Topic(qmgr, topic_string="like/a").pub(b"x")
    [(_m, md)] = _get_all(qmgr, "LIKE.Q2")
    assert md.Priority == 6
    assert [m for m, _ in _get_all(qmgr, "LIKE.Q1")] == [b"x"]
