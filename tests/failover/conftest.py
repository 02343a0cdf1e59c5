"""A replicated 3-node Kafka cluster of the failover tests' own (ops/cluster.py: ports
29092-29094 unless MQK_CLUSTER_PORT says otherwise), beside the stack's single node and
sharing its Redis; stopped and deleted at the end."""

from __future__ import annotations

import os
import shutil
import signal
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient

from ops import cluster

NODES = 3


@dataclass
class Cluster:
    run_dir: Path
    pids: list[int] = field(default_factory=list)

    @property
    def bootstrap(self) -> str:
        return cluster.bootstrap(NODES)

    def leader_of(self, topic: str) -> int:
        """The node id leading partition 0 of `topic`."""
        admin = AdminClient({"bootstrap.servers": self.bootstrap, "log_level": 0})
        return admin.list_topics(topic=topic, timeout=10).topics[topic].partitions[0].leader

    def kill(self, node_id: int) -> None:
        os.kill(self.pids[node_id - 1], signal.SIGKILL)

    def restart(self, node_id: int) -> None:
        self.pids[node_id - 1] = cluster.start_node(self.run_dir, NODES, node_id)
        members = cluster.nodes(self.run_dir, NODES)
        cluster.wait_ready(self.bootstrap, self.pids, members)


# Module scope: the three brokers (about 2 GiB) stop once their tests are done instead of
# idling through the rest of the suite.
@pytest.fixture(scope="module")
def replicated(tmp_path_factory) -> Iterator[Cluster]:
    run_dir = tmp_path_factory.mktemp("cluster3")
    started = time.monotonic()
    c = Cluster(run_dir, cluster.start(run_dir, NODES))
    print(f"3-node cluster up in {time.monotonic() - started:.0f} s at {c.bootstrap}")
    try:
        yield c
    finally:
        cluster.stop(c.pids)
        shutil.rmtree(run_dir, ignore_errors=True)
