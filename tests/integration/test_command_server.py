"""The command server on the real Kafka and Redis: in a thread (run_command_server) and
as a process (`python3 -m adapter.cli strmqcsv QM`); PCF commands through PCFExecute and
through a raw MQPUT of a PCF message to SYSTEM.ADMIN.COMMAND.QUEUE; endmqcsv stops it;
a kill -9 in the middle of a run of requests loses none and answers none twice."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter

import pytest

import adapter.pymqi as pymqi
from adapter import cli
from adapter.core import cmdreplies as R
from adapter.core import pcf as wire
from adapter.tools import cmdserver
from tests.unit.test_pcf_queue_memory import script

pytestmark = pytest.mark.integration
C, F = pymqi.CMQC, pymqi.CMQCFC
ENC = C.MQENC_NATIVE
REPLIES = "CS.REPLIES"


def until(check, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.2)


def inquire(name: bytes) -> bytes:
    head = wire.Header(F.MQCFT_COMMAND, F.MQCFH_VERSION_3, F.MQCMD_INQUIRE_Q)
    return wire.encode(head, [wire.Param(F.MQCFT_STRING, C.MQCA_Q_NAME, name)], ENC)


def send(qm, data: bytes) -> bytes:
    md = pymqi.MD(Format=C.MQFMT_ADMIN, MsgType=C.MQMT_REQUEST, ReplyToQ=REPLIES,
                  Persistence=C.MQPER_PERSISTENT)  # fmt: skip
    qm.put1(R.COMMAND_QUEUE, data, md)
    return bytes(md.MsgId)


def drain(qm, wait_ms: int) -> list[tuple[pymqi.MD, wire.Message]]:
    out = []
    q = pymqi.Queue(qm, REPLIES, C.MQOO_INPUT_SHARED)
    try:
        while True:
            md = pymqi.MD()
            gmo = pymqi.GMO(Options=C.MQGMO_WAIT, WaitInterval=wait_ms)
            try:
                data = q.get(None, md, gmo)
            except pymqi.MQMIError as err:
                assert err.reason == C.MQRC_NO_MSG_AVAILABLE
                return out
            parsed = wire.parse(data, md.Encoding)
            assert isinstance(parsed, wire.Message)
            out.append((md, parsed))
    finally:
        q.close()


def test_thread_server_pcfexecute_raw_put_and_endmqcsv(qmgr, qmgr_name, capsys) -> None:
    qmgr.define_queue(REPLIES)
    result: dict = {}
    thread = threading.Thread(
        target=lambda: result.update(counts=cmdserver.run_command_server(qmgr_name)),
        daemon=True,
    )
    thread.start()
    until(lambda: cmdserver.is_running(qmgr))
    assert cli.main(["dspmqcsv", qmgr_name]) == 0
    assert "AMQ8027I: IBM MQ Command Server Status ..: Running" in capsys.readouterr().out

    pcf = pymqi.PCFExecute(qmgr, response_wait_interval=30_000)
    pcf.MQCMD_CREATE_Q({C.MQCA_Q_NAME: b"CS.MADE", C.MQIA_Q_TYPE: C.MQQT_LOCAL,
                        C.MQIA_MAX_Q_DEPTH: 321})  # fmt: skip
    [found] = pcf.MQCMD_INQUIRE_Q({C.MQCA_Q_NAME: b"CS.MADE"})
    assert found[C.MQIA_MAX_Q_DEPTH] == 321
    with pytest.raises(pymqi.MQMIError) as info:
        pcf.MQCMD_INQUIRE_Q({C.MQCA_Q_NAME: b"CS.NONE"})
    assert info.value.reason == C.MQRC_UNKNOWN_OBJECT_NAME
    pcf.disconnect()

    msg_id = send(qmgr, inquire(b"CS.*"))
    got = drain(qmgr, 15_000)
    names = sorted({p.parameter: p.value for p in m.params}[C.MQCA_Q_NAME].strip() for _, m in got)
    assert names == [b"CS.MADE", b"CS.REPLIES"]
    assert {bytes(md.CorrelId) for md, _ in got} == {msg_id}
    assert all(md.MsgType == C.MQMT_REPLY and md.Persistence == 1 for md, _ in got)
    assert [m.header.control for _, m in got] == [F.MQCFC_NOT_LAST, F.MQCFC_LAST]

    assert cli.main(["endmqcsv", qmgr_name]) == 0
    assert "AMQ8021I" in capsys.readouterr().out
    thread.join(30)
    assert not thread.is_alive()
    assert result["counts"].requests == 4
    until(lambda: not cmdserver.is_running(qmgr))
    assert cli.main(["endmqcsv", qmgr_name]) == 10  # none running


def _start(env: dict[str, str], qmgr_name: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "adapter.cli", "strmqcsv", qmgr_name],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip


def test_process_server_survives_kill_9_without_losing_a_request(
    qmgr, qmgr_name, kafka_bootstrap, redis_url
) -> None:
    qmgr.define_queue(REPLIES)
    env = dict(os.environ, MQK_KAFKA_BOOTSTRAP=kafka_bootstrap, MQK_REDIS_URL=redis_url)
    env.update(MQK_UOW_LEASE_MS="3000", MQK_OPEN_LEASE_MS="3000", MQK_TXN_TIMEOUT_MS="10000")
    first = _start(env, qmgr_name)
    try:
        until(lambda: cmdserver.is_running(qmgr))
        sent = [send(qmgr, inquire(b"CS.*")) for _ in range(40)]
        until(lambda: qmgr.queue_status(REPLIES)["current_depth"] > 0, 60)
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait(30)
    # killed in the middle: requests were left for the next server
    assert qmgr.queue_status(R.COMMAND_QUEUE)["current_depth"] > 0
    until(lambda: not cmdserver.is_running(qmgr), 60)  # its open lease ran out
    second = _start(env, qmgr_name)
    try:
        until(lambda: cmdserver.is_running(qmgr))
        got = drain(qmgr, 20_000)
        answered = Counter(bytes(md.CorrelId) for md, _ in got)
        assert set(answered) == set(sent)  # none lost
        assert set(answered.values()) == {1}  # one response each (a single queue: LAST)
        assert all(m.header.control == F.MQCFC_LAST for _, m in got)
        assert qmgr.queue_status(R.COMMAND_QUEUE)["current_depth"] == 0
        assert cli.main(["endmqcsv", qmgr_name]) == 0
        out, _ = second.communicate(timeout=60)
        assert second.returncode == 0, out
        assert "ended (endmqcsv)" in out
    finally:
        if second.poll() is None:
            second.kill()


def test_pcfexecute_both_paths_agree_on_the_real_stack(qmgr, qmgr_name) -> None:
    in_process = script(pymqi.PCFExecute(qmgr))
    qmgr.delete_queue("PX.A")
    stop = threading.Event()
    thread = threading.Thread(
        target=cmdserver.run_command_server, args=(qmgr_name, stop), daemon=True
    )
    thread.start()
    try:
        until(lambda: cmdserver.is_running(qmgr))
        pcf = pymqi.PCFExecute(qmgr, response_wait_interval=30_000)
        through_queue = script(pcf)
        pcf.disconnect()
    finally:
        stop.set()
        thread.join(30)
    assert through_queue == in_process
    assert any(isinstance(r, list) and r for _, r in in_process)  # real answers compared


def test_sigterm_ends_strmqcsv_cleanly(qmgr, qmgr_name, kafka_bootstrap, redis_url) -> None:
    env = dict(os.environ, MQK_KAFKA_BOOTSTRAP=kafka_bootstrap, MQK_REDIS_URL=redis_url)
    server = _start(env, qmgr_name)
    try:
        until(lambda: cmdserver.is_running(qmgr))
        server.send_signal(signal.SIGTERM)
        out, _ = server.communicate(timeout=60)
        assert server.returncode == 0, out
        assert "ended (stopped)" in out
        assert not cmdserver.is_running(qmgr)  # closed: its input handle is gone at once
    finally:
        if server.poll() is None:
            server.kill()
