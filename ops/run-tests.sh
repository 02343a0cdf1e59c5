#!/usr/bin/env bash
# The README's test command: the whole suite (unit, integration on the real stack, Spark)
# plus the short forms of the soak/crash runs. Extra arguments go to pytest.
#
# With no test paths among the arguments the unit layer (in-memory backends, CPU-bound,
# independent tests) runs first on every core (pytest-xdist), then everything else in
# one process, in order, as the real servers want it. Given paths, one plain run.
set -uo pipefail
cd "$(dirname "$0")/.."
for arg in "$@"; do
  if [ -e "${arg%%::*}" ]; then
    exec python3 -m pytest -q -p no:cacheprovider "$@"
  fi
done
python3 -m pytest -q -p no:cacheprovider -n "${MQK_UNIT_WORKERS:-auto}" tests/unit "$@"
unit=$?
python3 -m pytest -q -p no:cacheprovider --ignore=tests/unit "$@"
rest=$?
# A selection (-m, -k) may leave one half empty (pytest's 5): only both empty is 5.
[ "$unit" -eq 5 ] && [ "$rest" -ne 5 ] && unit=0
[ "$rest" -eq 5 ] && [ "$unit" -eq 0 ] && [ "$#" -gt 0 ] && rest=0
[ "$unit" -ne 0 ] && exit "$unit"
exit "$rest"
