"""Delivery counters of publish/subscribe: per subscription the messages put to its
destination and the time of the last (DISPLAY SBSTATUS NUMMSGS, LMSGDATE / LMSGTIME),
per topic string and publishing connection the publications and the time of the last
(DISPLAY TPSTATUS TYPE(PUB) NUMPUBS, LPUBDATE / LPUBTIME; TYPE(TOPIC) PUBCOUNT counts the
connections that published within PUBLISHER_ACTIVE_MS).

A publication never pays a round trip for them: the publisher counts in process once
its transaction committed, and the connection's pump writes the counts in one script
call at most every FLUSH_S (shim/redis_store.py `subs.stats` / `topics.stats`); an
inquiry in this process writes its own first, so another process's counts can lag by
FLUSH_S, never its own (IBM keeps these in the queue manager; mqk keeps them in the
state store). A process killed between two flushes loses what it had not written:
counts are monitoring figures, not the messages themselves.
"""

from __future__ import annotations

import logging
import threading
import time

from adapter.shim.store import PubSubState

log = logging.getLogger("mqk.shim.pubstats")

FLUSH_S = 0.5
SEP = "\x1f"  # topic string SEP connection id: no topic string holds a unit separator
PUBLISHER_ACTIVE_MS = 60_000


def publisher_key(topic: str, conn_id: str) -> str:
    return f"{topic}{SEP}{conn_id}"


def split_publisher(key: str) -> tuple[str, str]:
    topic, _, conn = key.rpartition(SEP)
    return topic, conn


class PubCounts:
    def __init__(self, state: PubSubState, conn_id: str) -> None:
        self.state = state
        self.conn_id = conn_id
        self._lock = threading.Lock()
        self._subs: dict[str, list[int]] = {}
        self._topics: dict[str, list[int]] = {}
        self._flushed_at = time.monotonic()

    def published(self, topic: str, sub_keys: list[str], now_ms: int, pieces: int = 1) -> None:
        """One committed publication on `topic`: `pieces` messages to each subscription."""
        with self._lock:
            for key in sub_keys:
                slot = self._subs.setdefault(key, [0, 0])
                slot[0] += pieces
                slot[1] = now_ms
            slot = self._topics.setdefault(publisher_key(topic, self.conn_id), [0, 0])
            slot[0] += 1
            slot[1] = now_ms

    def flush(self) -> None:
        with self._lock:
            subs, topics = self._subs, self._topics
            self._subs, self._topics = {}, {}
            self._flushed_at = time.monotonic()
        if not subs and not topics:
            return
        try:
            self.state.add_pub_counts(
                {k: (v[0], v[1]) for k, v in subs.items()},
                {k: (v[0], v[1]) for k, v in topics.items()},
            )
        except Exception:
            with self._lock:  # not lost: the next flush writes them
                for mine, theirs in ((self._subs, subs), (self._topics, topics)):
                    for k, (n, last) in theirs.items():
                        slot = mine.setdefault(k, [0, 0])
                        slot[0] += n
                        slot[1] = max(slot[1], last)
            raise

    def flush_if_due(self) -> None:
        if time.monotonic() - self._flushed_at >= FLUSH_S and (self._subs or self._topics):
            self.flush()

    def read(self) -> tuple[dict[str, tuple[int, int]], dict[str, tuple[int, int]]]:
        self.flush()
        return self.state.pub_counts()
