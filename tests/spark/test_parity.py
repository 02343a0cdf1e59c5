"""Rules-core parity: on the same random workloads, the Spark job writes exactly the
logical messages the shim's MQGET with MQGMO_COMPLETE_MSG returns."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import adapter.pymqi as pymqi
from streaming import workloads
from tests.spark.conftest import drain, outputs, run_job

pytestmark = [
    pytest.mark.integration,
    pytest.mark.spark,
    # py4j raises the recursion limit while the job runs; hypothesis notices.
    pytest.mark.filterwarnings("ignore:The recursion limit will not be reset"),
]
C = pymqi.CMQC
_queues = itertools.count(1)


@st.composite
def scrambled_units(draw):
    """Plain messages, segmented messages and groups (members maybe segmented), some
    missing a piece, all pieces in one shuffled physical order."""
    puts: list[workloads.PhysicalPut] = []
    complete_groups: set[str] = set()
    for u in range(draw(st.integers(5, 25))):
        name = f"U{u}"
        kind = draw(st.sampled_from(["plain", "segmented", "group"]))
        n_members = draw(st.integers(1, 4)) if kind == "group" else 1
        members = []
        for seq in range(1, n_members + 1):
            n_seg = {"plain": 1, "segmented": draw(st.integers(2, 4))}.get(
                kind, draw(st.integers(1, 3))
            )
            members.append(
                [f"{name}/{seq}/{s}:".encode() + draw(st.binary(max_size=40)) for s in range(n_seg)]
            )
        pieces = workloads.unit_pieces(name, members, in_group=kind == "group")
        if kind != "plain" and draw(st.booleans()) and draw(st.booleans()):
            pieces.pop(draw(st.integers(0, len(pieces) - 1)))  # never complete now
        elif kind == "group":
            complete_groups.add(name)
        puts.extend(pieces)
    return draw(st.permutations(puts)), complete_groups


def _msg_key(env_or_md) -> tuple:
    get = env_or_md.__getitem__
    return (
        bytes(get("GroupId")),
        bytes(get("MsgId")),
        get("MsgSeqNumber"),
        get("MsgFlags"),
        get("Priority"),
        get("Persistence"),
    )


@settings(
    max_examples=2,
    deadline=None,
    phases=[Phase.generate],  # a Spark run per example: no shrinking
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(workload=scrambled_units())
def test_job_matches_complete_msg_gets(spark, qm, qmgr_name, kafka_bootstrap, tmp_path, workload):
    puts, complete_groups = workload
    queue = f"Q.PARITY.{next(_queues)}"
    qm.define_queue(queue, max_depth=100_000)
    ids = workloads.put_all(qm, queue, list(puts))

    run_job(spark, qmgr_name, queue, tmp_path / queue)
    msgs, groups = outputs(kafka_bootstrap, qmgr_name, queue)
    from_job = sorted((_msg_key(m.value), m.value["Payload"]) for m in msgs)

    got = drain(pymqi.Queue(qm, queue, C.MQOO_INPUT_SHARED), options=C.MQGMO_COMPLETE_MSG)
    from_gets = sorted((_msg_key(md), data) for data, md in got)
    assert from_job, "every workload has complete logical messages"
    assert from_job == from_gets
    assert {g.value["GroupId"] for g in groups} == {ids[name] for name in complete_groups}
