"""Runs of complete puts (adapter/shim/putrun.py, QueueHandle.put_run) on the in-memory
backends: a run stores exactly the records, and answers exactly the outcomes, that one
Putter.put per message gives, whatever the messages (plain ones built straight from
their descriptor, the others through Putter.put) and the queue's state (put inhibited,
full, MAXUMSGS, DEFPRESP)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mqk_avro import codec

import adapter.pymqi as pymqi
from adapter import config
from adapter.core import cmqc as C
from adapter.core import propwire
from adapter.core.calls import PutRequest
from adapter.core.errors import MQMIError
from adapter.core.properties import MessageProperties
from adapter.shim import naming
from tests.unit.conftest import World

OPEN = C.MQOO_OUTPUT | C.MQOO_SET_ALL_CONTEXT
SP = C.MQPMO_SYNCPOINT | C.MQPMO_SET_ALL_CONTEXT | C.MQPMO_FAIL_IF_QUIESCING
NO_SP = C.MQPMO_NO_SYNCPOINT | C.MQPMO_SET_ALL_CONTEXT | C.MQPMO_FAIL_IF_QUIESCING
_IDS = itertools.count(1)


def _context(put_date: str, put_time: str) -> dict:
    return {
        "UserIdentifier": "alice",
        "AccountingToken": b"\x01" * 32,
        "ApplIdentityData": "ident",
        "PutApplType": C.MQAT_UNIX,
        "PutApplName": "sender-app",
        "ApplOriginData": "orig",
        "PutDate": put_date,
        "PutTime": put_time,
    }


def _props() -> bytes:
    props = MessageProperties()
    props.set("usr.colour", "blue")
    return propwire.pack(props)


def _plain_or(draw, plain, *others):
    """Mostly the plain value (so that runs are mostly plain, as a channel's are)."""
    return draw(st.sampled_from([plain] * 3 + list(others)))


def _request(
    n: int,
    *,
    msg_type: int = C.MQMT_DATAGRAM,
    report: int = 0,
    reply_q: str = "",
    fmt: str = "MQSTR",
    flags: int = 0,
    when: tuple[str, str] = ("20261127", "19000000"),
    size: int = 100,
    persistence: int = 1,
    priority: int = 4,
    expiry: int = -1,
    ccsid: int = C.MQCCSI_Q_MGR,
    feedback: int = C.MQFB_NONE,
    reply_qmgr: str = "",
    correl_id: bytes = C.MQCI_NONE,
    properties: bytes = b"",
    options: int = SP,
) -> tuple[PutRequest, bytes]:
    req = PutRequest(
        options=options,
        msg_id=b"M%023d" % n,
        correl_id=correl_id,
        group_id=C.MQGI_NONE if not flags else b"G" * 24,
        msg_flags=flags,
        persistence=persistence,
        priority=priority,
        expiry=expiry,
        format=fmt,
        ccsid=ccsid,
        encoding=C.MQENC_NATIVE,
        msg_type=msg_type,
        report=report,
        feedback=feedback,
        reply_to_q=reply_q,
        reply_to_qmgr=reply_qmgr,
        md_version=C.MQMD_VERSION_2,
        context=_context(*when),
        properties=properties,
    )
    return req, b"d" * size


@st.composite
def _requests(draw) -> tuple[PutRequest, bytes]:
    return _request(
        next(_IDS),
        msg_type=_plain_or(draw, C.MQMT_DATAGRAM, C.MQMT_REQUEST, C.MQMT_REPLY, 99),
        report=_plain_or(draw, 0, C.MQRO_COA, C.MQRO_EXCEPTION, C.MQRO_COD, 0x7FFF_0000, 0x700),
        reply_q=draw(st.sampled_from(["", "REPLIES"])),
        fmt=_plain_or(draw, "MQSTR", "", "MQHRF2", "MQADMIN", "MQDEAD", "OWN"),
        flags=_plain_or(draw, 0, C.MQMF_MSG_IN_GROUP, C.MQMF_LAST_MSG_IN_GROUP),
        when=_plain_or(draw, ("20261127", "19000000"), ("", ""), ("2026xx27", "1")),
        size=_plain_or(draw, 100, 0, 5000),
        persistence=_plain_or(draw, 1, 0, 7),
        priority=_plain_or(draw, 4, 0, 9, 12),
        expiry=_plain_or(draw, -1, 1, 600, 0),
        ccsid=_plain_or(draw, C.MQCCSI_Q_MGR, 819),
        feedback=_plain_or(draw, C.MQFB_NONE, -5),
        reply_qmgr=_plain_or(draw, "", "OTHERQM"),
        correl_id=_plain_or(draw, C.MQCI_NONE, b"C" * 24),
        properties=_plain_or(draw, b"", _props()),
    )


def _world_queue(attrs: dict) -> tuple[World, pymqi.QueueManager, pymqi.Queue]:
    world = World()
    qm = world.connect("QMPR")
    qm.get_handle().may_set_context = True  # as the receiving MCA
    qm.define_queue("REPLIES")
    qm.alter_qmgr(max_uncommitted_msgs=attrs.pop("_umsgs", 10_000))
    if attrs.pop("_temporary", False):  # a temporary dynamic queue named Q.RUN
        qm.define_queue("M.RUN", queue_type=C.MQQT_MODEL, max_msg_length=4096, **attrs)
        od = pymqi.OD(ObjectName=b"M.RUN", DynamicQName=b"Q.RUN")
        return world, qm, pymqi.Queue(qm, od, OPEN)
    qm.define_queue("Q.RUN", max_msg_length=4096, **attrs)
    return world, qm, pymqi.Queue(qm, "Q.RUN", OPEN)


def _records(world: World, qmgr: str, queue: str) -> list[tuple]:
    """Every record on the queue's priority topics (and the reply queue's), decoded."""
    out = []
    for q in (queue, "REPLIES"):
        for p in naming.PRIORITIES:
            topic = world.cluster.topics.get(naming.data_topic(qmgr, q, p))
            for part in topic.partitions if topic else []:
                for e in part.entries:
                    if e.control:
                        continue
                    env = codec.decode(e.value)
                    key = e.key
                    if q == "REPLIES":  # reports: their MsgId is the connection's own
                        env.pop("MsgId")
                        key = None
                    elif env["Offset"] > 0:  # a later segment: so is its MsgId
                        env.pop("MsgId")
                    out.append((q, p, key, env, e.headers, e.state))
    return out


def _outcome(err: MQMIError | None) -> tuple[int, int] | None:
    return None if err is None else (err.comp, err.reason)


def _by_put(handle, items) -> list:
    out = []
    for req, data in items:
        try:
            handle.putter.put(req, data)
            out.append(None)
        except MQMIError as err:
            if err.comp != C.MQCC_FAILED:
                out.append(None)  # a warning: the message is put
                continue
            out.append((err.comp, err.reason))
    return out


def _compare(items: list[tuple[PutRequest, bytes]], attrs: dict, sync: int) -> None:
    """The same items put by a run and by one Putter.put each, on two worlds alike:
    the same outcomes, uncommitted count and records."""
    items = [(PutRequest(**{**_fields(req), "options": sync}), data) for req, data in items]
    got = []
    for by_run in (False, True):
        world, qm, q = _world_queue(dict(attrs))
        handle = q.get_handle()
        if by_run:
            outcomes = [_outcome(e) for e in handle.put_run(items)]
        else:
            outcomes = _by_put(handle, items)
        conn = qm.get_handle()
        conn.barrier()
        uow = conn.txn.current
        uncommitted = uow.uncommitted if uow else 0
        qm.commit()
        stats = conn.store.queue("Q.RUN").stats()  # MSGSIN, LPUTDATE/LPUTTIME
        figures = (uncommitted, conn.async_status(), stats)
        got.append((outcomes, _records(world, "QMPR", "Q.RUN"), figures))
        qm.disconnect()
    assert got[0][0] == got[1][0]  # outcomes
    assert got[0][2] == got[1][2]  # MAXUMSGS's count, MQSTAT's, the queue's statistics
    assert len(got[0][1]) == len(got[1][1])
    for by_put, by_run in zip(got[0][1], got[1][1], strict=True):
        assert by_put == by_run


_ATTRS = [
    {},
    {"put_inhibited": True},
    {"max_depth": 3},
    {"def_put_response": 2},
    {"_umsgs": 2},
    {"_temporary": True},
    {"monitoring_q": C.MQMON_HIGH},
]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    items=st.lists(_requests(), min_size=1, max_size=12),
    attrs=st.sampled_from(_ATTRS),
    sync=st.sampled_from([SP, NO_SP]),
)
def test_a_run_stores_what_one_put_per_message_stores(items, attrs, sync) -> None:
    _compare(items, attrs, sync)


@pytest.mark.parametrize(
    "fields",
    [
        {"report": C.MQRO_COA, "reply_q": "REPLIES"},  # the COA is generated
        {"report": 0x7FFF_0000, "reply_q": "REPLIES"},  # 2061
        {"report": 0x700, "reply_q": "REPLIES"},  # a warning: put
        {"msg_type": C.MQMT_REQUEST},  # 2027
        {"fmt": "MQDEAD"},  # an MQDLH that is not there: 2141
        {"fmt": "MQHRF2"},
        {"flags": C.MQMF_LAST_MSG_IN_GROUP},
        {"size": 5000},  # 2030 (MAXMSGL 4096)
        {"priority": 12},  # a warning, on p9
        {"expiry": 0},  # 2013
        {"persistence": 7},  # 2047
        {"when": ("", "")},  # no put time given: now
        {"properties": _props()},
        {"flags": C.MQMF_SEGMENTATION_ALLOWED, "size": 5000},  # segmented by the qmgr
    ],
)
@pytest.mark.parametrize("sync", [SP, NO_SP])
def test_each_kind_of_message_as_putter_put(fields, sync) -> None:
    items = [_request(next(_IDS)), _request(next(_IDS), **fields), _request(next(_IDS))]
    _compare(items, {}, sync)


@pytest.mark.parametrize("attrs", _ATTRS, ids=lambda a: ",".join(a) or "plain")
@pytest.mark.parametrize("sync", [SP, NO_SP])
def test_each_kind_of_queue_as_putter_put(attrs, sync) -> None:
    items = [_request(next(_IDS), persistence=i % 2) for i in range(5)]
    items.insert(2, _request(next(_IDS), report=C.MQRO_COA, reply_q="REPLIES"))
    _compare(items, attrs, sync)


def test_segmentation_allowed_below_maxmsgl_is_segmented_as_putter_does() -> None:
    """A message that fits MAXMSGL but not the queue's segment size, and allows the
    queue manager to segment it, is segmented (through Putter.put)."""
    items = [_request(next(_IDS), flags=C.MQMF_SEGMENTATION_ALLOWED, size=2000)]
    _compare(items, {"segment_size": 1000}, SP)


def test_maxdepth_counts_the_runs_own_puts(monkeypatch) -> None:
    """Without the margin that makes Putter count exactly near the limit, the run still
    stops at MAXDEPTH: its own puts outside the unit of work count."""
    monkeypatch.setattr(config, "DEPTH_MARGIN", 0)
    world, qm, q = _world_queue({"max_depth": 3})
    items = [_request(next(_IDS), options=NO_SP) for _ in range(5)]
    full = (C.MQCC_FAILED, C.MQRC_Q_FULL)
    assert [_outcome(e) for e in q.get_handle().put_run(items)] == [None] * 3 + [full] * 2


def test_runs_after_runs_stop_at_maxdepth() -> None:
    """Runs of a receiving channel's size, each one's depth flushed into the state
    before the next (the manual clock never moves: the run's depth estimate is read
    once): the runs still stop at MAXDEPTH, counting what they put since that read."""
    max_depth = 3 * config.DEPTH_MARGIN
    world, qm, q = _world_queue({"max_depth": max_depth})
    outcomes = []
    for _ in range(max_depth // 50 + 2):
        items = [_request(next(_IDS), options=NO_SP) for _ in range(50)]
        outcomes += [_outcome(e) for e in q.get_handle().put_run(items)]
        qm.get_handle().pump.barrier()  # counted and flushed into the state
    full = (C.MQCC_FAILED, C.MQRC_Q_FULL)
    assert outcomes.count(None) == max_depth
    assert outcomes[max_depth:] == [full] * (len(outcomes) - max_depth)
    assert qm.queue_status("Q.RUN")["current_depth"] == max_depth


def _fields(req: PutRequest) -> dict:
    return {name: getattr(req, name) for name in req.__slots__}


def test_a_plain_run_builds_its_records_without_putter_put(monkeypatch) -> None:
    """The plain messages of a run do not pass through Putter.put (the point of it)."""
    from adapter.shim.put import Putter

    world, qm, q = _world_queue({})
    calls = []
    real = Putter.put
    monkeypatch.setattr(Putter, "put", lambda self, *a, **k: calls.append(1) or real(self, *a, **k))
    items = [
        (
            PutRequest(
                options=SP,
                msg_id=b"P%023d" % i,
                persistence=1,
                priority=5,
                format="MQSTR",
                context=_context("20261127", "19000000"),
            ),
            b"x" * 100,
        )  # fmt: skip
        for i in range(20)
    ]
    assert q.get_handle().put_run(items) == [None] * 20
    assert calls == []
    qm.commit()
    got = pymqi.Queue(qm, "Q.RUN", C.MQOO_INPUT_SHARED)
    md = pymqi.MD()
    assert got.get(None, md, pymqi.GMO(Options=C.MQGMO_NO_SYNCPOINT)) == b"x" * 100
    assert md.MsgId == b"P%023d" % 0 and md.PutApplName.rstrip() == b"sender-app"
    assert (md.PutDate, md.PutTime) == (b"20261127", b"19000000")


def test_options_a_run_does_not_serve_are_one_put_each() -> None:
    world, qm, q = _world_queue({})
    opts = C.MQPMO_SYNCPOINT | C.MQPMO_NEW_MSG_ID
    items = [(PutRequest(options=opts, persistence=1), b"n%d" % i) for i in range(3)]
    assert q.get_handle().put_run(items) == [None] * 3
    qm.commit()
    assert qm.queue_status("Q.RUN")["current_depth"] == 3


@pytest.mark.parametrize("reason", [C.MQRC_PUT_INHIBITED, C.MQRC_Q_FULL])
def test_each_refused_message_has_its_reason(reason) -> None:
    attrs = {"put_inhibited": True} if reason == C.MQRC_PUT_INHIBITED else {"max_depth": 2}
    world, qm, q = _world_queue(attrs)
    items = [
        (
            PutRequest(
                options=NO_SP, msg_id=b"R%023d" % i, persistence=1, context=_context("", "")
            ),
            b"r",
        )  # fmt: skip
        for i in range(4)
    ]
    outcomes = [_outcome(e) for e in q.get_handle().put_run(items)]
    if reason == C.MQRC_PUT_INHIBITED:
        assert outcomes == [(C.MQCC_FAILED, reason)] * 4
    else:
        assert outcomes == [None, None, (C.MQCC_FAILED, reason), (C.MQCC_FAILED, reason)]
