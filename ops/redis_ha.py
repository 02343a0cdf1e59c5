"""Highly available Redis on loopback, from Debian's redis-server: a Sentinel topology
(a primary, one replica, three Sentinels) or a Redis Cluster of three primaries.

Ports from `base` up: Sentinel: primary base, replica base+1, sentinels base+2..base+4;
Cluster: nodes base..base+2 (cluster bus +10000). The tests' ports (and their buses)
stay below 32768: above it is the kernel's ephemeral range, where a client's outgoing
connection may hold the port a listener wants. Files under `run_dir`. Used by the Redis
failover tests (tests/failover/test_redis_*.py) and by hand:

    python3 -m ops.redis_ha up sentinel --port 26000 --dir /tmp/mqk-sentinel
    python3 -m ops.redis_ha up cluster --port 16400 --dir /tmp/mqk-rcluster
    python3 -m ops.redis_ha down --dir /tmp/mqk-sentinel

`up` prints the MQK_REDIS_URL to use and writes the pids to <dir>/pids.json.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from ops import procs
from ops import redis as redis_server

SERVICE = "mqk"
MARKER = "redis-server"
# Sentinel's timing: a primary silent for DOWN_AFTER_MS is down (once two sentinels
# agree), and a failover that stalls is retried after FAILOVER_TIMEOUT_MS. Short, so a
# test's failover takes a few seconds (Redis's defaults: 30 s and 180 s).
DOWN_AFTER_MS = 1000
FAILOVER_TIMEOUT_MS = 4000


@dataclass
class Topology:
    kind: str  # 'sentinel' or 'cluster'
    run_dir: Path
    ports: list[int]
    pids: dict[int, int] = field(default_factory=dict)  # port -> pid

    @property
    def url(self) -> str:
        if self.kind == "sentinel":
            hosts = ",".join(f"127.0.0.1:{p}" for p in self.ports[2:])
            return f"redis+sentinel://{hosts}/{SERVICE}?db=0"
        return "redis+cluster://" + ",".join(f"127.0.0.1:{p}" for p in self.ports)

    def save(self) -> None:
        state = {"kind": self.kind, "ports": self.ports, "pids": self.pids}
        (self.run_dir / "pids.json").write_text(json.dumps(state))


def _server(run_dir: Path, port: int, *extra: str) -> int:
    exe = redis_server.ensure_installed()
    if procs.port_in_use(port):
        raise redis_server.RedisStartError(f"port {port} on 127.0.0.1 is already in use")
    data = run_dir / str(port)
    data.mkdir(parents=True, exist_ok=True)
    cmd = [exe, "--bind", "127.0.0.1", "--port", str(port), "--dir", str(data)]
    cmd += ["--appendonly", "yes", "--appendfsync", "everysec", "--save", ""]
    cmd += ["--daemonize", "no", "--protected-mode", "yes", *extra]
    return procs.start_detached(cmd, data / "redis.log")


def _sentinel(run_dir: Path, port: int, primary: int) -> int:
    exe = redis_server.ensure_installed()
    data = run_dir / str(port)
    data.mkdir(parents=True, exist_ok=True)
    conf = data / "sentinel.conf"  # Sentinel rewrites its file: one per sentinel
    conf.write_text(
        f"port {port}\nbind 127.0.0.1\ndir {data}\n"
        f"sentinel monitor {SERVICE} 127.0.0.1 {primary} 2\n"
        f"sentinel down-after-milliseconds {SERVICE} {DOWN_AFTER_MS}\n"
        f"sentinel failover-timeout {SERVICE} {FAILOVER_TIMEOUT_MS}\n"
        f"sentinel parallel-syncs {SERVICE} 1\n"
    )
    return procs.start_detached([exe, str(conf), "--sentinel"], data / "sentinel.log")


def _wait(check, what: str, timeout: float = 30.0) -> None:
    import redis

    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < deadline:
        try:
            if check():
                return
        except redis.RedisError as exc:
            last = exc
        time.sleep(0.1)
    raise redis_server.RedisStartError(f"{what} not ready within {timeout:.0f} s ({last})")


def start_sentinel(run_dir: Path, base: int) -> Topology:
    import redis

    run_dir.mkdir(parents=True, exist_ok=True)
    topo = Topology("sentinel", run_dir, list(range(base, base + 5)))
    try:
        topo.pids[base] = _server(run_dir, base)
        topo.pids[base + 1] = _server(run_dir, base + 1, "--replicaof", "127.0.0.1", str(base))
        for port in topo.ports[2:]:
            topo.pids[port] = _sentinel(run_dir, port, base)
        topo.save()
        replica = redis.Redis(port=base + 1, socket_connect_timeout=1)
        _wait(lambda: replica.info("replication").get("master_link_status") == "up", "replica")

        def sentinels_agree() -> bool:
            for port in topo.ports[2:]:
                s = redis.Redis(port=port, socket_connect_timeout=1)
                master = s.sentinel_master(SERVICE)
                if master["num-other-sentinels"] < 2 or master["num-slaves"] < 1:
                    return False
            return True

        _wait(sentinels_agree, "sentinels")
    except Exception:
        stop(topo)
        raise
    return topo


def start_cluster(run_dir: Path, base: int, nodes: int = 3) -> Topology:
    import redis

    run_dir.mkdir(parents=True, exist_ok=True)
    topo = Topology("cluster", run_dir, list(range(base, base + nodes)))
    try:
        for port in topo.ports:
            conf = run_dir / str(port) / "nodes.conf"
            topo.pids[port] = _server(
                run_dir, port, "--cluster-enabled", "yes", "--cluster-config-file", str(conf)
            )
        topo.save()
        for port in topo.ports:
            _wait(redis.Redis(port=port, socket_connect_timeout=1).ping, f"node {port}")
        hosts = [f"127.0.0.1:{p}" for p in topo.ports]
        subprocess.run(
            ["redis-cli", "--cluster", "create", *hosts, "--cluster-replicas", "0"],
            input="yes\n",
            capture_output=True,
            text=True,
            check=True,
        )
        nodes_ok = [redis.Redis(port=p, socket_connect_timeout=1) for p in topo.ports]
        _wait(lambda: all(n.cluster("info")["cluster_state"] == "ok" for n in nodes_ok), "cluster")
    except Exception:
        stop(topo)
        raise
    return topo


def stop(topo: Topology) -> None:
    """Stop every server of the topology (SIGTERM, then SIGKILL), by pid."""
    for pid in topo.pids.values():
        if procs.alive(pid, MARKER):
            procs.stop(pid, MARKER, timeout=10)


def load(run_dir: Path) -> Topology:
    state = json.loads((run_dir / "pids.json").read_text())
    pids = {int(k): v for k, v in state["pids"].items()}
    return Topology(state["kind"], run_dir, state["ports"], pids)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m ops.redis_ha", description=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)
    up = sub.add_parser("up")
    up.add_argument("kind", choices=("sentinel", "cluster"))
    up.add_argument("--port", type=int, required=True, help="first port of the range")
    up.add_argument("--dir", type=Path, required=True)
    down = sub.add_parser("down")
    down.add_argument("--dir", type=Path, required=True)
    args = ap.parse_args(argv)
    if args.cmd == "up":
        start = start_sentinel if args.kind == "sentinel" else start_cluster
        topo = start(args.dir, args.port)
        print(f"MQK_REDIS_URL='{topo.url}'")
    else:
        stop(load(args.dir))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
