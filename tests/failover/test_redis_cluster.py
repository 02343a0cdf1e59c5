"""The MQI scenarios on a Redis Cluster of three primaries (issue 19): the same test files
that run on a single Redis, run again with MQK_REDIS_URL=redis+cluster://… pointing at a
cluster of the test's own (ops/redis_ha.py, ports MQK_REDIS_CLUSTER_PORT.. +2, 16400
by default; Kafka is the stack's) and every script behind the declared-keys check
(MQK_REDIS_CHECK_KEYS=1): a script touching a key outside its KEYS, or keys of two
slots, fails them. A child pytest runs them, so their own fixtures see the cluster.

In cluster mode the definition marks are read with a GET each time (PlainMarks) and
consumption markers are sent synchronously (writebehind.Direct): CLIENT TRACKING and the
write-behind socket are per connection, a cluster's keys on three nodes.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from adapter.shim.redis_keys import queue_prefix
from ops import redis_ha

pytestmark = [pytest.mark.failover, pytest.mark.redis_ha]
BASE = int(os.environ.get("MQK_REDIS_CLUSTER_PORT", "16400"))
ROOT = Path(__file__).resolve().parents[2]
# The scenarios: MQPUT/MQGET's and the store's parity with its memory twin (every
# scenario, a sample of its random sequences); the slow form adds get leases (with a
# FLUSHALL of every primary mid-run) and units of work.
FILES = ["tests/integration/test_mqi_put_get.py", "tests/integration/test_store_parity.py"]
SLOW_FILES = ["tests/integration/test_get_lease.py", "tests/integration/test_mqi_uow.py"]


@pytest.fixture(scope="module")
def rcluster(tmp_path_factory) -> Iterator[redis_ha.Topology]:
    run_dir = Path(tmp_path_factory.mktemp("rcluster"))
    started = time.monotonic()
    topo = redis_ha.start_cluster(run_dir, BASE)
    print(f"redis cluster up in {time.monotonic() - started:.1f} s: {topo.url}")
    try:
        yield topo
    finally:
        redis_ha.stop(topo)


def _pytest(url: str, files: list[str], *extra: str) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "MQK_REDIS_URL": url,
        "MQK_REDIS_CHECK_KEYS": "1",
        "MQK_PARITY_EXAMPLES": os.environ.get("MQK_CLUSTER_PARITY_EXAMPLES", "10"),
    }
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *extra, *files]
    return subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)


def test_the_queues_spread_over_the_three_primaries(rcluster) -> None:
    """Different queues' hash tags land on different primaries (the point of a cluster),
    while one queue's keys share one slot."""
    client = redis.RedisCluster(host="127.0.0.1", port=BASE)
    try:
        nodes = {
            client.get_node_from_key(queue_prefix("QM", f"Q{i}") + "epoch").port for i in range(30)
        }
        assert len(nodes) == 3
        prefix = queue_prefix("QM", "Q1")
        slots = {client.keyslot(prefix + k) for k in ("epoch", "lock", "done:0.0", "once:t")}
        assert len(slots) == 1
    finally:
        client.close()


def _scenarios(rcluster: redis_ha.Topology, files: list[str]) -> None:
    started = time.monotonic()
    proc = _pytest(rcluster.url, files, "-m", "not slow")
    tail = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    print(f"on {rcluster.url}: {tail} ({time.monotonic() - started:.0f} s)")
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert " passed" in tail and "failed" not in tail and "error" not in tail


def test_mqi_scenarios_pass_on_a_redis_cluster(rcluster) -> None:
    _scenarios(rcluster, FILES)


@pytest.mark.slow
def test_get_lease_and_uow_scenarios_pass_on_a_redis_cluster(rcluster) -> None:
    _scenarios(rcluster, SLOW_FILES)
