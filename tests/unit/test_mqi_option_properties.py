"""Property tests: random MQGET and MQPUT / MQPUT1 option combinations through the pymqi
face on the in-memory backends. Whatever else a call answers, MQRC_OPTIONS_ERROR must
come exactly for the combinations IBM's rules call invalid.

The model below is written from IBM's pages, not from the implementation: the bit values
are copied from the MQGMO_* / MQPMO_* constant tables, and the rules from "Rules for
validating MQI options" (MQGET and MQPUT sections) and the MQPMO Options page:
https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=reference-rules-validating-mqi-options
https://www.ibm.com/docs/zh/SSFKSJ_8.0.0/refdev/q098730_.html
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import adapter.pymqi as pymqi
from adapter import config

C = pymqi.CMQC

# -- MQGET ---------------------------------------------------------------------------
# MQGMO_* options (the constant table's hex values); the other bits are not options.
G_WAIT, G_SYNC, G_NO_SYNC, G_SIGNAL = 0x1, 0x2, 0x4, 0x8
G_BROWSE_FIRST, G_BROWSE_NEXT, G_ACCEPT_TRUNC, G_SKIP_BACKOUT = 0x10, 0x20, 0x40, 0x80
G_UNDER_CURSOR, G_LOCK, G_UNLOCK, G_BROWSE_UNDER_CURSOR = 0x100, 0x200, 0x400, 0x800
G_SYNC_IF_PERSISTENT, G_COMPLETE_MSG = 0x1000, 0x10000
GET_OPTIONS = [
    G_WAIT,
    G_SYNC,
    G_NO_SYNC,
    G_SIGNAL,
    G_BROWSE_FIRST,
    G_BROWSE_NEXT,
    G_ACCEPT_TRUNC,
    G_SKIP_BACKOUT,
    G_UNDER_CURSOR,
    G_LOCK,
    G_UNLOCK,
    G_BROWSE_UNDER_CURSOR,
    G_SYNC_IF_PERSISTENT,
    0x2000,  # FAIL_IF_QUIESCING
    0x4000,  # CONVERT
    0x8000,  # LOGICAL_ORDER
    G_COMPLETE_MSG,
    0x20000,  # ALL_MSGS_AVAILABLE
    0x40000,  # ALL_SEGMENTS_AVAILABLE
    0x100000,  # MARK_BROWSE_HANDLE
    0x200000,  # MARK_BROWSE_CO_OP
    0x400000,  # UNMARK_BROWSE_CO_OP
    0x800000,  # UNMARK_BROWSE_HANDLE
    0x1000000,  # UNMARKED_BROWSE_MSG
    0x2000000,  # PROPERTIES_FORCE_MQRFH2
    0x4000000,  # NO_PROPERTIES
    0x8000000,  # PROPERTIES_IN_HANDLE
    0x10000000,  # PROPERTIES_COMPATIBILITY
]
NOT_GET_OPTIONS = [0x80000, 0x20000000, 0x40000000, 0x80000000]
BROWSES = (G_BROWSE_FIRST, G_BROWSE_NEXT, G_BROWSE_UNDER_CURSOR)


def _count(options: int, choices) -> int:
    return sum(1 for c in choices if options & c)


def get_options_invalid(o: int) -> bool:
    """IBM's MQGET rules, one line each."""
    browse = _count(o, BROWSES) > 0
    return (
        any(o & bit for bit in NOT_GET_OPTIONS)
        or _count(o, (G_SYNC, G_NO_SYNC, G_SYNC_IF_PERSISTENT)) > 1
        or _count(o, (*BROWSES, G_UNDER_CURSOR)) > 1
        or bool(o & G_SYNC and (browse or o & (G_LOCK | G_UNLOCK)))
        or bool(o & G_SYNC_IF_PERSISTENT and (browse or o & (G_COMPLETE_MSG | G_UNLOCK)))
        or bool(o & G_SKIP_BACKOUT and not o & G_SYNC)
        or bool(o & G_WAIT and o & G_SIGNAL)
        or bool(o & G_LOCK and not browse)
        or bool(o & G_UNLOCK and o & ~(G_UNLOCK | G_NO_SYNC))  # NO_WAIT is 0
    )


def _mqlong(bits: int) -> int:
    return bits - (1 << 32) if bits & 0x80000000 else bits


def _combination(options: list[int], strangers: list[int]):
    """A few options, now and then with a bit that is not one (as a signed MQLONG)."""
    return st.builds(
        lambda chosen, odd: _mqlong(sum(set(chosen)) | odd),
        st.lists(st.sampled_from(options), max_size=5),
        st.sampled_from([0] * 3 * len(strangers) + strangers),
    )


def _outcome(call) -> tuple[int, int]:
    try:
        call()
    except pymqi.MQMIError as err:
        return err.comp, err.reason
    return C.MQCC_OK, C.MQRC_NONE


_SETTINGS = settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@pytest.fixture
def get_queue(qmgr) -> pymqi.Queue:
    """One handle for every example of a test: input and browse, on a queue that
    always holds a message when a get starts."""
    qmgr.define_queue("Q.PROP")
    return pymqi.Queue(qmgr, "Q.PROP", C.MQOO_INPUT_SHARED | C.MQOO_BROWSE)


@_SETTINGS
@given(options=_combination(GET_OPTIONS, NOT_GET_OPTIONS))
def test_mqget_gives_2046_exactly_for_the_invalid_combinations(
    qmgr, get_queue: pymqi.Queue, options: int
) -> None:
    q = get_queue
    if qmgr.queue_status("Q.PROP")["current_depth"] == 0:
        qmgr.put1("Q.PROP", b"m", pymqi.MD(), pymqi.PMO(Options=C.MQPMO_NO_SYNCPOINT))
    gmo = pymqi.GMO(Options=options, WaitInterval=0)
    comp, reason = _outcome(lambda: q.get(None, pymqi.MD(), gmo))
    qmgr.backout()  # a syncpoint get must not carry into the next example
    if get_options_invalid(options):
        assert (comp, reason) == (C.MQCC_FAILED, C.MQRC_OPTIONS_ERROR), hex(options)
    else:
        assert reason != C.MQRC_OPTIONS_ERROR, hex(options)


# -- MQPUT / MQPUT1 --------------------------------------------------------------------
P_SYNC, P_NO_SYNC, P_AUA, P_LOGICAL = 0x2, 0x4, 0x1000, 0x8000
P_ASYNC, P_SYNC_RESPONSE = 0x10000, 0x20000
# DEFAULT, NO, PASS_IDENTITY, PASS_ALL, SET_IDENTITY, SET_ALL context: one at most.
P_CONTEXTS = (0x20, 0x4000, 0x100, 0x200, 0x400, 0x800)
PUT_OPTIONS = [
    P_SYNC,
    P_NO_SYNC,
    *P_CONTEXTS,
    0x40,  # NEW_MSG_ID
    0x80,  # NEW_CORREL_ID
    P_AUA,
    0x2000,  # FAIL_IF_QUIESCING
    P_LOGICAL,
    P_ASYNC,
    P_SYNC_RESPONSE,
    0x40000,  # RESOLVE_LOCAL_Q
    0x80000,  # WARN_IF_NO_SUBS_MATCHED
    0x200000,  # RETAIN
    0x800000,  # MD_FOR_OUTPUT_ONLY
    0x4000000,  # SCOPE_QMGR
    0x8000000,  # SUPPRESS_REPLYTO
    0x10000000,  # NOT_OWN_SUBS
]
NOT_PUT_OPTIONS = [0x1, 0x8, 0x10, 0x100000, 0x400000, 0x1000000, 0x2000000, 0x80000000]


def put_options_invalid(o: int, *, put1: bool) -> bool:
    """IBM's MQPUT rules; MQPUT1 takes MQPMO_ALTERNATE_USER_AUTHORITY but not
    MQPMO_LOGICAL_ORDER. ASYNC_ and SYNC_RESPONSE ask for opposite responses (MQPMO
    Options page)."""
    return (
        any(o & bit for bit in NOT_PUT_OPTIONS)
        or bool(o & P_SYNC and o & P_NO_SYNC)
        or _count(o, P_CONTEXTS) > 1
        or bool(o & P_ASYNC and o & P_SYNC_RESPONSE)
        or bool(o & P_AUA and not put1)
        or bool(o & P_LOGICAL and put1)
    )


@pytest.fixture
def put_queue(qmgr) -> pymqi.Queue:
    qmgr.define_queue("Q.PUTPROP")
    return pymqi.Queue(qmgr, "Q.PUTPROP", C.MQOO_OUTPUT | C.MQOO_SET_ALL_CONTEXT)


@_SETTINGS
@given(options=_combination(PUT_OPTIONS, NOT_PUT_OPTIONS), put1=st.booleans())
def test_mqput_gives_2046_exactly_for_the_invalid_combinations(
    qmgr, put_queue: pymqi.Queue, options: int, put1: bool
) -> None:
    q = put_queue
    pmo = pymqi.PMO(Options=options)
    if put1:
        comp, reason = _outcome(lambda: qmgr.put1("Q.PUTPROP", b"p", pymqi.MD(), pmo))
    else:
        comp, reason = _outcome(lambda: q.put(b"p", pymqi.MD(), pmo))
    qmgr.backout()
    if put_options_invalid(options, put1=put1):
        assert (comp, reason) == (C.MQCC_FAILED, C.MQRC_OPTIONS_ERROR), hex(options)
    else:
        assert reason != C.MQRC_OPTIONS_ERROR, hex(options)


@pytest.fixture(autouse=True)
def _alternate_user_allowed(monkeypatch) -> None:
    # MQPUT1's ALTERNATE_USER_AUTHORITY is then a valid put; without the policy it would
    # be 2035, which the property allows too, but this way the put goes through.
    monkeypatch.setenv(config.ALTERNATE_USER_AUTHORITY_ENV, "*")
