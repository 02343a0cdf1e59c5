"""Small process helpers for the launcher: start detached, recognise our own pids, stop."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path


def port_in_use(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return True
    return False


def start_detached(cmd: list[str], log: Path, env: dict[str, str] | None = None) -> int:
    """Start a server in its own session so it outlives the CLI that started it."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "ab") as out:
        proc = subprocess.Popen(
            cmd,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            env=env,
        )
    return proc.pid


def running(pid: int | None) -> bool:
    """True if `pid` exists and has not exited. Used during start-up, when the command
    line may still be the forking Python's (exec not yet done)."""
    if not pid:
        return False
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def alive(pid: int | None, marker: str) -> bool:
    """True if `pid` runs and its command line holds `marker` (a recycled pid is not ours)."""
    if not pid:
        return False
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return False
    # A zombie has exited; it only waits for its parent to reap it.
    return marker in cmdline and running(pid)


def stop(pid: int, marker: str, timeout: float = 30.0) -> None:
    if not alive(pid, marker):
        return
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not alive(pid, marker):
            return
        time.sleep(0.2)
    os.kill(pid, signal.SIGKILL)


def tail(path: Path, lines: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"
