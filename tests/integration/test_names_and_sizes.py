"""Names and sizes at MQ's limits (issue 19, "Hostile and foreign input"): queue names
of 48 and 49 characters, names with characters outside MQ's set, non-ASCII names,
NUL-terminated and blank-padded names, zero-length messages, messages of exactly
MAXMSGL and one byte over (the queue's: 2030; the queue manager's: 2031). The unit layer
runs the same scenarios on the in-memory backends (test_names_and_sizes_memory.py).

IBM: "Rules for naming IBM MQ objects"
(https://www.ibm.com/docs/ko/ibm-mq/9.4.x?topic=objects-rules-naming-mq) and "ObjectName
(MQCHAR48)" (https://www.ibm.com/docs/en/SSFKSJ_9.3.0/refdev/q098180_.html): 1-48
characters from A-Z a-z 0-9 . / _ %, no leading or embedded blank, a NUL ends the name.
A name no object can have is one no object has: MQOPEN and MQPUT1 answer
MQRC_UNKNOWN_OBJECT_NAME (2085), the same as for any name that is not defined.
"""

from __future__ import annotations

import uuid

import pytest

import adapter.pymqi as pymqi
from tests.integration.conftest import drain

C = pymqi.CMQC
IN, OUT = C.MQOO_INPUT_SHARED, C.MQOO_OUTPUT


def _unique(prefix: str, length: int | None = None) -> str:
    name = f"{prefix}.{uuid.uuid4().hex[:8].upper()}"
    return name if length is None else (name + "X" * length)[:length]


def _reason(call, *args) -> int:
    with pytest.raises(pymqi.MQMIError) as exc:
        call(*args)
    return exc.value.reason


def test_a_48_character_name_works_and_49_is_no_name(qmgr) -> None:
    name = _unique("N48", 48)
    qmgr.define_queue(name)
    q = pymqi.Queue(qmgr, name, IN | OUT)
    q.put(b"forty-eight")
    qmgr.put1(name, b"put1")
    assert [d for d, _ in drain(q)] == [b"forty-eight", b"put1"]
    longer = name + "Y"
    with pytest.raises(ValueError):
        qmgr.define_queue(longer)  # DEFINE refuses it
    assert _reason(pymqi.Queue, qmgr, longer, OUT) == C.MQRC_UNKNOWN_OBJECT_NAME
    assert _reason(qmgr.put1, longer, b"x") == C.MQRC_UNKNOWN_OBJECT_NAME
    with pytest.raises(ValueError):  # an MQCHAR48 field cannot hold 49 bytes
        pymqi.OD(ObjectName=longer.encode())


@pytest.mark.parametrize("bad", ["Q-DASH", "Q SPACE", "Q.É", "キュー", "Q*STAR", "Q\tTAB"])
def test_characters_outside_mqs_set_name_nothing(qmgr, bad) -> None:
    with pytest.raises(ValueError):
        qmgr.define_queue(bad)
    assert _reason(pymqi.Queue, qmgr, bad, OUT) == C.MQRC_UNKNOWN_OBJECT_NAME
    assert _reason(qmgr.put1, bad, b"x") == C.MQRC_UNKNOWN_OBJECT_NAME


def test_every_character_of_mqs_set_makes_a_name(qmgr) -> None:
    name = _unique("a/b_c%d.9")
    qmgr.define_queue(name)
    qmgr.put1(name, b"ok")
    assert [d for d, _ in drain(pymqi.Queue(qmgr, name, IN))] == [b"ok"]


def test_nul_ends_a_name_trailing_blanks_are_not_part_of_it_leading_ones_are(qmgr) -> None:
    name = _unique("NUL")
    qmgr.define_queue(name)
    pymqi.Queue(qmgr, name + "\0junk", OUT).put(b"a")
    pymqi.Queue(qmgr, (name + "\0junk").encode(), OUT).put(b"b")
    pymqi.Queue(qmgr, pymqi.OD(ObjectName=name.encode() + b"   "), OUT).put(b"c")
    assert [d for d, _ in drain(pymqi.Queue(qmgr, name, IN))] == [b"a", b"b", b"c"]
    assert _reason(pymqi.Queue, qmgr, " " + name, OUT) == C.MQRC_UNKNOWN_OBJECT_NAME
    assert _reason(pymqi.Queue, qmgr, b"\xff\xfe" + name.encode(), OUT) == (
        C.MQRC_UNKNOWN_OBJECT_NAME
    )


def test_empty_and_blank_names_are_unknown(qmgr) -> None:
    for blank in ("", "   ", b"\0" * 48):
        assert _reason(pymqi.Queue, qmgr, blank, OUT) == C.MQRC_UNKNOWN_OBJECT_NAME
        assert _reason(qmgr.put1, blank, b"x") == C.MQRC_UNKNOWN_OBJECT_NAME


def test_zero_length_and_exactly_maxmsgl_and_one_over(qmgr) -> None:
    name = _unique("SIZE")
    qmgr.define_queue(name, max_msg_length=1000)
    q = pymqi.Queue(qmgr, name, IN | OUT)
    q.put(b"")
    q.put(b"m" * 1000)
    qmgr.put1(name, b"p" * 1000)
    assert _reason(q.put, b"m" * 1001) == C.MQRC_MSG_TOO_BIG_FOR_Q
    assert _reason(qmgr.put1, name, b"p" * 1001) == C.MQRC_MSG_TOO_BIG_FOR_Q
    got = drain(q)
    assert [len(d) for d, _ in got] == [0, 1000, 1000]
    # An MQGET's buffer of exactly the length, and of one byte less.
    q.put(b"z" * 1000)
    with pytest.raises(pymqi.MQMIError) as exc:
        q.get(999)
    assert exc.value.reason == C.MQRC_TRUNCATED_MSG_FAILED
    assert q.get(1000) == b"z" * 1000


def test_one_byte_over_the_queue_managers_maxmsgl_is_2031(qmgr) -> None:
    """The queue's MAXMSGL is checked first (core/qmgrrules.py), so 2031 needs a queue
    whose MAXMSGL is above the queue manager's: ALTER QMGR MAXMSGL below it."""
    before = qmgr.inquire(C.MQIA_MAX_MSG_LENGTH)
    name = _unique("QMBIG")
    qmgr.define_queue(name)  # MAXMSGL 4 MiB
    qmgr.alter_qmgr(max_msg_length=40_000)
    try:
        q = pymqi.Queue(qmgr, name, IN | OUT)
        q.put(b"b" * 40_000)
        assert _reason(q.put, b"b" * 40_001) == C.MQRC_MSG_TOO_BIG_FOR_Q_MGR
        assert _reason(qmgr.put1, name, b"b" * 40_001) == C.MQRC_MSG_TOO_BIG_FOR_Q_MGR
        assert [len(d) for d, _ in drain(q)] == [40_000]
    finally:
        qmgr.alter_qmgr(max_msg_length=before)
