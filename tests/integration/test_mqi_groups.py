"""Message groups, segments and logical order through the shim on the real stack
(spec/logical-and-physical-order.txt, spec/message-groups-and-segments.txt)."""

from __future__ import annotations

import threading
import time
import uuid

import pytest
from confluent_kafka import Consumer, TopicPartition

import adapter.pymqi as pymqi
from adapter import config
from adapter.shim import naming
from tests.integration.conftest import mqerror

pytestmark = pytest.mark.integration
C = pymqi.CMQC
ALL = C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT | C.MQOO_BROWSE
MIG, LMIG = C.MQMF_MSG_IN_GROUP, C.MQMF_LAST_MSG_IN_GROUP
SEG, LSEG = C.MQMF_SEGMENT, C.MQMF_LAST_SEGMENT


def gid(name: str) -> bytes:
    return name.encode().ljust(24, b"\0")


def put_physical(
    q,
    body: bytes,
    group: bytes = C.MQGI_NONE,
    seq: int = 1,
    offset: int = 0,
    flags: int = C.MQMF_NONE,
) -> None:
    """MQPUT without LOGICAL_ORDER: the application sets the group fields (Table 1)."""
    md = pymqi.MD(GroupId=group, MsgSeqNumber=seq, Offset=offset, MsgFlags=flags)
    q.put(body, md)


def put_spec_figure_2(q) -> None:
    """Physical order of the spec's Figure 2: A, Y1, Z2, Y2, Y3 seg 1, Y3 seg 2, Z1, B."""
    put_physical(q, b"A")
    put_physical(q, b"Y1", gid("Y"), 1, 0, MIG)
    put_physical(q, b"Z2", gid("Z"), 2, 0, LMIG)
    put_physical(q, b"Y2", gid("Y"), 2, 0, MIG)
    put_physical(q, b"Y3s1", gid("Y"), 3, 0, LMIG | SEG)
    put_physical(q, b"Y3s2", gid("Y"), 3, 4, LMIG | LSEG)
    put_physical(q, b"Z1", gid("Z"), 1, 0, MIG)
    put_physical(q, b"B")


def get_logical(q, options: int = 0) -> tuple[bytes, pymqi.MD, pymqi.GMO]:
    md, gmo = pymqi.MD(), pymqi.GMO(Options=C.MQGMO_LOGICAL_ORDER | options)
    gmo.MatchOptions = C.MQMO_NONE
    return q.get(None, md, gmo), md, gmo


def test_spec_figures_logical_order_get(qmgr) -> None:
    qmgr.define_queue("Q.FIG")
    q = pymqi.Queue(qmgr, "Q.FIG", ALL)
    put_spec_figure_2(q)
    got = [get_logical(q) for _ in range(8)]
    assert [d for d, _, _ in got] == [b"A", b"Y1", b"Y2", b"Y3s1", b"Y3s2", b"Z1", b"Z2", b"B"]
    statuses = [(chr(g.GroupStatus), chr(g.SegmentStatus)) for _, _, g in got]
    assert statuses == [
        (" ", " "),
        ("G", " "),
        ("G", " "),
        ("L", "S"),
        ("L", "L"),
        ("G", " "),
        ("L", " "),
        (" ", " "),
    ]
    assert [(m.MsgSeqNumber, m.Offset) for _, m, _ in got][3:5] == [(3, 0), (3, 4)]
    with pytest.raises(pymqi.MQMIError) as exc:
        get_logical(q)
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_NO_MSG_AVAILABLE)


def test_physical_order_get_returns_arrival_order(qmgr) -> None:
    qmgr.define_queue("Q.FIGPHYS")
    q = pymqi.Queue(qmgr, "Q.FIGPHYS", ALL)
    put_spec_figure_2(q)
    got = [q.get(None, pymqi.MD(), pymqi.GMO(MatchOptions=C.MQMO_NONE)) for _ in range(8)]
    assert got == [b"A", b"Y1", b"Z2", b"Y2", b"Y3s1", b"Y3s2", b"Z1", b"B"]


def test_group_whose_first_item_is_absent_is_not_entered(qmgr) -> None:
    qmgr.define_queue("Q.NOFIRST")
    q = pymqi.Queue(qmgr, "Q.NOFIRST", ALL)
    put_physical(q, b"W2", gid("W"), 2, 0, LMIG)
    put_physical(q, b"solo")
    assert get_logical(q)[0] == b"solo"
    with pytest.raises(pymqi.MQMIError) as exc:
        get_logical(q)
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_NO_MSG_AVAILABLE)
    put_physical(q, b"W1", gid("W"), 1, 0, MIG)  # the first item arrives: now it is entered
    assert [get_logical(q)[0] for _ in range(2)] == [b"W1", b"W2"]


def test_logical_order_put_assigns_group_fields(qmgr) -> None:
    qmgr.define_queue("Q.LOGPUT")
    q = pymqi.Queue(qmgr, "Q.LOGPUT", ALL)
    pmo = pymqi.PMO(Options=C.MQPMO_LOGICAL_ORDER)
    mds = []
    for flags, body in [(MIG, b"1"), (MIG | SEG, b"2a"), (MIG | LSEG, b"2b"), (LMIG, b"3")]:
        md = pymqi.MD(MsgFlags=flags)
        q.put(body, md, pmo)
        mds.append(md)
    assert len({m.GroupId for m in mds}) == 1 and mds[0].GroupId != C.MQGI_NONE
    assert [(m.MsgSeqNumber, m.Offset) for m in mds] == [(1, 0), (2, 0), (2, 2), (3, 0)]
    got = [get_logical(q, C.MQGMO_ALL_MSGS_AVAILABLE) for _ in range(4)]
    assert [d for d, _, _ in got] == [b"1", b"2a", b"2b", b"3"]
    q.close()  # the group was terminated: no warning


def test_put_reason_codes_and_state_kept_after_failure(qmgr) -> None:
    qmgr.define_queue("Q.PUTRC")
    q = pymqi.Queue(qmgr, "Q.PUTRC", ALL)
    pmo = pymqi.PMO(Options=C.MQPMO_LOGICAL_ORDER)
    with pytest.raises(pymqi.MQMIError) as exc:
        q.put(b"x", pymqi.MD(MsgFlags=0x400), pmo)
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_MSG_FLAGS_ERROR)
    with pytest.raises(pymqi.MQMIError) as exc:
        q.put(b"x", pymqi.MD(Version=1, MsgFlags=MIG), pmo)
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_WRONG_MD_VERSION)
    with pytest.raises(pymqi.MQMIError) as exc:
        q.put(b"", pymqi.MD(MsgFlags=SEG), pmo)
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_SEGMENT_LENGTH_ZERO)

    first = pymqi.MD(MsgFlags=MIG, Persistence=C.MQPER_NOT_PERSISTENT)
    q.put(b"g1", first, pmo)
    with pytest.raises(pymqi.MQMIError) as exc:  # not in the group while it is open
        q.put(b"stray", pymqi.MD(), pmo)
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_INCOMPLETE_GROUP)
    with pytest.raises(pymqi.MQMIError) as exc:
        q.put(b"g2", pymqi.MD(MsgFlags=MIG, Persistence=C.MQPER_PERSISTENT), pmo)
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_INCONSISTENT_PERSISTENCE)
    last = pymqi.MD(MsgFlags=LMIG, Persistence=C.MQPER_NOT_PERSISTENT)
    q.put(b"g2", last, pmo)  # the handle kept the group: it can still be finished
    assert (last.GroupId, last.MsgSeqNumber) == (first.GroupId, 2)
    q.put(b"after", pymqi.MD(), pmo)
    got = [get_logical(q)[0] for _ in range(3)]
    assert got == [b"g1", b"g2", b"after"]


def test_close_with_unterminated_group_warns(qmgr) -> None:
    qmgr.define_queue("Q.CLOSEW")
    q = pymqi.Queue(qmgr, "Q.CLOSEW", C.MQOO_OUTPUT)
    q.put(b"1", pymqi.MD(MsgFlags=MIG), pymqi.PMO(Options=C.MQPMO_LOGICAL_ORDER))
    with pytest.raises(pymqi.MQMIError) as exc:
        q.close()
    assert mqerror(exc) == (C.MQCC_WARNING, C.MQRC_INCOMPLETE_GROUP)
    qmgr.define_queue("Q.CLOSEM")
    seg = pymqi.Queue(qmgr, "Q.CLOSEM", C.MQOO_OUTPUT)
    seg.put(b"part", pymqi.MD(MsgFlags=MIG | SEG), pymqi.PMO(Options=C.MQPMO_LOGICAL_ORDER))
    with pytest.raises(pymqi.MQMIError) as exc:
        seg.close()
    assert mqerror(exc) == (C.MQCC_WARNING, C.MQRC_INCOMPLETE_MSG)  # INCOMPLETE_MSG wins


def test_put_without_logical_order_replaces_group_state_restart_technique(qmgr) -> None:
    """Spec: after a failure, set GroupId/MsgSeqNumber and put without LOGICAL_ORDER;
    later puts on the handle continue with LOGICAL_ORDER."""
    qmgr.define_queue("Q.RESTARTPUT")
    q = pymqi.Queue(qmgr, "Q.RESTARTPUT", ALL)
    q.put(b"m1", pymqi.MD(MsgFlags=MIG), pymqi.PMO(Options=C.MQPMO_LOGICAL_ORDER))
    q2 = pymqi.Queue(qmgr, "Q.RESTARTPUT", C.MQOO_OUTPUT)  # a "restarted" putter
    first_md = pymqi.MD()
    q.get(None, first_md, pymqi.GMO(MatchOptions=C.MQMO_NONE))  # read the group id back
    group = first_md.GroupId
    resume = pymqi.MD(GroupId=group, MsgSeqNumber=2, MsgFlags=MIG)
    q2.put(b"m2", resume)
    last = pymqi.MD(MsgFlags=LMIG)
    q2.put(b"m3", last, pymqi.PMO(Options=C.MQPMO_LOGICAL_ORDER))
    assert (last.GroupId, last.MsgSeqNumber) == (group, 3)


def test_getter_restart_by_group_id_and_seq_then_logical_order(qmgr) -> None:
    """Spec's getter restart: MATCH_GROUP_ID + MATCH_MSG_SEQ_NUMBER, then LOGICAL_ORDER."""
    qmgr.define_queue("Q.RESTARTGET")
    q = pymqi.Queue(qmgr, "Q.RESTARTGET", ALL)
    pmo = pymqi.PMO(Options=C.MQPMO_LOGICAL_ORDER)
    mds = []
    for i in range(1, 6):
        md = pymqi.MD(MsgFlags=LMIG if i == 5 else MIG)
        q.put(f"m{i}".encode(), md, pmo)
        mds.append(md)
    group = mds[0].GroupId
    for _ in range(2):  # the crashed getter had processed 1 and 2 in committed UOWs
        get_logical(q)
    fresh = pymqi.Queue(qmgr, "Q.RESTARTGET", C.MQOO_INPUT_SHARED)
    md = pymqi.MD(GroupId=group, MsgSeqNumber=3)
    gmo = pymqi.GMO(
        Options=C.MQGMO_COMPLETE_MSG | C.MQGMO_WAIT,
        WaitInterval=2000,
        MatchOptions=C.MQMO_MATCH_GROUP_ID | C.MQMO_MATCH_MSG_SEQ_NUMBER,
    )
    assert fresh.get(None, md, gmo) == b"m3"
    rest = []
    while True:
        data, md, gmo = get_logical(fresh, C.MQGMO_COMPLETE_MSG)
        rest.append(data)
        if gmo.GroupStatus != C.MQGS_MSG_IN_GROUP:
            break
    assert rest == [b"m4", b"m5"]


def test_match_options_error_in_logical_order(qmgr) -> None:
    qmgr.define_queue("Q.MOERR")
    q = pymqi.Queue(qmgr, "Q.MOERR", ALL)
    q.put(b"x")
    gmo = pymqi.GMO(Options=C.MQGMO_LOGICAL_ORDER, MatchOptions=C.MQMO_MATCH_MSG_SEQ_NUMBER)
    with pytest.raises(pymqi.MQMIError) as exc:
        q.get(None, pymqi.MD(MsgSeqNumber=2), gmo)
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_MATCH_OPTIONS_ERROR)


def test_all_msgs_available_waits_for_the_last_member(qmgr, qmgr_name) -> None:
    qmgr.define_queue("Q.ALLMSGS")
    q = pymqi.Queue(qmgr, "Q.ALLMSGS", ALL)
    put_physical(q, b"g1", gid("G"), 1, 0, MIG)
    put_physical(q, b"g2", gid("G"), 2, 0, MIG)
    with pytest.raises(pymqi.MQMIError) as exc:
        get_logical(q, C.MQGMO_ALL_MSGS_AVAILABLE)
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_NO_MSG_AVAILABLE)
    put_at: list[float] = []

    def finish() -> None:
        other = pymqi.connect(qmgr_name)
        time.sleep(1.0)
        put_at.append(time.monotonic())
        put_physical(pymqi.Queue(other, "Q.ALLMSGS"), b"g3", gid("G"), 3, 0, LMIG)
        other.disconnect()

    thread = threading.Thread(target=finish)
    thread.start()
    md, gmo = (
        pymqi.MD(),
        pymqi.GMO(
            Options=C.MQGMO_LOGICAL_ORDER | C.MQGMO_ALL_MSGS_AVAILABLE | C.MQGMO_WAIT,
            WaitInterval=20_000,
            MatchOptions=C.MQMO_NONE,
        ),
    )
    assert q.get(None, md, gmo) == b"g1"
    assert time.monotonic() - put_at[0] < 0.5  # woke when the last piece arrived
    thread.join()
    got = []
    while gmo.GroupStatus == C.MQGS_MSG_IN_GROUP:  # the spec's getter loop
        got.append(q.get(None, pymqi.MD(), gmo))
    assert got == [b"g2", b"g3"]


def test_all_segments_available_and_complete_msg(qmgr) -> None:
    qmgr.define_queue("Q.SEGS")
    q = pymqi.Queue(qmgr, "Q.SEGS", ALL)
    put_physical(q, b"abc", gid("S"), 1, 0, SEG)
    with pytest.raises(pymqi.MQMIError) as exc:
        q.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_COMPLETE_MSG, MatchOptions=0))
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_NO_MSG_AVAILABLE)
    put_physical(q, b"def", gid("S"), 1, 3, LSEG)
    md, gmo = pymqi.MD(), pymqi.GMO(Options=C.MQGMO_COMPLETE_MSG, MatchOptions=0)
    assert q.get(None, md, gmo) == b"abcdef"
    assert md.Offset == 0 and md.MsgFlags & C.MQMF_LAST_SEGMENT
    assert gmo.SegmentStatus == C.MQSS_LAST_SEGMENT
    assert qmgr.queue_status("Q.SEGS")["current_depth"] == 0


def test_queue_manager_segmentation_64_mib_round_trip(qmgr) -> None:
    # A queue's MAXMSGL may not exceed the queue manager's (DEFINE QLOCAL MAXMSGL).
    qmgr.alter_qmgr(max_msg_length=100 * 1024 * 1024)
    qmgr.define_queue("Q.BIG", max_msg_length=100 * 1024 * 1024, max_depth=1000)
    q = pymqi.Queue(qmgr, "Q.BIG", ALL)
    big = bytes(range(256)) * (64 * 1024 * 1024 // 256)
    md = pymqi.MD(MsgFlags=C.MQMF_SEGMENTATION_ALLOWED)
    q.put(big, md)
    assert md.GroupId != C.MQGI_NONE
    depth = qmgr.queue_status("Q.BIG")["current_depth"]
    assert depth == -(-len(big) // (900 * 1024))  # one physical message per segment
    out_md = pymqi.MD()
    got = q.get(None, out_md, pymqi.GMO(Options=C.MQGMO_COMPLETE_MSG, MatchOptions=0))
    assert len(got) == len(big) and got == big
    assert out_md.Offset == 0 and out_md.MsgId == md.MsgId
    assert qmgr.queue_status("Q.BIG")["current_depth"] == 0


def test_maxmsgl_bounds_every_physical_message(qmgr) -> None:
    """Over MAXMSGL: 2030 unless segmentation is allowed; then no segment exceeds MAXMSGL."""
    qmgr.define_queue("Q.SMALLMAX", max_msg_length=1024)
    q = pymqi.Queue(qmgr, "Q.SMALLMAX", ALL)
    with pytest.raises(pymqi.MQMIError) as exc:
        q.put(b"x" * 2048)
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_MSG_TOO_BIG_FOR_Q)
    body = bytes(range(256)) * 10  # 2560 bytes
    q.put(body, pymqi.MD(MsgFlags=C.MQMF_SEGMENTATION_ALLOWED))
    assert qmgr.queue_status("Q.SMALLMAX")["current_depth"] == 3  # 1024 + 1024 + 512
    pieces = []
    while True:
        md, gmo = pymqi.MD(), pymqi.GMO(MatchOptions=C.MQMO_NONE)
        try:
            pieces.append(q.get(None, md, gmo))
        except pymqi.MQMIError:
            break
    assert [len(p) for p in pieces] == [1024, 1024, 512] and b"".join(pieces) == body


def test_two_getters_take_whole_groups(qmgr, qmgr_name) -> None:
    """A group goes to one getter at a time; another getter takes the next group."""
    qmgr.define_queue("Q.TWOGET", max_depth=10_000)
    q = pymqi.Queue(qmgr, "Q.TWOGET", C.MQOO_OUTPUT)
    groups = {f"G{i}": [f"G{i}-{n}".encode() for n in range(1, 6)] for i in range(8)}
    # interleave members of all groups physically
    for n in range(5):
        for name, members in groups.items():
            put_physical(q, members[n], gid(name), n + 1, 0, LMIG if n == 4 else MIG)
    results: dict[str, list[list[bytes]]] = {"a": [], "b": []}
    # Both getters open before either gets (a connect can take longer than the other's
    # whole run), and each, once it holds a group part-way, waits until the other holds
    # one too: the second getter's first message must then come from another group.
    opened = threading.Barrier(2, timeout=60)
    holding = {tag: threading.Event() for tag in results}

    def getter(tag: str) -> None:
        conn = pymqi.connect(qmgr_name)
        h = pymqi.Queue(conn, "Q.TWOGET", C.MQOO_INPUT_SHARED)
        other = next(t for t in holding if t != tag)
        opened.wait()
        current: list[bytes] = []
        while True:
            try:
                data, _, gmo = get_logical(h, C.MQGMO_WAIT)
            except pymqi.MQMIError as err:
                assert err.reason == C.MQRC_NO_MSG_AVAILABLE
                break
            current.append(data)
            if not holding[tag].is_set():
                holding[tag].set()
                holding[other].wait(30)
            time.sleep(0.002)  # give the other getter a chance to interleave
            if gmo.GroupStatus == C.MQGS_LAST_MSG_IN_GROUP:
                results[tag].append(current)
                current = []
        h.close()
        conn.disconnect()

    threads = [threading.Thread(target=getter, args=(t,)) for t in results]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    got_groups = results["a"] + results["b"]
    assert sorted(map(tuple, got_groups)) == sorted(map(tuple, groups.values()))
    assert results["a"] and results["b"], "one getter took every group"


def test_groups_keep_one_partition_when_a_queue_has_several(qmgr, kafka_bootstrap) -> None:
    qmgr.define_queue("Q.PARTS", partitions=3)
    q = pymqi.Queue(qmgr, "Q.PARTS", ALL)
    pmo = pymqi.PMO(Options=C.MQPMO_LOGICAL_ORDER)
    for g in range(6):
        for n in range(1, 5):
            q.put(f"g{g}m{n}".encode(), pymqi.MD(MsgFlags=LMIG if n == 4 else MIG), pmo)
    qmgr.get_handle().barrier()
    consumer = Consumer(
        config.kafka_client(
            kafka_bootstrap,
            **{"group.id": uuid.uuid4().hex, "isolation.level": "read_committed"},
        )
    )
    topic = naming.data_topic(qmgr.get_name(), "Q.PARTS", 0)
    consumer.assign([TopicPartition(topic, p, 0) for p in range(3)])
    partitions_of: dict[bytes, set[int]] = {}
    seen = 0
    deadline = time.monotonic() + 20
    while seen < 24 and time.monotonic() < deadline:
        for msg in consumer.consume(100, timeout=0.5):
            if msg.error():
                continue
            partitions_of.setdefault(msg.key(), set()).add(msg.partition())
            seen += 1
    consumer.close()
    assert seen == 24 and len(partitions_of) == 6
    assert all(len(p) == 1 for p in partitions_of.values())
    assert len(set().union(*partitions_of.values())) > 1, "all groups hashed to one partition"
    got = [get_logical(q)[0] for _ in range(24)]
    for g in range(6):  # each group contiguous and in sequence
        members = [f"g{g}m{n}".encode() for n in range(1, 5)]
        start = got.index(members[0])
        assert got[start : start + 4] == members


def test_browse_logical_order_and_inconsistent_browse(qmgr) -> None:
    qmgr.define_queue("Q.BROWSELOG")
    q = pymqi.Queue(qmgr, "Q.BROWSELOG", ALL)
    put_spec_figure_2(q)

    def browse(options: int) -> bytes:
        return q.get(None, pymqi.MD(), pymqi.GMO(Options=options, MatchOptions=C.MQMO_NONE))

    first = browse(C.MQGMO_BROWSE_FIRST | C.MQGMO_LOGICAL_ORDER)
    rest = [browse(C.MQGMO_BROWSE_NEXT | C.MQGMO_LOGICAL_ORDER) for _ in range(7)]
    assert [first, *rest] == [b"A", b"Y1", b"Y2", b"Y3s1", b"Y3s2", b"Z1", b"Z2", b"B"]
    with pytest.raises(pymqi.MQMIError) as exc:
        browse(C.MQGMO_BROWSE_NEXT)  # physical after a logical BROWSE_FIRST
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_INCONSISTENT_BROWSE)
    assert browse(C.MQGMO_BROWSE_FIRST) == b"A"  # BROWSE_FIRST resets: physical now fine
    assert browse(C.MQGMO_BROWSE_NEXT) == b"Y1"
    assert browse(C.MQGMO_BROWSE_NEXT) == b"Z2"
    assert qmgr.queue_status("Q.BROWSELOG")["current_depth"] == 8
