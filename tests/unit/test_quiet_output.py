"""What a person sees: the library's own lines, no librdkafka lines unless verbose, and
none of the JVM's banners or PySpark workers' chatter (no servers, no Spark)."""

from __future__ import annotations

import io
import logging

import pytest

from adapter.logs import KAFKA_LOGGER, kafka_logger, setup_logging
from streaming.session import LOG4J2, STDERR_NOISE, log_level


@pytest.fixture(autouse=True)
def _restore_logging(monkeypatch):
    monkeypatch.delenv("MQK_LOG_LEVEL", raising=False)
    root, mqk, kafka = (logging.getLogger(n) for n in ("", "mqk", KAFKA_LOGGER))
    saved = [(lg, lg.level, list(lg.handlers), lg.propagate) for lg in (root, mqk, kafka)]
    yield
    for lg, level, handlers, propagate in saved:
        lg.setLevel(level)
        lg.handlers[:] = handlers
        lg.propagate = propagate


def _emit(verbose: bool, level: str = "INFO") -> str:
    out = io.StringIO()
    setup_logging(verbose, level=level, stream=out)
    logging.getLogger("mqk.reassemble").info("batch=3 out: messages=7")
    logging.getLogger("mqk.reassemble").debug("debug detail")
    kafka_logger().info("FAIL [rdkafka#consumer-1] Connect to ipv4#127.0.0.1:1 failed")
    logging.getLogger("py4j.clientserver").info("Closing down clientserver connection")
    logging.getLogger("somelib").info("third-party info")
    logging.getLogger("somelib").warning("third-party warning")
    return out.getvalue()


def test_quiet_shows_own_lines_and_warnings_only() -> None:
    text = _emit(verbose=False)
    assert "batch=3 out: messages=7" in text
    assert "WARNING third-party warning" in text
    for hidden in ("rdkafka", "clientserver", "third-party info", "debug detail", "INFO"):
        assert hidden not in text


def test_verbose_adds_librdkafka_and_logger_names() -> None:
    text = _emit(verbose=True)
    assert "INFO mqk.reassemble batch=3" in text
    assert "mqk.kafka FAIL [rdkafka#consumer-1]" in text
    assert "clientserver" not in text  # py4j: warnings only, even when verbose


def test_level_and_env_override(monkeypatch) -> None:
    assert "batch=3" not in _emit(verbose=False, level="WARNING")
    monkeypatch.setenv("MQK_LOG_LEVEL", "debug")
    assert "debug detail" in _emit(verbose=False, level="WARNING")


def test_setup_twice_keeps_one_handler() -> None:
    out = io.StringIO()
    setup_logging(stream=out)
    setup_logging(stream=out)
    logging.getLogger("mqk.x").info("once")
    assert out.getvalue().count("once") == 1
    # librdkafka lines propagate to the application's handlers like any library logger
    assert kafka_logger().propagate is True


def test_jvm_stderr_noise_is_recognised_and_errors_are_not() -> None:
    noise = [
        "WARNING: Using incubator modules: jdk.incubator.vector\n",
        "Using Spark's default log4j profile: org/apache/spark/log4j2-defaults.properties\n",
        'Setting default log level to "WARN".\n',
        "To adjust logging level use sc.setLogLevel(newLevel). For SparkR, use setLogLevel(x).\n",
        "Starting Streaming TransformWithStateInPandas Python worker.\n",
        "Streaming TransformWithStateInPandas Python worker finish init stage of Python runner.\n",
        "\n",
    ]
    kept = [
        "11:22:33 ERROR MicroBatchExecution: Query failed\n",
        "Error: Could not find or load main class org.apache.spark.deploy.SparkSubmit\n",
        'Exception in thread "main" java.lang.OutOfMemoryError: Java heap space\n',
    ]
    assert all(STDERR_NOISE.search(line) for line in noise)
    assert not any(STDERR_NOISE.search(line) for line in kept)


def test_log4j2_configuration() -> None:
    assert (log_level(False), log_level(True)) == ("ERROR", "WARN")
    text = LOG4J2.format(level="error")
    assert "rootLogger.level = error" in text
    assert "logger.repl.level = error" in text  # no 'Setting default log level' banner
    assert "%d{HH:mm:ss}" in text
