#!/usr/bin/env bash
# The README's test command: the whole suite (unit, integration on the real stack, Spark)
# plus the short forms of the soak/crash runs. Extra arguments go to pytest.
set -uo pipefail
cd "$(dirname "$0")/.."
exec python3 -m pytest -q -p no:cacheprovider "$@"
