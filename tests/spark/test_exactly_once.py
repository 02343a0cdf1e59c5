"""Exactly once across crashes: the job (a separate process) is SIGKILLed twice mid-stream
-- once right after a Kafka commit, before Spark's own commit log, once at a random
moment -- and restarted from its checkpoint; every output is there exactly once."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from mqk_avro import outputs as avro_outputs

import adapter.pymqi as pymqi
from adapter import config
from streaming import readback, topics, workloads
from tests.spark.conftest import outputs, wait_for

pytestmark = [pytest.mark.integration, pytest.mark.spark]
C = pymqi.CMQC
ROOT = Path(__file__).resolve().parents[2]


def _job(
    qmgr: str, queue: str, checkpoint: Path, log: Path, kill_after_commit: int | None = None, **env
) -> subprocess.Popen:
    # The job as `mqk reassemble` runs it, or the same dying after committing one batch.
    if kill_after_commit is None:
        module = ["streaming.job"]
    else:
        module = ["tests.spark.crashing_job", "--kill-after-commit", str(kill_after_commit)]
    cmd = [
        sys.executable,
        "-m",
        *module,
        qmgr,
        queue,
        "--checkpoint",
        str(checkpoint),
        "--trigger-ms",
        "200",
        "--max-offsets-per-trigger",
        "60",  # small micro-batches: there is a middle of the stream to die in
        "--until-idle",
        "3",
        "--timeout",
        "240",
    ]
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), "MQK_LOG_LEVEL": "INFO", **env}
    # Its own session: the JVM it starts can be killed with it, as one process group.
    return subprocess.Popen(
        cmd,
        cwd=ROOT,
        env=full_env,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def _reap(proc: subprocess.Popen, timeout: float) -> int:
    try:
        return proc.wait(timeout)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # whatever of its group is left (the JVM)
        except ProcessLookupError:
            pass


def _last_batch(bootstrap: str, qmgr: str, query_key: str) -> int:
    records = readback.read_topic(
        bootstrap, topics.commits_topic(qmgr), avro_outputs.decode_commit, timeout=10
    )
    # The sink appends Spark's query id (stable for the checkpoint) to the key.
    mine = [r.value["BatchId"] for r in records if r.value["QueryKey"].startswith(query_key + "#")]
    return max(mine, default=-1)


def test_sigkill_mid_stream_and_restart_give_each_output_exactly_once(
    qm, qmgr_name, kafka_bootstrap, tmp_path
) -> None:
    qm.define_queue("Q.EOS", max_depth=100_000)
    puts, units = workloads.scrambled_workload(random.Random(20), 160, incomplete=0.1)
    half = len(puts) // 2
    ids = workloads.put_all(qm, "Q.EOS", puts[:half])
    checkpoint = tmp_path / "ckpt"
    query_key = f"{qmgr_name}/Q.EOS@{checkpoint.resolve()}"
    env = {config.KAFKA_BOOTSTRAP_ENV: kafka_bootstrap}

    # 1. Dies by SIGKILL right after committing batch 2 to Kafka (the sink's after_commit
    # hook, set by tests/spark/crashing_job.py).
    first = _job(qmgr_name, "Q.EOS", checkpoint, tmp_path / "run1.log", kill_after_commit=2, **env)
    workloads.put_all(qm, "Q.EOS", puts[half:], ids)  # the stream goes on meanwhile
    assert _reap(first, 240) == -signal.SIGKILL
    assert _last_batch(kafka_bootstrap, qmgr_name, query_key) == 2

    # 2. Killed from outside at a moment of our choosing: once it has committed more.
    second = _job(qmgr_name, "Q.EOS", checkpoint, tmp_path / "run2.log", **env)
    try:
        assert wait_for(lambda: _last_batch(kafka_bootstrap, qmgr_name, query_key) >= 4, 120)
        time.sleep(random.Random().uniform(0.0, 0.6))
        os.killpg(second.pid, signal.SIGKILL)
    finally:
        _reap(second, 60)
    log2 = (tmp_path / "run2.log").read_text(errors="replace")
    assert "batch 2: committed before the restart, skipped" in log2

    # 3. Runs to the end of the stream.
    third = _job(qmgr_name, "Q.EOS", checkpoint, tmp_path / "run3.log", **env)
    assert _reap(third, 300) == 0, (tmp_path / "run3.log").read_text(errors="replace")[-3000:]

    msgs, groups = outputs(kafka_bootstrap, qmgr_name, "Q.EOS")
    got = Counter((m.value["GroupId"], m.value["MsgSeqNumber"], m.value["Payload"]) for m in msgs)
    assert max(got.values()) == 1, "a logical message was written twice"
    # Every complete logical message of the workload, and nothing else.
    want = set()
    for unit in units:
        for seq, data in unit.messages.items():
            want.add((data, seq))
    assert {(payload, seq) for (_gid, seq, payload) in got} == want
    complete_groups = [u for u in units if u.in_group and u.complete]
    group_ids = Counter(g.value["GroupId"] for g in groups)
    assert max(group_ids.values(), default=1) == 1, "a group event was written twice"
    assert len(group_ids) == len(complete_groups)
