"""The queue as a Spark stream: its ten priority topics, read_committed, keyed by unit.

The unit key (GroupId, or MsgId for a message outside any group and not segmented) is
the Kafka record key, which the shim sets by that rule for every envelope of every
schema version (no decoding in the JVM). The processor checks it against the envelope
(`adapter.shim.records.envelope_of`), which also tells a Kafka producer's native record
(another key, or none) from an envelope. The bucket spreads units over the stateful
operator's keys.
"""

from __future__ import annotations

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.streaming import DataStreamReader

from streaming import packing
from streaming.kafkaopts import source_options
from streaming.topics import source_topics


def priority_of(topic: Column, topics: dict[str, int]) -> Column:
    expr = None
    for name, prio in topics.items():
        expr = (F.when(topic == name, prio)) if expr is None else expr.when(topic == name, prio)
    return expr


def packed_queue_stream(
    spark: SparkSession, bootstrap: str, qmgr: str, queue: str, *, pack: bool = True, **options
) -> DataFrame:
    """queue_stream's rows in the processor's input shape (streaming.packing.PACKED_SCHEMA):
    packed per bucket before the shuffle, or with `pack=False` one row per record, each
    list of one element (the unpacked pipeline, kept to measure against)."""
    rows = queue_stream(spark, bootstrap, qmgr, queue, **options)
    if not pack:
        cols = {name: F.array(name).alias(name) for name in packing.LISTS}
        for name in packing.BLOBS:
            col = F.col(name)
            cols[name] = F.coalesce(col, F.lit(b"")).alias(name)
            length = F.when(col.isNull(), F.lit(-1)).otherwise(F.length(col))
            cols[name + "_len"] = F.array(length).alias(name + "_len")
        return rows.select(*(cols.get(n, n) for n in packing.PACKED_NAMES))
    return rows.mapInArrow(packing.pack_partition, packing.PACKED_SCHEMA)


def kafka_reader(
    spark: SparkSession,
    bootstrap: str,
    topics: list[str],
    starting_offsets: str = "earliest",
    max_offsets_per_trigger: int | None = None,
    min_partitions: int | None = None,
) -> DataStreamReader:
    """Spark's Kafka source on `topics`, with the operator's client settings (TLS, SASL:
    streaming/kafkaopts.py) as `kafka.` options under the job's own."""
    reader = (
        spark.readStream.format("kafka")
        .options(**source_options())
        .option("kafka.bootstrap.servers", bootstrap)
        .option("subscribe", ",".join(topics))
        .option("startingOffsets", starting_offsets)
        # Only committed units of work are on the queue; aborted ones never existed.
        .option("kafka.isolation.level", "read_committed")
        # Segments can be ~1 MB each: fetch in big bites.
        .option("kafka.max.partition.fetch.bytes", str(16 * 1024 * 1024))
        .option("kafka.fetch.max.bytes", str(64 * 1024 * 1024))
    )
    if max_offsets_per_trigger:
        reader = reader.option("maxOffsetsPerTrigger", str(max_offsets_per_trigger))
    if min_partitions:
        reader = reader.option("minPartitions", str(min_partitions))
    return reader


def queue_stream(
    spark: SparkSession,
    bootstrap: str,
    qmgr: str,
    queue: str,
    *,
    buckets: int,
    starting_offsets: str = "earliest",
    max_offsets_per_trigger: int | None = None,
    min_partitions: int | None = None,
) -> DataFrame:
    """Rows (bucket, unit, prio, part, off, ts, value) of every committed record."""
    topics = source_topics(qmgr, queue)
    raw = kafka_reader(
        spark, bootstrap, list(topics), starting_offsets, max_offsets_per_trigger, min_partitions
    ).load()
    unit = F.col("key")
    return raw.select(
        F.pmod(F.xxhash64(unit), F.lit(buckets)).cast("int").alias("bucket"),
        unit.alias("unit"),
        priority_of(F.col("topic"), topics).cast("int").alias("prio"),
        F.col("partition").cast("int").alias("part"),
        F.col("offset").alias("off"),
        F.unix_millis(F.col("timestamp")).alias("ts"),
        F.col("value"),
    )
