"""Every Redis key name of the state backend (its scripts are in redis_scripts.py).

Keys of queue Q of queue manager QM share the prefix `mqk:{QM/Q}:` (the hash tag keeps
a queue's keys in one cluster slot, so one script may touch all of them):

| key | type | holds |
|---|---|---|
| `low` | hash lane -> offset | low watermark: below it everything is consumed |
| `done:<lane>` | sorted set | consumed offsets at or above the low watermark |
| `lock` | hash candidate -> `owner|until_ms` | syncpoint gets, browse locks, discards, get leases |
| `bo` | hash candidate -> n | BackoutCount added by backouts and reclaims |
| `depth` | counter | CURDEPTH: committed messages on the queue |
| `native` | hash lane -> offset | last native (Kafka producer's) record counted in `depth` |
| `stats` | hash | queue statistics: `in` `out` `high` `reset` `lput` `lget` `qshort` `qlong` |
| `opens` | hash handle -> `kinds|lease_until_ms` | open handles (IPPROCS / OPPROCS) |
| `uncom` | hash unit of work -> `puts|gets|until_ms` | uncommitted puts, gets (uncommitted.py) |
| `epoch` | string | present = the state is complete; every claim refuses without it |
| `def` | string | definition mark `<incarnation>:<digest>`, or `deleted` (store.DELETED) |
| `deleting` | string `owner|until_ms` | a DELETE QLOCAL in progress: opens are refused |
| `ackpos` | integer | ack-log offset up to which consumption is applied |
| `rebuild`, `reconcile` | string with TTL | short exclusive rights |
| `primary` | string | replication id of the primary last seen on (Sentinel: redis_conn.py) |

(`stats` is written only inside the depth script and the claims, never with a round trip
of its own, and read-and-zeroed by RESET QSTATS's script; `lput` / `lget` (ms) and
`qshort` / `qlong` (QTIME, µs) only while queue monitoring is on for the queue;
adapter/shim/qstats.py reads it.)
plus `once:<token>` (the last sequence number a replaying writer applied to the depth,
add_depths_once), and per queue manager `mqk:{QM}:catalog` (hash name -> definition),
the cache of the catalog topic, `mqk:{QM}:chstatus` (hash channel -> the status its
agent wrote, JSON), `mqk:{QM}:chstop` (set of channels STOP CHANNEL asked to stop),
`mqk:{QM}:defining` (hash catalog key -> `owner|lease_until_ms`: the DEFINE, ALTER or
DELETE of that object in progress, one at a time across processes; shim/nameclaims.py),
and `mqk:{QM}:status` (the run state endmqm left:
`QUIESCING` or `ENDING IMMEDIATELY`; absent while running, strmqm deletes it; written
only by shim/runstate.py). No script touches two queues (Redis Cluster slots).
Publish/subscribe (shim/subscriptions.py, shim/publish.py), per queue manager:
`mqk:{QM}:subs` (hash subscription key -> definition, JSON), `mqk:{QM}:subs.owner` (hash
subscription key -> `owner|lease_until_ms`: the handle that has it open, which keeps a
non-durable one alive and makes a durable one in use, 2429), `mqk:{QM}:subs.version`
(counter bumped by every change of `subs`, read through the client-tracking cache so a
publisher learns of a new subscription at no round trip) and `mqk:{QM}:retained` (hash
topic string -> the retained publication's envelope); `mqk:{QM}:topics.version` (counter
bumped by every DEFINE / ALTER / DELETE TOPIC, read through the client-tracking cache:
the publishers' topic tree, shim/topics.py); `mqk:{QM}:subs.stats` / `topics.stats`
(hashes `<key>|n` -> messages delivered, `<key>|t` -> the last one's time in ms, per
subscription key / topic string: DISPLAY SBSTATUS / TPSTATUS, written in batches by
shim/pubstats.py); `mqk:{QM}:subs.changes` (list of `version|key`, the last
SUB_CHANGES_KEPT changes of `subs`: publishers update their index by the keys changed
since the version they hold instead of reading every subscription).
A candidate is spelled `priority.partition:offset` (store.encode); the scripts parse it.
"""

from __future__ import annotations

import redis


def queue_prefix(qmgr: str, queue: str) -> str:
    """Redis prefix of one queue (a hash tag: one cluster slot per queue)."""
    return f"mqk:{{{qmgr}/{queue}}}:"


def catalog_key(qmgr: str) -> str:
    return f"mqk:{{{qmgr}}}:catalog"


def status_key(qmgr: str) -> str:
    return f"mqk:{{{qmgr}}}:status"


def defining_key(qmgr: str) -> str:
    return f"mqk:{{{qmgr}}}:defining"


def pubsub_key(qmgr: str, part: str) -> str:
    """`subs`, `subs.owner`, `subs.version`, `subs.changes`, `retained`, `topics.version`, ... of a
    queue manager."""
    return f"mqk:{{{qmgr}}}:{part}"


_PUBSUB_PARTS = (
    "subs",
    "subs.owner",
    "subs.version",
    "retained",
    "topics.version",
    "subs.stats",
    "topics.stats",
    "subs.changes",
)


def channel_status_key(qmgr: str) -> str:
    return f"mqk:{{{qmgr}}}:chstatus"


def channel_stop_key(qmgr: str) -> str:
    return f"mqk:{{{qmgr}}}:chstop"


def purge_queue_manager(client: redis.Redis, qmgr: str) -> None:
    """Delete every key of a queue manager (test clean-up)."""
    keys = list(client.scan_iter(match=f"mqk:{{{qmgr}/*", count=1000))
    keys.extend((catalog_key(qmgr), status_key(qmgr), defining_key(qmgr)))
    keys.extend(pubsub_key(qmgr, part) for part in _PUBSUB_PARTS)
    keys.extend((channel_status_key(qmgr), channel_stop_key(qmgr)))
    client.delete(*keys)
