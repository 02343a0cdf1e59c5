"""Model queues, dynamic queues and MQCLOSE's options through the pymqi face on the
in-memory backends: DynamicQName rules (2011), names taken (2100), the request/reply
idiom, temporary queues (2048, deletion on MQCLOSE / MQDISC / the end of the
application / a dead creator's lease), permanent queues (MQCO_DELETE, 2055), close
options (2045, 2046), handles of a deleted queue (2052), MQPUT1 of a model (2057),
MQINQ of the queue and definition types, and `mqk define --model`."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import adapter.pymqi as pymqi
from adapter import cli, config
from adapter.core.dynamic import dynamic_name, dynamic_q_name_error
from adapter.shim import naming
from adapter.shim.catalog import QueueDef
from tests.integration.conftest import drain as drain_pairs
from tests.integration.conftest import mqerror

C = pymqi.CMQC
IN, OUT = C.MQOO_INPUT_SHARED, C.MQOO_OUTPUT
MODEL = "REPLY.MODEL"


def fails(call, reason: int, comp: int = C.MQCC_FAILED) -> None:
    with pytest.raises(pymqi.MQMIError) as exc:
        call()
    assert mqerror(exc) == (comp, reason)


def open_model(qm, options: int, dynamic: bytes = b"AMQ.*", model: str = MODEL):
    """MQOPEN of a model queue: (the Queue, the dynamic queue's name)."""
    od = pymqi.OD(ObjectName=model.encode(), DynamicQName=dynamic)
    q = pymqi.Queue(qm, od, options)
    return q, pymqi.structs.mqstr(od.ObjectName)


def put(q, body: bytes, options: int = C.MQPMO_NO_SYNCPOINT, **md) -> None:
    q.put(body, pymqi.MD(**md), pymqi.PMO(Options=options))


def get(q, md: pymqi.MD | None = None, options: int = C.MQGMO_NO_SYNCPOINT) -> bytes:
    return q.get(None, md or pymqi.MD(), pymqi.GMO(Options=options))


def drain(q) -> list[bytes]:
    return [body for body, _ in drain_pairs(q)]


def defined(qm, name: str) -> bool:
    return qm.get_handle().lookup_queue(name, refresh=True) is not None


def has_topics(qm, name: str) -> bool:
    log = qm.get_handle().log
    return log.topic_exists(naming.data_topic(qm.get_name(), name, 0))


# -- definitions ---------------------------------------------------------------------


def test_old_catalog_records_decode_as_predefined_local_queues() -> None:
    old = b'{"name": "Q.OLD", "max_depth": 7, "unknown_future_field": 1}'
    qdef = QueueDef.from_json(old)
    assert (qdef.queue_type, qdef.definition_type, qdef.creator) == (C.MQQT_LOCAL, 1, "")
    model = QueueDef(name="M", queue_type=C.MQQT_MODEL)
    assert model.definition_type == C.MQQDT_TEMPORARY_DYNAMIC  # MQ's DEFTYPE default
    assert QueueDef.from_json(model.to_json()) == model


def test_a_model_queue_has_no_topics_and_cannot_be_used_itself(qmgr) -> None:
    qmgr.define_queue(MODEL, queue_type=C.MQQT_MODEL)
    assert defined(qmgr, MODEL) and not has_topics(qmgr, MODEL)
    fails(lambda: qmgr.put1(MODEL, b"x"), C.MQRC_Q_TYPE_ERROR)  # MQPUT1: 2057
    q = pymqi.Queue(qmgr, MODEL, IN | OUT)  # MQOPEN opens a new dynamic queue instead
    name = q.get_handle().name
    assert name.startswith("AMQ.") and name != MODEL
    put(q, b"on the dynamic queue")
    assert get(q) == b"on the dynamic queue"
    with pytest.raises(ValueError):
        qmgr.define_queue("Q.X", definition_type=C.MQQDT_TEMPORARY_DYNAMIC)
    with pytest.raises(ValueError):
        qmgr.define_queue("M.BAD", queue_type=C.MQQT_MODEL, definition_type=1)


# -- MQOPEN of a model: names --------------------------------------------------------


@pytest.mark.parametrize(
    "dynamic",
    [
        b"",  # blank
        b"   ",
        b" AMQ.*",  # a leading blank
        b"A*B",  # the asterisk must be last
        b"AMQ.**",
        b"A" * 33 + b"*",  # asterisk in position 34
        b"BAD-CHAR.*",
        b"A B",
    ],
)
def test_invalid_dynamic_queue_names_are_2011(qmgr, dynamic: bytes) -> None:
    qmgr.define_queue(MODEL, queue_type=C.MQQT_MODEL)
    fails(lambda: open_model(qmgr, IN, dynamic), C.MQRC_DYNAMIC_Q_NAME_ERROR)


def test_generated_and_full_dynamic_names(qmgr) -> None:
    qmgr.define_queue(MODEL, queue_type=C.MQQT_MODEL)
    held = []
    q, name = open_model(qmgr, IN, b"*")  # an asterisk alone: the whole name generated
    held.append(q)
    assert len(name) == 16 and defined(qmgr, name)
    q, name = open_model(qmgr, IN, b"P" * 32 + b"*")  # asterisk in position 33
    held.append(q)
    assert len(name) == C.MQ_Q_NAME_LENGTH and name.startswith("P" * 32)
    a, first = open_model(qmgr, IN, b"REQ.*")
    b, second = open_model(qmgr, IN, b"REQ.*")
    held += [a, b]
    assert first != second and first.startswith("REQ.")
    q, name = open_model(qmgr, IN, b"MY.REPLIES\0junk")  # a NUL ends the name
    held.append(q)
    assert name == "MY.REPLIES"


def test_a_dynamic_name_that_exists_is_2100(qmgr) -> None:
    qmgr.define_queue(MODEL, queue_type=C.MQQT_MODEL)
    qmgr.define_queue("Q.TAKEN")
    fails(lambda: open_model(qmgr, IN, b"Q.TAKEN"), C.MQRC_OBJECT_ALREADY_EXISTS)
    held, _ = open_model(qmgr, IN, b"MY.Q")
    fails(lambda: open_model(qmgr, IN, b"MY.Q"), C.MQRC_OBJECT_ALREADY_EXISTS)
    assert drain(pymqi.Queue(qmgr, "Q.TAKEN", IN)) == []  # the predefined queue is intact
    held.close()
    open_model(qmgr, IN, b"MY.Q")  # the temporary queue went with its MQCLOSE


@given(prefix=st.text(alphabet="ABCXYZ0189./_%", max_size=32))
def test_every_valid_prefix_gives_a_valid_object_name(prefix: str) -> None:
    pattern = prefix + "*"
    assert dynamic_q_name_error(pattern) is None
    name = dynamic_name(pattern, "0123456789ABCDEF")
    assert name.startswith(prefix) and 0 < len(name) <= C.MQ_Q_NAME_LENGTH
    assert dynamic_q_name_error(name) is None  # a full name of the same characters


# -- the request/reply idiom ---------------------------------------------------------


def test_request_reply_through_a_temporary_reply_queue(qmgr, qmgr_name) -> None:
    qmgr.define_queue("APP.REQUESTS")
    qmgr.define_queue(MODEL, queue_type=C.MQQT_MODEL)
    od = pymqi.OD(ObjectName=MODEL.encode(), DynamicQName=b"CLIENT.*")
    replies = pymqi.Queue(qmgr, od, C.MQOO_INPUT_EXCLUSIVE)
    reply_q = pymqi.structs.mqstr(od.ObjectName)
    assert reply_q.startswith("CLIENT.") and pymqi.structs.mqstr(od.ResolvedQName) == reply_q
    assert pymqi.structs.mqstr(od.ObjectQMgrName) == qmgr_name
    request = pymqi.MD(MsgType=C.MQMT_REQUEST, ReplyToQ=reply_q.encode())
    pymqi.Queue(qmgr, "APP.REQUESTS").put(b"ping", request)

    server = pymqi.connect(qmgr_name)  # another application
    got = pymqi.MD()
    assert get(pymqi.Queue(server, "APP.REQUESTS", IN), got) == b"ping"
    reply = pymqi.MD(MsgType=C.MQMT_REPLY, CorrelId=got.MsgId)
    server.put1(pymqi.structs.mqstr(got.ReplyToQ), b"pong", reply)

    md = pymqi.MD(CorrelId=request.MsgId)
    gmo = pymqi.GMO(Options=C.MQGMO_WAIT, WaitInterval=1000, Version=2)
    gmo.MatchOptions = C.MQMO_MATCH_CORREL_ID
    assert replies.get(None, md, gmo) == b"pong"
    fails(lambda: pymqi.Queue(server, reply_q, IN), C.MQRC_OBJECT_IN_USE)  # exclusive
    replies.close()
    assert not defined(qmgr, reply_q) and not has_topics(qmgr, reply_q)
    fails(lambda: server.put1(reply_q, b"late"), C.MQRC_UNKNOWN_OBJECT_NAME)
    server.disconnect()


# -- temporary dynamic queues --------------------------------------------------------


def test_a_temporary_queue_holds_no_persistent_message(qmgr) -> None:
    qmgr.define_queue(MODEL, queue_type=C.MQQT_MODEL)
    qmgr.define_queue("PSIST.MODEL", queue_type=C.MQQT_MODEL, def_persistence=1)
    q, _ = open_model(qmgr, IN | OUT)
    fails(lambda: put(q, b"x", Persistence=C.MQPER_PERSISTENT), C.MQRC_PERSISTENT_NOT_ALLOWED)
    put(q, b"np", Persistence=C.MQPER_NOT_PERSISTENT)
    put(q, b"as q def")  # MQPER_PERSISTENCE_AS_Q_DEF of a DEFPSIST(NO) model
    assert drain(q) == [b"np", b"as q def"]
    yes, _ = open_model(qmgr, IN | OUT, model="PSIST.MODEL")
    fails(lambda: put(yes, b"as q def"), C.MQRC_PERSISTENT_NOT_ALLOWED)  # DEFPSIST(YES)


def test_only_the_creating_handle_deletes_a_temporary_queue(qmgr, qmgr_name) -> None:
    qmgr.define_queue(MODEL, queue_type=C.MQQT_MODEL)
    creator, name = open_model(qmgr, IN | OUT)
    other = pymqi.connect(qmgr_name)
    writer = pymqi.Queue(other, name, OUT)
    put(writer, b"kept")
    fails(lambda: writer.close(C.MQCO_DELETE), C.MQRC_OPTION_NOT_VALID_FOR_TYPE)
    fails(lambda: writer.close(C.MQCO_DELETE_PURGE), C.MQRC_OPTION_NOT_VALID_FOR_TYPE)
    put(writer, b"still open")  # a failed MQCLOSE leaves the handle open
    writer.close()
    assert defined(qmgr, name) and drain(creator) == [b"kept", b"still open"]
    put(creator, b"lost with the queue")
    creator.close()  # MQCO_NONE: the creator's close deletes it, messages and all
    assert not defined(qmgr, name) and not has_topics(qmgr, name)
    other.disconnect()


def test_mqdisc_and_the_end_of_the_application_delete_temporary_queues(qmgr, qmgr_name) -> None:
    qmgr.define_queue(MODEL, queue_type=C.MQQT_MODEL)
    qmgr.define_queue("PERM.MODEL", queue_type=C.MQQT_MODEL, definition_type=2)
    app = pymqi.connect(qmgr_name)
    held = [open_model(app, IN)[0] for _ in range(2)]
    temps = [q.get_handle().name for q in held]
    perm_q, perm = open_model(app, IN, model="PERM.MODEL")
    app.disconnect()
    assert not any(defined(qmgr, t) or has_topics(qmgr, t) for t in temps)
    assert defined(qmgr, perm)  # a permanent dynamic queue outlives its creator
    ended = pymqi.connect(qmgr_name)
    _, temp = open_model(ended, IN)
    ended.get_handle().end_without_disconnect()  # the atexit path
    assert not defined(qmgr, temp)


def test_a_dead_creators_temporary_queue_is_swept_after_its_lease(world, qmgr, qmgr_name) -> None:
    qmgr.define_queue(MODEL, queue_type=C.MQQT_MODEL)
    dead = pymqi.connect(qmgr_name)
    held, name = open_model(dead, IN)
    dead.get_handle().pump.stop()  # the process was killed: no renewal, no MQDISC
    world.clock.advance(config.OPEN_LEASE_MS / 1000 - 1)
    pymqi.connect(qmgr_name).disconnect()  # a connection starts: the lease still runs
    assert defined(qmgr, name)
    world.clock.advance(2)
    pymqi.connect(qmgr_name).disconnect()  # the next connection sweeps it
    assert not defined(qmgr, name) and not has_topics(qmgr, name)
    assert held  # the dead process's objects never closed it


def test_a_live_creators_queue_survives_sweeps_and_a_model_open_sweeps(world, qmgr_name) -> None:
    qm = pymqi.connect(qmgr_name)
    qm.define_queue(MODEL, queue_type=C.MQQT_MODEL)
    live, live_name = open_model(qm, IN)
    dead = pymqi.connect(qmgr_name)
    held, dead_name = open_model(dead, IN)
    dead.get_handle().pump.stop()
    for _ in range(3):  # the live connection's pump renews its lease meanwhile
        world.clock.advance(config.OPEN_LEASE_MS / 1000 / 2)
        qm.get_handle()._tick()
    open_model(qm, IN)  # a long-running requester: its next model open sweeps
    assert defined(qm, live_name) and not defined(qm, dead_name)
    assert held and live
    qm.disconnect()


def test_a_temporary_queue_closed_in_a_unit_of_work_goes_when_it_ends(qmgr) -> None:
    qmgr.define_queue(MODEL, queue_type=C.MQQT_MODEL)
    q, name = open_model(qmgr, IN | OUT)
    put(q, b"uncommitted", C.MQPMO_SYNCPOINT)
    q.close()
    assert not defined(qmgr, name) and has_topics(qmgr, name)  # logically deleted
    fails(lambda: pymqi.Queue(qmgr, name, IN), C.MQRC_UNKNOWN_OBJECT_NAME)
    qmgr.commit()
    assert not has_topics(qmgr, name)


# -- permanent dynamic queues and MQCLOSE options ------------------------------------


def test_permanent_dynamic_queue_delete_rules(qmgr, qmgr_name) -> None:
    qmgr.define_queue("PERM.MODEL", queue_type=C.MQQT_MODEL, definition_type=2, max_depth=9)
    creator, name = open_model(qmgr, IN | OUT | C.MQOO_INQUIRE, b"PERM.Q", "PERM.MODEL")
    assert creator.inquire(C.MQIA_DEFINITION_TYPE) == C.MQQDT_PERMANENT_DYNAMIC
    assert creator.inquire(C.MQIA_Q_TYPE) == C.MQQT_LOCAL
    assert creator.inquire(C.MQIA_MAX_Q_DEPTH) == 9  # the model's attributes
    put(creator, b"persistent", Persistence=C.MQPER_PERSISTENT)
    creator.close()  # MQCO_NONE keeps a permanent dynamic queue
    other = pymqi.connect(qmgr_name)
    q = pymqi.Queue(other, name, IN | OUT)
    fails(lambda: q.close(C.MQCO_DELETE), C.MQRC_Q_NOT_EMPTY)  # a message on it
    assert get(q) == b"persistent"  # the failed close left the handle open
    put(q, b"uncommitted", C.MQPMO_SYNCPOINT)
    fails(lambda: q.close(C.MQCO_DELETE_PURGE), C.MQRC_Q_NOT_EMPTY)  # uncommitted put
    other.commit()
    fails(lambda: q.close(C.MQCO_DELETE), C.MQRC_Q_NOT_EMPTY)
    q.close(C.MQCO_DELETE_PURGE)  # any handle may delete it (no authority service)
    assert not defined(qmgr, name) and not has_topics(qmgr, name)
    other.disconnect()


@pytest.mark.parametrize("syncpoint_get", [False, True])
def test_close_delete_sees_another_connections_uncommitted_work(
    qmgr, qmgr_name, syncpoint_get: bool
) -> None:
    """2055 for either delete option while another connection has an uncommitted put
    or get on the queue, though that connection closed its handle."""
    qmgr.define_queue("PERM.MODEL", queue_type=C.MQQT_MODEL, definition_type=2)
    q, name = open_model(qmgr, IN | OUT, b"PERM.UOW", "PERM.MODEL")
    other = pymqi.connect(qmgr_name)
    o = pymqi.Queue(other, name, IN | OUT)
    if syncpoint_get:
        put(q, b"committed")
        assert get(o, options=C.MQGMO_SYNCPOINT) == b"committed"
    else:
        put(o, b"uncommitted", C.MQPMO_SYNCPOINT)
    o.close()
    fails(lambda: q.close(C.MQCO_DELETE_PURGE), C.MQRC_Q_NOT_EMPTY)
    other.backout()
    q.close(C.MQCO_DELETE_PURGE)
    assert not defined(qmgr, name)
    other.disconnect()


def test_permanent_dynamic_queue_deleted_empty_with_mqco_delete(qmgr) -> None:
    qmgr.define_queue("PERM.MODEL", queue_type=C.MQQT_MODEL, definition_type=2)
    q, name = open_model(qmgr, IN | OUT, model="PERM.MODEL")
    put(q, b"x")
    assert get(q) == b"x"
    q.close(C.MQCO_DELETE)
    assert not defined(qmgr, name)


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        (C.MQCO_DELETE, C.MQRC_OPTION_NOT_VALID_FOR_TYPE),  # a predefined queue
        (C.MQCO_DELETE_PURGE, C.MQRC_OPTION_NOT_VALID_FOR_TYPE),
        (C.MQCO_KEEP_SUB, C.MQRC_OPTION_NOT_VALID_FOR_TYPE),  # not a subscription
        (C.MQCO_REMOVE_SUB, C.MQRC_OPTION_NOT_VALID_FOR_TYPE),
        (C.MQCO_DELETE | C.MQCO_DELETE_PURGE, C.MQRC_OPTIONS_ERROR),
        (C.MQCO_KEEP_SUB | C.MQCO_REMOVE_SUB, C.MQRC_OPTIONS_ERROR),
        (16, C.MQRC_OPTIONS_ERROR),  # not an MQCO_* bit
        (-1, C.MQRC_OPTIONS_ERROR),
    ],
)
def test_close_options_on_a_predefined_queue(qmgr, options: int, reason: int) -> None:
    qmgr.define_queue("Q.CLOSEOPT")
    q = pymqi.Queue(qmgr, "Q.CLOSEOPT", IN | OUT)
    fails(lambda: q.close(options), reason)
    put(q, b"still open")
    assert defined(qmgr, "Q.CLOSEOPT")
    q.close(C.MQCO_QUIESCE)  # valid for any queue handle: closes like MQCO_NONE


# -- handles of a deleted dynamic queue ----------------------------------------------


def test_other_handles_of_a_deleted_dynamic_queue_get_2052(qmgr, qmgr_name) -> None:
    qmgr.define_queue(MODEL, queue_type=C.MQQT_MODEL)
    creator, name = open_model(qmgr, IN, b"SHORT.LIVED")
    other = pymqi.connect(qmgr_name)
    writer = pymqi.Queue(other, name, OUT | C.MQOO_INQUIRE)
    same_conn = pymqi.Queue(qmgr, name, OUT)
    put(writer, b"before")
    creator.close()
    fails(lambda: put(writer, b"after"), C.MQRC_Q_DELETED)
    fails(lambda: writer.inquire(C.MQIA_CURRENT_Q_DEPTH), C.MQRC_Q_DELETED)
    fails(lambda: put(same_conn, b"after"), C.MQRC_Q_DELETED)
    again, _ = open_model(qmgr, IN, b"SHORT.LIVED")  # a new queue of the same name
    fails(lambda: put(writer, b"to the new one?"), C.MQRC_Q_DELETED)  # another incarnation
    writer.close(C.MQCO_DELETE)  # MQCLOSE of such a handle completes
    same_conn.close()
    assert drain(again) == []
    other.disconnect()


# -- the command line ----------------------------------------------------------------


def test_mqk_define_model_and_status(world, qmgr, qmgr_name, capsys) -> None:
    assert cli.main(["define", qmgr_name, "M.PERM", "--model", "--deftype", "PERMDYN"]) == 0
    assert cli.main(["define", qmgr_name, "M.TEMP", "--model"]) == 0
    assert cli.main(["define", qmgr_name, "Q.BAD", "--deftype", "PERMDYN"]) == 2
    qdefs = [qmgr.get_handle().lookup_queue(n, refresh=True) for n in ("M.PERM", "M.TEMP")]
    assert [(d.queue_type, d.definition_type) for d in qdefs] == [(2, 2), (2, 3)]
    assert cli.main(["status", qmgr_name, "M.PERM"]) == 0
    shown = capsys.readouterr().out.split()
    assert {"TYPE(QMODEL)", "DEFTYPE(PERMDYN)"} <= set(shown)


def test_mqopen_returns_the_dynamic_name_blank_padded_as_mq_does(qmgr) -> None:
    qmgr.define_queue("PAD.MODEL", queue_type=pymqi.CMQC.MQQT_MODEL)
    od = pymqi.OD(ObjectName="PAD.MODEL", DynamicQName="PAD.*")
    q = pymqi.Queue(qmgr, od, pymqi.CMQC.MQOO_INPUT_EXCLUSIVE)
    for field in ("ObjectName", "ResolvedQName", "ObjectQMgrName", "ResolvedQMgrName"):
        value = getattr(od, field)
        assert len(value) == 48 and value.endswith(b" "), field
    assert od.ObjectName == od.ResolvedQName and od.ObjectName.startswith(b"PAD.")
    q.close()


def test_a_full_dynamic_name_can_be_created_again_after_its_queue_went(qmgr, qmgr_name) -> None:
    qmgr.define_queue(MODEL, queue_type=C.MQQT_MODEL)
    q, name = open_model(qmgr, C.MQOO_INPUT_EXCLUSIVE, b"MY.REPLY")
    q.close()  # the creator's close deletes it (its state keeps a DELETED mark)
    assert not defined(qmgr, "MY.REPLY")
    again, name2 = open_model(qmgr, C.MQOO_INPUT_EXCLUSIVE | C.MQOO_OUTPUT, b"MY.REPLY")
    assert name2 == name == "MY.REPLY" and defined(qmgr, "MY.REPLY")
    put(again, b"x")
    assert get(again) == b"x"
    other = pymqi.connect(qmgr_name)
    try:
        other.get_handle().services.dynamic.sweep()  # its creator lives: it stays
        assert defined(other, "MY.REPLY")
    finally:
        other.disconnect()
    again.close()
    assert not defined(qmgr, "MY.REPLY")
