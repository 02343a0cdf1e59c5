"""streaming.packing without Spark: packing per bucket loses, adds and reorders nothing.

The processor must see, per bucket, exactly the rows the source produced for that bucket,
in the source's order (the rules sort pieces themselves, but a duplicate's first copy must
stay first). No servers: these run in a second.
"""

from __future__ import annotations

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from streaming import packing

SOURCE_SCHEMA = pa.schema(
    [
        ("bucket", pa.int32()),
        ("unit", pa.binary()),
        ("prio", pa.int32()),
        ("part", pa.int32()),
        ("off", pa.int64()),
        ("ts", pa.int64()),
        ("value", pa.binary()),
    ]
)

rows_strategy = st.lists(
    st.tuples(
        st.integers(0, 5),  # bucket
        st.one_of(st.none(), st.binary(max_size=4)),  # unit (None: a record without key)
        st.integers(0, 9),  # prio
        st.integers(0, 3),  # part
        st.integers(0, 2**40),  # off
        st.integers(0, 2**41),  # ts
        st.one_of(st.none(), st.binary(max_size=40)),  # value (None: a tombstone)
    ),
    max_size=60,
)


def batches_of(rows: list[tuple], size: int) -> list[pa.RecordBatch]:
    cols = list(zip(*rows, strict=True)) if rows else [[] for _ in SOURCE_SCHEMA]
    table = pa.Table.from_arrays(
        [pa.array(c, f.type) for c, f in zip(cols, SOURCE_SCHEMA, strict=True)],
        schema=SOURCE_SCHEMA,
    )
    return table.to_batches(max_chunksize=size) if rows else []


def per_bucket(rows) -> dict[int, list[tuple]]:
    out: dict[int, list[tuple]] = {}
    for bucket, *rest in rows:
        out.setdefault(bucket, []).append(tuple(rest))
    return out


@settings(max_examples=200, deadline=None)
@given(rows=rows_strategy, chunk=st.integers(1, 17), max_bytes=st.sampled_from([64, 10**9]))
def test_pack_then_unpack_gives_each_bucket_its_rows_in_order(rows, chunk, max_bytes) -> None:
    old = packing.MAX_CHUNK_BYTES
    packing.MAX_CHUNK_BYTES = max_bytes  # small: several chunks, a bucket in several rows
    try:
        packed = list(packing.pack_partition(iter(batches_of(rows, chunk))))
    finally:
        packing.MAX_CHUNK_BYTES = old
    got: dict[int, list[tuple]] = {}
    for batch in packed:
        assert batch.schema.names == list(packing.PACKED_NAMES)
        frame = batch.to_pandas()
        buckets = frame["bucket"].tolist()
        assert len(set(buckets)) == len(buckets)  # one row per bucket per chunk
        for i, bucket in enumerate(buckets):
            chunk = packing.Chunk.of_frames([frame.iloc[i : i + 1]])
            got.setdefault(bucket, []).extend(chunk.records())
    assert got == per_bucket(rows)


def test_a_bucket_in_several_rows_reads_as_one_chunk_in_order() -> None:
    rows = [(0, b"k%d" % i, 0, 0, i, i, b"v%d" % i) for i in range(10)]
    frames = [packing.pack([b]).to_pandas() for b in batches_of(rows, 3)]
    assert list(packing.Chunk.of_frames(frames).records()) == [r[1:] for r in rows]


def test_no_rows_no_output() -> None:
    assert list(packing.pack_partition(iter([]))) == []
    empty = batches_of([(0, b"u", 0, 0, 0, 0, b"")], 1)[0].slice(0, 0)
    assert list(packing.pack_partition(iter([empty]))) == []


def test_packed_rows_match_the_declared_spark_schema() -> None:
    (batch,) = packing.pack_partition(iter(batches_of([(3, b"u", 1, 2, 3, 4, b"v")], 8)))
    types = {f.name: str(f.type) for f in batch.schema}
    assert types == {
        "bucket": "int32",
        "unit": "binary",
        "unit_len": "list<item: int32>",
        "prio": "list<item: int32>",
        "part": "list<item: int32>",
        "off": "list<item: int64>",
        "ts": "list<item: int64>",
        "value": "binary",
        "value_len": "list<item: int32>",
    }
    declared = [c.split()[0] for c in packing.PACKED_SCHEMA.split(", ")]
    assert declared == list(packing.PACKED_NAMES)
