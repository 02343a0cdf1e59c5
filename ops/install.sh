#!/usr/bin/env bash
# Idempotent install of everything the project needs on a fresh Debian machine:
# system packages (Java 17, Maven, redis-server), the project with its Spark, test and
# bench extras, and the jars (Kafka broker, Spark's Kafka connector) into ~/.cache/mqk.
set -euo pipefail
cd "$(dirname "$0")/.."
export PIP_DISABLE_PIP_VERSION_CHECK=1

need=()
command -v redis-server >/dev/null || need+=(redis-server)
command -v openssl >/dev/null || need+=(openssl)  # the secure stack's certificates (ops/certs.py)
command -v mvn >/dev/null || need+=(maven)
command -v java >/dev/null || need+=(openjdk-17-jre-headless)
if [ ${#need[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}"
fi

python3 -m pip install -q -e ".[spark,test,bench]"
# pyenv only makes shims (mqk, lint-imports) for new scripts on a rehash.
if command -v pyenv >/dev/null; then pyenv rehash; fi
python3 -c "from ops import jars; jars.kafka_jars_dir(); jars.spark_kafka_jars()"
echo "mqk installed: $(command -v mqk)"
