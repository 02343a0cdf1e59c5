"""Memory limits (issue 19, "Disk and memory limits"): the state store (a private Redis
this test starts on its own unix socket, never the shared one) reaches `maxmemory`
mid-run; MQI calls that must write to it answer MQRC_RESOURCE_PROBLEM (2102) at once,
instead of hanging or raising a redis-py exception, and everything works again, with
nothing lost or doubled, once memory returns (adapter/pymqi/failures.py)."""

from __future__ import annotations

import os
import signal
import socket
import uuid
from pathlib import Path

import pytest
import redis

import adapter.pymqi as pymqi
from ops import redis as redis_server
from tests.integration.conftest import drain

C = pymqi.CMQC
IN, OUT = C.MQOO_INPUT_SHARED, C.MQOO_OUTPUT


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def private_redis(tmp_path: Path):
    sock = tmp_path / "redis.sock"
    pid = redis_server.start(tmp_path, _free_port(), sock)
    try:
        url = f"unix://{sock}?db=0"
        redis_server.wait_ready(url, pid, tmp_path / "redis.log")
        yield url, redis.Redis(unix_socket_path=str(sock))
    finally:
        os.kill(pid, signal.SIGTERM)  # only the server this fixture started


def _reason(call, *args) -> int:
    with pytest.raises(pymqi.MQMIError) as exc:
        call(*args)
    return exc.value.reason


def test_maxmemory_gives_2102_and_the_queue_recovers_when_memory_returns(
    private_redis, kafka_bootstrap
) -> None:
    url, admin = private_redis
    qm = pymqi.connect(f"QMMEM{uuid.uuid4().hex[:6].upper()}", redis_url=url)
    try:
        qm.define_queue("Q.MEM")
        q = pymqi.Queue(qm, "Q.MEM", IN | OUT)
        for i in range(4):
            q.put(b"m%d" % i)
        assert q.get() == b"m0"
        admin.config_set("maxmemory-policy", "noeviction")
        admin.config_set("maxmemory", max(admin.info("memory")["used_memory"] - 50_000, 1))
        assert _reason(q.get) == C.MQRC_RESOURCE_PROBLEM
        sync = pymqi.GMO(Options=C.MQGMO_SYNCPOINT)
        assert _reason(q.get, None, pymqi.MD(), sync) == C.MQRC_RESOURCE_PROBLEM
        # The failed call's unit of work cannot commit: MQCMIT backs it out (2003), or,
        # while memory is still short, answers 2102 itself (releasing its locks is a
        # write; the Kafka transaction is aborted and the locks lapse with their lease).
        assert _reason(qm.commit) in (C.MQRC_BACKED_OUT, C.MQRC_RESOURCE_PROBLEM)
        admin.config_set("maxmemory", 0)  # memory returns
        qm.backout()  # what an application does after a failed unit of work
        q.put(b"m4")
        assert [d for d, _ in drain(q)] == [b"m1", b"m2", b"m3", b"m4"]
        qm.get_handle().barrier()
        assert qm.queue_status("Q.MEM")["current_depth"] == 0
    finally:
        admin.config_set("maxmemory", 0)
        qm.disconnect()
