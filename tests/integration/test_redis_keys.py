"""Every Lua script declares every key it touches (redis_scripts.py).

With MQK_REDIS_CHECK_KEYS on (config.REDIS_CHECK_KEYS), every script runs behind
redis_scripts.CHECK_PRELUDE: a `redis.call` / `redis.pcall` on a key that is not in KEYS,
or a command whose key positions the check does not know, is an error reply. The
store-parity scenarios and a sample of its random sequences then run here on the real
Redis: any script touching an undeclared key fails them (the memory twin never errs).
The first tests show the check itself can fail.

Needs a Redis: MQK_REDIS_URL (skipped without it).
"""

from __future__ import annotations

import os
import uuid

import pytest

redis = pytest.importorskip("redis")
pytest.importorskip("hypothesis")

from hypothesis import HealthCheck, given, settings  # noqa: E402

from adapter import config  # noqa: E402
from adapter.shim import redis_scripts  # noqa: E402
from adapter.shim.redis_store import RedisStore  # noqa: E402
from tests.integration import test_store_parity as parity  # noqa: E402

# The parity tests run again in this module, behind the key check (autouse fixture).
from tests.integration.test_store_parity import (  # noqa: E402, F401
    qmgr,
    test_mutex_catalog_and_lifecycle_agree,
    test_name_claims_agree,
    test_run_state_agrees,
    test_scenarios_agree,
)

URL = os.environ.get("MQK_REDIS_URL")
pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(not URL, reason="MQK_REDIS_URL not set"),
]


@pytest.fixture(autouse=True)
def check_keys(monkeypatch):
    monkeypatch.setattr(config, "REDIS_CHECK_KEYS", True)


test_random_sequences_declare_keys = settings(
    max_examples=int(os.environ.get("MQK_KEYS_EXAMPLES", "40")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)(given(seq=parity.sequences)(parity.test_random_sequences_agree.hypothesis.inner_test))


@pytest.fixture
def client():
    c = redis.Redis.from_url(URL)
    yield c
    c.close()


def test_check_refuses_an_undeclared_key(client):
    """The check prelude itself: a key not in KEYS is an error, a declared one is not."""
    src = redis_scripts.CHECK_PRELUDE + "return redis.call('GET', ARGV[1])"
    key = f"mqk:{{KEYS.{uuid.uuid4().hex[:8]}}}:x"
    assert client.eval(src, 1, key, key) is None
    with pytest.raises(redis.ResponseError, match="undeclared key"):
        client.eval(src, 1, key, key + "y")
    with pytest.raises(redis.ResponseError, match="unknown command"):
        client.eval(redis_scripts.CHECK_PRELUDE + "return redis.call('TYPE', KEYS[1])", 1, key)


def test_lane_keys_must_be_declared(qmgr):  # noqa: F811 (the imported fixture)
    """A claim whose caller leaves out a lane's `done` key fails, even without the check:
    done(lane) finds only declared keys."""
    store = RedisStore(URL, qmgr)
    try:
        q = store.queue("Q.LANES")
        q.mark_complete()
        q.add_depth(1)
        keys = q._lane_keys("claim", [(0, 0, 0)])
        assert keys[-1] == q.prefix + "done:0.0"
        args = [1, "o", 1000, "consume", "0", "", "4.1:0", "0.0:0"]
        with pytest.raises(redis.ResponseError, match="undeclared key: done:4.1"):
            store.scripts["claim"](keys=keys, args=args)
        res = q.claim([(0, 0, 0), (4, 1, 0)], "o", consume=True)
        assert res.index == 0
    finally:
        store.close()


def test_every_script_declares_its_keys_by_name():
    """No script builds a key name: no `..` concatenation onto KEYS or K (the prelude
    binds each declared key once), and every queue script names only keys of its Spec."""
    import re

    for name, spec in redis_scripts.SPECS.items():
        body = spec.body
        assert not re.search(r"(KEYS\[\d+\]|\bK\.\w+|\bp) \.\.", body), name
        if not spec.raw:
            used = set(re.findall(r"\bK\.(\w+)", body))
            assert used <= set(spec.keys), (name, used - set(spec.keys))
            assert ("done(" in body) == spec.lanes, name
