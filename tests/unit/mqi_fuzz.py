"""The MQI fuzz test's parts, shared by the unit layer (in-memory backends) and the
integration layer (the real stack): hypothesis strategies for call sequences, the
interpreter that runs one on the pymqi face, and the oracle.

A sequence is a list of calls on one connection: MQOPEN with random option bits and
object names (a defined queue, an unknown one, 48 and 49 characters, empty, blank,
non-ASCII, lower case, characters outside MQ's set, a model queue), MQPUT / MQPUT1 with
random MQMD and MQPMO values and option bits, data of length 0, 1, the queue's MAXMSGL,
one byte over it, the queue manager's MAXMSGL and one byte over, MQGET / browse with
random MQGMO option bits, match fields, buffer lengths and segmentation flags, MQINQ /
MQSET with random selectors and values, MQBEGIN / MQCMIT / MQBACK, MQCLOSE with random
options, MQSTAT, MQDISC (and calls after it).

The oracle: a call raises nothing, or `MQMIError` whose reason code docs/mqi-reason-codes.md
lists for that call (ops/reason_codes.py reads the document); calls the document has no
section of (MQBEGIN, MQCMIT, MQBACK, MQDISC) may raise any code the document lists. Any
other exception, or an undocumented code, fails the sequence.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

import adapter.pymqi as pymqi
from ops.reason_codes import CALLS, DOC, section_rows

C = pymqi.CMQC

QUEUE = "FZ.Q"  # MAXMSGL QUEUE_MAXMSGL
BIG = "FZ.BIG"  # MAXMSGL the queue manager's
QMGR_MAXMSGL = 32_768  # the smallest MAXMSGL a queue manager may have: quick to send
QUEUE_MAXMSGL = 1000

NAMES: list[str | bytes] = [
    QUEUE,
    BIG,
    "FZ.MISSING",
    "Q" * 48,
    "Q" * 49,
    "",
    "   ",
    "fz.q",
    "FZ.QÉ",
    "FZ Q",
    "FZ/Q",
    "FZ.Q\x00X",
    "キュー",
    "SYSTEM.DEFAULT.MODEL.QUEUE",
    b"FZ.Q\0after the NUL",
    b"\xff\xfeFZ.Q",
    " FZ.Q",
]
NAME = st.sampled_from([QUEUE] * 6 + [BIG] * 3 + NAMES)
SIZES = [0, 1, QUEUE_MAXMSGL, QUEUE_MAXMSGL + 1, QMGR_MAXMSGL, QMGR_MAXMSGL + 1]

_INT32 = st.integers(-(2**31), 2**31 - 1)


def _bits(names: list[str]) -> st.SearchStrategy[int]:
    """An OR of some of the named option bits, or now and then any 32-bit value."""
    values = [getattr(C, n) for n in names]
    combos = st.lists(st.sampled_from(values), max_size=4).map(lambda v: _or(v))
    return st.one_of(combos, combos, combos, _INT32)


def _or(values: list[int]) -> int:
    out = 0
    for v in values:
        out |= v
    return out


def _options(prefix: str) -> list[str]:
    """The option bits named `prefix`*: ints only, without structure ids, versions,
    lengths and masks."""
    skip = ("STRUC", "VERSION", "LENGTH", "CURRENT", "MASK")
    return [
        n
        for n in dir(C)
        if n.startswith(prefix) and isinstance(getattr(C, n), int) and not any(w in n for w in skip)
    ]


def _usual(names: list[str], everything: str) -> st.SearchStrategy[int]:
    """Mostly a few of the options an application uses (so calls get past MQOPEN and
    reach the put and get rules), sometimes any of the named bits, sometimes anything."""
    usual = st.lists(st.sampled_from([getattr(C, n) for n in names]), max_size=3).map(_or)
    return st.one_of(usual, usual, usual, _bits(_options(everything)))


_IN = C.MQOO_INPUT_SHARED
OO = st.one_of(
    st.tuples(
        st.sampled_from(
            [C.MQOO_OUTPUT, _IN, _IN | C.MQOO_OUTPUT, _IN | C.MQOO_BROWSE | C.MQOO_OUTPUT,
             C.MQOO_INPUT_EXCLUSIVE | C.MQOO_OUTPUT, C.MQOO_INPUT_AS_Q_DEF, C.MQOO_BROWSE,
             _IN | C.MQOO_OUTPUT | C.MQOO_INQUIRE | C.MQOO_SET]
        ),
        _usual(
            ["MQOO_INQUIRE", "MQOO_SET", "MQOO_SAVE_ALL_CONTEXT", "MQOO_PASS_ALL_CONTEXT",
             "MQOO_SET_ALL_CONTEXT", "MQOO_FAIL_IF_QUIESCING", "MQOO_BROWSE",
             "MQOO_INPUT_EXCLUSIVE"],
            "MQOO_",
        ),
        st.booleans(),
    ).map(lambda t: t[0] | t[1] if t[2] else t[0]),
    _bits(_options("MQOO_")),
)  # fmt: skip
PMO = _usual(
    ["MQPMO_SYNCPOINT", "MQPMO_NO_SYNCPOINT", "MQPMO_NEW_MSG_ID", "MQPMO_NEW_CORREL_ID",
     "MQPMO_LOGICAL_ORDER", "MQPMO_ASYNC_RESPONSE", "MQPMO_DEFAULT_CONTEXT",
     "MQPMO_FAIL_IF_QUIESCING", "MQPMO_SET_ALL_CONTEXT", "MQPMO_NO_CONTEXT"],
    "MQPMO_",
)  # fmt: skip
GMO = _usual(
    ["MQGMO_SYNCPOINT", "MQGMO_NO_SYNCPOINT", "MQGMO_BROWSE_FIRST", "MQGMO_BROWSE_NEXT",
     "MQGMO_ACCEPT_TRUNCATED_MSG", "MQGMO_LOGICAL_ORDER", "MQGMO_COMPLETE_MSG",
     "MQGMO_ALL_MSGS_AVAILABLE", "MQGMO_LOCK", "MQGMO_MSG_UNDER_CURSOR", "MQGMO_CONVERT",
     "MQGMO_SYNCPOINT_IF_PERSISTENT", "MQGMO_MARK_SKIP_BACKOUT", "MQGMO_NO_PROPERTIES",
     "MQGMO_BROWSE_MSG_UNDER_CURSOR", "MQGMO_UNLOCK"],
    "MQGMO_",
)  # fmt: skip
CO = _bits(["MQCO_NONE", "MQCO_DELETE", "MQCO_DELETE_PURGE", "MQCO_KEEP_SUB", "MQCO_REMOVE_SUB",
            "MQCO_QUIESCE"])  # fmt: skip
MF = _bits(["MQMF_SEGMENTATION_ALLOWED", "MQMF_SEGMENT", "MQMF_LAST_SEGMENT",
            "MQMF_MSG_IN_GROUP", "MQMF_LAST_MSG_IN_GROUP"])  # fmt: skip
MATCH = _bits(["MQMO_MATCH_MSG_ID", "MQMO_MATCH_CORREL_ID", "MQMO_MATCH_GROUP_ID",
               "MQMO_MATCH_MSG_SEQ_NUMBER", "MQMO_MATCH_OFFSET", "MQMO_MATCH_MSG_TOKEN",
               "MQMO_NONE"])  # fmt: skip

SELECTORS = sorted(
    {getattr(C, n) for n in dir(C) if n.startswith(("MQIA_", "MQCA_")) and "_FIRST" not in n}
    - {None}
)
SELECTOR = st.one_of(st.sampled_from(SELECTORS), _INT32)
IDS = st.sampled_from([b"\0" * 24, b"A" * 24, b"B" * 24])
TEXT = st.sampled_from(["", QUEUE, "R" * 48, "É", "  "])
FORMATS = st.sampled_from(
    [C.MQFMT_NONE, C.MQFMT_STRING, b"MQHRF2  ", b"MQDEAD  ", b"MQADMIN ", b"MQXMIT  ", b"ZZZZZZZZ"]
)

_MD_FIELDS: dict[str, st.SearchStrategy[Any]] = {
    "Priority": st.one_of(st.integers(-2, 12), _INT32),
    "Persistence": st.one_of(st.integers(-1, 3), _INT32),
    "Expiry": st.one_of(st.integers(-2, 100), _INT32),
    "MsgType": st.one_of(st.sampled_from([1, 2, 4, 8, 65536, 0, 5, 999999999]), _INT32),
    "Report": _INT32,
    "Feedback": st.one_of(st.sampled_from([0, 256, 65536, 1, 999999999]), _INT32),
    "MsgFlags": st.one_of(MF, _INT32),
    "Offset": st.one_of(st.integers(-1, 2000), _INT32),
    "MsgSeqNumber": st.one_of(st.integers(-1, 5), _INT32),
    "OriginalLength": st.integers(-2, 2000),
    "MsgId": IDS,
    "CorrelId": IDS,
    "GroupId": IDS,
    "Format": FORMATS,
    "CodedCharSetId": st.sampled_from([0, 1208, 819, 500, 37, -1, -2, 65535, 123456]),
    "Encoding": st.sampled_from([546, 273, 0, -1, 785]),
    "ReplyToQ": TEXT.map(str.encode),
    "ReplyToQMgr": st.sampled_from([b"", b"QMX"]),
    "Version": st.sampled_from([1, 2, 3, 0]),
}
# Mostly an MQMD with none or a few fields set, so most puts pass and reach the queue.
MD = st.one_of(
    st.just({}),
    st.lists(st.sampled_from(sorted(_MD_FIELDS)), max_size=3, unique=True).flatmap(
        lambda names: st.fixed_dictionaries({n: _MD_FIELDS[n] for n in names})
    ),
)

_H = st.integers(0, 3)  # which open handle (modulo how many there are)
CALL = st.one_of(
    st.tuples(st.just("open"), NAME, OO),
    st.tuples(st.just("put"), _H, st.sampled_from(SIZES), MD, PMO),
    st.tuples(st.just("put"), _H, st.sampled_from(SIZES), MD, PMO),
    st.tuples(st.just("put1"), NAME, st.sampled_from(SIZES), MD, PMO),
    st.tuples(st.just("get"), _H, GMO, MD, MATCH, st.sampled_from([None, 0, 1, 999, 100_000])),
    st.tuples(st.just("get"), _H, GMO, MD, MATCH, st.sampled_from([None, 0, 1, 999, 100_000])),
    st.tuples(st.just("inq"), st.integers(-1, 3), st.lists(SELECTOR, min_size=1, max_size=3)),
    st.tuples(st.just("set"), _H, SELECTOR, _INT32, TEXT),
    st.tuples(st.just("close"), _H, CO),
    st.tuples(st.sampled_from(["begin", "commit", "backout", "stat", "disconnect"])),
)
SEQUENCE = st.lists(CALL, min_size=1, max_size=12)


def documented_codes() -> dict[str, frozenset[int]]:
    """Per MQI call, the reason codes docs/mqi-reason-codes.md lists for it (any status:
    an undocumented code is the failure); "*" holds every code the document lists."""
    sections = section_rows(DOC.read_text())
    calls: dict[str, set[int]] = {}
    for call, names in CALLS.items():
        calls[call] = {int(code) for name in names for code in sections.get(name, {})}
    for name in ("MQSET", "MQSTAT"):
        calls[name] = {int(code) for code in sections.get(name, {})}
    calls["MQPUT1"] |= calls["MQOPEN"]  # MQPUT1's page: MQOPEN's name resolution too
    calls["*"] = {int(code) for rows in sections.values() for code in rows}
    return {call: frozenset(codes) for call, codes in calls.items()}


_MQI = {
    "open": "MQOPEN",
    "put": "MQPUT",
    "put1": "MQPUT1",
    "get": "MQGET",
    "inq": "MQINQ",
    "set": "MQSET",
    "close": "MQCLOSE",
    "stat": "MQSTAT",
}


@dataclass
class Outcome:
    """What a sequence did: per call, None or the reason code it raised."""

    reasons: list[int | None] = field(default_factory=list)
    undocumented: list[tuple[Any, int]] = field(default_factory=list)


def prepare(qmgr: pymqi.QueueManager) -> None:
    """The objects every sequence works on (idempotent)."""
    qmgr.alter_qmgr(max_msg_length=QMGR_MAXMSGL)
    qmgr.define_queue(QUEUE, replace=True, max_msg_length=QUEUE_MAXMSGL, max_depth=50)
    qmgr.define_queue(BIG, replace=True, max_msg_length=QMGR_MAXMSGL, max_depth=50)


def run(
    connect: Callable[[], pymqi.QueueManager],
    calls: list[tuple],
    codes: dict[str, frozenset[int]],
) -> Outcome:
    """Run one sequence on a new connection; anything but MQMIError propagates."""
    qmgr = connect()
    handles: list[pymqi.Queue] = []
    out = Outcome()
    try:
        for call in calls:
            reason = None
            try:
                _one(qmgr, handles, call)
            except pymqi.MQMIError as err:
                reason = err.reason
                allowed = codes.get(_MQI.get(call[0], "*"), codes["*"])
                if reason not in allowed:
                    out.undocumented.append((call, reason))
            out.reasons.append(reason)
    finally:
        if qmgr._conn is not None:
            try:
                qmgr.backout()
            finally:
                qmgr.disconnect()
    return out


def _md(fields: dict[str, Any]) -> pymqi.MD:
    md = pymqi.MD()
    for name, value in fields.items():
        setattr(md, name, value)
    return md


_DEFAULT_OPEN = C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT | C.MQOO_BROWSE | C.MQOO_INQUIRE | C.MQOO_SET
_ON_A_HANDLE = ("put", "get", "set", "close")


def _one(qmgr: pymqi.QueueManager, handles: list[pymqi.Queue], call: tuple) -> None:
    op = call[0]
    if op in _ON_A_HANDLE and not handles and qmgr._conn is not None:
        # A call on a handle, and none open: open the usual queue for everything first,
        # so that the call reaches its own rules.
        handles.append(pymqi.Queue(qmgr, QUEUE, _DEFAULT_OPEN))
    if op == "open":
        handles.append(pymqi.Queue(qmgr, call[1], call[2]))
    elif op in ("put", "put1"):
        _, target, size, md, options = call
        pmo = pymqi.PMO(Options=options)
        if op == "put1":
            qmgr.put1(target, b"m" * size, _md(md), pmo)
        elif handles:
            handles[target % len(handles)].put(b"m" * size, _md(md), pmo)
    elif op == "get":
        _, h, options, md, match, length = call
        if handles:
            gmo = pymqi.GMO(Options=options, MatchOptions=match, WaitInterval=0)
            handles[h % len(handles)].get(length, _md(md), gmo)
    elif op == "inq":
        _, h, selectors = call
        if h < 0 or not handles:
            qmgr.inquire(selectors)
        else:
            handles[h % len(handles)].inquire(selectors)
    elif op == "set":
        _, h, selector, number, text = call
        # A value of the selector's kind (MQCA_*: text; others: an integer): a str for
        # an integer is Python's TypeError, not an MQ call.
        value = text if C.MQCA_FIRST <= selector <= C.MQCA_LAST else number
        if handles:
            handles[h % len(handles)].set(selector, value)
    elif op == "close":
        if handles:
            handles[call[1] % len(handles)].close(call[2])
    elif op == "stat":
        qmgr.stat(C.MQSTAT_TYPE_ASYNC_ERROR)
    elif op == "disconnect" and qmgr._conn is None:
        pass  # pymqi's own PYIFError("not connected"), no MQI call: not fuzzed
    else:
        getattr(qmgr, op)()
