"""Debian's redis-server on a loopback port, with AOF so a restart keeps state."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

from ops import procs

MARKER = "redis-server"


class RedisStartError(RuntimeError):
    pass


def ensure_installed() -> str:
    exe = shutil.which("redis-server")
    if exe:
        return exe
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        raise RedisStartError("redis-server is not installed: apt-get install redis-server")
    subprocess.run(["apt-get", "update", "-qq"], check=False, capture_output=True)
    proc = subprocess.run(
        ["apt-get", "install", "-y", "-qq", "redis-server"], capture_output=True, text=True
    )
    exe = shutil.which("redis-server")
    if proc.returncode != 0 or not exe:
        raise RedisStartError(f"apt-get install redis-server failed:\n{proc.stderr[-2000:]}")
    return exe


def start(run_dir: Path, port: int, unix_socket: Path | None = None) -> int:
    """redis-server on 127.0.0.1:`port` and, given one, on the unix socket `unix_socket`
    (only this user may connect to it)."""
    exe = ensure_installed()
    if procs.port_in_use(port):
        raise RedisStartError(
            f"port {port} on 127.0.0.1 is already in use by another process; stop it or set "
            "MQK_REDIS_PORT to a free port"
        )
    data = run_dir / "redis-data"
    data.mkdir(parents=True, exist_ok=True)
    cmd = [
        exe,
        "--bind",
        "127.0.0.1",
        "--port",
        str(port),
        "--dir",
        str(data),
        "--appendonly",
        "yes",
        "--appendfsync",
        "everysec",
        "--save",
        "",
        "--daemonize",
        "no",
        "--protected-mode",
        "yes",
    ]
    if unix_socket is not None:
        unix_socket.parent.mkdir(parents=True, exist_ok=True)
        cmd += ["--unixsocket", str(unix_socket), "--unixsocketperm", "700"]
    return procs.start_detached(cmd, run_dir / "redis.log")


def wait_ready(url: str, pid: int, log: Path, timeout: float = 20.0) -> None:
    import redis

    client = redis.Redis.from_url(url, socket_connect_timeout=1)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not procs.running(pid):
            raise RedisStartError(
                f"redis-server exited during start-up. Log tail:\n{procs.tail(log)}"
            )
        try:
            if client.ping():
                return
        except redis.RedisError:
            pass
        time.sleep(0.1)
    raise RedisStartError(
        f"redis-server did not answer PING within {timeout:.0f}s:\n{procs.tail(log)}"
    )
