"""The operator's Kafka client settings (librdkafka's names: adapter/config.py) as the
Java client's, for Spark's Kafka source, which takes them as `kafka.`-prefixed options
(https://spark.apache.org/docs/latest/structured-streaming-kafka-integration.html#kafka-specific-configurations).
The job's own librdkafka clients (the sink's transactional producer, its admin calls)
take the settings as they are.

librdkafka -> Java (https://kafka.apache.org/documentation/#security):
- security.protocol, sasl.mechanism: the same names and values;
- sasl.username + sasl.password -> sasl.jaas.config with the mechanism's login module
  (SCRAM-SHA-256/512: ScramLoginModule; PLAIN: PlainLoginModule);
- ssl.ca.location -> ssl.truststore.type=PEM + ssl.truststore.location;
- ssl.certificate.location + ssl.key.location -> ssl.keystore.type=PEM with the
  certificate chain and the (PKCS#8, unencrypted) key inline (KIP-651), as Java's PEM
  keystore takes a key only inline or in one file with its certificate;
- ssl.endpoint.identification.algorithm: the same (librdkafka's `none` is Java's "").
Anything else librdkafka-only is left out; a Java-only setting can be given with
MQK_SPARK_KAFKA_<KEY> (dots as underscores), which wins.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from adapter.config import kafka_settings

_SPARK_ENV_PREFIX = "MQK_SPARK_KAFKA_"
_LOGIN_MODULES = {
    "SCRAM-SHA-256": "org.apache.kafka.common.security.scram.ScramLoginModule",
    "SCRAM-SHA-512": "org.apache.kafka.common.security.scram.ScramLoginModule",
    "PLAIN": "org.apache.kafka.common.security.plain.PlainLoginModule",
}


def java_client_settings(
    settings: Mapping[str, str] | None = None, environ: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The Java client properties equivalent to the librdkafka `settings` (default: the
    environment's, `adapter.config.kafka_settings()`)."""
    env = os.environ if environ is None else environ
    src = dict(kafka_settings(env) if settings is None else settings)
    out: dict[str, str] = {}
    if "security.protocol" in src:
        out["security.protocol"] = src["security.protocol"].upper()
    mechanism = src.get("sasl.mechanism") or src.get("sasl.mechanisms")
    if mechanism:
        out["sasl.mechanism"] = mechanism
    if "sasl.username" in src and mechanism in _LOGIN_MODULES:
        user = _quoted(src["sasl.username"])
        password = _quoted(src.get("sasl.password", ""))
        out["sasl.jaas.config"] = (
            f'{_LOGIN_MODULES[mechanism]} required username="{user}" password="{password}";'
        )
    if "ssl.ca.location" in src:
        out["ssl.truststore.type"] = "PEM"
        out["ssl.truststore.location"] = src["ssl.ca.location"]
    if "ssl.certificate.location" in src and "ssl.key.location" in src:
        out["ssl.keystore.type"] = "PEM"
        out["ssl.keystore.certificate.chain"] = Path(src["ssl.certificate.location"]).read_text()
        out["ssl.keystore.key"] = Path(src["ssl.key.location"]).read_text()
    if "ssl.endpoint.identification.algorithm" in src:
        algorithm = src["ssl.endpoint.identification.algorithm"]
        out["ssl.endpoint.identification.algorithm"] = "" if algorithm == "none" else algorithm
    for name, value in env.items():
        if name.startswith(_SPARK_ENV_PREFIX) and len(name) > len(_SPARK_ENV_PREFIX):
            out[name[len(_SPARK_ENV_PREFIX) :].lower().replace("_", ".")] = value
    return out


def source_options(settings: Mapping[str, str] | None = None) -> dict[str, str]:
    """The settings as Spark Kafka source / sink options (`kafka.` + the Java name)."""
    return {f"kafka.{k}": v for k, v in java_client_settings(settings).items()}


def _quoted(text: str) -> str:
    """A JAAS quoted-string body: backslash and double quote escaped."""
    return text.replace("\\", "\\\\").replace('"', '\\"')
