"""(8) Message properties and selectors against the plain MQI calls, in the same run.

Issue 14's targets: MQPUT and MQGET of 1 KiB with 5 string properties at least 0.8 of
the plain MQPUT / MQGET; a selective MQGET (a selector on a property, 1 message in 10
matching) against a plain MQGET. Non-persistent, outside syncpoint, async puts ended by
the connection barrier; gets time from the first message (a warm-up get precedes them).
The plain side is the raw figure here: properties are what is being priced.
"""

from __future__ import annotations

import os
import time
from functools import partial

import adapter.pymqi as pymqi
from ops.bench.model import Row, Target
from ops.bench.mqside import BENCH_MAX_DEPTH, MQSession, mq_session
from ops.bench.settings import KIB, BenchConfig
from ops.bench.timing import paired

C = pymqi.CMQC
TARGET = Target("ratio", ">=", 0.8)
_PROPS = {f"prop{i}": f"value-{i}-of-five" for i in range(5)}
_PUT = C.MQPMO_NO_SYNCPOINT | C.MQPMO_ASYNC_RESPONSE


def _handle(qm: pymqi.QueueManager, props: dict[str, str]) -> pymqi.MessageHandle:
    handle = pymqi.MessageHandle(qm)
    for name, value in props.items():
        handle.properties.set(name, value)
    return handle


def _put(qm, queue: str, payload: bytes, n: int, handle: pymqi.MessageHandle | None) -> float:
    q = pymqi.Queue(qm, queue, C.MQOO_OUTPUT)
    start = time.perf_counter()
    for _ in range(n):
        pmo = pymqi.PMO(Options=_PUT)
        if handle is not None:
            pmo.OriginalMsgHandle = handle.msg_handle
        q.put(payload, pymqi.MD(), pmo)
    qm.get_handle().barrier()
    rate = n / (time.perf_counter() - start)
    q.close()
    return rate


def _get(qm, od: pymqi.OD | str, n: int, with_handle: bool) -> float:
    q = pymqi.Queue(qm, od, C.MQOO_INPUT_SHARED)
    handle = pymqi.MessageHandle(qm) if with_handle else None
    options = C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT
    options |= C.MQGMO_PROPERTIES_IN_HANDLE if with_handle else C.MQGMO_NO_PROPERTIES
    first = 0.0
    for i in range(n):
        gmo = pymqi.GMO(Options=options, WaitInterval=5000)
        if handle is not None:
            gmo.MsgHandle = handle.msg_handle
        q.get(None, pymqi.MD(), gmo)
        if i == 0:
            first = time.perf_counter()
    q.close()
    return (n - 1) / (time.perf_counter() - first)


def _filled_get(mq: MQSession, queue: str, payload: bytes, n: int, props: bool) -> float:
    handle = _handle(mq.qm, _PROPS) if props else None
    _put(mq.qm, queue, payload, n, handle)  # untimed
    return _get(mq.qm, queue, n, props)


def _selective_get(mq: MQSession, queue: str, payload: bytes, n: int) -> float:
    """n gets through a selector that matches 1 message in 10 (the rest stay queued)."""
    hit, miss = _handle(mq.qm, {"kind": "hit"}), _handle(mq.qm, {"kind": "miss"})
    q = pymqi.Queue(mq.qm, queue, C.MQOO_OUTPUT)
    for i in range(10 * n):  # untimed
        pmo = pymqi.PMO(Options=_PUT)
        pmo.OriginalMsgHandle = (hit if i % 10 == 9 else miss).msg_handle
        q.put(payload, pymqi.MD(), pmo)
    mq.qm.get_handle().barrier()
    q.close()
    od = pymqi.OD(ObjectName=queue)
    od.set_vs("SelectionString", "kind = 'hit'")
    rate = _get(mq.qm, od, n, False)
    mq.qm.delete_queue(queue, purge=True)  # the misses: a fresh queue for the next run
    mq.qm.define_queue(queue, max_depth=BENCH_MAX_DEPTH)
    return rate


def run(cfg: BenchConfig, bootstrap: str, log=print) -> list[Row]:
    rows: list[Row] = []
    n = cfg.get_count[KIB]
    payload = os.urandom(KIB)
    with mq_session("props") as mq:
        plain_q, props_q, sel_q = (
            mq.define(name) for name in ("PROPS.PLAIN", "PROPS.FIVE", "PROPS.SEL")
        )
        handle = _handle(mq.qm, _PROPS)
        cases = [
            (
                "MQPUT 1 KiB with 5 string properties (async, non-persistent)",
                partial(_put, mq.qm, props_q, payload, n, handle),
                partial(_put, mq.qm, plain_q, payload, n, None),
                "plain MQPUT, same run",
            ),
            (
                "MQGET 1 KiB with 5 string properties into a message handle",
                partial(_filled_get, mq, props_q, payload, n, True),
                partial(_filled_get, mq, plain_q, payload, n, False),
                "plain MQGET, same run",
            ),
            (
                "MQGET 1 KiB through a selector matching 1 in 10",
                partial(_selective_get, mq, sel_q, payload, min(n, 2000)),
                partial(_filled_get, mq, plain_q, payload, n, False),
                "plain MQGET, same run",
            ),
        ]
        for pair, with_props, plain, label in cases:
            value, raw = paired(with_props, plain, cfg.repeats)
            rows.append(Row(pair, "8 properties", "msg/s", value, raw, label, TARGET))
            log(f"  {pair}: {value:,.0f} vs {raw:,.0f} msg/s ({value / raw:.2f})")
    return rows
