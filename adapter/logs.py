"""What a person sees of the library's logging.

The library only logs, under loggers named "mqk.<part>", and never configures logging;
a program's entry point (the `mqk` commands, `python -m streaming.job`) calls
`setup_logging` once, and that decides what reaches the terminal:

- quiet (the default): the library's own lines at `level` (MQK_LOG_LEVEL wins), short
  format; other libraries' warnings and errors; no py4j chatter, no librdkafka lines.
- verbose: the same with logger names, plus py4j's warnings and librdkafka's own log
  (connection, broker and transaction chatter at info level).

librdkafka logs to stderr by itself unless a client is given a Python logger: every
Kafka client of the library passes `kafka_logger()` as its "logger" setting, so its
lines go through `logging` like the library's own.
"""

from __future__ import annotations

import logging
import os
import sys
from typing import TextIO

from adapter.redact import RedactingFilter

KAFKA_LOGGER = "mqk.kafka"  # librdkafka's own lines (the shim's clients use it too)
LEVEL_ENV = "MQK_LOG_LEVEL"
_HANDLER = "mqk-setup-logging"  # our handlers carry this name, so a second call replaces them


def kafka_logger() -> logging.Logger:
    """The logger to pass as a confluent-kafka client's "logger" setting.

    It propagates like every library logger, at WARNING unless the application set its
    level: librdkafka's warnings and errors reach the application's handlers, its
    informational chatter only where asked for (`setup_logging(verbose=True)`)."""
    log = logging.getLogger(KAFKA_LOGGER)
    if log.level == logging.NOTSET:
        log.setLevel(logging.WARNING)
    return log


class _Formatter(logging.Formatter):
    """Quiet: "12:03:04 message", with the level for warnings and worse; verbose: with
    the level and the logger's name always."""

    def __init__(self, verbose: bool) -> None:
        super().__init__()
        full = "%(asctime)s %(levelname)s %(name)s %(message)s"
        self._info = logging.Formatter(full if verbose else "%(asctime)s %(message)s", "%H:%M:%S")
        self._warn = logging.Formatter(
            full if verbose else "%(asctime)s %(levelname)s %(message)s", "%H:%M:%S"
        )

    def format(self, record: logging.LogRecord) -> str:
        return (self._warn if record.levelno >= logging.WARNING else self._info).format(record)


def _handler(stream: TextIO, verbose: bool) -> logging.Handler:
    handler = logging.StreamHandler(stream)
    handler.set_name(_HANDLER)
    handler.setFormatter(_Formatter(verbose))
    handler.addFilter(RedactingFilter())  # no secret reaches a terminal (adapter/redact.py)
    return handler


def _replace(logger: logging.Logger, handler: logging.Handler | None) -> None:
    for old in [h for h in logger.handlers if h.get_name() == _HANDLER]:
        logger.removeHandler(old)
    if handler is not None:
        logger.addHandler(handler)


def _level(value: str | int) -> int:
    if isinstance(value, int):
        return value
    number = logging.getLevelName(value.strip().upper())
    if not isinstance(number, int):
        raise ValueError(f"unknown log level {value!r}")
    return number


def setup_logging(
    verbose: bool = False, level: str | int = "INFO", stream: TextIO | None = None
) -> None:
    """Configure the terminal output of a program using the library (idempotent).

    `level` is the level of the library's own loggers ("mqk.*"); MQK_LOG_LEVEL
    overrides it. Other libraries log at WARNING and above. `verbose` adds logger names,
    py4j's warnings and librdkafka's log lines."""
    stream = stream if stream is not None else sys.stderr
    env = os.environ.get(LEVEL_ENV)
    mqk_level = _level(env or level)
    root = logging.getLogger()
    _replace(root, _handler(stream, verbose))
    logging.getLogger("mqk").setLevel(mqk_level)
    # py4j logs every callback at INFO and the JVM's exit at ERROR; neither is for people.
    logging.getLogger("py4j").setLevel(logging.WARNING if verbose else logging.CRITICAL)
    # librdkafka's lines are for people only when asked for (they go to the root handler).
    kafka_logger().setLevel(min(mqk_level, logging.INFO) if verbose else logging.CRITICAL)
