"""Property: whatever batch of a channel fails where (before the receiver commits, or
after it and before the sender does), and however the batches are cut, every persistent
message arrives once and in order, and both ends' sync records end at the number of
messages sent (in-memory backends). Also CONNAME's forms and the sequence-number wrap."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import adapter.pymqi as pymqi
from adapter.channel.endpoints import bootstrap_of, partner_targets, redis_env
from adapter.channel.syncq import RECEIVER, SENDER, SEQ_WRAP, SyncQueue, next_seq
from tests.channelkit import CHANNEL, commit_failing, depth, put_remote, read_all, setup_pair
from tests.unit.conftest import World

FAIL_POINTS = ("none", "before_receiver_commit", "after_receiver_commit")


def _die() -> None:
    raise RuntimeError("killed")


def _step_failing(pair, agent, where: str) -> None:
    if where == "none":
        agent.step(0)
        return
    target = agent.remote if where == "before_receiver_commit" else agent.local
    with commit_failing(target, _die), pytest.raises(RuntimeError):
        agent.step(0)
    agent.remote.backout()
    pair.a.backout()  # the dead agent's gets go back (its lease ran out)
    agent.close()


@settings(max_examples=25, deadline=None)
@given(
    puts=st.lists(st.integers(1, 12), min_size=1, max_size=5),
    batch_size=st.integers(1, 7),
    failures=st.lists(st.sampled_from(FAIL_POINTS), min_size=1, max_size=8),
)
def test_each_message_arrives_once_in_order_whatever_fails(puts, batch_size, failures) -> None:
    world = World()
    real = pymqi.connect
    pymqi.connect = lambda name, *a, **kw: world.connect(name, **kw)
    try:
        pair = setup_pair(pymqi.connect("QMA"), pymqi.connect("QMB"), "QMA", "QMB",
                          batch_size=batch_size)  # fmt: skip
        sent: list[bytes] = []
        for round_, n in enumerate(puts):
            bodies = [b"%d.%d" % (round_, i) for i in range(n)]
            put_remote(pair.a, bodies)
            sent += bodies
            agent = pair.agent()
            where = failures[round_ % len(failures)]
            _step_failing(pair, agent, where)
            if where == "none":
                agent.close()
        agent = pair.agent()
        while agent.step(0):
            pass
        agent.close()
        assert [d for d, _ in read_all(pair.b, "ORDERS")] == sent
        assert depth(pair.a, "QMB") == 0
        for qm, end in ((pair.a, SENDER), (pair.b, RECEIVER)):
            assert SyncQueue(qm, end, CHANNEL).read().seq == len(sent)
    finally:
        pymqi.connect = real


@given(st.integers(0, SEQ_WRAP), st.integers(0, 10_000))
def test_sequence_numbers_wrap_after_seqwrap_to_1(seq: int, count: int) -> None:
    got = next_seq(seq, count)
    assert 1 <= got <= SEQ_WRAP or (count == 0 and got == seq)
    if count and seq + count <= SEQ_WRAP:
        assert got == seq + count


def test_conname_names_the_partner_clusters_bootstrap_servers(monkeypatch) -> None:
    assert bootstrap_of("") == "" and bootstrap_of("  ") == ""
    assert bootstrap_of("kafka1(9092), kafka2(9093)") == "kafka1:9092,kafka2:9093"
    assert bootstrap_of("host") == "host:1414"  # MQ's default port
    with pytest.raises(ValueError):
        bootstrap_of("host(port")
    monkeypatch.setenv("MQK_KAFKA_BOOTSTRAP", "127.0.0.1:19092")
    assert partner_targets("127.0.0.1(19092)", "QMB") == {}  # this stack's own cluster
    assert partner_targets("other(9092)", "QMB") == {"kafka_bootstrap": "other:9092"}
    monkeypatch.setenv(redis_env("QM.B"), "redis://other:6379/0")
    assert redis_env("QM.B") == "MQK_REDIS_URL_QM_B"
    assert partner_targets("", "QM.B") == {"redis_url": "redis://other:6379/0"}
