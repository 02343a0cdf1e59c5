"""MQOD SelectionString through the pymqi face on the in-memory backends: a handle
opened with a selector sees only the messages it selects (get, browse, wait, syncpoint,
read-ahead queues), the others stay for everyone else, and MQOPEN's reason codes."""

from __future__ import annotations

import pytest

import adapter.pymqi as pymqi
from tests.integration.conftest import drain, mqerror

C = pymqi.CMQC
IN, OUT, BROWSE = C.MQOO_INPUT_SHARED, C.MQOO_OUTPUT, C.MQOO_BROWSE


def selecting(qmgr, name: str, selection: str, options: int = IN) -> pymqi.Queue:
    od = pymqi.OD(ObjectName=name)
    od.set_vs("SelectionString", selection)
    return pymqi.Queue(qmgr, od, options)


def put(q, body: bytes, **md) -> None:
    q.put(body, pymqi.MD(**md), pymqi.PMO(Options=C.MQPMO_NO_SYNCPOINT))


def open_fails(qmgr, name: str, selection: str, options: int, reason: int) -> None:
    with pytest.raises(pymqi.MQMIError) as exc:
        selecting(qmgr, name, selection, options)
    assert mqerror(exc) == (C.MQCC_FAILED, reason)


def test_a_selector_picks_one_message_in_ten_and_leaves_the_rest(qmgr) -> None:
    qmgr.define_queue("Q.SEL")
    out = pymqi.Queue(qmgr, "Q.SEL", OUT)
    for i in range(100):
        msg_type = C.MQMT_REQUEST if i % 10 == 3 else C.MQMT_DATAGRAM
        put(out, b"m%d" % i, MsgType=msg_type, ReplyToQ=b"R" if i % 10 == 3 else b"")
    requests = selecting(qmgr, "Q.SEL", "Root.MQMD.MsgType = 1")
    got = [body for body, _md in drain(requests)]
    assert got == [b"m%d" % i for i in range(3, 100, 10)]
    rest = [body for body, _md in drain(pymqi.Queue(qmgr, "Q.SEL", IN))]
    assert len(rest) == 90 and all(int(b[1:]) % 10 != 3 for b in rest)


def test_selection_on_mqmd_strings_bytes_and_priority(qmgr) -> None:
    qmgr.define_queue("Q.SEL.MD")
    out = pymqi.Queue(qmgr, "Q.SEL.MD", OUT)
    put(out, b"low", Priority=1, Format=C.MQFMT_STRING)
    put(out, b"high", Priority=8, CorrelId=b"ORDER-42")
    put(out, b"mid", Priority=5)
    cid = b"ORDER-42".ljust(24, b"\0").hex().upper()
    cases = {
        "Root.MQMD.Priority >= 5": [b"high", b"mid"],
        "Root.MQMD.Format = 'MQSTR'": [b"low"],  # MQCHAR fields without their blanks
        f'Root.MQMD.CorrelId = 0x"{cid}"': [b"high"],
        "Root.MQMD.PutDate IS NOT NULL AND Root.MQMD.Priority < 2": [b"low"],
        "Root.MQMD.StrucId IS NULL AND Root.MQMD.Priority = 1": [b"low"],  # not a property
        "JMSXNoSuchThing IS NULL AND Root.MQMD.Priority BETWEEN 4 AND 6": [b"mid"],
    }
    for selection, expected in cases.items():
        browser = selecting(qmgr, "Q.SEL.MD", selection, BROWSE)
        seen = [body for body, _md in drain(browser, options=C.MQGMO_BROWSE_NEXT)]
        assert seen == expected, selection
        browser.close()


def test_a_selecting_getter_waits_for_a_message_it_selects(world, qmgr) -> None:
    qmgr.define_queue("Q.SEL.WAIT")
    out = pymqi.Queue(qmgr, "Q.SEL.WAIT", OUT)
    put(out, b"other", Priority=0)
    q = selecting(qmgr, "Q.SEL.WAIT", "Root.MQMD.Priority = 9")
    gmo = pymqi.GMO(Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT, WaitInterval=200)
    with pytest.raises(pymqi.MQMIError) as exc:
        q.get(None, pymqi.MD(), gmo)
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_NO_MSG_AVAILABLE)
    put(out, b"urgent", Priority=9)
    assert q.get(None, pymqi.MD(), gmo) == b"urgent"


def test_a_backed_out_selected_message_is_selected_again(qmgr) -> None:
    qmgr.define_queue("Q.SEL.UOW")
    out = pymqi.Queue(qmgr, "Q.SEL.UOW", OUT)
    put(out, b"a", Priority=1)
    put(out, b"b", Priority=7)
    q = selecting(qmgr, "Q.SEL.UOW", "Root.MQMD.Priority > 5")
    md = pymqi.MD()
    assert q.get(None, md, pymqi.GMO(Options=C.MQGMO_SYNCPOINT)) == b"b"
    qmgr.backout()
    md = pymqi.MD()
    assert q.get(None, md, pymqi.GMO(Options=C.MQGMO_SYNCPOINT)) == b"b"
    assert md.BackoutCount == 1
    qmgr.commit()
    assert [body for body, _md in drain(pymqi.Queue(qmgr, "Q.SEL.UOW", IN))] == [b"a"]


def test_read_ahead_never_takes_what_the_selector_rejects(qmgr) -> None:
    qmgr.define_queue("Q.SEL.RA", def_read_ahead=True)
    out = pymqi.Queue(qmgr, "Q.SEL.RA", OUT)
    for i in range(20):
        put(out, b"%d" % i, Priority=9 if i == 17 else 0)
    q = selecting(qmgr, "Q.SEL.RA", "Root.MQMD.Priority = 9", IN | C.MQOO_READ_AHEAD)
    assert q.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_NO_SYNCPOINT)) == b"17"
    plain = pymqi.Queue(qmgr, "Q.SEL.RA", IN)
    assert len(drain(plain)) == 19  # nothing was consumed ahead for the selecting handle


@pytest.mark.parametrize(
    "selection, options, reason",
    [
        ("Root.MQMD.Priority = ", IN, C.MQRC_SELECTOR_SYNTAX_ERROR),
        ('color = "red"', BROWSE, C.MQRC_SELECTOR_SYNTAX_ERROR),
        ("1 = 2", IN, C.MQRC_SELECTOR_ALWAYS_FALSE),
        ("x" * (C.MQ_SELECTOR_LENGTH + 1), IN, C.MQRC_SELECTION_STRING_ERROR),
        ("color = 'red'", OUT, C.MQRC_SELECTOR_INVALID_FOR_TYPE),  # not for input/browse
        ("color = 'red'", C.MQOO_INQUIRE, C.MQRC_SELECTOR_INVALID_FOR_TYPE),
    ],
)
def test_mqopen_checks_the_selection_string(qmgr, selection, options, reason) -> None:
    qmgr.define_queue("Q.SEL.BAD")
    open_fails(qmgr, "Q.SEL.BAD", selection, options, reason)


def test_mqput1_with_a_selection_string_is_2516(qmgr) -> None:
    qmgr.define_queue("Q.SEL.PUT1")
    od = pymqi.OD(ObjectName="Q.SEL.PUT1")
    od.set_vs("SelectionString", "color = 'red'")
    with pytest.raises(pymqi.MQMIError) as exc:
        qmgr.put1(od, b"x")
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_SELECTOR_INVALID_FOR_TYPE)


def test_a_blank_selection_string_selects_everything(qmgr) -> None:
    qmgr.define_queue("Q.SEL.ALL")
    out = pymqi.Queue(qmgr, "Q.SEL.ALL", OUT)
    put(out, b"a")
    put(out, b"b")
    assert len(drain(selecting(qmgr, "Q.SEL.ALL", "   "))) == 2


def test_set_vs_keeps_the_string_and_its_length() -> None:
    od = pymqi.OD()
    od.set_vs("SelectionString", "color = 'red'")
    assert od.get_vs("SelectionString") == b"color = 'red'"
    assert od.SelectionStringVSLength == len("color = 'red'")
    assert od.get_vs("ObjectString") is None
    with pytest.raises(AttributeError):
        od.set_vs("NoSuchString", "x")


def test_selection_on_the_jms_names_of_the_descriptor(qmgr) -> None:
    qmgr.define_queue("Q.SEL.JMS")
    out = pymqi.Queue(qmgr, "Q.SEL.JMS", OUT)
    put(out, b"np", Persistence=C.MQPER_NOT_PERSISTENT, Priority=4)
    put(out, b"p", Persistence=C.MQPER_PERSISTENT, Priority=4, CorrelId=b"\x01\x02")
    cid = "ID:" + b"\x01\x02".ljust(24, b"\0").hex()
    cases = {
        "JMSDeliveryMode = 2": [b"p"],
        "JMSPriority = 4 AND JMSDeliveryMode = 1": [b"np"],
        f"JMSCorrelationID = '{cid}'": [b"p"],
        "JMSCorrelationID IS NULL": [b"np"],  # CorrelId MQCI_NONE is null in JMS
        "JMSRedelivered = FALSE AND JMSTimestamp > 0": [b"np", b"p"],
    }
    for selection, expected in cases.items():
        browser = selecting(qmgr, "Q.SEL.JMS", selection, BROWSE)
        seen = [body for body, _md in drain(browser, options=C.MQGMO_BROWSE_NEXT)]
        assert seen == expected, selection
        browser.close()


def test_a_selecting_getter_skips_rejected_messages_but_never_misses_a_new_one(qmgr) -> None:
    qmgr.define_queue("Q.SEL.SKIP")
    out = pymqi.Queue(qmgr, "Q.SEL.SKIP", OUT)
    for i in range(50):
        put(out, b"miss%d" % i, Priority=5, MsgType=C.MQMT_DATAGRAM)
    q = selecting(qmgr, "Q.SEL.SKIP", "Root.MQMD.MsgType = 1")
    gmo = pymqi.GMO(Options=C.MQGMO_NO_SYNCPOINT)
    with pytest.raises(pymqi.MQMIError):
        q.get(None, pymqi.MD(), gmo)  # scans the 50 and remembers they are rejected
    put(out, b"late", Priority=5, MsgType=C.MQMT_REQUEST, ReplyToQ=b"R")  # after them
    assert q.get(None, pymqi.MD(), gmo) == b"late"
    put(out, b"urgent", Priority=9, MsgType=C.MQMT_REQUEST, ReplyToQ=b"R")  # before them
    assert q.get(None, pymqi.MD(), gmo) == b"urgent"
    put(out, b"low", Priority=0, MsgType=C.MQMT_REQUEST, ReplyToQ=b"R")
    plain = pymqi.Queue(qmgr, "Q.SEL.SKIP", IN)
    assert len(drain(plain)) == 51  # the rejected ones all stayed, and "low"
