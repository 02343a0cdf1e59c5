"""Kafka client settings pass through with librdkafka's own names (adapter/config.py),
and secrets never show (adapter/redact.py)."""

from __future__ import annotations

import io
import logging
import string
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adapter import config, logs
from adapter.redact import MASK, RedactingFilter, redact, secret_values
from adapter.shim.kafka_log import KafkaLog


def test_properties_file_then_variables(tmp_path: Path) -> None:
    props = tmp_path / "client.properties"
    props.write_text(
        "# a comment\n! another\n\nsecurity.protocol=SASL_SSL\n"
        "sasl.mechanism : SCRAM-SHA-512\nsasl.username=app\nsasl.password=s3cr=t\n"
    )
    env = {
        "MQK_KAFKA_CONFIG": str(props),
        "MQK_KAFKA_SASL_USERNAME": "other",
        "MQK_KAFKA_SSL_CA_LOCATION": "/ca.pem",
        "MQK_KAFKA_BOOTSTRAP": "h:1",  # the endpoint, not a property
        "MQK_KAFKA_BOOTSTRAP_B": "h:2",
        "MQK_KAFKA_PORT": "19092",
        "MQK_KAFKA_HEAP_MB": "512",
    }
    assert config.kafka_settings(env) == {
        "security.protocol": "SASL_SSL",
        "sasl.mechanism": "SCRAM-SHA-512",
        "sasl.username": "other",  # the variable wins over the file
        "sasl.password": "s3cr=t",  # only the first separator splits
        "ssl.ca.location": "/ca.pem",
    }


def test_bad_properties_line_names_no_secret(tmp_path: Path) -> None:
    props = tmp_path / "bad.properties"
    props.write_text("security.protocol=SSL\nhunter2\n")
    with pytest.raises(ValueError, match="line 2") as info:
        config.read_properties(props)
    assert "hunter2" not in str(info.value)


def test_every_engine_client_gets_the_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MQK_KAFKA_SECURITY_PROTOCOL", "SASL_PLAINTEXT")
    monkeypatch.setenv("MQK_KAFKA_SASL_MECHANISM", "SCRAM-SHA-512")
    made: list[dict] = []

    def record(conf: dict) -> object:
        made.append(conf)
        return object()

    monkeypatch.setattr("adapter.shim.kafka_log.AdminClient", record)
    monkeypatch.setattr("adapter.shim.kafka_log.Producer", record)
    monkeypatch.setattr("adapter.shim.kafka_log.Consumer", record)
    klog = KafkaLog("127.0.0.1:1")
    klog.producer()
    klog.transactional_producer("t")
    klog.reader()
    assert len(made) == 4
    for conf in made:
        assert conf["security.protocol"] == "SASL_PLAINTEXT"
        assert conf["sasl.mechanism"] == "SCRAM-SHA-512"
        assert conf["bootstrap.servers"] == "127.0.0.1:1"
    # The library's own settings win over the operator's where it depends on them.
    monkeypatch.setenv("MQK_KAFKA_ALLOW_AUTO_CREATE_TOPICS", "true")
    assert (
        config.kafka_client("b", **{"allow.auto.create.topics": False})["allow.auto.create.topics"]
        is False
    )


def test_secrets_found_in_kafka_and_redis_settings() -> None:
    env = {
        "MQK_KAFKA_SASL_PASSWORD": "kpass",
        "MQK_KAFKA_SSL_KEY_PASSWORD": "keypass",
        "MQK_KAFKA_SASL_USERNAME": "app",  # not a secret
        "MQK_REDIS_URL": "rediss://app:rpass@127.0.0.1:6380/0?ssl_ca_certs=/ca.pem",
        "MQK_REDIS_URL_QM2": "redis://:p%40ss@h:1/0",
    }
    assert secret_values(env) == {"kpass", "keypass", "rpass", "p%40ss", "p@ss"}


def test_redact_masks_urls_pairs_and_known_values(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MQK_KAFKA_SASL_PASSWORD", "Kafka-Pw-1")
    text = (
        "export MQK_REDIS_URL=rediss://app:Redis-Pw-2@127.0.0.1:46110/0?ssl_ca_certs=/ca.pem\n"
        "auth failed for app using Kafka-Pw-1; sasl.password=Other-3 "
        'jaas password="Jaas-4";'
    )
    clean = redact(text)
    for secret in ("Redis-Pw-2", "Kafka-Pw-1", "Other-3", "Jaas-4"):
        assert secret not in clean
    assert "rediss://app:***@127.0.0.1:46110/0?ssl_ca_certs=/ca.pem" in clean
    assert redact("no secret here: MQRC 2035") == "no secret here: MQRC 2035"


@given(st.text(string.ascii_letters + string.digits + "!$%^*()-_+[]{}~", min_size=4, max_size=40))
def test_redact_hides_any_configured_password(password: str) -> None:
    env = {"MQK_REDIS_URL": f"redis://u:{password}@h:1/0", "MQK_KAFKA_SASL_PASSWORD": password}
    secrets = secret_values(env)
    line = f"connecting with {password} to redis://u:{password}@h:1/0 (password={password})"
    assert password not in redact(line, secrets)


def test_setup_logging_redacts_messages_and_tracebacks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MQK_KAFKA_SASL_PASSWORD", "Top-Secret-9")
    out = io.StringIO()
    logs.setup_logging(stream=out)
    try:
        log = logging.getLogger("mqk.test.redact")
        log.warning("server said: bad credentials %s", "Top-Secret-9")
        try:
            raise RuntimeError("echoed Top-Secret-9")
        except RuntimeError:
            log.exception("failed")
    finally:
        logs._replace(logging.getLogger(), None)
    text = out.getvalue()
    assert "bad credentials" in text and "RuntimeError" in text
    assert "Top-Secret-9" not in text and MASK in text
    assert any(isinstance(f, RedactingFilter) for f in logs._handler(out, False).filters)


def test_mqcsp_credentials_replace_the_sasl_user(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[dict] = []
    monkeypatch.setattr("adapter.shim.kafka_log.AdminClient", lambda conf: made.append(conf))
    monkeypatch.setenv("MQK_KAFKA_SECURITY_PROTOCOL", "SASL_SSL")
    monkeypatch.setenv("MQK_KAFKA_SASL_USERNAME", "app")
    monkeypatch.setenv("MQK_KAFKA_SASL_PASSWORD", "app-pw")
    klog = KafkaLog("127.0.0.1:1", credentials=("bob", "bob-pw"))
    assert (klog.conf["sasl.username"], klog.conf["sasl.password"]) == ("bob", "bob-pw")
    assert made[0]["sasl.username"] == "bob"
    # Without SASL the MQCSP has no Kafka meaning: nothing is added.
    monkeypatch.setenv("MQK_KAFKA_SECURITY_PROTOCOL", "SSL")
    assert "sasl.username" not in KafkaLog("127.0.0.1:1", credentials=("bob", "x")).conf or (
        KafkaLog("127.0.0.1:1", credentials=("bob", "x")).conf["sasl.username"] == "app"
    )
