"""Packing the source's rows before the shuffle: one row per bucket per Arrow chunk.

transformWithStateInPandas hands rows to Python one at a time inside PySpark itself
(its serializer walks `itertuples()` and rebuilds a DataFrame from the row tuples), and
every row also crosses the shuffle and the JVM's row conversions. For 1 KiB segments
that per-row cost, not the MQ rules, was the job's ceiling. A stateless `mapInArrow`
before the `groupBy` folds the rows of each bucket into one row of lists with pyarrow's
vectorised group-by (no Python per row), so the stateful step sees a few dozen rows a
micro-batch instead of tens of thousands. The bucket is still the state key: the
processor unpacks the lists and sees the same pieces, in the same order, as before.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pyarrow as pa

# The columns of source.queue_stream that travel packed (all but the bucket).
COLUMNS = ("unit", "prio", "part", "off", "ts", "value")

PACKED_SCHEMA = (
    "bucket int, unit array<binary>, prio array<int>, part array<int>, "
    "off array<bigint>, ts array<bigint>, value array<binary>"
)

# Upper bound of the source data packed at once: the Arrow binary arrays Spark accepts
# use 32-bit offsets (2 GiB per array), and a bounded chunk bounds the worker's memory
# when a first micro-batch reads a whole backlog.
MAX_CHUNK_BYTES = 64 * 1024 * 1024


def pack(batches: list[pa.RecordBatch]) -> pa.RecordBatch:
    """The rows of `batches` as one row per bucket, each column a list in input order.

    A stable sort by bucket and list offsets at the bucket boundaries: one copy of the
    data, no Python per row (pyarrow's hash "list" aggregate took ten times as long)."""
    table = pa.Table.from_batches(batches)
    buckets = table.column("bucket").to_numpy()
    order = np.argsort(buckets, kind="stable")  # stable: each list keeps input order
    table = table.take(pa.array(order))
    buckets = buckets[order]
    starts = np.flatnonzero(np.r_[True, buckets[1:] != buckets[:-1]])
    offsets = pa.array(np.r_[starts, len(buckets)].astype(np.int32))
    columns = [pa.array(buckets[starts], pa.int32())] + [
        pa.ListArray.from_arrays(offsets, table.column(name).combine_chunks()) for name in COLUMNS
    ]
    return pa.record_batch(columns, names=["bucket", *COLUMNS])


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


def unpack(pdf) -> Iterator[tuple[bytes, int, int, int, int, bytes]]:
    """The (unit, prio, part, off, ts, value) rows of a pandas frame of packed rows."""
    for cells in zip(*(pdf[name].tolist() for name in COLUMNS), strict=True):
        yield from zip(*(cell.tolist() for cell in cells), strict=True)
