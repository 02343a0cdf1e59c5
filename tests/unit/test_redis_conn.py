"""MQK_REDIS_URL's Sentinel and Cluster forms (adapter/shim/redis_conn.py), parsed without
a server: redis-py's Sentinel client connects only on its first command."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adapter.shim import redis_conn
from adapter.shim.redis_conn import PrimaryCheck, _hosts, _replid


def test_hosts_with_and_without_credentials() -> None:
    assert _hosts("h1:1,h2:2") == (None, None, [("h1", 1), ("h2", 2)])
    assert _hosts("u:p%40ss@h1:1") == ("u", "p@ss", [("h1", 1)])
    assert _hosts(":secret@127.0.0.1:26379") == (None, "secret", [("127.0.0.1", 26379)])
    assert _hosts("[::1]:5") == (None, None, [("::1", 5)])


@pytest.mark.parametrize("netloc", ["h1", "h1:", "h1:x", ":1"])
def test_a_host_without_a_port_is_refused(netloc: str) -> None:
    with pytest.raises(ValueError, match="host:port"):
        _hosts(netloc)


@given(st.lists(st.tuples(st.from_regex(r"[a-z][a-z0-9.-]{0,20}", fullmatch=True),
                          st.integers(1, 65535)), min_size=1, max_size=5))  # fmt: skip
def test_any_host_list_round_trips(hosts: list[tuple[str, int]]) -> None:
    assert _hosts(",".join(f"{h}:{p}" for h, p in hosts))[2] == hosts


def test_sentinel_url_builds_a_primary_client_with_the_failover_check() -> None:
    url = "redis+sentinel://u:pw@127.0.0.1:1,127.0.0.1:2/svc?db=3&sentinel_password=s"
    client = redis_conn.connect(url, "QM1")
    pool = client.connection_pool
    assert pool.service_name == "svc" and pool.is_master
    kw = pool.connection_kwargs
    assert (kw["db"], kw["username"], kw["password"]) == (3, "u", "pw")
    assert isinstance(kw["redis_connect_func"], PrimaryCheck)
    assert kw["redis_connect_func"].qmgr == "QM1"
    sentinels = pool.sentinel_manager.sentinels
    assert [s.connection_pool.connection_kwargs["port"] for s in sentinels] == [1, 2]
    assert sentinels[0].connection_pool.connection_kwargs["password"] == "s"
    client.close()


def test_sentinel_url_needs_a_service() -> None:
    with pytest.raises(ValueError, match="service name"):
        redis_conn.connect("redis+sentinel://127.0.0.1:1", "QM1")


def test_cluster_scheme_is_recognised() -> None:
    assert redis_conn.is_cluster("redis+cluster://127.0.0.1:1")
    assert not redis_conn.is_cluster("redis://127.0.0.1:1/0")


def test_replid_is_read_from_info_in_either_protocol() -> None:
    info = "# Replication\r\nrole:master\r\nmaster_replid:abc123\r\nmaster_replid2:000\r\n"
    assert _replid(info.encode()) == _replid(info) == "abc123"
