"""The floor each missed pair stands on, worked out from the run's own cost rows
(ops/bench/walls.py): the sum of the per-message work no engine can skip, and the best
ratio it leaves against the target."""

from __future__ import annotations

import pytest

from ops.bench import costs, walls
from ops.bench.model import Row, Target


def _cost(pair: str, us: float) -> Row:
    return Row(pair, costs.SECTION, costs.UNIT, us, None, "")


COSTS = [
    _cost(costs.SHAPE, 3.0),
    _cost(costs.FACE_PUT, 9.0),
    _cost(costs.FACE_GET, 11.0),
    _cost(costs.ENCODE, 4.0),
    _cost(costs.DECODE, 6.0),
    _cost(costs.MARKER, 12.0),
]


def test_a_persistent_get_pays_structures_decode_consume_and_its_marker() -> None:
    # raw 500,000 msg/s: 2 us per record; floor 3 + 6 + 2 + 12 = 23 us: best 2/23.
    row = Row("MQGET physical order 1 KiB persistent", "2 get", "msg/s", 6_000, 500_000, "",
              Target("ratio", ">=", 0.2))  # fmt: skip
    parts = walls.floor_parts(row, costs.lookup([*COSTS, row]))
    assert parts is not None
    assert sum(v for _, v in parts) == pytest.approx(23.0)
    (text,) = walls.explain([*COSTS, row])
    assert "= 23.0 us per message" in text
    assert "at best a ratio of 0.09" in text
    assert "cannot be met in this call shape" in text
    assert "costs 11.0 us of a call" in text  # the face as built, reported beside it


def test_read_ahead_writes_no_marker_per_get() -> None:
    row = Row("MQGET physical order 1 KiB non-persistent, read-ahead", "2 get", "msg/s",
              13_000, 500_000, "", Target("ratio", ">=", 0.5))  # fmt: skip
    parts = walls.floor_parts(row, costs.lookup(COSTS))
    assert parts is not None
    assert [name for name, _ in parts] == ["MD + GMO", "envelope decode", "consume"]


def test_a_floor_above_the_target_says_the_rest_is_engine_work() -> None:
    # raw 100,000 msg/s: 10 us per produce; floor 3 + 4 + 10 = 17 us: best 0.59 >= 0.3.
    row = Row("MQPUT async-response 1 KiB persistent", "1 put", "msg/s", 11_000, 100_000, "",
              Target("ratio", ">=", 0.3))  # fmt: skip
    (text,) = walls.explain([*COSTS, row])
    assert "at best a ratio of 0.59" in text
    assert "this library's own work" in text


def test_no_floor_without_the_cost_rows() -> None:
    row = Row("MQGET physical order 1 KiB persistent", "2 get", "msg/s", 6_000, 500_000, "",
              Target("ratio", ">=", 0.2))  # fmt: skip
    assert walls.floor_parts(row, {}) is None
    (text,) = walls.explain([row])
    assert "Floor:" not in text


def test_a_fan_out_copy_shares_its_publication_between_the_subscriptions() -> None:
    # raw 100,000 copies/s: 10 us a copy; per copy 3/10 + 4 + 3 + 6 + 12 + 10 = 35.3 us.
    row = Row("publish 1 KiB to 10 subscriptions (persistent)", "10 pubsub", "copies/s", 2_000,
              100_000, "", Target("ratio", ">=", 0.5), extra={"subscriptions": 10})  # fmt: skip
    parts = walls.floor_parts(row, costs.lookup(COSTS))
    assert parts is not None
    assert sum(v for _, v in parts) == pytest.approx(35.3)
    (text,) = walls.explain([*COSTS, row])
    assert "at best a ratio of 0.28" in text
