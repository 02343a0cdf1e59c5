"""Subscriptions administered on the real stack (tests/unit/test_pubsub_subadmin_memory.py
runs them on the in-memory backends): DEFINE SUB (a durable SUBTYPE(ADMIN) subscription
that receives publications at once and that a program resumes by name), DELETE SUB,
DISPLAY SUB / SBSTATUS (NUMMSGS, LMSGDATE, ACTCONN) and DISPLAY TPSTATUS TYPE(TOPIC /
SUB / PUB) through `mqk mqsc`."""

from __future__ import annotations

import adapter.pymqi as pymqi
from adapter.tools import mqsc
from tests.integration.test_pubsub import _drain, _sd

C = pymqi.CMQC


def _run(qm, name: str, text: str) -> tuple[int, str]:
    out: list[str] = []
    rc = mqsc.run(qm, name, text.splitlines(True), out.append)
    return rc, "\n".join(out)


def _get_all(qm, queue: str) -> list[tuple[bytes, pymqi.MD]]:
    q = pymqi.Queue(qm, queue, C.MQOO_INPUT_AS_Q_DEF)
    got = []
    while True:
        md = pymqi.MD()
        try:
            got.append((q.get(None, md, pymqi.GMO(Options=C.MQGMO_NO_WAIT)), md))
        except pymqi.MQMIError as err:
            assert err.reason == C.MQRC_NO_MSG_AVAILABLE
            q.close()
            return got


def test_define_sub_receives_and_a_program_resumes_it(qmgr, qmgr_name):
    qmgr.define_queue("ADM.Q")
    rc, out = _run(
        qmgr,
        qmgr_name,
        "DEFINE SUB(ADM.1) TOPICSTR('adm/#') DEST(ADM.Q) USERDATA('ud') PUBPRTY(3)\n",
    )
    assert rc == 0 and "AMQ8094I: IBM MQ subscription created." in out
    pymqi.Topic(qmgr, topic_string="adm/x").pub(b"one")
    [(msg, md)] = _get_all(qmgr, "ADM.Q")
    assert msg == b"one" and md.Priority == 3

    rc, out = _run(qmgr, qmgr_name, "DISPLAY SUB(ADM.1) ALL\n")
    assert rc == 0 and "AMQ8096I: IBM MQ subscription inquired." in out
    for item in ("SUB(ADM.1)", "TOPICSTR(adm/#)", "DEST(ADM.Q)", "SUBTYPE(ADMIN)",
                 "DURABLE(YES)", "USERDATA(ud)", "PUBPRTY(3)", "DESTCLAS(PROVIDED)"):  # fmt: skip
        assert item in out, item
    subid = out.split("SUBID(")[1][:48]
    assert f"DESTCORL({subid})" in out and md.CorrelId == bytes.fromhex(subid)

    # A program resumes it by name: its publications arrive on ADM.Q, in use meanwhile.
    sub = pymqi.Subscription(qmgr)
    sub.sub(sub_desc=_sd("", C.MQSO_RESUME | C.MQSO_DURABLE, "ADM.1"))
    pymqi.Topic(qmgr, topic_string="adm/y").pub(b"two")
    assert [m for m, _ in _drain(sub)] == [b"two"]
    rc, out = _run(qmgr, qmgr_name, "DISPLAY SBSTATUS(ADM.1)\n")
    assert "AMQ8099I: IBM MQ subscription status inquired." in out
    assert "NUMMSGS(2)" in out and "LMSGDATE( )" not in out and "ACTCONN(000000" not in out
    rc, out = _run(qmgr, qmgr_name, "DELETE SUB(ADM.1)\n")
    assert rc != 0 and "AMQ8148E: IBM MQ object in use." in out
    sub.close(C.MQCO_KEEP_SUB)
    rc, out = _run(qmgr, qmgr_name, "DISPLAY SBSTATUS(ADM.*) ACTCONN\n")
    assert "ACTCONN(" + "0" * 48 + ")" in out
    rc, out = _run(qmgr, qmgr_name, "DELETE SUB(ADM.1)\n")
    assert rc == 0 and "AMQ8095I: IBM MQ subscription deleted." in out
    rc, out = _run(qmgr, qmgr_name, "DISPLAY SUB(ADM.1)\n")
    assert rc != 0 and "AMQ8147E" in out
    pymqi.Topic(qmgr, topic_string="adm/z").pub(b"none")
    assert _get_all(qmgr, "ADM.Q") == []


def test_define_sub_managed_and_failures(qmgr, qmgr_name):
    rc, out = _run(qmgr, qmgr_name, "DEFINE SUB(MAN.1) TOPICSTR('man/t') DESTCLAS(MANAGED)\n")
    assert rc == 0
    rc, out = _run(qmgr, qmgr_name, "DISPLAY SUB(MAN.1) DEST DESTCLAS\n")
    queue = out.split("DEST(")[1].split(")")[0]
    assert queue.startswith("SYSTEM.MANAGED.DURABLE.") and "DESTCLAS(MANAGED)" in out
    pymqi.Topic(qmgr, topic_string="man/t").pub(b"kept")
    assert [m for m, _ in _get_all(qmgr, queue)] == [b"kept"]
    rc, out = _run(qmgr, qmgr_name, "DEFINE SUB(MAN.1) TOPICSTR('man/t') DESTCLAS(MANAGED)\n")
    assert rc != 0 and "AMQ8150E" in out
    rc, out = _run(qmgr, qmgr_name, "DELETE SUB(MAN.1)\n")
    assert rc == 0 and qmgr.get_handle().lookup_queue(queue, refresh=True) is None

    rc, out = _run(qmgr, qmgr_name, "DEFINE SUB(BAD.1) TOPICSTR('bad/t')\n")
    assert rc != 0 and "DEST is required" in out
    rc, out = _run(qmgr, qmgr_name, "DEFINE SUB(BAD.1) TOPICSTR('bad/t') DEST(NO.SUCH.Q)\n")
    assert rc != 0 and "AMQ8147E" in out
    rc, out = _run(qmgr, qmgr_name, "DEFINE SUB(BAD.1) TOPICSTR('x') DEST(Q) DESTQMGR(FAR)\n")
    assert rc != 0 and "DESTQMGR" in out
    qmgr.define_topic("NOSUBS", "nosubs", inhibit_sub=C.MQTA_SUB_INHIBITED)
    qmgr.define_queue("BAD.Q")
    rc, out = _run(qmgr, qmgr_name, "DEFINE SUB(BAD.1) TOPICOBJ(NOSUBS) DEST(BAD.Q)\n")
    assert rc != 0 and "(9C7)" in out  # 2503 MQRC_SUB_INHIBITED
    rc, out = _run(qmgr, qmgr_name, "DEFINE SUB(BAD.1) TOPICSTR('x') DEST(BAD.Q) EXPIRY(10)\n")
    assert rc != 0 and "EXPIRY is not supported" in out
    rc, out = _run(qmgr, qmgr_name, "DELETE SUB(NONE.SUCH)\n")
    assert rc != 0 and "AMQ8147E" in out


def test_display_tpstatus(qmgr, qmgr_name):
    qmgr.define_topic("TPS.T", "tps/a", def_priority=4)
    qmgr.define_queue("TPS.Q")
    _run(qmgr, qmgr_name, "DEFINE SUB(TPS.S) TOPICSTR('tps/a') DEST(TPS.Q)\n")
    topic = pymqi.Topic(qmgr, topic_string="tps/a")
    topic.pub(b"1")
    topic.pub(b"2", pymqi.MD(), pymqi.PMO(Options=C.MQPMO_RETAIN))
    rc, out = _run(qmgr, qmgr_name, "DISPLAY TPSTATUS('tps/a')\n")
    assert rc == 0 and "AMQ8754I: Display topic status details." in out
    expected = ("TOPICSTR(tps/a)", "ADMIN(TPS.T)", "RETAINED(YES)", "SUBCOUNT(1)",
                "PUBCOUNT(1)", "DEFPRTY(4)", "DEFPSIST(NO)", "PUB(ENABLED)")  # fmt: skip
    for item in (*expected, "DURSUB(YES)"):
        assert item in out, item
    rc, out = _run(qmgr, qmgr_name, "DISPLAY TPSTATUS('tps/a') TYPE(SUB)\n")
    assert "NUMMSGS(2)" in out and "SUBTYPE(ADMIN)" in out
    rc, out = _run(qmgr, qmgr_name, "DISPLAY TPSTATUS('tps/a') TYPE(PUB)\n")
    assert "NUMPUBS(2)" in out and "LPUBDATE(" in out
    rc, out = _run(qmgr, qmgr_name, "DISPLAY TPSTATUS('tps/#')\n")
    assert rc == 0 and "TOPICSTR(tps/a)" in out
    rc, out = _run(qmgr, qmgr_name, "DISPLAY TPSTATUS('tps/none')\n")
    assert rc != 0 and "AMQ8147E" in out
