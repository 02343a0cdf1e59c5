"""`python -m streaming.jars`: the Kafka connector jars for spark-submit's --jars."""

from __future__ import annotations

from ops.jars import spark_kafka_jars

if __name__ == "__main__":
    print(",".join(spark_kafka_jars()))
