"""Several processes on one queue; a real pymqi program; servers that are not there."""

from __future__ import annotations

import multiprocessing as mp
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

import adapter.pymqi as pymqi

pytestmark = pytest.mark.integration
C = pymqi.CMQC
N_MESSAGES = 10_000


def _getter(qmgr_name: str, queue: str, out: mp.Queue) -> None:
    qm = pymqi.connect(qmgr_name)
    q = pymqi.Queue(qm, queue, C.MQOO_INPUT_SHARED)
    got = []
    gmo = pymqi.GMO(Options=C.MQGMO_WAIT, WaitInterval=3000)
    while True:
        try:
            got.append(q.get(None, pymqi.MD(), gmo))
        except pymqi.MQMIError as err:
            if err.reason != C.MQRC_NO_MSG_AVAILABLE:
                raise
            break
    q.close()
    qm.disconnect()
    out.put(got)


def test_two_getter_processes_receive_every_message_exactly_once(qmgr, qmgr_name) -> None:
    qmgr.define_queue("Q.SHARED", max_depth=N_MESSAGES)
    q = pymqi.Queue(qmgr, "Q.SHARED", C.MQOO_OUTPUT)
    pmo = pymqi.PMO(Options=C.MQPMO_ASYNC_RESPONSE)
    sent = [f"msg-{i:05d}".encode() for i in range(N_MESSAGES)]
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    getters = [ctx.Process(target=_getter, args=(qmgr_name, "Q.SHARED", out)) for _ in range(2)]
    for p in getters:
        p.start()  # getting while the puts are still arriving
    for body in sent:
        q.put(body, pymqi.MD(), pmo)
    q.close()
    qmgr.get_handle().barrier()
    results = [out.get(timeout=300) for _ in getters]
    for p in getters:
        p.join(30)
        assert p.exitcode == 0
    everything = results[0] + results[1]
    assert len(everything) == N_MESSAGES, f"{len(everything)} delivered"
    assert sorted(everything) == sent  # none lost, none twice
    assert all(len(r) > 0 for r in results), "one getter got nothing: no competition tested"
    assert qmgr.queue_status("Q.SHARED")["current_depth"] == 0


def test_pymqi_program_runs_with_only_its_import_changed(qmgr, qmgr_name) -> None:
    qmgr.define_queue("APP.REQUEST")
    qmgr.define_queue("APP.REPLY")
    program = Path(__file__).parent / "programs" / "pymqi_app.py"
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).parents[2]))
    run = subprocess.run(
        [sys.executable, str(program), qmgr_name, "APP.REQUEST", "APP.REPLY"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert run.returncode == 0, run.stderr
    assert "reply: reply to ping" in run.stdout
    assert "browsed: ['one', 'two']" in run.stdout
    assert "got: ['one', 'two']" in run.stdout


def test_unreachable_servers_give_host_not_available_not_a_hang(mqk_servers) -> None:
    """MQCONN to servers that cannot be reached: 2538, as an MQ client whose host cannot
    be reached (2009 is for a connection that breaks after MQCONN)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead_port = s.getsockname()[1]
    code = (
        "import adapter.pymqi as pymqi\n"
        "try:\n"
        "    pymqi.connect('QMX')\n"
        "except pymqi.MQMIError as e:\n"
        "    print(e.comp, e.reason)\n"
    )
    for env_over in (
        {"MQK_REDIS_URL": f"redis://127.0.0.1:{dead_port}/0"},
        {"MQK_KAFKA_BOOTSTRAP": f"127.0.0.1:{dead_port}"},
    ):
        env = dict(os.environ, MQK_BROKEN_AFTER_S="3", **env_over)
        started = time.monotonic()
        run = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env
        )
        assert run.stdout.strip() == f"{C.MQCC_FAILED} {C.MQRC_HOST_NOT_AVAILABLE}", run.stderr
        assert time.monotonic() - started < 30
