"""Discards of expired messages and their expiration reports, for a transactional writer.

A discard goes through the queue's consumption state (the engine's claims), so an
expired message is discarded -- and reported -- once, whoever meets it first (an MQGET,
the expiry scan, or this job), and never returned by a later MQGET.

The report is built by the engine's own report builder (adapter.shim.reports: the rules
core's report MQMD, routed to the ReplyToQ or the dead-letter queue) and returned as
Kafka records, so the job writes it in the same transaction as its other outputs: a
report is then put exactly once even when the job dies between two systems.
"""

from __future__ import annotations

from typing import Any

from adapter.shim.connection import Connection
from adapter.shim.records import Record
from adapter.shim.reports import Kind
from adapter.shim.store import NoEpochError, QueueState

# An expired message this job locked stays hidden from getters until the transaction
# that reports it commits and the lock turns into a consumption. If the job dies in
# between, whoever meets the lock after its lease reconciles it with the ack log (the
# engine's reconcile): consumed if the transaction committed, released if not.
DISCARD_LEASE_MS = 10 * 60 * 1000

__all__ = ["DISCARD_LEASE_MS", "Record", "consume_locked", "lock_expired", "report_records"]


def report_records(conn: Connection, original: dict[str, Any]) -> tuple[str, list[Record]]:
    """(queue, records) of the expiration report `original` asked for: its ReplyToQ,
    or the dead-letter queue when that cannot take it; ("", []) for none."""
    delivery = conn.services.reports.report(original, Kind.EXPIRATION)
    return ("", []) if delivery is None else (delivery.queue, delivery.records)


def _with_state(conn: Connection, queue: str, call):
    """Run a claim; a queue whose state was lost is rebuilt from Kafka first."""
    state: QueueState = conn.state(queue)
    try:
        return call(state)
    except NoEpochError:
        qdef = conn.lookup_queue(queue)
        if qdef is not None:
            conn.services.rebuild(qdef)
        return call(state)


def lock_expired(conn: Connection, queue: str, key: tuple[int, int, int], owner: str) -> bool:
    """Take an expired message for discarding: True if it was still on the queue (or
    already locked by `owner`, as when a micro-batch is replayed)."""

    def claim(state: QueueState):
        return state.claim([key], owner, consume=False, lease_ms=DISCARD_LEASE_MS)

    res = _with_state(conn, queue, claim)
    if res.index is None and res.locked:
        # A lock whose owner's lease ran out (ours from a run that died, or a getter's):
        # the ack log decides whether it was consumed; then look again.
        conn.services.reconcile(queue)
        res = _with_state(conn, queue, claim)
    return res.index is not None


def consume_locked(
    conn: Connection, queue: str, keys: list[tuple[int, int, int]], owner: str
) -> int:
    """Turn this owner's locks into consumption (idempotent): the depth drops here."""
    if not keys:
        return 0
    return len(_with_state(conn, queue, lambda st: st.consume_many(keys, owner)).taken)
