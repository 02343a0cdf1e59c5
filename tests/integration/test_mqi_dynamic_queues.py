"""Dynamic queues on the real stack: a temporary reply queue made by MQOPEN of a model,
used for a request/reply, whose MQCLOSE deletes its Kafka topics and Redis keys; and
the temporary queue of a SIGKILLed creator, deleted by the next connection once the
creator's lease ran out (the rule tables run on the in-memory backends in
tests/unit/test_mqi_dynamic_queues_memory.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import adapter.pymqi as pymqi
from adapter import config
from adapter.shim import naming
from adapter.shim.redis_store import queue_prefix
from tests.integration.conftest import mqerror

pytestmark = pytest.mark.integration
C = pymqi.CMQC
MODEL = "REPLY.MODEL"


def _topics(qm, name: str) -> list[bool]:
    log = qm.get_handle().log
    names = [naming.data_topic(qm.get_name(), name, p) for p in naming.PRIORITIES]
    names.append(naming.ack_topic(qm.get_name(), name))
    return [log.topic_exists(t) for t in names]


def _redis_keys(qm, name: str) -> list[bytes]:
    """The queue's keys but its DELETED mark, which must be on its way out (a TTL)."""
    prefix = queue_prefix(qm.get_name(), name)
    r = qm.get_handle().redis
    keys = list(r.scan_iter(match=prefix + "*"))
    mark = (prefix + "def").encode()
    if mark in keys:
        assert r.get(mark) == b"deleted" and 0 < r.pttl(mark) <= config.DELETED_MARK_TTL_MS
        keys.remove(mark)
    return keys


def test_request_reply_on_a_temporary_queue_and_close_deletes_it(qmgr, qmgr_name) -> None:
    qmgr.define_queue("APP.REQUESTS")
    qmgr.define_queue(MODEL, queue_type=C.MQQT_MODEL)
    assert not any(_topics(qmgr, MODEL))  # a model queue is a definition only
    od = pymqi.OD(ObjectName=MODEL.encode(), DynamicQName=b"CLIENT.*")
    replies = pymqi.Queue(qmgr, od, C.MQOO_INPUT_EXCLUSIVE | C.MQOO_INQUIRE)
    reply_q = pymqi.structs.mqstr(od.ObjectName)
    assert reply_q.startswith("CLIENT.") and all(_topics(qmgr, reply_q))
    assert replies.inquire(C.MQIA_DEFINITION_TYPE) == C.MQQDT_TEMPORARY_DYNAMIC
    request = pymqi.MD(MsgType=C.MQMT_REQUEST, ReplyToQ=reply_q.encode())
    pymqi.Queue(qmgr, "APP.REQUESTS").put(b"ping", request)

    server = pymqi.connect(qmgr_name)
    got = pymqi.MD()
    requests = pymqi.Queue(server, "APP.REQUESTS", C.MQOO_INPUT_SHARED)
    assert requests.get(None, got) == b"ping"
    answer = pymqi.Queue(server, pymqi.structs.mqstr(got.ReplyToQ), C.MQOO_OUTPUT)
    answer.put(b"pong", pymqi.MD(MsgType=C.MQMT_REPLY, CorrelId=got.MsgId))
    with pytest.raises(pymqi.MQMIError) as exc:
        answer.put(b"kept?", pymqi.MD(Persistence=C.MQPER_PERSISTENT))
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_PERSISTENT_NOT_ALLOWED)

    md = pymqi.MD(CorrelId=request.MsgId)
    gmo = pymqi.GMO(Options=C.MQGMO_WAIT, WaitInterval=5000, Version=2)
    gmo.MatchOptions = C.MQMO_MATCH_CORREL_ID
    assert replies.get(None, md, gmo) == b"pong"
    replies.close()
    assert not any(_topics(qmgr, reply_q)) and _redis_keys(qmgr, reply_q) == []
    with pytest.raises(pymqi.MQMIError) as exc:
        answer.put(b"late", pymqi.MD())
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_Q_DELETED)
    answer.close()
    server.disconnect()


def test_a_killed_creators_temporary_queue_goes_after_its_lease(qmgr, qmgr_name) -> None:
    qmgr.define_queue(MODEL, queue_type=C.MQQT_MODEL)
    creator = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(f"""
                import time, adapter.pymqi as pymqi
                C = pymqi.CMQC
                qm = pymqi.connect({qmgr_name!r})
                od = pymqi.OD(ObjectName=b"{MODEL}", DynamicQName=b"DOOMED.*")
                q = pymqi.Queue(qm, od, C.MQOO_INPUT_EXCLUSIVE)
                q2 = pymqi.Queue(qm, od.ObjectName, C.MQOO_OUTPUT)
                q2.put(b"left behind")
                print(pymqi.structs.mqstr(od.ObjectName), flush=True)
                time.sleep(600)
            """),
        ],
        stdout=subprocess.PIPE,
        text=True,
        env=dict(os.environ, MQK_OPEN_LEASE_MS="3000"),
    )
    try:
        name = creator.stdout.readline().strip()
        assert name.startswith("DOOMED.") and all(_topics(qmgr, name))
        time.sleep(4)  # past one lease: the live creator renews it
        pymqi.connect(qmgr_name).disconnect()  # a connection starts and sweeps
        assert qmgr.get_handle().lookup_queue(name, refresh=True) is not None
        creator.send_signal(signal.SIGKILL)
        creator.wait(30)
        time.sleep(3.5)  # the lease runs out
        pymqi.connect(qmgr_name).disconnect()
        assert qmgr.get_handle().lookup_queue(name, refresh=True) is None
        assert not any(_topics(qmgr, name)) and _redis_keys(qmgr, name) == []
    finally:
        if creator.poll() is None:
            creator.kill()


class _HeldProducer:
    """The pump's producer with its records held back, as a broker slow to acknowledge
    leaves them in flight: produce() keeps them, poll() sends nothing, flush() (a
    barrier's) sends what it kept and waits for them."""

    def __init__(self, real) -> None:
        self.real = real
        self.held: list = []

    def produce(self, *args, **kwargs) -> None:
        self.held.append((args, kwargs))

    def flush(self, timeout: float = -1) -> int:
        held, self.held = self.held, []
        for args, kwargs in held:
            self.real.produce(*args, **kwargs)
        return self.real.flush(timeout)

    def __len__(self) -> int:
        return len(self.real) + len(self.held)

    def __getattr__(self, name: str):
        return getattr(self.real, name)


def test_closing_a_temporary_queue_right_after_a_get_keeps_mqdisc_prompt(qmgr_name) -> None:
    """A get's ack (the pump batches it) still on its way when MQCLOSE deletes the
    temporary queue: it lands first, so MQDISC does not wait message.timeout.ms for a
    record to a topic that is gone and answer MQRC_CONNECTION_BROKEN."""
    qm = pymqi.connect(qmgr_name)
    qm.define_queue(MODEL, queue_type=C.MQQT_MODEL)
    od = pymqi.OD(ObjectName=MODEL.encode(), DynamicQName=b"ACKED.*")
    q = pymqi.Queue(qm, od, C.MQOO_INPUT_EXCLUSIVE | C.MQOO_OUTPUT)
    q.put(b"m", pymqi.MD(), pymqi.PMO(Options=C.MQPMO_NO_SYNCPOINT))
    qm.get_handle().barrier()
    pump = qm.get_handle().pump
    held = pump.producer = _HeldProducer(pump.producer)
    assert q.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_NO_SYNCPOINT)) == b"m"
    deadline = time.monotonic() + 5
    while not held.held and time.monotonic() < deadline:
        time.sleep(0.01)  # the pump's tick hands the ack to the producer
    assert held.held, "the get's ack never reached the producer"
    q.close()  # the queue's topics go
    start = time.monotonic()
    qm.disconnect()  # MQDISC's barrier: nothing left in flight to a deleted topic
    assert time.monotonic() - start < config.BROKEN_AFTER_S / 3
