"""The local stack's endpoints (adapter/config.py): Redis over its unix socket when the
socket path fits, else over the TCP port."""

from __future__ import annotations

from adapter import config


def test_redis_is_reached_over_the_unix_socket(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("MQK_HOME", str(tmp_path / "h"))
    assert config.local_endpoints().redis_url == f"unix://{tmp_path}/h/run/redis.sock?db=0"


def test_a_socket_path_too_long_falls_back_to_tcp(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("MQK_HOME", str(tmp_path / ("d" * 120)))
    port = config.DEFAULT_REDIS_PORT
    assert config.local_endpoints().redis_url == f"redis://127.0.0.1:{port}/0"
