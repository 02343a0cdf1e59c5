"""The command server on the in-memory backends: PCF requests put to
SYSTEM.ADMIN.COMMAND.QUEUE, answered on their ReplyToQ by MQ's rules (MsgType, Format,
MsgId/CorrelId by Report options, Control, persistence), one unit of work per request,
error responses for requests that are not PCF commands, the dead-letter queue for a
reply that cannot be put, and endmqcsv's stop."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import adapter.pymqi as pymqi
from adapter.core import cmdreplies as R
from adapter.core import dlh
from adapter.core import pcf as wire
from adapter.shim.runstate import end_queue_manager, start_queue_manager
from adapter.tools import cmdserver

C, F = pymqi.CMQC, pymqi.CMQCFC
ENC = C.MQENC_NATIVE
REPLY = "CS.REPLY"


def command(cmd: int, params: list[wire.Param], **header) -> bytes:
    head = wire.Header(header.pop("type", F.MQCFT_COMMAND), F.MQCFH_VERSION_3, cmd, **header)
    return wire.encode(head, params, ENC)


def inquire(name: bytes) -> bytes:
    return command(F.MQCMD_INQUIRE_Q, [wire.Param(F.MQCFT_STRING, C.MQCA_Q_NAME, name)])


def send(qm, data: bytes, fmt: bytes = C.MQFMT_ADMIN, **md_fields) -> pymqi.MD:
    md = pymqi.MD(Format=fmt, MsgType=md_fields.pop("MsgType", C.MQMT_REQUEST),
                  ReplyToQ=REPLY, **md_fields)  # fmt: skip
    qm.put1(R.COMMAND_QUEUE, data, md, pymqi.PMO(Options=C.MQPMO_NO_SYNCPOINT))
    return md


def replies(qm) -> list[tuple[pymqi.MD, wire.Message]]:
    out = []
    q = pymqi.Queue(qm, REPLY, C.MQOO_INPUT_SHARED)
    try:
        while True:
            md = pymqi.MD()
            try:
                data = q.get(None, md, pymqi.GMO(Options=C.MQGMO_NO_WAIT))
            except pymqi.MQMIError as err:
                assert err.reason == C.MQRC_NO_MSG_AVAILABLE
                return out
            parsed = wire.parse(data, md.Encoding)
            assert isinstance(parsed, wire.Message)
            out.append((md, parsed))
    finally:
        q.close()


@pytest.fixture
def server(qmgr, other):
    """A command server on its own connection (`other`); `qmgr` is the application."""
    qmgr.define_queue(REPLY)
    srv = cmdserver.CommandServer(other)
    yield srv
    srv.close()


def test_reply_rules_default_report(qmgr, server):
    qmgr.define_queue("APP.ONE")
    request = send(qmgr, inquire(b"APP.ONE"), Persistence=C.MQPER_PERSISTENT, Priority=4)
    assert server.serve_one() == "request"
    [(md, msg)] = replies(qmgr)
    assert md.MsgType == C.MQMT_REPLY
    assert bytes(md.Format) == C.MQFMT_ADMIN
    assert bytes(md.CorrelId) == bytes(request.MsgId)  # default: the request's MsgId
    assert bytes(md.MsgId) != bytes(request.MsgId)  # a new one
    assert md.Persistence == C.MQPER_PERSISTENT and md.Priority == 4
    assert md.Expiry == C.MQEI_UNLIMITED
    head = msg.header
    assert (head.type, head.command, head.control) == (
        F.MQCFT_RESPONSE, F.MQCMD_INQUIRE_Q, F.MQCFC_LAST)  # fmt: skip
    assert head.comp_code == C.MQCC_OK
    values = {p.parameter: p.value for p in msg.params}
    assert values[C.MQCA_Q_NAME].strip() == b"APP.ONE"


def test_pass_msg_id_and_correl_id(qmgr, server):
    qmgr.define_queue("APP.ONE")
    request = send(qmgr, inquire(b"APP.ONE"), CorrelId=b"C" * 24,
                   Report=C.MQRO_PASS_MSG_ID | C.MQRO_PASS_CORREL_ID)  # fmt: skip
    server.serve_one()
    [(md, _)] = replies(qmgr)
    assert bytes(md.MsgId) == bytes(request.MsgId)
    assert bytes(md.CorrelId) == b"C" * 24


def test_generic_inquiry_control_flags(qmgr, server):
    for name in ("APP.A", "APP.B", "APP.C"):
        qmgr.define_queue(name)
    send(qmgr, inquire(b"APP.*"))
    server.serve_one()
    got = replies(qmgr)
    heads = [m.header for _, m in got]
    assert [h.control for h in heads] == [F.MQCFC_NOT_LAST, F.MQCFC_NOT_LAST, F.MQCFC_LAST]
    assert [h.msg_seq_number for h in heads] == [1, 2, 3]
    assert len({bytes(md.CorrelId) for md, _ in got}) == 1


@pytest.mark.parametrize(
    ("fmt", "data", "reason"),
    [
        (C.MQFMT_STRING, b"DISPLAY QLOCAL(*)", F.MQRCCF_MD_FORMAT_ERROR),
        (C.MQFMT_ADMIN, None, F.MQRCCF_CFH_TYPE_ERROR),  # an MQCFT_RESPONSE is no command
        (C.MQFMT_ADMIN, b"seq", F.MQRCCF_CFH_MSG_SEQ_NUMBER_ERR),
        (C.MQFMT_ADMIN, b"ctl", F.MQRCCF_CFH_CONTROL_ERROR),
    ],
)
def test_requests_that_are_not_commands(qmgr, server, fmt, data, reason):
    if data is None:
        data = command(F.MQCMD_INQUIRE_Q, [], type=F.MQCFT_RESPONSE)
    elif data == b"seq":
        data = command(F.MQCMD_INQUIRE_Q, [], msg_seq_number=2)
    elif data == b"ctl":
        data = command(F.MQCMD_INQUIRE_Q, [], control=F.MQCFC_NOT_LAST)
    send(qmgr, data, fmt)
    server.serve_one()
    [(md, msg)] = replies(qmgr)
    assert md.MsgType == C.MQMT_REPLY
    assert (msg.header.comp_code, msg.header.reason) == (C.MQCC_FAILED, reason)
    assert msg.header.control == F.MQCFC_LAST
    assert server.counts.failed_commands == 1


@pytest.mark.parametrize(
    ("report", "exists", "answered"),
    [
        (C.MQRO_NONE, True, False),
        (C.MQRO_PAN, True, True),
        (C.MQRO_PAN, False, False),
        (C.MQRO_NAN, False, True),
        (C.MQRO_NAN, True, False),
        (C.MQRO_PAN | C.MQRO_NAN, False, True),
    ],
)
def test_datagram_answered_by_pan_nan(qmgr, server, report, exists, answered):
    if exists:
        qmgr.define_queue("APP.ONE")
    send(qmgr, inquire(b"APP.ONE"), MsgType=C.MQMT_DATAGRAM, Report=report)
    server.serve_one()
    assert bool(replies(qmgr)) is answered


def test_one_unit_of_work_per_request(qmgr, server, monkeypatch):
    """A failure after the first response is put backs everything out: no response is
    readable and the request is back on the queue; served again, it is answered once."""
    for name in ("APP.A", "APP.B"):
        qmgr.define_queue(name)
    request = send(qmgr, inquire(b"APP.*"))
    real_put1, calls = server.qm.put1, []

    def flaky(*args, **kw):
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("the server dies between two responses")
        return real_put1(*args, **kw)

    monkeypatch.setattr(server.qm, "put1", flaky)
    with pytest.raises(RuntimeError):
        server.serve_one()
    assert replies(qmgr) == []
    assert qmgr.queue_status(R.COMMAND_QUEUE)["current_depth"] == 1
    monkeypatch.setattr(server.qm, "put1", real_put1)
    assert server.serve_one() == "request"
    got = replies(qmgr)
    assert [m.header.control for _, m in got] == [F.MQCFC_NOT_LAST, F.MQCFC_LAST]
    assert {bytes(md.CorrelId) for md, _ in got} == {bytes(request.MsgId)}
    assert server.serve_one() == "empty"


def test_undeliverable_reply_goes_to_the_dead_letter_queue(qmgr, server):
    qmgr.define_queue("DLQ")
    qmgr.alter_qmgr(dead_letter_q="DLQ")
    qmgr.define_queue("APP.ONE")
    md = pymqi.MD(Format=C.MQFMT_ADMIN, MsgType=C.MQMT_REQUEST, ReplyToQ="NO.SUCH.Q")
    qmgr.put1(R.COMMAND_QUEUE, inquire(b"APP.ONE"), md)
    server.serve_one()
    q = pymqi.Queue(qmgr, "DLQ", C.MQOO_INPUT_SHARED)
    out = pymqi.MD()
    data = q.get(None, out, pymqi.GMO(Options=C.MQGMO_NO_WAIT))
    q.close()
    header, rest = dlh.unpack(data, out.Encoding)
    assert header.reason == C.MQRC_UNKNOWN_OBJECT_NAME
    assert header.dest_q_name.strip() == "NO.SUCH.Q"
    assert isinstance(wire.parse(rest, out.Encoding), wire.Message)
    assert server.counts.dead_lettered == 1


def test_undeliverable_reply_without_dead_letter_queue_is_counted(qmgr, server):
    qmgr.define_queue("APP.ONE")
    md = pymqi.MD(Format=C.MQFMT_ADMIN, MsgType=C.MQMT_REQUEST, ReplyToQ="NO.SUCH.Q")
    qmgr.put1(R.COMMAND_QUEUE, inquire(b"APP.ONE"), md)
    assert server.serve_one() == "request"
    assert server.counts.undelivered == 1
    assert qmgr.queue_status(R.COMMAND_QUEUE)["current_depth"] == 0


def test_create_q_through_the_queue(qmgr, server):
    params = [wire.Param(F.MQCFT_STRING, C.MQCA_Q_NAME, b"NEW.Q"),
              wire.Param(F.MQCFT_INTEGER, C.MQIA_Q_TYPE, C.MQQT_LOCAL),
              wire.Param(F.MQCFT_INTEGER, C.MQIA_MAX_Q_DEPTH, 77)]  # fmt: skip
    send(qmgr, command(F.MQCMD_CREATE_Q, params))
    server.serve_one()
    [(_, msg)] = replies(qmgr)
    assert msg.header.comp_code == C.MQCC_OK
    assert qmgr.queue_status("NEW.Q")["attributes"]["max_depth"] == 77


def test_status_and_endmqcsv(qmgr, other):
    assert cmdserver.is_running(qmgr) is False
    srv = cmdserver.CommandServer(other)
    assert cmdserver.is_running(qmgr) is True
    with pytest.raises(pymqi.MQMIError) as info:  # one server per queue manager
        cmdserver.CommandServer(qmgr)
    assert info.value.reason == C.MQRC_OBJECT_IN_USE
    cmdserver.request_stop(qmgr)
    assert srv.serve(None) == "endmqcsv"
    srv.close()
    assert cmdserver.is_running(qmgr) is False


def test_system_queues_defined_as_crtmqm_has_them(qmgr, server):
    for name in (R.REPLY_MODEL, R.DEFAULT_MODEL):
        attrs = qmgr.queue_status(name)["attributes"]
        assert attrs["queue_type"] == C.MQQT_MODEL
        assert attrs["definition_type"] == C.MQQDT_TEMPORARY_DYNAMIC
    assert qmgr.queue_status(R.COMMAND_QUEUE)["attributes"].get("queue_type", 1) == 1


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    report=st.sampled_from([0, C.MQRO_PASS_MSG_ID, C.MQRO_PASS_CORREL_ID,
                            C.MQRO_PASS_DISCARD_AND_EXPIRY | C.MQRO_DISCARD_MSG]),
    msg_id=st.binary(min_size=24, max_size=24),
    correl_id=st.binary(min_size=24, max_size=24),
    expiry=st.integers(min_value=-1, max_value=10_000),
)  # fmt: skip
def test_reply_fields_property(report, msg_id, correl_id, expiry):
    f = R.reply_fields(report, msg_id, correl_id, 1, 5, expiry)
    assert f.msg_id == (msg_id if report & C.MQRO_PASS_MSG_ID else None)
    assert f.correl_id == (correl_id if report & C.MQRO_PASS_CORREL_ID else msg_id)
    passes = bool(report & C.MQRO_PASS_DISCARD_AND_EXPIRY)
    assert f.expiry == (expiry if passes else C.MQEI_UNLIMITED)
    assert f.report == (C.MQRO_DISCARD_MSG if passes else 0)
    assert (f.msg_type, f.format, f.persistence) == (C.MQMT_REPLY, C.MQFMT_ADMIN, 1)


def test_quiesce_ends_the_server(qmgr, other):
    srv = cmdserver.CommandServer(other)
    end_queue_manager(qmgr.get_handle().store)
    assert srv.serve(None) == "quiesce"
    start_queue_manager(qmgr.get_handle().store)
    srv.close()


def test_a_request_that_raises_is_backed_out_then_answered_with_command_failed(
    qmgr, server, monkeypatch
):
    """A request whose command raises (not a PCF failure) is backed out each time, and
    once its BackoutCount reaches MAX_BACKOUTS answered with MQRCCF_COMMAND_FAILED."""
    qmgr.define_queue("APP.ONE")
    request = send(qmgr, inquire(b"APP.ONE"))

    def broken(*_args):
        raise RuntimeError("a bug in a command")

    monkeypatch.setattr(cmdserver.pcfserver, "serve", broken)
    for _ in range(cmdserver.MAX_BACKOUTS):
        with pytest.raises(RuntimeError):
            server.serve_one()
    assert server.serve_one() == "request"
    [(md, msg)] = replies(qmgr)
    assert bytes(md.CorrelId) == bytes(request.MsgId)
    assert (msg.header.command, msg.header.reason) == (F.MQCMD_INQUIRE_Q, F.MQRCCF_COMMAND_FAILED)
    assert server.counts.backed_out == cmdserver.MAX_BACKOUTS
