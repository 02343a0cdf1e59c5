"""(3) Logical-order gets of message groups vs physical-order gets of the same data.

Groups of 10 are put with MQPMO_LOGICAL_ORDER and MQMF_MSG_IN_GROUP /
MQMF_LAST_MSG_IN_GROUP (persistent, so neither side can use read-ahead). The segmented
case lets the queue manager split every member (MQMF_SEGMENTATION_ALLOWED on a queue
whose segment size is 1 KiB); it is read segment by segment, and as whole messages with
MQGMO_COMPLETE_MSG (compared in MB/s, since one such get returns several segments).
"""

from __future__ import annotations

import os

import adapter.pymqi as pymqi
from ops.bench import mqside
from ops.bench.model import Row, Target
from ops.bench.settings import KIB, BenchConfig
from ops.bench.timing import paired

C = pymqi.CMQC
TARGET = Target("ratio", ">=", 0.8)


def put_groups(
    qm: pymqi.QueueManager, queue: str, payload: bytes, groups: int, size: int, segmented: bool
) -> None:
    """`groups` complete groups of `size` members each, in logical order (untimed)."""
    q = pymqi.Queue(qm, queue, C.MQOO_OUTPUT)
    pmo_opts = C.MQPMO_LOGICAL_ORDER | C.MQPMO_ASYNC_RESPONSE | C.MQPMO_NO_SYNCPOINT
    extra = C.MQMF_SEGMENTATION_ALLOWED if segmented else 0
    for _ in range(groups):
        for i in range(size):
            last = i == size - 1
            flags = (C.MQMF_LAST_MSG_IN_GROUP if last else C.MQMF_MSG_IN_GROUP) | extra
            md = pymqi.MD(MsgFlags=flags, Persistence=C.MQPER_PERSISTENT)
            q.put(payload, md, pymqi.PMO(Options=pmo_opts))
    qm.get_handle().barrier()
    q.close()


def _rate(qm, queue: str, gets: int, options: int, unit: str) -> float:
    """All `gets` (the first untimed): msg/s, or MB/s of the timed ones."""
    size, rate = mqside.drain_rate(qm, queue, gets, options)
    return rate if unit == "msg/s" else rate * (size / (gets - 1)) / 1e6


def run(cfg: BenchConfig, bootstrap: str, log=print) -> list[Row]:
    rows: list[Row] = []
    g = cfg.group_size
    with mqside.mq_session("logical") as mq:
        plain = mq.define("LOGICAL.PLAIN")
        segmented = mq.define("LOGICAL.SEG", segment_size=KIB)
        member = cfg.segment_parts * KIB
        cases = [
            # (pair, queue, payload, segmented, logical gets, physical gets, get option, unit)
            (
                f"groups of {g}, 1 KiB members, no segments",
                plain,
                os.urandom(KIB),
                False,
                cfg.groups * g,
                cfg.groups * g,
                0,
                "msg/s",
            ),
            (
                f"groups of {g}, {cfg.segment_parts} x 1 KiB segments per member, by segment",
                segmented,
                os.urandom(member),
                True,
                cfg.groups * g * cfg.segment_parts,
                cfg.groups * g * cfg.segment_parts,
                0,
                "msg/s",
            ),
            (
                f"groups of {g}, segmented members, MQGMO_COMPLETE_MSG",
                segmented,
                os.urandom(member),
                True,
                cfg.groups * g,
                cfg.groups * g * cfg.segment_parts,
                C.MQGMO_COMPLETE_MSG,
                "MB/s",
            ),
        ]
        for pair, queue, payload, seg, n_logical, n_physical, opt, unit in cases:

            def logical(queue=queue, payload=payload, seg=seg, n=n_logical, opt=opt, unit=unit):
                put_groups(mq.qm, queue, payload, cfg.groups, g, seg)
                return _rate(mq.qm, queue, n, C.MQGMO_LOGICAL_ORDER | opt, unit)

            def physical(queue=queue, payload=payload, seg=seg, n=n_physical, unit=unit):
                put_groups(mq.qm, queue, payload, cfg.groups, g, seg)
                return _rate(mq.qm, queue, n, 0, unit)

            value, raw = paired(logical, physical, cfg.repeats)
            rows.append(
                Row(
                    pair=f"logical-order MQGET, {pair}",
                    section="3 logical",
                    unit=unit,
                    value=value,
                    raw=raw,
                    raw_label="physical-order MQGET, same data",
                    target=TARGET,
                    extra={"groups": cfg.groups, "gets": n_logical, "physical_gets": n_physical},
                )
            )
            log(f"  {rows[-1].pair}: {value:,.1f} vs physical {raw:,.1f} {unit}")
    return rows
