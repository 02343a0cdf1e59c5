"""The Spark job passes the operator's Kafka settings to its source (`kafka.` options,
Java names: streaming/kafkaopts.py) and its sink (librdkafka names, as the library)."""

from __future__ import annotations

from pathlib import Path

import pytest

from streaming import sink as sink_module
from streaming.kafkaopts import java_client_settings, source_options
from streaming.source import kafka_reader


@pytest.fixture
def sasl_env(monkeypatch, tmp_path: Path) -> Path:
    ca = tmp_path / "ca.pem"
    ca.write_text("-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n")
    props = tmp_path / "client.properties"
    props.write_text(
        "security.protocol=sasl_ssl\nsasl.mechanism=SCRAM-SHA-512\n"
        f'sasl.username=app\nsasl.password=pa"ss\\word\nssl.ca.location={ca}\n'
    )
    monkeypatch.setenv("MQK_KAFKA_CONFIG", str(props))
    return ca


def test_librdkafka_settings_become_java_client_settings(sasl_env: Path) -> None:
    assert java_client_settings() == {
        "security.protocol": "SASL_SSL",
        "sasl.mechanism": "SCRAM-SHA-512",
        "sasl.jaas.config": "org.apache.kafka.common.security.scram.ScramLoginModule "
        'required username="app" password="pa\\"ss\\\\word";',
        "ssl.truststore.type": "PEM",
        "ssl.truststore.location": str(sasl_env),
    }


def test_mtls_key_and_certificate_go_inline(tmp_path: Path) -> None:
    cert, key = tmp_path / "c.crt", tmp_path / "c.key"
    cert.write_text("CERT")
    key.write_text("KEY")
    java = java_client_settings(
        {
            "security.protocol": "SSL",
            "ssl.certificate.location": str(cert),
            "ssl.key.location": str(key),
            "ssl.endpoint.identification.algorithm": "none",
        },
        environ={"MQK_SPARK_KAFKA_SSL_PROTOCOL": "TLSv1.3"},
    )
    assert java["ssl.keystore.type"] == "PEM"
    assert java["ssl.keystore.certificate.chain"] == "CERT"
    assert java["ssl.keystore.key"] == "KEY"
    assert java["ssl.endpoint.identification.algorithm"] == ""
    assert java["ssl.protocol"] == "TLSv1.3"  # a Java-only setting passed as it is


def test_plaintext_adds_no_option(monkeypatch) -> None:
    for name in ("MQK_KAFKA_CONFIG", "MQK_KAFKA_SECURITY_PROTOCOL"):
        monkeypatch.delenv(name, raising=False)
    assert source_options() == {}


def test_source_reader_gets_kafka_prefixed_settings(sasl_env: Path, monkeypatch) -> None:
    seen: dict[str, str] = {}

    class Reader:
        def format(self, source):
            assert source == "kafka"
            return self

        def option(self, key, value):
            seen[key] = value
            return self

        def options(self, **kw):
            seen.update(kw)
            return self

    spark = type("Spark", (), {"readStream": Reader()})()
    kafka_reader(spark, "127.0.0.1:1", ["mqk.QM.Q.p0"])
    assert seen["kafka.security.protocol"] == "SASL_SSL"
    assert seen["kafka.sasl.mechanism"] == "SCRAM-SHA-512"
    assert seen["kafka.sasl.jaas.config"].startswith(
        'org.apache.kafka.common.security.scram.ScramLoginModule required username="app"'
    )
    assert seen["kafka.ssl.truststore.location"] == str(sasl_env)
    assert seen["kafka.bootstrap.servers"] == "127.0.0.1:1"
    assert seen["kafka.isolation.level"] == "read_committed"  # the job's own still there


def test_sink_clients_get_librdkafka_settings(sasl_env: Path, monkeypatch) -> None:
    made: list[dict] = []

    class StopError(Exception):
        pass

    def record(conf):
        made.append(conf)
        raise StopError

    monkeypatch.setattr(sink_module, "Producer", record)
    sink = sink_module.ExactlyOnceSink(
        qmgr="QM", queue="Q", bootstrap="127.0.0.1:1", redis_url=None, query_key="q"
    )
    sink.set_query_id("1")
    with pytest.raises(StopError):
        sink._start()
    assert made[0]["security.protocol"] == "sasl_ssl"
    assert made[0]["sasl.username"] == "app"
    assert made[0]["bootstrap.servers"] == "127.0.0.1:1"
