"""A replicated local Kafka cluster: N KRaft nodes on loopback, each a broker and a
controller (a controller quorum of N), every topic at replication factor N with
min.insync.replicas N-1 (ops/kafka.py's server_properties), as a team runs Kafka under
persistent messaging: three nodes, RF 3, min ISR 2.

Node i (1..N) listens on BASE_PORT + i - 1 (brokers) and BASE_PORT + 100 + i - 1
(controllers): 29092-29094 and 29192-29194 by default (MQK_CLUSTER_PORT), beside the
single-node stack's 19092. Its files live under <run_dir>/node<i>; the cluster id is
kept in <run_dir>/cluster.id so a node restarted (after a kill) rejoins the same cluster.
`mqk stack up --brokers 3` starts one as the stack's Kafka; the failover tests start
their own.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from ops import kafka, procs

BASE_PORT = int(os.environ.get("MQK_CLUSTER_PORT", "29092"))
HEAP_MB = int(os.environ.get("MQK_CLUSTER_HEAP_MB", "768"))


@dataclass(frozen=True)
class Node:
    node_id: int
    port: int
    controller_port: int
    run_dir: Path

    @property
    def log(self) -> Path:
        return self.run_dir / "kafka.log"


def nodes(run_dir: Path, count: int, base_port: int = BASE_PORT) -> list[Node]:
    return [
        Node(i, base_port + i - 1, base_port + 100 + i - 1, run_dir / f"node{i}")
        for i in range(1, count + 1)
    ]


def bootstrap(count: int, base_port: int = BASE_PORT) -> str:
    return ",".join(f"127.0.0.1:{base_port + i}" for i in range(count))


def _voters(members: list[Node]) -> str:
    return ",".join(f"{n.node_id}@127.0.0.1:{n.controller_port}" for n in members)


def _cluster_id(run_dir: Path) -> str:
    path = run_dir / "cluster.id"
    if path.exists():
        return path.read_text().strip()
    run_dir.mkdir(parents=True, exist_ok=True)
    cid = kafka.new_cluster_id()
    path.write_text(cid)
    return cid


def start_node(run_dir: Path, count: int, node_id: int, base_port: int = BASE_PORT) -> int:
    """Start (or restart, after a kill) one node of the cluster; its pid."""
    members = nodes(run_dir, count, base_port)
    node = members[node_id - 1]
    return kafka.start(
        node.run_dir,
        node.port,
        node.controller_port,
        HEAP_MB,
        node_id=node.node_id,
        voters=_voters(members),
        replicas=count,
        cluster_id=_cluster_id(run_dir),
    )


def start(run_dir: Path, count: int, base_port: int = BASE_PORT) -> list[int]:
    """Start every node (a quorum elects its leader once a majority runs); their pids."""
    pids: list[int] = []
    try:
        for node_id in range(1, count + 1):
            pids.append(start_node(run_dir, count, node_id, base_port))
        wait_ready(bootstrap(count, base_port), pids, nodes(run_dir, count, base_port))
    except BaseException:
        stop(pids)
        raise
    return pids


def wait_ready(address: str, pids: list[int], members: list[Node], timeout: float = 120) -> None:
    """Block until every node is registered as a broker; fail fast if one died."""
    from confluent_kafka.admin import AdminClient

    admin = AdminClient({"bootstrap.servers": address, "log_level": 0, "logger": kafka._quiet})
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for pid, node in zip(pids, members, strict=False):
            if not procs.running(pid):
                raise kafka.KafkaStartError(
                    f"Kafka node {node.node_id} exited during start-up. Log tail "
                    f"({node.log}):\n{procs.tail(node.log)}"
                )
        try:
            if len(admin.list_topics(timeout=2).brokers) >= len(members):
                return
        except Exception:  # noqa: BLE001 - not up yet; the deadline bounds the loop
            pass
        time.sleep(0.5)
    raise kafka.KafkaStartError(
        f"the {len(members)}-node cluster did not register every broker within {timeout:.0f}s"
    )


def stop(pids: list[int]) -> None:
    for pid in pids:
        if procs.alive(pid, kafka.MARKER):
            procs.stop(pid, kafka.MARKER)
