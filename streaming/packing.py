"""Packing the source's rows before the shuffle: one row per bucket per Arrow chunk.

transformWithStateInPandas hands rows to Python one at a time inside PySpark itself
(its serializer walks `itertuples()` and rebuilds a DataFrame from the row tuples), and
every row also crosses the shuffle and the JVM's row conversions. For 1 KiB segments
that per-row cost, not the MQ rules, was the job's ceiling. A stateless `mapInArrow`
before the `groupBy` folds the rows of each bucket into one row, so the stateful step
sees a few dozen rows a micro-batch instead of tens of thousands.

The keys and the values of a bucket travel as one binary blob each (their bytes end to
end, with a list of lengths, -1 for a null): one value for the JVM to copy and shuffle
instead of one per record, one Python `bytes` in the processor, which reads it with numpy
(streaming.envscan) without a Python object per record. The other columns are lists.
The bucket is still the state key; `Chunk.of` gives the processor the bucket's records
in the same order as the source produced them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

# The source's columns (source.queue_stream, after the bucket): binary ones packed as
# blob + lengths, the rest as lists.
BLOBS = ("unit", "value")
LISTS = ("prio", "part", "off", "ts")
COLUMNS = ("unit", "prio", "part", "off", "ts", "value")  # the source's order

PACKED_SCHEMA = (
    "bucket int, unit binary, unit_len array<int>, prio array<int>, part array<int>, "
    "off array<bigint>, ts array<bigint>, value binary, value_len array<int>"
)
PACKED_NAMES = ("bucket", "unit", "unit_len", "prio", "part", "off", "ts", "value", "value_len")

# Upper bound of the source data packed at once: the Arrow binary arrays Spark accepts
# use 32-bit offsets (2 GiB per array), and a bounded chunk bounds the worker's memory
# when a first micro-batch reads a whole backlog.
MAX_CHUNK_BYTES = 64 * 1024 * 1024


def _blob(column: pa.Array, bounds: np.ndarray) -> tuple[pa.Array, pa.Array]:
    """A binary column cut at `bounds` (row indices) into one binary value per range,
    without copying its bytes, and the lengths of its values (-1: null) as lists."""
    column = column.cast(pa.binary())
    offsets = np.frombuffer(column.buffers()[1], np.int32)[
        column.offset : column.offset + len(column) + 1
    ]
    lengths = np.diff(offsets).astype(np.int32)
    if column.null_count:
        lengths[column.is_null().to_numpy(zero_copy_only=False)] = -1
    cut = offsets[bounds] - offsets[0]
    data = column.buffers()[2] or pa.py_buffer(b"")
    blobs = pa.Array.from_buffers(
        pa.binary(),
        len(bounds) - 1,
        [None, pa.py_buffer(cut.astype(np.int32).tobytes()), data.slice(int(offsets[0]))],
    )
    lists = pa.ListArray.from_arrays(pa.array(bounds.astype(np.int32)), pa.array(lengths))
    return blobs, lists


def pack(batches: list[pa.RecordBatch]) -> pa.RecordBatch:
    """The rows of `batches` as one row per bucket, in input order within each bucket.

    A stable sort by bucket, then cuts at the bucket boundaries: one copy of the data,
    no Python per row."""
    table = pa.Table.from_batches(batches)
    buckets = table.column("bucket").to_numpy()
    order = np.argsort(buckets, kind="stable")  # stable: each bucket keeps input order
    table = table.take(pa.array(order)).combine_chunks()
    buckets = buckets[order]
    starts = np.flatnonzero(np.r_[True, buckets[1:] != buckets[:-1]])
    bounds = np.r_[starts, len(buckets)]
    offsets = pa.array(bounds.astype(np.int32))
    cols: dict[str, pa.Array] = {"bucket": pa.array(buckets[starts], pa.int32())}
    for name in COLUMNS:
        column = table.column(name).chunk(0) if table.num_rows else pa.array([], pa.binary())
        if name in BLOBS:
            cols[name], cols[name + "_len"] = _blob(column, bounds)
        else:
            cols[name] = pa.ListArray.from_arrays(offsets, column)
    return pa.record_batch([cols[n] for n in PACKED_NAMES], names=list(PACKED_NAMES))


def pack_partition(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """mapInArrow's function: the partition's batches packed in chunks of at most
    MAX_CHUNK_BYTES (a bucket may get one row per chunk; the processor merges them)."""
    pending: list[pa.RecordBatch] = []
    size = 0
    for batch in batches:
        if batch.num_rows == 0:
            continue
        if pending and size + batch.nbytes > MAX_CHUNK_BYTES:
            yield pack(pending)
            pending, size = [], 0
        pending.append(batch)
        size += batch.nbytes
    if pending:
        yield pack(pending)


def _offsets(lengths: np.ndarray) -> np.ndarray:
    """Arrow-style offsets (n + 1) of values with these lengths (-1, a null, is empty)."""
    out = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(np.maximum(lengths, 0), out=out[1:])
    return out


@dataclass
class Chunk:
    """A bucket's records from its packed rows, as numpy arrays (one entry per record)."""

    unit: bytes  # the keys end to end
    unit_len: np.ndarray  # -1: no key
    prio: np.ndarray
    part: np.ndarray
    off: np.ndarray
    ts: np.ndarray
    value: bytes  # the values end to end
    value_len: np.ndarray  # -1: no value (a tombstone)

    @classmethod
    def of(cls, rows: Sequence[dict]) -> Chunk:
        """The records of packed rows (dicts of the PACKED_NAMES columns), in order."""

        def cat(name: str, dtype) -> np.ndarray:
            parts = [np.asarray(r[name], dtype=dtype) for r in rows]
            return np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)

        return cls(
            unit=b"".join(bytes(r["unit"]) for r in rows),
            unit_len=cat("unit_len", np.int32),
            prio=cat("prio", np.int32),
            part=cat("part", np.int32),
            off=cat("off", np.int64),
            ts=cat("ts", np.int64),
            value=b"".join(bytes(r["value"]) for r in rows),
            value_len=cat("value_len", np.int32),
        )

    @classmethod
    def of_frames(cls, frames) -> Chunk:
        """The records of the pandas frames transformWithStateInPandas hands over."""
        rows = []
        for pdf in frames:
            cols = {name: pdf[name].tolist() for name in PACKED_NAMES[1:]}
            rows += [
                dict(zip(cols, cells, strict=True)) for cells in zip(*cols.values(), strict=True)
            ]
        return cls.of(rows)

    def __len__(self) -> int:
        return len(self.off)

    @property
    def unit_offsets(self) -> np.ndarray:
        return _offsets(self.unit_len)

    @property
    def value_offsets(self) -> np.ndarray:
        return _offsets(self.value_len)

    def record(self, i: int, unit_offsets: np.ndarray, value_offsets: np.ndarray) -> tuple:
        """(unit, prio, part, off, ts, value) of record `i` (None for a null key/value)."""
        ku, vu = int(self.unit_len[i]), int(self.value_len[i])
        unit = None if ku < 0 else self.unit[unit_offsets[i] : unit_offsets[i + 1]]
        value = None if vu < 0 else self.value[value_offsets[i] : value_offsets[i + 1]]
        return (
            unit,
            int(self.prio[i]),
            int(self.part[i]),
            int(self.off[i]),
            int(self.ts[i]),
            value,
        )

    def records(self) -> Iterator[tuple]:
        """Every record as `record` gives it, in order."""
        uo, vo = self.unit_offsets, self.value_offsets
        for i in range(len(self)):
            yield self.record(i, uo, vo)
