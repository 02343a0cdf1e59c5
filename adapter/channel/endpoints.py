"""Where a sender channel's partner queue manager lives: its CONNAME.

MQ's CONNAME is `host(port)[,host(port)...]` (a connection-name list tries each in
turn: https://www.ibm.com/docs/en/ibm-mq/9.4.x?topic=reference-define-channel, CONNAME).
Here the other queue manager "listens" on a Kafka cluster: CONNAME names that cluster's
bootstrap servers, each `host(port)` becoming `host:port` of the bootstrap list. Blank,
or the servers this process uses, means the partner is on the same Kafka cluster and
Redis. The partner's Redis is `MQK_REDIS_URL_<QMGR>` when that variable is set (QMGR as
named, '.' and '/' written '_'), else this process's Redis: every Redis key carries its
queue manager's name, so several queue managers share one Redis without clashing.
"""

from __future__ import annotations

import os
import re

from adapter import config

_ENTRY = re.compile(r"^\s*([^()\s,]+)\s*(?:\((\d{1,5})\))?\s*$")
DEFAULT_PORT = 1414  # MQ's listener port, when an entry names no port


def bootstrap_of(conn_name: str) -> str:
    """The Kafka bootstrap list a CONNAME names ('' for blank); ValueError if malformed."""
    if not conn_name.strip():
        return ""
    out = []
    for entry in conn_name.split(","):
        m = _ENTRY.match(entry)
        if m is None:
            raise ValueError(f"CONNAME entry {entry!r} is not host(port)")
        out.append(f"{m.group(1)}:{m.group(2) or DEFAULT_PORT}")
    return ",".join(out)


def redis_env(qmgr: str) -> str:
    return "MQK_REDIS_URL_" + re.sub(r"[^A-Za-z0-9_]", "_", qmgr)


def partner_targets(conn_name: str, qmgr: str) -> dict[str, str]:
    """The keyword arguments of pymqi.connect that reach queue manager `qmgr` at
    `conn_name` (none: the servers of this process)."""
    here = config.endpoints()
    targets: dict[str, str] = {}
    bootstrap = bootstrap_of(conn_name)
    if bootstrap and set(bootstrap.split(",")) != set(here.kafka_bootstrap.split(",")):
        targets["kafka_bootstrap"] = bootstrap
    redis_url = os.environ.get(redis_env(qmgr))
    if redis_url:
        targets["redis_url"] = redis_url
    return targets
