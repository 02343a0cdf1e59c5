"""The SparkSession the job and the tests share: local[2] here, any master via spark-submit."""

from __future__ import annotations

import os
import sys

RUNTIME_CONF = {
    # One state store per shuffle partition; it is fixed per checkpoint, so keep it small.
    "spark.sql.shuffle.partitions": "2",
    "spark.sql.adaptive.enabled": "false",
    "spark.ui.enabled": "false",
    # transformWithStateInPandas needs RocksDB (the default provider is refused for TWS).
    "spark.sql.streaming.stateStore.providerClass": (
        "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"
    ),
    "spark.sql.session.timeZone": "UTC",
}


def build_session(app_name: str = "mqk", master: str | None = None, extra: dict | None = None):
    """Create (or return) the session with the Kafka connector jars from the local cache."""
    from pyspark.sql import SparkSession

    from ops.jars import spark_kafka_jars

    # Workers must run this interpreter (it has pandas/pyarrow); loopback only.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    builder = SparkSession.builder.appName(app_name)
    if master or not os.environ.get("SPARK_MASTER_SET_BY_SUBMIT"):
        builder = builder.master(master or os.environ.get("MQK_SPARK_MASTER", "local[2]"))
    builder = builder.config("spark.jars", ",".join(spark_kafka_jars()))
    builder = builder.config("spark.driver.memory", os.environ.get("MQK_SPARK_DRIVER_MEMORY", "2g"))
    for key, value in {**RUNTIME_CONF, **(extra or {})}.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    return spark
