"""Spark reaches Kafka: the connector jars from the local cache, a local[2] session."""

from __future__ import annotations

import uuid

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

pytestmark = [pytest.mark.integration, pytest.mark.spark]


def test_spark_reads_every_record_with_available_now(spark, kafka_bootstrap, tmp_path) -> None:
    topic = f"spark-src-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": kafka_bootstrap})
    for fut in admin.create_topics([NewTopic(topic, 2, 1)]).values():
        fut.result(30)
    producer = Producer({"bootstrap.servers": kafka_bootstrap})
    sent = {f"k{i}".encode(): f"v{i}".encode() for i in range(200)}
    for key, value in sent.items():
        producer.produce(topic, value=value, key=key)
    assert producer.flush(30) == 0

    stream = (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", kafka_bootstrap)
        .option("subscribe", topic)
        .option("startingOffsets", "earliest")
        .option("kafka.isolation.level", "read_committed")
        .load()
    )
    query = (
        stream.selectExpr("key", "value")
        .writeStream.format("memory")
        .queryName(f"src_{uuid.uuid4().hex[:8]}")
        .option("checkpointLocation", str(tmp_path / "ckpt"))
        .trigger(availableNow=True)
        .start()
    )
    assert query.awaitTermination(180), "availableNow query did not finish"
    rows = spark.sql(f"select key, value from {query.name}").collect()
    got = {bytes(r.key): bytes(r.value) for r in rows}
    assert got == sent
