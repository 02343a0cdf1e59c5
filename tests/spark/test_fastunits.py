"""streaming.envscan and streaming.fastunits without Spark: the vectorised path gives
exactly what codec.decode and assembly.advance give, and leaves the rest alone.

Every unit the fast path takes must come out byte for byte as advance's logical message
(re-encoded by the codec), with the same pieces, position and timestamp; every record
it does not vouch for must be handed to the record-by-record path. No servers.
"""

from __future__ import annotations

import random

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mqk_avro import codec

from adapter.core import cmqc as C  # noqa: N812
from adapter.core import recordrules
from adapter.shim import records
from streaming import envscan, fastunits, packing
from streaming.assembly import Piece, advance

SEG, LSEG = C.MQMF_SEGMENT, C.MQMF_LAST_SEGMENT
MIG, LMIG = C.MQMF_MSG_IN_GROUP, C.MQMF_LAST_MSG_IN_GROUP
NOW = 1_800_000_000_000


def arrays(values: list[bytes | None]) -> tuple[np.ndarray, np.ndarray]:
    arr = pa.array(values, pa.binary())
    offsets = np.frombuffer(arr.buffers()[1], np.int32)[: len(arr) + 1]
    data = arr.buffers()[2]
    buf = np.frombuffer(data, np.uint8) if data is not None else np.zeros(0, np.uint8)
    return offsets, buf


def envelope(rng: random.Random, **fields) -> dict:
    return codec.new_envelope(
        MsgId=rng.randbytes(24),
        PutTimestamp=NOW - rng.randrange(10_000),
        Format=rng.choice(["MQSTR   ", "", "MQHRF2  "]),
        ReplyToQ=rng.choice(["", "REPLY.Q"]),
        ReplyToQMgr=rng.choice(["", "QM1"]),
        UserIdentifier=rng.choice(["", "mqm"]),
        PutApplName=rng.choice(["python3", ""]),
        CodedCharSetId=rng.choice([0, 1208, 819]),
        Properties=rng.choice([b"", b"\x02\x06abc"]),
        **fields,
    )


def segmented(rng: random.Random, gid: bytes, data: bytes, size: int, **fields) -> list[bytes]:
    parts = [data[i : i + size] for i in range(0, len(data), size)] or [b""]
    out = []
    for i, part in enumerate(parts):
        flags = LSEG if i == len(parts) - 1 else SEG
        out.append(
            codec.encode(
                envelope(
                    rng,
                    GroupId=gid,
                    Offset=i * size,
                    MsgFlags=flags | fields.get("extra_flags", 0),
                    Payload=part,
                    Expiry=fields.get("expiry", -1),
                )
            )
        )
    return out


def mangle(rng: random.Random, value: bytes) -> bytes:
    """A record no MQPUT wrote: cut short, grown, or one byte changed."""
    kind = rng.randrange(3)
    if kind == 0:
        return value[: rng.randrange(len(value))]
    if kind == 1:
        return value + b"\x00"
    b = bytearray(value)
    b[rng.randrange(len(b))] = rng.randrange(256)
    return bytes(b)


def workload(seed: int) -> list[tuple[bytes | None, bytes | None]]:
    """(key, value) records: segmented messages (some cut short, duplicated, reordered,
    expired), plain messages, group members, native records and corrupt ones."""
    rng = random.Random(seed)
    recs: list[tuple[bytes | None, bytes | None]] = []
    for _ in range(rng.randrange(1, 25)):
        kind = rng.random()
        gid = rng.randbytes(24)
        if kind < 0.45:
            data = rng.randbytes(rng.randrange(0, 60))
            expiry = rng.choice([-1, -1, 1, 10**6])
            segs = segmented(rng, gid, data, rng.choice([1, 7, 16]), expiry=expiry)
            if rng.random() < 0.2 and len(segs) > 1:
                segs.pop(rng.randrange(len(segs)))  # a gap: incomplete
            if rng.random() < 0.15:
                segs.append(rng.choice(segs))  # a duplicate
            recs += [(gid, s) for s in segs]
        elif kind < 0.7:
            env = envelope(rng, Payload=rng.randbytes(rng.randrange(30)))
            recs.append((env["MsgId"], codec.encode(env)))
        elif kind < 0.8:
            for seq in (1, 2):
                flags = MIG if seq == 1 else LMIG
                env = envelope(rng, GroupId=gid, MsgSeqNumber=seq, MsgFlags=flags, Payload=b"g")
                recs.append((gid, codec.encode(env)))
        elif kind < 0.88:
            recs.append(
                (rng.choice([None, b"k", rng.randbytes(24)]), rng.choice([None, b"native"]))
            )
        else:
            env = envelope(rng, GroupId=gid, MsgFlags=LSEG, Payload=b"x")
            value = codec.encode(env)
            recs.append((gid, mangle(rng, value)))
    rng.shuffle(recs)
    return recs


def run_fast(recs):
    keys = [k for k, _ in recs]
    values = [v for _, v in recs]
    koffsets, kbuf = arrays(keys)
    voffsets, vbuf = arrays(values)
    scan = envscan.scan(voffsets, vbuf)
    key_rows, good = envscan.key_rows(koffsets, kbuf)
    key_ok = envscan.keys_match(scan, key_rows, good)
    ts = np.arange(len(recs), dtype=np.int64) + NOW - 100
    done = fastunits.complete_units(key_rows, key_ok, scan, ts, NOW)
    data = memoryview(vbuf.tobytes())
    ends = voffsets[1:].astype(np.int64)
    return scan, key_ok, done, data, ends, ts


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 10**9))
def test_scan_agrees_with_decode_wherever_it_vouches(seed) -> None:
    recs = workload(seed)
    scan, key_ok, *_ = run_fast(recs)
    for i, (key, value) in enumerate(recs):
        if not scan.ok[i]:
            continue
        env = codec.decode(value)  # never raises for a record scan vouches for
        assert codec.encode(env) == value
        assert recordrules.impossible_field(env) is None
        fields = ("MsgSeqNumber", "Offset", "MsgFlags", "Expiry", "PutTimestamp")
        got = (scan.seq[i], scan.offset[i], scan.flags[i], scan.expiry[i], scan.put_ms[i])
        assert tuple(env[f] for f in fields) == got
        assert bool(key_ok[i]) == (records.envelope_of(key, value) is not None)


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 10**9))
def test_each_unit_taken_is_what_advance_writes(seed) -> None:
    recs = workload(seed)
    scan, key_ok, done, data, ends, ts = run_fast(recs)
    taken: set[int] = set()
    for u in range(len(done)):
        idx = done.order[done.starts[u] : done.starts[u] + done.counts[u]]
        taken.update(idx.tolist())
        key = recs[idx[0]][0]
        pieces = [
            Piece(0, 0, int(i), int(ts[i]), recs[i][1], codec.decode(recs[i][1]))
            for i in sorted(idx.tolist())
        ]
        out = advance(None, pieces, NOW)
        assert len(out.messages) == 1 and out.keep is None and not out.expired
        assert out.group is None
        msg = out.messages[0]
        (got,) = fastunits.messages(data, scan, ends, done, [u])
        assert got == codec.encode(msg.env)
        assert msg.pieces == done.counts[u]
        assert msg.last_ts == done.last_ts[u]
        assert msg.first[2] == idx[0]  # the segment at Offset 0
        assert out.reassembled == bool(done.segmented[u])
        assert records.record_key(msg.env["GroupId"], msg.env["MsgId"]) == key
    # The records not taken, and only they, go the record-by-record way.
    assert set(np.flatnonzero(done.slow).tolist()) == set(range(len(recs))) - taken


def test_a_plain_segmented_workload_is_taken_whole() -> None:
    rng = random.Random(7)
    recs = []
    for _ in range(50):
        gid = rng.randbytes(24)
        recs += [(gid, s) for s in segmented(rng, gid, rng.randbytes(100), 10)]
    rng.shuffle(recs)
    scan, key_ok, done, *_ = run_fast(recs)
    assert scan.ok.all() and key_ok.all()
    assert len(done) == 50 and done.segmented.all() and not done.slow.any()


def test_expired_and_grouped_units_are_left_to_the_general_path() -> None:
    rng = random.Random(8)
    gid, gid2 = rng.randbytes(24), rng.randbytes(24)
    expired = segmented(rng, gid, b"abcdef", 3, expiry=1)  # 100 ms, put seconds ago
    grouped = [
        codec.encode(envelope(rng, GroupId=gid2, MsgSeqNumber=1, MsgFlags=LMIG, Payload=b"g"))
    ]
    recs = [(gid, v) for v in expired] + [(gid2, v) for v in grouped]
    _scan, _key_ok, done, *_ = run_fast(recs)
    assert len(done) == 0 and done.slow.all()


# -- the processor with and without the fast path ----------------------------------------


class _Value:
    def __init__(self) -> None:
        self.row = None

    def get(self):
        return self.row

    def update(self, row) -> None:
        self.row = row

    def clear(self) -> None:
        self.row = None


class _Map:
    def __init__(self) -> None:
        self.rows: dict = {}

    def getValue(self, key):  # noqa: N802 (PySpark's names)
        return self.rows.get(key)

    def updateValue(self, key, row) -> None:  # noqa: N802
        self.rows[key] = row

    def removeKey(self, key) -> None:  # noqa: N802
        self.rows.pop(key, None)


class _List:
    def __init__(self) -> None:
        self.rows: list = []

    def get(self):
        return iter(list(self.rows))

    def appendList(self, rows) -> None:  # noqa: N802
        self.rows += rows


class _Handle:
    """The state calls the processor makes, in memory (one bucket, no TTL)."""

    def __init__(self) -> None:
        self.maps: dict[str, _Map] = {}
        self.values: dict[str, _Value] = {}
        self.lists: dict[str, _List] = {}
        self.timers: set[int] = set()

    def getMapState(self, name, *_args):  # noqa: N802
        return self.maps.setdefault(name, _Map())

    def getValueState(self, name, *_args):  # noqa: N802
        return self.values.setdefault(name, _Value())

    def getListState(self, name, *_args):  # noqa: N802
        return self.lists.setdefault(name, _List())

    def registerTimer(self, ms: int) -> None:  # noqa: N802
        self.timers.add(ms)

    def deleteTimer(self, ms: int) -> None:  # noqa: N802
        self.timers.discard(ms)


class _Clock:
    def __init__(self, now: int) -> None:
        self.now = now

    def getCurrentProcessingTimeInMs(self) -> int:  # noqa: N802
        return self.now


def _frames(recs, first_off: int) -> list:
    """The records as the packed frames transformWithStateInPandas would hand over."""
    table = pa.table(
        {
            "bucket": pa.array([0] * len(recs), pa.int32()),
            "unit": pa.array([k for k, _ in recs], pa.binary()),
            "prio": pa.array([0] * len(recs), pa.int32()),
            "part": pa.array([0] * len(recs), pa.int32()),
            "off": pa.array(range(first_off, first_off + len(recs)), pa.int64()),
            "ts": pa.array([NOW - 100 + i for i in range(len(recs))], pa.int64()),
            "value": pa.array([v for _, v in recs], pa.binary()),
        }
    )
    return [packing.pack(table.to_batches()).to_pandas()] if recs else []


def _outputs(batches, monkeypatch, fast: bool) -> list[list[tuple]]:
    from streaming.processor import ReassemblyProcessor

    if not fast:
        monkeypatch.setattr(fastunits, "complete_units", _nothing)
    proc = ReassemblyProcessor("QM", "Q", state_ttl_ms=0, dedupe_ms=60_000)
    proc.init(_Handle())
    got, first_off = [], 0
    for recs in batches:
        (frame,) = proc.handleInputRows((0,), iter(_frames(recs, first_off)), _Clock(NOW))
        first_off += len(recs)
        rows = frame.drop(columns=["busy_ms"]).itertuples(index=False, name=None)
        got.append(sorted(rows, key=repr))
    monkeypatch.undo()
    return got


def _nothing(keys, key_ok, scan, ts, now_ms) -> fastunits.Complete:
    n = len(key_ok)
    empty = np.zeros(0, dtype=np.int64)
    return fastunits.Complete(
        np.arange(n), empty, empty, empty.astype(bool), empty, np.ones(n, dtype=bool)
    )


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 10**9), cuts=st.lists(st.floats(0, 1), max_size=3))
def test_the_processor_writes_the_same_with_and_without_the_fast_path(seed, cuts) -> None:
    recs = workload(seed)
    rng = random.Random(seed)
    recs += rng.sample(recs, min(3, len(recs)))  # late duplicates, some after completion
    bounds = sorted({0, len(recs), *(int(c * len(recs)) for c in cuts)})
    batches = [recs[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]
    # A whole unit again, later: a duplicate of a message written before is ignored.
    key = rng.choice(recs)[0]
    batches.append([r for r in recs if r[0] == key])
    with pytest.MonkeyPatch.context() as mp:
        assert _outputs(batches, mp, fast=True) == _outputs(batches, mp, fast=False)
