"""The SparkSession the job and the tests share: local[2] here, any master via spark-submit.

Spark talks a lot on stderr: log4j at INFO/WARN, the JVM's start-up banner, the lines each
Python worker prints when it starts. A session built here is quiet for people: Spark's
log4j gets a configuration of our own (ERROR, or WARN with `verbose=True`) from the first
line the JVM logs, and when this process starts the JVM, its stderr passes through a
filter that drops the banners and the workers' chatter (anything else, such as a JVM that
cannot start, still reaches the terminal). Under spark-submit the JVM is already running:
only the log level is set, as soon as the session exists.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import threading
from collections.abc import Iterator

from adapter import config

RUNTIME_CONF = {
    # One state store per shuffle partition; it is fixed per checkpoint, so keep it small.
    "spark.sql.shuffle.partitions": "2",
    "spark.sql.adaptive.enabled": "false",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",  # the [Stage n:>  ] bars on stderr
    # transformWithStateInPandas needs RocksDB (the default provider is refused for TWS).
    "spark.sql.streaming.stateStore.providerClass": (
        "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"
    ),
    # Commit uploads the batch's changes instead of a RocksDB snapshot (snapshots move to
    # the background maintenance task): a shorter commit in every micro-batch. Compatible
    # with checkpoints written without it (Spark's RocksDB state store documentation).
    "spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled": "true",
    "spark.sql.session.timeZone": "UTC",
}

LOG_LEVEL_CONF = "spark.mqk.logLevel"  # the level the session was built with (ERROR / WARN)

LOG4J2 = """\
# Spark's log for mqk's job (written by streaming/session.py; level {level}).
status = error
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{{HH:mm:ss}} %p %c{{1}}: %m%n%ex
rootLogger.level = {level}
rootLogger.appenderRef.console.ref = console
# Without a level of its own here, Spark prints 'Setting default log level to "WARN"'.
logger.repl.name = org.apache.spark.repl.Main
logger.repl.level = {level}
# 'Unable to load native-hadoop library': true on every machine without Hadoop installed.
logger.nativecode.name = org.apache.hadoop.util.NativeCodeLoader
logger.nativecode.level = error
"""

# Lines of the JVM's stderr that are not for people: Java's notice about the incubator
# module Spark's launcher always adds, the banners Spark prints when log4j has no
# configuration, and the lines PySpark's streaming Python workers print at each start
# ("Starting Streaming TransformWithStateInPandas Python worker." and a blank line).
STDERR_NOISE = re.compile(
    r"^\s*$"
    r"|^WARNING: Using incubator modules"
    r"|^Using Spark's default log4j profile"
    r"|^Setting default log level to"
    r"|^To adjust logging level use sc\.setLogLevel"
    r"|^(Starting )?Streaming \S+ Python worker"
)


def log_level(verbose: bool) -> str:
    return "WARN" if verbose else "ERROR"


def log4j2_file(level: str):
    """The log4j2 configuration for `level`, written under MQK_HOME (never into git)."""
    path = config.mqk_home() / "spark" / f"log4j2-{level.lower()}.properties"
    text = LOG4J2.format(level=level.lower())
    if not path.exists() or path.read_text() != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(text)
        os.replace(tmp, path)  # atomic: a concurrent job never reads half a file
    return path


def _forward_stderr(fd: int) -> None:
    """Copy the JVM's stderr to ours, line by line, without the noise."""
    with os.fdopen(fd, "rb") as pipe:
        for raw in pipe:
            line = raw.decode("utf-8", "replace")
            if STDERR_NOISE.search(line):
                continue
            try:
                sys.stderr.write(line)
                sys.stderr.flush()
            except (OSError, ValueError):  # our stderr is gone (interpreter exit)
                pass


def _start_jvm(options: dict[str, str]) -> None:
    """Start the driver JVM with its stderr filtered, as SparkContext would start it."""
    from pyspark import SparkConf, SparkContext
    from pyspark.java_gateway import launch_gateway

    conf = SparkConf()
    for key, value in options.items():
        conf.set(key, value)
    read_fd, write_fd = os.pipe()
    # Read from the start: a JVM that fails to start says why on stderr.
    threading.Thread(
        target=_forward_stderr, args=(read_fd,), name="spark-stderr", daemon=True
    ).start()
    try:
        gateway = launch_gateway(conf, popen_kwargs={"stderr": write_fd})
    finally:
        os.close(write_fd)  # the JVM holds its own copy; EOF when it exits
    SparkContext(conf=conf, gateway=gateway)  # becomes the active context getOrCreate uses


def _jvm_running() -> bool:
    from pyspark import SparkContext

    # No public accessor: the gateway outlives a stopped context and is reused by the next.
    return "PYSPARK_GATEWAY_PORT" in os.environ or SparkContext._gateway is not None


def build_session(
    app_name: str = "mqk",
    master: str | None = None,
    extra: dict | None = None,
    *,
    verbose: bool = False,
):
    """Create (or return) the session with the Kafka connector jars from the local cache.

    Spark logs at ERROR, or at WARN with `verbose` (see the module's doc)."""
    from pyspark.sql import SparkSession

    from ops.jars import spark_kafka_jars

    # Workers must run this interpreter (it has pandas/pyarrow); loopback only.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    level = log_level(verbose)
    options = {"spark.app.name": app_name}
    if master or not os.environ.get("SPARK_MASTER_SET_BY_SUBMIT"):
        options["spark.master"] = master or os.environ.get("MQK_SPARK_MASTER", "local[2]")
    options["spark.jars"] = ",".join(spark_kafka_jars())
    options["spark.driver.memory"] = os.environ.get("MQK_SPARK_DRIVER_MEMORY", "2g")
    options.update(RUNTIME_CONF)
    options.update(extra or {})
    java_opts = options.get("spark.driver.extraJavaOptions", "")
    if "log4j2.configurationFile" not in java_opts:  # the caller's own configuration wins
        java_opts = f"{java_opts} -Dlog4j2.configurationFile={log4j2_file(level)}".strip()
        options["spark.driver.extraJavaOptions"] = java_opts
    options[LOG_LEVEL_CONF] = level
    if not _jvm_running():
        _start_jvm(options)
    builder = SparkSession.builder
    for key, value in options.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel(level)  # a JVM started elsewhere (spark-submit, tests)
    spark.conf.set(LOG_LEVEL_CONF, level)
    return spark


@contextlib.contextmanager
def errors_only(spark) -> Iterator[None]:
    """Spark logs errors only inside the block, then the session's level again."""
    spark.sparkContext.setLogLevel("ERROR")
    try:
        yield
    finally:
        spark.sparkContext.setLogLevel(spark.conf.get(LOG_LEVEL_CONF, "WARN"))
