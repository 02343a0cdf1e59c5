"""`mqk stack --cluster NAME`'s bookkeeping without starting a broker: ports by slot clear
of the stack's and ops/cluster.py's, names that can be folders, stack.json readable by an
older mqk (no `clusters` key unless one is recorded), and `env --cluster`."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ops import cluster, named, stack


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("MQK_HOME", str(tmp_path))
    return tmp_path


def test_ports_by_slot_collide_with_neither_the_stack_nor_the_replicated_cluster() -> None:
    taken = {19092, 19093, 16379}
    taken |= {cluster.BASE_PORT + i for i in range(5)} | {
        cluster.BASE_PORT + 100 + i for i in range(5)
    }
    ports = set()
    for slot in range(8):
        node = named.Named(None, slot)
        ports |= {node.port, node.controller_port}
        assert node.bootstrap == f"127.0.0.1:{node.port}"
    assert len(ports) == 16 and not ports & taken


@given(st.sets(st.integers(0, 6), max_size=6))
def test_a_new_cluster_takes_the_lowest_free_slot(used: set[int]) -> None:
    taken = {f"c{i}": named.Named(None, i) for i in used}
    slot = named.free_slot(taken)
    assert slot not in used and all(i in used for i in range(slot))


@pytest.mark.parametrize("bad", ["", "a/b", "..", "-x", "x y", "a" * 49])
def test_a_cluster_name_must_be_a_plain_folder_name(bad: str) -> None:
    with pytest.raises(ValueError):
        named.check_name(bad)


def test_stack_json_has_no_clusters_key_until_one_is_recorded(home) -> None:
    stack._save(stack.StackState(kafka_pid=1, kafka_bootstrap="127.0.0.1:19092"))
    assert "clusters" not in json.loads((home / "run" / "stack.json").read_text())
    state = stack.load()
    state.clusters["B"] = named.Named(999_999_999, 1).to_json()
    stack._save(state)
    raw = json.loads((home / "run" / "stack.json").read_text())
    assert raw["clusters"] == {"B": {"pid": 999_999_999, "slot": 1, "bootstrap": "127.0.0.1:31094"}}
    # The rest of the record is unchanged beside the new key.
    assert stack.load().kafka_bootstrap == "127.0.0.1:19092"


def test_a_recorded_but_dead_cluster_is_reported_stopped_and_has_no_env(home) -> None:
    state = stack.StackState(clusters={"B": named.Named(999_999_999, 0).to_json()})
    stack._save(state)
    assert stack.status()["kafka:B"] == {
        "pid": 999_999_999, "running": False, "endpoint": "127.0.0.1:31092"
    }  # fmt: skip
    assert stack.env_lines("B") == [] and stack.cluster_bootstrap("B") is None
    stack.down_cluster("B", log=lambda _m: None)
    assert "clusters" not in json.loads((home / "run" / "stack.json").read_text())
