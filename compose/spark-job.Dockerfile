# The reassembly job's image: Spark 4.2.0 with Python, the project, and the Kafka
# connector jars resolved with Maven at build time (same versions as the native stack).
FROM apache/spark:4.2.0-python3
USER root
RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq maven \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /opt/mqk
COPY . /opt/mqk
ENV MQK_HOME=/opt/mqk-home
RUN python3 -m pip install --no-cache-dir -e . \
    && python3 -c "from ops import jars; print(jars.spark_kafka_jars())"
USER spark
