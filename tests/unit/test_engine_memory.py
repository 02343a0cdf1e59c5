"""The engine on the in-memory backends: the integration layer's MQI scenarios, run with
no servers in seconds.

The scenarios are the integration tests' own functions (put/get, priorities, browse,
expiry and reports, groups in logical order, segments, syncpoint commit and backout,
read-ahead, BOTHRESH), imported here and run against `memory_log` + `memory_store` on a
ManualClock: the tests' own `time.sleep` moves that clock instead of sleeping. Left
out are the scenarios that reach past the MQI into Kafka or Redis themselves (a raw
consumer or producer, a Redis flush, subprocesses); the memory-specific tests below
cover fencing, lost locks, dead connections and lost state on the fakes instead.
"""

from __future__ import annotations

import pytest

import adapter.pymqi as pymqi
from adapter import config
from adapter.shim import naming
from adapter.shim.memory_log import MemoryLog
from tests.integration import (
    test_mqi_browse_expiry,
    test_mqi_groups,
    test_mqi_put_get,
    test_mqi_uow,
)
from tests.integration.conftest import drain, mqerror
from tests.unit.conftest import World

C = pymqi.CMQC
ALL = C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT | C.MQOO_BROWSE

_SCENARIOS = {
    test_mqi_put_get: [
        "test_put_fills_md_and_get_returns_message_with_its_md",
        "test_str_payload_is_utf8_mqstr_1208",
        "test_msg_id_and_correl_id_generation_rules",
        "test_priority_order_highest_first_fifo_within_priority",
        "test_fifo_delivery_sequence_ignores_priority",
        "test_priority_above_nine_is_a_warning_and_highest",
        "test_no_wait_on_empty_queue_is_2033_at_once",
        "test_wait_times_out_after_wait_interval",
        "test_wait_interval_below_unlimited_is_an_error",
        "test_match_by_correl_id_and_msg_id_none_is_wildcard",
        "test_truncation_failed_leaves_message_and_accepted_removes_it",
        "test_max_msg_length_and_max_depth",
        "test_put1_needs_no_open_handle_and_unknown_queue_is_2085",
        "test_deferred_open_and_open_options_enforced",
        "test_names_with_slash_and_percent_are_legal",
        "test_read_ahead_delivers_each_message_once_and_close_gives_back_the_rest",
        "test_context_options_decide_which_context_the_message_carries",
    ],
    test_mqi_browse_expiry: [
        "test_browse_first_next_leaves_messages_and_cursor_is_per_handle",
        "test_msg_under_cursor_removes_browsed_message_then_2034",
        "test_message_got_by_another_handle_is_gone_from_under_the_cursor",
        "test_browse_lock_hides_message_from_others_until_unlock",
        "test_locked_message_can_be_got_under_cursor_by_its_owner",
        "test_expiry_zero_is_an_error",
        "test_returned_expiry_is_the_remaining_time",
        "test_expired_message_counts_in_depth_until_a_get_discards_it",
        "test_browse_never_returns_an_expired_message",
        "test_expiration_report_goes_to_reply_to_queue",
        "test_no_report_without_expiration_report_option",
    ],
    test_mqi_groups: [
        "test_spec_figures_logical_order_get",
    ],
    test_mqi_uow: [
        "test_syncpoint_put_is_invisible_until_commit_and_gone_on_backout",
        "test_syncpoint_get_hides_message_until_commit_backout_restores_it_in_place",
        "test_a_unit_of_work_counts_in_curdepth_and_maxdepth_as_mq_counts_it",
        "test_backout_threshold_moves_poison_message_to_requeue_queue",
        "test_watermark_never_passes_a_message_held_by_a_unit_of_work",
        "test_syncpoint_read_ahead_locks_a_run_and_releases_what_was_not_got",
        "test_selective_get_sees_messages_locked_ahead_by_its_own_handle",
    ],
}
for _module, _names in _SCENARIOS.items():
    for _name in _names:
        globals()[_name] = getattr(_module, _name)


def _put(q, body: bytes, options: int = C.MQPMO_NO_SYNCPOINT, **md) -> pymqi.MD:
    m = pymqi.MD(**md)
    q.put(body, m, pymqi.PMO(Options=options))
    return m


def _get(q, options: int = C.MQGMO_SYNCPOINT) -> bytes:
    return q.get(None, pymqi.MD(), pymqi.GMO(Options=options))


# -- what the fakes let us test without sleeping or killing processes -------------------


def test_expiry_follows_the_injected_clock(world: World, qmgr) -> None:
    qmgr.define_queue("Q.CLOCK")
    q = pymqi.Queue(qmgr, "Q.CLOCK", ALL)
    _put(q, b"short", Expiry=600)  # 60 s
    world.clock.advance(59)
    md = pymqi.MD()
    assert q.get(None, md, pymqi.GMO(Options=C.MQGMO_BROWSE_FIRST)) == b"short"
    assert md.Expiry == 10  # tenths of a second left
    world.clock.advance(2)
    with pytest.raises(pymqi.MQMIError) as exc:
        _get(q, C.MQGMO_NO_SYNCPOINT)
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_NO_MSG_AVAILABLE)
    assert qmgr.queue_status("Q.CLOCK")["current_depth"] == 0


def test_a_fenced_unit_of_work_backs_out_with_2003(world: World, qmgr, qmgr_name) -> None:
    qmgr.define_queue("Q.FENCE")
    q = pymqi.Queue(qmgr, "Q.FENCE", ALL)
    _put(q, b"in")
    assert _get(q) == b"in"
    _put(q, b"out", C.MQPMO_SYNCPOINT)
    # A successor with the same transactional id fences this connection's producer.
    zombie_killer = MemoryLog(world.clock, world.cluster).transactional_producer(
        qmgr.get_handle().txn.transactional_id
    )
    zombie_killer.init_transactions(5)
    with pytest.raises(pymqi.MQMIError) as exc:
        qmgr.commit()
    assert mqerror(exc) == (C.MQCC_WARNING, C.MQRC_BACKED_OUT)
    assert [d for d, _ in drain(q)] == [b"in"]


def test_a_dead_unit_of_work_returns_its_gets_after_the_lease(world: World, qmgr_name) -> None:
    """A connection that got under syncpoint and went silent: once its lease has run out
    (on the injected clock) another getter reconciles and gets the message back, with
    BackoutCount 1; the dead one's unit of work can no longer commit."""
    dead = pymqi.connect(qmgr_name)
    dead.define_queue("Q.LEASE")
    q = pymqi.Queue(dead, "Q.LEASE", ALL)
    _put(q, b"orphan")
    assert _get(q) == b"orphan"
    dead.get_handle().pump.stop()  # it renews no lease any more
    world.clock.advance(config.TXN_TIMEOUT_MS / 1000 + 1)  # the broker aborts its txn
    world.clock.advance(config.LEASE_MS / 1000 + 1)
    other = pymqi.connect(qmgr_name)
    got = drain(pymqi.Queue(other, "Q.LEASE", C.MQOO_INPUT_SHARED))
    assert [(d, m.BackoutCount) for d, m in got] == [(b"orphan", 1)]
    with pytest.raises(pymqi.MQMIError) as exc:
        dead.commit()
    assert mqerror(exc) == (C.MQCC_WARNING, C.MQRC_BACKED_OUT)
    other.disconnect()


def test_lost_state_is_rebuilt_from_the_log(world: World, qmgr, qmgr_name) -> None:
    qmgr.define_queue("Q.LOST")
    q = pymqi.Queue(qmgr, "Q.LOST", ALL)
    for i in range(10):
        _put(q, f"m{i}".encode())
    assert [_get(q, C.MQGMO_NO_SYNCPOINT) for _ in range(4)] == [b"m0", b"m1", b"m2", b"m3"]
    qmgr.get_handle().barrier()
    world.server.flushall()  # the state server lost everything
    fresh = pymqi.Queue(qmgr, "Q.LOST", C.MQOO_INPUT_SHARED)
    assert [d for d, _ in drain(fresh)] == [f"m{i}".encode() for i in range(4, 10)]
    assert qmgr.queue_status("Q.LOST")["current_depth"] == 0


def test_async_put_to_a_deleted_queue_is_counted_and_logged(world: World, qmgr, caplog) -> None:
    qmgr.define_queue("Q.GONE")
    q = pymqi.Queue(qmgr, "Q.GONE", C.MQOO_OUTPUT)
    topics = [naming.data_topic(qmgr.get_name(), "Q.GONE", p) for p in naming.PRIORITIES]
    MemoryLog(world.clock, world.cluster).delete_topics(topics)
    with caplog.at_level("WARNING", logger="mqk"):
        _put(q, b"lost?", C.MQPMO_ASYNC_RESPONSE)  # MQPUT itself completes: async
        qmgr.get_handle().barrier()
        status = qmgr.get_handle().async_status()
    assert (status.put_failure, status.reason, status.object_name) == (
        1,
        C.MQRC_Q_DELETED,
        "Q.GONE",
    )
    assert any("Q.GONE" in r.getMessage() for r in caplog.records)
