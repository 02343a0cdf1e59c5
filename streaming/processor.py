"""The stateful step: transformWithStateInPandas over hash buckets of GroupIds.

Each state key is a bucket of units (GroupId, or MsgId outside groups), not one unit:
every stateful call is a round trip to the JVM (~0.1 ms measured) and every key costs
a pandas call (~1 ms measured), so one key per GroupId caps the job at a few thousand
groups a second. Per bucket, state holds:

* `units` (map, key = GroupId/MsgId, TTL = the state TTL): incomplete units, with the
  physical messages of their incomplete logical messages;
* `index` (value): which units are open and when each can next expire, plus the
  bucket's one processing-time timer;
* `tombstones` (list, TTL = the duplicate window): units finished recently, one entry per
  micro-batch, so a late duplicate never starts a unit again.

A unit that completes inside one micro-batch touches no per-unit state at all. The
rules are in streaming.assembly (which calls the rules core).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pandas as pd
from mqk_avro import codec, outputs
from pyspark.sql.streaming import StatefulProcessor, StatefulProcessorHandle

from adapter.core import cmqc as C  # noqa: N812 (the project-wide alias)
from streaming import fastunits, keyindex, packing
from streaming.assembly import OpenUnit, Outcome, Piece, advance

OUTPUT_SCHEMA = (
    "kind string, bucket int, key binary, value binary, prio int, part int, off long, "
    "last_ts long, pieces int, open int, dups int, corrupt int, next_expiry long, busy_ms double"
)
# kind: 'msg' logical message, 'group' complete group, 'expired' a message to discard
# (value = its record), 'stat' the bucket's open units, ignored duplicates, when the
# next held unit can expire (-1: none), the records left out as corrupt and the Python
# time this call took.

_UNIT_SCHEMA = (
    "done array<int>, last_seq int, in_group boolean, first_prio int, first_part int, "
    "first_off long, first_put_ms long, "
    "pieces array<struct<prio:int, part:int, off:long, ts:long, value:binary>>"
)


def unit_to_row(unit: OpenUnit) -> tuple:
    first = unit.first or (-1, -1, -1)
    return (
        sorted(unit.done),
        -1 if unit.last_seq is None else unit.last_seq,
        unit.in_group,
        first[0],
        first[1],
        first[2],
        unit.first_put_ms,
        [(p.prio, p.part, p.off, p.ts, p.value) for p in unit.pieces],
    )


def unit_from_row(row: tuple) -> OpenUnit:
    done, last_seq, in_group, fprio, fpart, foff, fput, pieces = row
    return OpenUnit(
        done=set(done or ()),
        last_seq=None if last_seq < 0 else last_seq,
        in_group=bool(in_group),
        first=None if foff < 0 else (fprio, fpart, foff),
        first_put_ms=fput,
        pieces=[
            Piece(p[0], p[1], p[2], p[3], bytes(p[4]), codec.decode(bytes(p[4])))
            for p in pieces or ()
        ],
    )


# Output columns' values where a row has none of its own.
_DEFAULTS = {
    "prio": -1,
    "part": -1,
    "off": -1,
    "last_ts": 0,
    "pieces": 0,
    "open": 0,
    "dups": 0,
    "corrupt": 0,
    "next_expiry": -1,
    "busy_ms": 0.0,
}


class _Rows:
    """Column lists of the output frame."""

    def __init__(self) -> None:
        self.cols: dict[str, list] = {
            name.split()[0]: [] for name in OUTPUT_SCHEMA.replace(", ", ",").split(",")
        }

    def add(self, kind: str, bucket: int, key: bytes = b"", value: bytes = b"", **extra) -> None:
        row = {"kind": kind, "bucket": bucket, "key": key, "value": value, **_DEFAULTS, **extra}
        for name, col in self.cols.items():
            col.append(row[name])

    def extend(self, kind: str, bucket: int, keys: list, values: list, **extra: list) -> None:
        """Rows of one kind at once: `extra` holds a column's values (a list per name)."""
        n = len(keys)
        for name, col in self.cols.items():
            if name == "kind":
                col.extend([kind] * n)
            elif name == "bucket":
                col.extend([bucket] * n)
            elif name == "key":
                col.extend(keys)
            elif name == "value":
                col.extend(values)
            elif name in extra:
                col.extend(extra[name])
            else:
                col.extend([_DEFAULTS[name]] * n)

    def frame(self) -> pd.DataFrame:
        return pd.DataFrame(self.cols)


def record_key(env: dict[str, Any]) -> bytes:
    """The shim's record key: GroupId for grouped or segmented messages, else MsgId."""
    return env["GroupId"] if env["GroupId"] != C.MQGI_NONE else env["MsgId"]


def all_standalone(pieces: list[Piece]) -> bool:
    return all(p.standalone for p in pieces)


class ReassemblyProcessor(StatefulProcessor):
    def __init__(self, qmgr: str, queue: str, state_ttl_ms: int = 0, dedupe_ms: int = 600_000):
        self.qmgr = qmgr
        self.queue = queue
        self.state_ttl_ms = state_ttl_ms or None  # None: open units are kept until complete
        self.dedupe_ms = dedupe_ms

    def init(self, handle: StatefulProcessorHandle) -> None:
        self.handle = handle
        self.units = handle.getMapState("units", "unit binary", _UNIT_SCHEMA, self.state_ttl_ms)
        self.index = handle.getValueState("index", "data binary, timer long")
        # Declared even when the window is 0 (off): the state schema is fixed per checkpoint.
        self.tombstones = handle.getListState("tombstones", "keys binary", max(self.dedupe_ms, 1))

    # -- callbacks (parameter names are part of PySpark's contract) -------------------
    def handleInputRows(self, key, rows, timerValues) -> Iterator[pd.DataFrame]:
        started = time.perf_counter()
        now = timerValues.getCurrentProcessingTimeInMs()
        batch = fastunits.split(packing.Chunk.of_frames(rows), now)
        yield self._process(
            int(key[0]),
            batch.by_unit,
            now,
            fast=batch,
            ignored=batch.native,
            corrupt=batch.corrupt,
            started=started,
        )

    def handleExpiredTimer(self, key, timerValues, expiredTimerInfo) -> Iterator[pd.DataFrame]:
        started = time.perf_counter()
        now = timerValues.getCurrentProcessingTimeInMs()
        bucket = int(key[0])
        index, _timer = self._load_index()
        due = {u: [] for u, t in index.items() if t != keyindex.NO_EXPIRY and t <= now}
        # The framework deletes the timer that fired once this returns.
        fired = expiredTimerInfo.getExpiryTimeInMs()
        yield self._process(bucket, due, now, fired=fired, started=started)

    def close(self) -> None:
        pass

    # -- the work -----------------------------------------------------------------------
    def _load_index(self) -> tuple[dict[bytes, int], int]:
        row = self.index.get()
        if row is None:
            return {}, -1
        return keyindex.decode_index(row[0]), row[1]

    def _tombstoned(self) -> set[bytes]:
        keys: set[bytes] = set()
        for (blob,) in self.tombstones.get():
            keys |= keyindex.decode_keys(blob)
        return keys

    def _process(
        self,
        bucket: int,
        by_unit: dict[bytes, list[Piece]],
        now: int,
        *,
        fast: fastunits.Split | None = None,
        ignored: int = 0,
        corrupt: int = 0,
        fired: int | None = None,
        started: float = 0.0,
    ) -> pd.DataFrame:
        index, timer = self._load_index()
        if fired is not None and fired == timer:
            timer = -1
        before = dict(index)
        # Plain messages outside the index need no tombstone check (they are never
        # tombstoned), so the common case reads no per-unit state.
        tomb: set[bytes] | None = None
        out = _Rows()
        finished: list[bytes] = []
        if fast is not None and len(fast.done):
            # Units complete in this chunk: what advance would write, without its Python
            # per piece and without per-unit state (unless the state holds pieces of one).
            done = fast.done
            segmented = done.segmented.tolist()
            counts = done.counts.tolist()
            keys, units = fast.units()
            take, taken = [], []
            for unit_key, u in zip(keys, units.tolist(), strict=True):
                if unit_key in index:
                    by_unit.setdefault(unit_key, []).extend(fast.pieces(fast.records_of(u)))
                    continue
                if segmented[u] and self.dedupe_ms > 0:
                    if tomb is None:
                        tomb = self._tombstoned()
                    if unit_key in tomb:
                        ignored += counts[u]
                        continue
                take.append(u)
                taken.append(unit_key)
                if segmented[u]:
                    finished.append(unit_key)
            firsts = done.order[done.starts[take]]
            chunk = fast.chunk
            out.extend(
                "msg",
                bucket,
                taken,  # the record keys: GroupId, or MsgId outside groups
                fast.messages(take),
                prio=chunk.prio[firsts].tolist(),
                part=chunk.part[firsts].tolist(),
                off=chunk.off[firsts].tolist(),
                last_ts=done.last_ts[take].tolist(),
                pieces=done.counts[take].tolist(),
            )
        for unit_key, pieces in by_unit.items():
            if self.dedupe_ms > 0 and unit_key not in index and not all_standalone(pieces):
                if tomb is None:
                    tomb = self._tombstoned()
                if unit_key in tomb:
                    ignored += len(pieces)
                    continue
            kept = None
            if unit_key in index:
                row = self.units.getValue((unit_key,))
                kept = unit_from_row(row) if row is not None else None
                if kept is None and not pieces:  # gone with the state TTL: forget it
                    del index[unit_key]
                    continue
            outcome = advance(kept, pieces, now)
            self._emit(out, bucket, outcome, now)
            if outcome.keep is not None:
                self.units.updateValue((unit_key,), unit_to_row(outcome.keep))
                index[unit_key] = outcome.keep.expires_at() or keyindex.NO_EXPIRY
            else:
                if unit_key in index:
                    self.units.removeKey((unit_key,))
                    del index[unit_key]
                if outcome.finished and outcome.reassembled:
                    finished.append(unit_key)
        if finished and self.dedupe_ms > 0:
            self.tombstones.appendList([(blob,) for blob in keyindex.encode_keys(finished)])
        want = keyindex.earliest(index)
        want = -1 if want is None else want
        if index != before or want != timer:
            if want != timer:
                if timer != -1:
                    self.handle.deleteTimer(timer)
                if want != -1:
                    self.handle.registerTimer(want)
            if index:
                self.index.update((keyindex.encode_index(index), want))
            else:
                self.index.clear()
        busy_ms = (time.perf_counter() - started) * 1000 if started else 0.0
        out.add(
            "stat",
            bucket,
            open=len(index),
            dups=ignored,
            corrupt=corrupt,
            next_expiry=want,
            busy_ms=busy_ms,
        )
        return out.frame()

    def _emit(self, out: _Rows, bucket: int, outcome: Outcome, now: int) -> None:
        for msg in outcome.messages:
            out.add(
                "msg",
                bucket,
                record_key(msg.env),
                codec.encode(msg.env),
                prio=msg.first[0],
                part=msg.first[1],
                off=msg.first[2],
                last_ts=msg.last_ts,
                pieces=msg.pieces,
            )
        if outcome.group is not None:
            g = outcome.group
            event = outputs.group_event(self.qmgr, self.queue, g, now)
            last_ts = max((m.last_ts for m in outcome.messages), default=0)
            out.add(
                "group",
                bucket,
                g.group_id,
                outputs.encode_group_event(event),
                prio=g.first[0],
                part=g.first[1],
                off=g.first[2],
                last_ts=last_ts,
                pieces=g.member_count,
            )
        for p in outcome.expired:
            out.add("expired", bucket, p.env["MsgId"], p.value, prio=p.prio, part=p.part, off=p.off)
