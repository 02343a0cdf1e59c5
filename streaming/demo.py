"""The reassembly job on the local stack, on the spec's example and a generated workload.

    python -m streaming.demo              # or streaming.demo.run() from the README's job

1. Defines a queue and puts the example of 'Logical and physical ordering' in its
   physical order: A, Y1, Z2, Y2, Y3 segment 1, Y3 segment 2, Z1, B (MQPUT without
   LOGICAL_ORDER; each group's GroupId is the one its first put generated).
2. Puts a generated workload (groups, segmented and plain messages, some incomplete)
   in scrambled physical order, and a group that never completes and expires, whose
   members ask for expiration reports.
3. Runs the reassembly job until it is caught up and idle, then prints the physical
   order, the logical order, the reassembled messages, the complete groups and the
   expiration reports (got from the reply queue with MQGET).

It prints its own lines only: Spark logs errors only and librdkafka nothing, unless
`verbose` (`-v`), which shows Spark's warnings, librdkafka's log and the job's
per-batch progress lines.
"""

from __future__ import annotations

import random
import sys
import time
import uuid

import adapter.pymqi as pymqi
from adapter import config
from adapter.core import cmqc as C  # noqa: N812 (the project-wide alias)
from streaming import readback, workloads


def _show(data: bytes, limit: int = 48) -> str:
    text = data[:limit].decode("utf-8", "replace")
    return repr(text + ("..." if len(data) > limit else ""))


def _expiring_group(reply_q: str) -> list[workloads.PhysicalPut]:
    """Group X: neither of its two messages ever gets its last segment; 3 s lifetime.
    Two of its three pieces ask for an expiration report."""
    put = workloads.PhysicalPut
    mig, lmig, seg = workloads.MIG, workloads.LMIG, workloads.SEG
    s1 = b"group X message 1, segment 1 "
    return [
        put("X1.s1", s1, "X", 1, 0, mig | seg, 30, C.MQRO_EXPIRATION_WITH_DATA, reply_q),
        put("X1.s2", b"segment 2 of 3", "X", 1, len(s1), mig | seg, 30, C.MQRO_EXPIRATION, reply_q),
        put("X2.s1", b"group X message 2, segment 1", "X", 2, 0, lmig | seg, 30, 0, reply_q),
    ]


def run(
    qmgr: str | None = None,
    out=print,
    *,
    units: int = 300,
    spark=None,
    verbose: bool = False,
) -> int:
    """The demo; 0 if every output is as expected. Logging is the caller's to set up
    (`setup_logging(verbose)`, as `main` does); `verbose` sets Spark's log level."""
    from ops import stack
    from streaming.job import JobConfig, ReassemblyJob
    from streaming.session import build_session

    stack.up(log=out)
    eps = config.endpoints()
    qmgr = qmgr or f"DEMO{uuid.uuid4().hex[:6].upper()}"
    queue, reply_q = "DEMO.Q", "DEMO.REPLY"
    qm = pymqi.connect(qmgr)
    try:
        qm.define_queue(queue, max_depth=1_000_000, replace=True)
        qm.define_queue(reply_q, replace=True)

        spec = workloads.spec_example()
        mds: dict[str, pymqi.MD] = {}
        ids = workloads.put_all(qm, queue, spec, mds=mds)
        out(f"\n== {qmgr}/{queue}: the spec's example, in physical order")
        for i, p in enumerate(spec):
            out(f"  {i + 1}. {p.label:6} seq={p.seq} offset={p.offset:<3} {_show(p.data)}")

        puts, expect = workloads.scrambled_workload(random.Random(42), units)
        workloads.put_all(qm, queue, puts)
        expiring = _expiring_group(reply_q)
        workloads.put_all(qm, queue, expiring)
        out(
            f"\n== then {len(puts)} physical messages of {units} generated units in scrambled "
            f"order, and group X ({len(expiring)} pieces, incomplete, 3 s lifetime)"
        )

        out("\n== running the reassembly job on Spark until it has caught up and is idle ...")
        spark = spark or build_session("mqk-demo", verbose=verbose)
        job = ReassemblyJob(spark, JobConfig(qmgr, queue, checkpoint=f"/tmp/mqk-demo-{qmgr}"))
        started = time.monotonic()
        job.start()
        try:
            # Caught up, group X expired and reported, then 2 s without output.
            finished = job.run_until_idle(2.0, 300)
        finally:
            job.stop()
        out(f"\n== reassembly job: {dict(job.sink.totals)} in {time.monotonic() - started:.0f} s")

        msgs = readback.logical_messages(eps.kafka_bootstrap, qmgr, queue)
        groups = readback.complete_groups(eps.kafka_bootstrap, qmgr, queue)
        spec_ids = set(ids.values())
        spec_msgs = [
            m
            for m in msgs
            if m.value["GroupId"] in spec_ids
            or m.value["MsgId"] in {bytes(mds["A"].MsgId), bytes(mds["B"].MsgId)}
        ]
        spec_groups = [g for g in groups if g.value["GroupId"] in spec_ids]
        out("\n== logical order (each group at its first item's physical position)")
        names = {ids["Y"]: "Y", ids["Z"]: "Z"}
        for i, m in enumerate(readback.logical_order(spec_msgs, spec_groups)):
            env = m.value
            unit = names.get(env["GroupId"], "-")
            out(
                f"  {i + 1}. group={unit} seq={env['MsgSeqNumber']} "
                f"flags={env['MsgFlags']:<2} {_show(env['Payload'])}"
            )
        out("\n== complete groups")
        for g in spec_groups:
            v = g.value
            out(
                f"  group {names[v['GroupId']]}: {v['MemberCount']} messages, first item at "
                f"priority {v['FirstPriority']} partition {v['FirstPartition']} "
                f"offset {v['FirstOffset']}"
            )

        want = sum(len(u.messages) for u in expect) + len(spec_msgs)
        complete = sum(1 for u in expect if u.in_group and u.complete) + len(spec_groups)
        out(
            f"\n== all outputs: {len(msgs)} logical messages (expected {want}), "
            f"{len(groups)} complete groups (expected {complete}); nothing of group X"
        )
        reports = []
        rq = pymqi.Queue(qm, reply_q, C.MQOO_INPUT_SHARED)
        while True:
            md = pymqi.MD()
            try:
                data = rq.get(None, md)
            except pymqi.MQMIError as err:
                if err.reason != C.MQRC_NO_MSG_AVAILABLE:
                    raise
                break
            reports.append((data, md))
        rq.close()
        out(f"\n== expiration reports on {reply_q} (one per member of X that asked)")
        for data, md in reports:
            out(
                f"  MsgType={md.MsgType} Feedback={md.Feedback} "
                f"MsgSeqNumber={md.MsgSeqNumber} Offset={md.Offset} data={_show(data)}"
            )
        ok = finished and len(msgs) == want and len(groups) == complete and len(reports) == 2
        out(f"\n{'OK' if ok else 'MISMATCH'}")
        return 0 if ok else 1
    finally:
        qm.disconnect()


def main(argv: list[str] | None = None) -> int:
    """`python -m streaming.demo [QMGR] [-v]`."""
    import argparse

    from adapter.logs import setup_logging

    parser = argparse.ArgumentParser(prog="streaming.demo", description=__doc__.split("\n")[0])
    parser.add_argument("qmgr", nargs="?", help="queue manager (default: a new DEMOxxxxxx)")
    parser.add_argument("-v", "--verbose", action="store_true", help="Spark's and Kafka's logs")
    args = parser.parse_args(argv)
    setup_logging(args.verbose, level="INFO" if args.verbose else "WARNING")
    return run(args.qmgr, verbose=args.verbose)


if __name__ == "__main__":
    sys.exit(main())
