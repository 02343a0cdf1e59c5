"""Connecting to the state backend's Redis from an MQK_REDIS_URL.

The forms (redis-py's own URL forms for one server, plus two of ours):
* `redis://[[user]:password@]host:port/db`, `rediss://…` (TLS), `unix:///path?db=0`:
  one Redis (redis.Redis.from_url).
"""

from __future__ import annotations

import logging

import redis

log = logging.getLogger("mqk.shim.redis_conn")

# Every client of the state: a dead server is noticed within these (seconds).
CLIENT_OPTIONS = {"socket_connect_timeout": 5, "socket_timeout": 10, "health_check_interval": 30}


def connect(url: str, qmgr: str) -> redis.Redis:
    """A client for the URL."""
    return redis.Redis.from_url(url, **CLIENT_OPTIONS)
