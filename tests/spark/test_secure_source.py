"""The job's Kafka source (`streaming.source.kafka_reader`) on the secure stack: the
operator's librdkafka settings reach Spark's Java client as `kafka.` options, over
SASL_SSL (SCRAM-SHA-512) and over mTLS (PEM keystore inline)."""

from __future__ import annotations

import uuid

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

from adapter import config
from streaming.source import kafka_reader
from tests.securekit import (
    client_env,
    secure_stack_fixture,  # noqa: F401 (the module's stack)
)

pytestmark = [pytest.mark.integration, pytest.mark.spark, pytest.mark.secure]


# CI's short form reads over SASL_SSL; mTLS (measured: passes, ~1 min more) is `slow`.
@pytest.mark.parametrize("kind", ["sasl", pytest.param("mtls", marks=pytest.mark.slow)])
def test_job_source_reads_over_tls(spark, secure_stack, monkeypatch, tmp_path, kind) -> None:
    for name, value in client_env(secure_stack, kind).items():
        monkeypatch.setenv(name, value)
    bootstrap = config.endpoints().kafka_bootstrap
    topic = f"spark-sec-{uuid.uuid4().hex[:8]}"
    admin = AdminClient(config.kafka_client(bootstrap))
    for fut in admin.create_topics([NewTopic(topic, 1, 1)]).values():
        fut.result(30)
    producer = Producer(config.kafka_client(bootstrap))
    sent = {f"k{i}".encode(): f"v{i}".encode() for i in range(50)}
    for key, value in sent.items():
        producer.produce(topic, value=value, key=key)
    assert producer.flush(30) == 0

    stream = kafka_reader(spark, bootstrap, [topic]).load()
    query = (
        stream.selectExpr("key", "value")
        .writeStream.format("memory")
        .queryName(f"sec_{kind}_{uuid.uuid4().hex[:6]}")
        .option("checkpointLocation", str(tmp_path / "ckpt"))
        .trigger(availableNow=True)
        .start()
    )
    assert query.awaitTermination(180), "availableNow query did not finish"
    rows = spark.sql(f"select key, value from {query.name}").collect()
    assert {bytes(r.key): bytes(r.value) for r in rows} == sent
    admin.delete_topics([topic])
