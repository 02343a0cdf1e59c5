#!/usr/bin/env bash
# A slice of the integration layer with every connection secured: the secure stack
# (ops/secure.py: Kafka SASL_SSL SCRAM-SHA-512 + mTLS listeners under ACLs, Redis on TLS
# with an ACL user) started, its client settings exported (MQK_KAFKA_CONFIG, the
# rediss:// URL), then pytest on the files given, or CI's short form by default.
# Tests that need what the ACL user is refused on purpose (FLUSHALL) are deselected.
set -uo pipefail
cd "$(dirname "$0")/.."
python3 -m adapter.cli stack up --secure || exit 2
trap 'python3 -m adapter.cli stack down --secure || true' EXIT
eval "$(python3 -m adapter.cli stack env --secure)"
if [ "$#" -eq 0 ]; then
  set -- tests/integration/test_security.py tests/integration/test_mqi_put_get.py
fi
python3 -m pytest -q -p no:cacheprovider -k "not redis_wipe" "$@"
