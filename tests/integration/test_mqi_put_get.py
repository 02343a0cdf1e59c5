"""MQPUT / MQGET on the real broker and Redis, written from MQ's documented behaviour."""

from __future__ import annotations

import threading
import time

import pytest

import adapter.pymqi as pymqi
from tests.integration.conftest import drain, mqerror

pytestmark = pytest.mark.integration
C = pymqi.CMQC


def _open(qm, name, options=C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT | C.MQOO_BROWSE):
    return pymqi.Queue(qm, name, options)


def test_put_fills_md_and_get_returns_message_with_its_md(qmgr) -> None:
    qmgr.define_queue("Q.BASIC")
    q = _open(qmgr, "Q.BASIC")
    md = pymqi.MD()
    q.put(b"payload \x00 bytes", md)
    assert len(md.MsgId) == 24 and md.MsgId != C.MQMI_NONE
    assert len(md.PutDate) == 8 and md.PutDate.isdigit()
    assert len(md.PutTime) == 8 and md.PutTime.isdigit()
    assert md.CorrelId == C.MQCI_NONE.rstrip(b"\0") or md.CorrelId == C.MQCI_NONE

    got_md = pymqi.MD()
    assert q.get(None, got_md) == b"payload \x00 bytes"
    assert got_md.MsgId == md.MsgId
    assert got_md.Format == C.MQFMT_NONE  # a default MD is read back as MQFMT_NONE
    assert got_md.PutDate == md.PutDate and got_md.PutTime == md.PutTime
    assert got_md.Persistence == C.MQPER_NOT_PERSISTENT  # the queue's default
    assert got_md.Expiry == C.MQEI_UNLIMITED
    assert got_md.MsgType == C.MQMT_DATAGRAM
    assert got_md.PutApplType == C.MQAT_UNIX
    q.close()


def test_str_payload_is_utf8_mqstr_1208(qmgr) -> None:
    qmgr.define_queue("Q.STR")
    q = _open(qmgr, "Q.STR")
    q.put("grüße")
    md = pymqi.MD()
    assert q.get(None, md) == "grüße".encode()
    assert md.Format == C.MQFMT_STRING and md.CodedCharSetId == 1208


def test_msg_id_and_correl_id_generation_rules(qmgr) -> None:
    qmgr.define_queue("Q.IDS")
    q = _open(qmgr, "Q.IDS")
    explicit = pymqi.MD(MsgId=b"MY-ID".ljust(24, b"\0"), CorrelId=b"CID".ljust(24, b"\0"))
    q.put(b"a", explicit)
    assert explicit.MsgId == b"MY-ID".ljust(24, b"\0")  # used as given
    forced = pymqi.MD(MsgId=b"MY-ID".ljust(24, b"\0"))
    q.put(b"b", forced, pymqi.PMO(Options=C.MQPMO_NEW_MSG_ID | C.MQPMO_NEW_CORREL_ID))
    assert forced.MsgId != b"MY-ID".ljust(24, b"\0")
    assert forced.CorrelId not in (C.MQCI_NONE, b"")
    got = drain(q)
    assert [m.MsgId for _, m in got] == [explicit.MsgId, forced.MsgId]
    assert got[0][1].CorrelId == b"CID".ljust(24, b"\0")
    assert got[1][1].CorrelId == forced.CorrelId


def test_priority_order_highest_first_fifo_within_priority(qmgr) -> None:
    qmgr.define_queue("Q.PRI", def_priority=4)
    q = _open(qmgr, "Q.PRI")
    sent = [(1, "a"), (7, "b"), (1, "c"), (9, "d"), (7, "e"), (-1, "f")]  # -1: the default 4
    for prio, body in sent:
        q.put(body.encode(), pymqi.MD(Priority=prio))
    got = drain(q)
    assert [d for d, _ in got] == [b"d", b"b", b"e", b"f", b"a", b"c"]
    assert [m.Priority for _, m in got] == [9, 7, 7, 4, 1, 1]


def test_fifo_delivery_sequence_ignores_priority(qmgr) -> None:
    qmgr.define_queue("Q.FIFO", msg_delivery_sequence=C.MQMDS_FIFO)
    q = _open(qmgr, "Q.FIFO")
    for prio, body in [(1, b"1"), (9, b"2"), (5, b"3"), (0, b"4")]:
        q.put(body, pymqi.MD(Priority=prio))
    assert [d for d, _ in drain(q)] == [b"1", b"2", b"3", b"4"]


def test_priority_above_nine_is_a_warning_and_highest(qmgr) -> None:
    qmgr.define_queue("Q.PRI10")
    q = _open(qmgr, "Q.PRI10")
    q.put(b"low", pymqi.MD(Priority=0))
    with pytest.raises(pymqi.MQMIError) as exc:
        q.put(b"high", pymqi.MD(Priority=12))
    assert mqerror(exc) == (C.MQCC_WARNING, C.MQRC_PRIORITY_EXCEEDS_MAXIMUM)
    assert [d for d, _ in drain(q)] == [b"high", b"low"]
    with pytest.raises(pymqi.MQMIError) as exc:
        q.put(b"bad", pymqi.MD(Priority=-5))
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_PRIORITY_ERROR)


def test_no_wait_on_empty_queue_is_2033_at_once(qmgr) -> None:
    qmgr.define_queue("Q.EMPTY")
    q = _open(qmgr, "Q.EMPTY")
    started = time.monotonic()
    with pytest.raises(pymqi.MQMIError) as exc:
        q.get()
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_NO_MSG_AVAILABLE)
    assert time.monotonic() - started < 2.0


def test_wait_times_out_after_wait_interval(qmgr) -> None:
    qmgr.define_queue("Q.WAITOUT")
    q = _open(qmgr, "Q.WAITOUT")
    gmo = pymqi.GMO(Options=C.MQGMO_WAIT, WaitInterval=600)
    started = time.monotonic()
    with pytest.raises(pymqi.MQMIError) as exc:
        q.get(None, pymqi.MD(), gmo)
    elapsed = time.monotonic() - started
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_NO_MSG_AVAILABLE)
    assert 0.6 <= elapsed < 3.0


def test_wait_wakes_when_a_message_arrives(qmgr, qmgr_name) -> None:
    """A getter waiting (up to 20 s) returns soon after another connection's put."""
    qmgr.define_queue("Q.WAKE")
    q = _open(qmgr, "Q.WAKE")
    q.get_handle().getter.reader.catch_up()  # reader started before the put
    put_at: list[float] = []

    def putter() -> None:
        other = pymqi.connect(qmgr_name)
        time.sleep(1.0)
        put_at.append(time.monotonic())
        pymqi.Queue(other, "Q.WAKE").put(b"wake up")
        other.disconnect()

    thread = threading.Thread(target=putter)
    thread.start()
    gmo = pymqi.GMO(Options=C.MQGMO_WAIT, WaitInterval=20_000)
    assert q.get(None, pymqi.MD(), gmo) == b"wake up"
    woke = time.monotonic() - put_at[0]
    thread.join()
    assert woke < 0.5, f"woke {woke:.3f}s after the put"


def test_wait_interval_below_unlimited_is_an_error(qmgr) -> None:
    qmgr.define_queue("Q.WAITERR")
    q = _open(qmgr, "Q.WAITERR")
    with pytest.raises(pymqi.MQMIError) as exc:
        q.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_WAIT, WaitInterval=-7))
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_WAIT_INTERVAL_ERROR)


def test_match_by_correl_id_and_msg_id_none_is_wildcard(qmgr) -> None:
    qmgr.define_queue("Q.MATCH")
    q = _open(qmgr, "Q.MATCH")
    ids = []
    for i in range(3):
        md = pymqi.MD(CorrelId=f"C{i}".encode().ljust(24, b"\0"))
        q.put(f"m{i}".encode(), md)
        ids.append(md.MsgId)
    by_correl = pymqi.MD(CorrelId=b"C1".ljust(24, b"\0"))
    assert q.get(None, by_correl) == b"m1"
    by_msgid = pymqi.MD(MsgId=ids[2])
    assert q.get(None, by_msgid) == b"m2"
    with pytest.raises(pymqi.MQMIError) as exc:
        q.get(None, pymqi.MD(MsgId=ids[2]))  # already gone
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_NO_MSG_AVAILABLE)
    assert q.get(None, pymqi.MD()) == b"m0"  # MQMI_NONE / MQCI_NONE match anything


def test_truncation_failed_leaves_message_and_accepted_removes_it(qmgr) -> None:
    qmgr.define_queue("Q.TRUNC")
    q = _open(qmgr, "Q.TRUNC")
    q.put(b"0123456789")
    md = pymqi.MD()
    with pytest.raises(pymqi.MQMIError) as exc:
        q.get(4, md)
    assert mqerror(exc) == (C.MQCC_WARNING, C.MQRC_TRUNCATED_MSG_FAILED)
    assert exc.value.message == b"0123" and exc.value.original_length == 10
    assert md.MsgId != b""  # the MD describes the message that did not fit
    with pytest.raises(pymqi.MQMIError) as exc:
        q.get(4, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_ACCEPT_TRUNCATED_MSG))
    assert mqerror(exc) == (C.MQCC_WARNING, C.MQRC_TRUNCATED_MSG_ACCEPTED)
    assert exc.value.message == b"0123"
    assert drain(q) == []  # ACCEPT_TRUNCATED_MSG removed it
    q.put(b"x" * 100_000)
    assert q.get(None) == b"x" * 100_000  # get(None): any size


def test_max_msg_length_and_max_depth(qmgr) -> None:
    qmgr.define_queue("Q.LIMITS", max_msg_length=100, max_depth=3)
    q = _open(qmgr, "Q.LIMITS")
    with pytest.raises(pymqi.MQMIError) as exc:
        q.put(b"x" * 101)
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_MSG_TOO_BIG_FOR_Q)
    for _ in range(3):
        q.put(b"x" * 100)
    with pytest.raises(pymqi.MQMIError) as exc:
        q.put(b"y")
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_Q_FULL)
    q.get()
    q.put(b"room again")
    assert qmgr.queue_status("Q.LIMITS")["current_depth"] == 3


def test_a_burst_of_async_puts_stops_exactly_at_max_depth(qmgr) -> None:
    """One connection's asynchronous puts, far faster than one depth read per 0.1 s
    (the putter's estimate), with the pump flushing their count into the state as they
    go: exactly MAXDEPTH are accepted, the rest get 2053. Before the putter counted its
    own flushed puts (Pump.depth_mark), this test left 22,131 and 20,894 there."""
    max_depth, extra = 20_000, 5_000
    qmgr.define_queue("Q.BURST", max_depth=max_depth)
    q = pymqi.Queue(qmgr, "Q.BURST", C.MQOO_OUTPUT)
    pmo = pymqi.PMO(Options=C.MQPMO_ASYNC_RESPONSE)
    refused = 0
    for i in range(max_depth + extra):
        try:
            q.put(b"b%d" % i, pymqi.MD(), pmo)
        except pymqi.MQMIError as err:
            assert (err.comp, err.reason) == (C.MQCC_FAILED, C.MQRC_Q_FULL)
            refused += 1
    sts = qmgr.stat(C.MQSTAT_TYPE_ASYNC_ERROR)  # waits for every put in flight
    assert (sts.PutSuccessCount, sts.PutFailureCount) == (max_depth, 0)
    assert refused == extra
    assert qmgr.queue_status("Q.BURST")["current_depth"] == max_depth


def test_put1_needs_no_open_handle_and_unknown_queue_is_2085(qmgr) -> None:
    qmgr.define_queue("Q.PUT1")
    md = pymqi.MD()
    qmgr.put1("Q.PUT1", b"one shot", md)
    assert md.MsgId != b""
    assert _open(qmgr, "Q.PUT1").get() == b"one shot"
    with pytest.raises(pymqi.MQMIError) as exc:
        pymqi.Queue(qmgr, "NO.SUCH.QUEUE", C.MQOO_INPUT_SHARED)
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_UNKNOWN_OBJECT_NAME)
    with pytest.raises(pymqi.MQMIError) as exc:
        qmgr.put1("NO.SUCH.QUEUE", b"x")
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_UNKNOWN_OBJECT_NAME)


def test_deferred_open_and_open_options_enforced(qmgr) -> None:
    qmgr.define_queue("Q.DEFER")
    q = pymqi.Queue(qmgr, "Q.DEFER")
    q.put(b"lazy")  # opened for output by the first put
    with pytest.raises(pymqi.MQMIError) as exc:
        q.get()
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_NOT_OPEN_FOR_INPUT)
    q.close()
    reader = pymqi.Queue(qmgr, "Q.DEFER")
    assert reader.get() == b"lazy"  # opened for input by the first get
    with pytest.raises(pymqi.MQMIError) as exc:
        reader.put(b"no")
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_NOT_OPEN_FOR_OUTPUT)
    reader.close()
    browse_only = pymqi.Queue(qmgr, "Q.DEFER", C.MQOO_INPUT_SHARED)
    with pytest.raises(pymqi.MQMIError) as exc:
        browse_only.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_BROWSE_FIRST))
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_NOT_OPEN_FOR_BROWSE)


def test_two_queue_managers_never_see_each_others_queues(mqk_servers, qmgr_name) -> None:
    a = pymqi.connect(qmgr_name + "A")
    b = pymqi.connect(qmgr_name + "B")
    try:
        a.define_queue("SHARED.NAME")
        b.define_queue("SHARED.NAME")
        pymqi.Queue(a, "SHARED.NAME").put(b"for A only")
        with pytest.raises(pymqi.MQMIError) as exc:
            pymqi.Queue(b, "SHARED.NAME").get()
        assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_NO_MSG_AVAILABLE)
        assert pymqi.Queue(a, "SHARED.NAME").get() == b"for A only"
    finally:
        a.disconnect()
        b.disconnect()


def test_names_with_slash_and_percent_are_legal(qmgr) -> None:
    qmgr.define_queue("APP/ORDERS%IN")
    q = _open(qmgr, "APP/ORDERS%IN")
    q.put(b"odd name")
    assert q.get() == b"odd name"


def test_read_ahead_delivers_each_message_once_and_close_gives_back_the_rest(qmgr) -> None:
    qmgr.define_queue("Q.AHEAD", def_read_ahead=True)
    out = pymqi.Queue(qmgr, "Q.AHEAD", C.MQOO_OUTPUT)
    for i in range(50):
        out.put(f"n{i:02d}".encode(), pymqi.MD(Persistence=C.MQPER_NOT_PERSISTENT))
    out.put(b"durable", pymqi.MD(Persistence=C.MQPER_PERSISTENT))
    first = pymqi.Queue(qmgr, "Q.AHEAD", C.MQOO_INPUT_SHARED)
    got = [first.get() for _ in range(10)]
    assert got == [f"n{i:02d}".encode() for i in range(10)]
    # The rest sits in first's read-ahead buffer: another handle sees only the persistent one.
    other = pymqi.Queue(qmgr, "Q.AHEAD", C.MQOO_INPUT_SHARED | C.MQOO_NO_READ_AHEAD)
    assert [d for d, _ in drain(other)] == [b"durable"]
    first.close()  # the 40 undelivered messages go back on the queue, in their order
    rest = [d for d, _ in drain(other)]
    assert rest == [f"n{i:02d}".encode() for i in range(10, 50)]
    assert qmgr.queue_status("Q.AHEAD")["current_depth"] == 0


def _context(md) -> tuple:
    return (
        pymqi.structs.mqstr(md.UserIdentifier),
        bytes(md.AccountingToken).rstrip(b"\0"),
        pymqi.structs.mqstr(md.ApplIdentityData),
        md.PutApplType,
        pymqi.structs.mqstr(md.PutApplName),
        pymqi.structs.mqstr(md.ApplOriginData),
    )


def test_context_options_decide_which_context_the_message_carries(qmgr) -> None:
    """MQPMO_DEFAULT_CONTEXT: the queue manager generates identity and origin;
    SET_IDENTITY_CONTEXT: the application's identity, generated origin; SET_ALL_CONTEXT:
    both the application's; NO_CONTEXT: all blank, PutApplType MQAT_NO_CONTEXT."""
    qmgr.define_queue("Q.CTX")
    q = _open(qmgr, "Q.CTX", C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT | C.MQOO_SET_ALL_CONTEXT)
    app = {
        "UserIdentifier": b"alice",
        "AccountingToken": b"token-1",
        "ApplIdentityData": b"ident",
        "PutApplType": C.MQAT_JAVA,
        "PutApplName": b"billing",
        "ApplOriginData": b"orig",
    }
    generated = None
    for option in (
        C.MQPMO_DEFAULT_CONTEXT,
        C.MQPMO_SET_IDENTITY_CONTEXT,
        C.MQPMO_SET_ALL_CONTEXT,
        C.MQPMO_NO_CONTEXT,
    ):
        put_md = pymqi.MD(**app)
        q.put(b"ctx", put_md, pymqi.PMO(Options=option))
        got_md = pymqi.MD()
        q.get(None, got_md)
        got = _context(got_md)
        assert _context(put_md) == got, option  # the put's MD is filled with what was sent
        if option == C.MQPMO_DEFAULT_CONTEXT:
            generated = got
            assert got[0] and got[3] == C.MQAT_UNIX and got[4]
            assert (got[1], got[2], got[5]) == (b"", "", "")
        elif option == C.MQPMO_SET_IDENTITY_CONTEXT:
            assert got[:3] == ("alice", b"token-1", "ident")
            assert got[3:] == generated[3:]
        elif option == C.MQPMO_SET_ALL_CONTEXT:
            assert got == ("alice", b"token-1", "ident", C.MQAT_JAVA, "billing", "orig")
        else:
            assert got == ("", b"", "", C.MQAT_NO_CONTEXT, "", "")
    q.close()


def test_convert_gives_the_character_set_the_getter_asks_for(qmgr) -> None:
    """MQGMO_CONVERT on the real stack: UTF-8 text got as EBCDIC (CCSID 37), the MQMD
    saying so; binary data (MQFMT_NONE) comes back unconverted with 2110."""
    qmgr.define_queue("Q.CONVERT")
    q = _open(qmgr, "Q.CONVERT")
    q.put("Grüße".encode(), pymqi.MD(Format=C.MQFMT_STRING, CodedCharSetId=1208))
    md = pymqi.MD(CodedCharSetId=37)
    gmo = pymqi.GMO(Options=C.MQGMO_NO_WAIT | C.MQGMO_CONVERT)
    assert q.get(None, md, gmo) == "Grüße".encode("cp037")
    assert md.CodedCharSetId == 37
    q.put(b"\x00\xff", pymqi.MD(Format=C.MQFMT_NONE, CodedCharSetId=1208))
    with pytest.raises(pymqi.MQMIError) as exc:
        q.get(None, pymqi.MD(CodedCharSetId=37), gmo)
    assert mqerror(exc) == (C.MQCC_WARNING, 2110)
