"""Persistent messages survive a broker (and Redis) restart: an isolated stack is
stopped and started again between the put and the get."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from tests.integration.test_stack import _mqk, isolated_env  # noqa: F401 (fixture)

pytestmark = pytest.mark.integration

PUT = textwrap.dedent("""
    import adapter.pymqi as pymqi
    C = pymqi.CMQC
    qm = pymqi.connect("QMRESTART")
    qm.define_queue("DURABLE.Q")
    q = pymqi.Queue(qm, "DURABLE.Q", C.MQOO_OUTPUT)
    q.put(b"survivor", pymqi.MD(Persistence=C.MQPER_PERSISTENT))
    q.put(b"in a unit of work", pymqi.MD(Persistence=C.MQPER_PERSISTENT),
          pymqi.PMO(Options=C.MQPMO_SYNCPOINT))
    qm.commit()
    qm.disconnect()
    print("put")
""")

GET = textwrap.dedent("""
    import adapter.pymqi as pymqi
    C = pymqi.CMQC
    qm = pymqi.connect("QMRESTART")
    q = pymqi.Queue(qm, "DURABLE.Q", C.MQOO_INPUT_SHARED)
    gmo = pymqi.GMO(Options=C.MQGMO_WAIT, WaitInterval=10000)
    md = pymqi.MD()
    print(q.get(None, md, gmo).decode(), md.Persistence)
    print(q.get(None, pymqi.MD(), gmo).decode())
    print("depth", qm.queue_status("DURABLE.Q")["current_depth"])
    qm.disconnect()
""")


def _env_for_stack(env: dict[str, str]) -> dict[str, str]:
    return dict(
        env,
        MQK_KAFKA_BOOTSTRAP=f"127.0.0.1:{env['MQK_KAFKA_PORT']}",
        MQK_REDIS_URL=f"redis://127.0.0.1:{env['MQK_REDIS_PORT']}/0",
        PYTHONPATH=os.getcwd(),
    )


def test_persistent_messages_survive_broker_restart(isolated_env) -> None:  # noqa: F811
    env = isolated_env
    try:
        assert _mqk(env, "stack", "up").returncode == 0
        client_env = _env_for_stack(env)
        put = subprocess.run(
            [sys.executable, "-c", PUT], env=client_env, capture_output=True, text=True, timeout=120
        )
        assert put.returncode == 0 and "put" in put.stdout, put.stderr
        down = _mqk(env, "stack", "down")  # both servers stop; data stays
        assert down.returncode == 0 and "kafka: stopped" in down.stdout
        assert _mqk(env, "stack", "up").returncode == 0
        got = subprocess.run(
            [sys.executable, "-c", GET], env=client_env, capture_output=True, text=True, timeout=120
        )
        assert got.returncode == 0, got.stderr
        assert got.stdout.splitlines() == ["survivor 1", "in a unit of work", "depth 0"]
    finally:
        _mqk(env, "stack", "down", "--wipe")
