"""Named extra Kafka clusters beside the stack's own (`mqk stack up --cluster NAME`): each
one more single-node KRaft cluster (ops/kafka.py's node, started the same way), for a
second queue manager "on another Kafka cluster" as the channel tests need one.

Cluster NAME's files live under <run_dir>/clusters/<NAME> (its own kafka-data,
server.properties, kafka.log). Its ports come from its slot, the lowest one no other
named cluster recorded in stack.json holds: broker BASE_PORT + 2*slot, controller the
next port; 31092/31093 for the first (MQK_NAMED_CLUSTER_PORT moves the range), clear of
the stack's 19092/19093 and of ops/cluster.py's 29092-29094 / 29192-29194, and below
32768, where the kernel's ephemeral range starts (an outgoing connection's local port
there can hold the port a listener wants).

The queue managers on a named cluster share the stack's Redis: every Redis key carries
its queue manager's name, so queue managers of different clusters never clash there
(adapter/channel/endpoints.py reads a partner's own Redis from MQK_REDIS_URL_<QMGR> when
one is wanted).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from ops import kafka, procs

BASE_PORT = int(os.environ.get("MQK_NAMED_CLUSTER_PORT", "31092"))
HEAP_MB = int(os.environ.get("MQK_NAMED_CLUSTER_HEAP_MB", "768"))
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,47}$")


@dataclass
class Named:
    """One named cluster as stack.json records it."""

    pid: int | None
    slot: int

    @property
    def port(self) -> int:
        return BASE_PORT + 2 * self.slot

    @property
    def controller_port(self) -> int:
        return self.port + 1

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    def alive(self) -> bool:
        return procs.alive(self.pid, kafka.MARKER)

    def to_json(self) -> dict[str, object]:
        return {"pid": self.pid, "slot": self.slot, "bootstrap": self.bootstrap}

    @classmethod
    def from_json(cls, raw: dict[str, object]) -> Named:
        pid, slot = raw.get("pid"), raw.get("slot", 0)
        return cls(pid if isinstance(pid, int) else None, slot if isinstance(slot, int) else 0)


def check_name(name: str) -> str:
    """The name, or ValueError: it names a folder, so letters, digits, '_', '.', '-'."""
    if not _NAME.match(name):
        raise ValueError(f"cluster name {name!r}: letters, digits, '_', '.' and '-' only")
    return name


def cluster_dir(run_dir: Path, name: str) -> Path:
    return run_dir / "clusters" / check_name(name)


def free_slot(taken: dict[str, Named]) -> int:
    used = {n.slot for n in taken.values()}
    return next(i for i in range(len(used) + 1) if i not in used)


def start(run_dir: Path, name: str, slot: int) -> Named:
    """Start cluster `name` in `slot` and wait until it answers; stopped again if it
    never does (the caller records it only once it runs)."""
    node = Named(None, slot)
    where = cluster_dir(run_dir, name)
    node.pid = kafka.start(where, node.port, node.controller_port, HEAP_MB)
    try:
        kafka.wait_ready(node.bootstrap, node.pid, where / "kafka.log")
    except BaseException:
        procs.stop(node.pid, kafka.MARKER, timeout=10)
        raise
    return node


def stop(node: Named) -> bool:
    """Stop the cluster's node if it is still ours; whether it was running."""
    if node.alive():
        procs.stop(node.pid, kafka.MARKER)
        return True
    return False
