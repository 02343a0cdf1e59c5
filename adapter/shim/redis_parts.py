"""What the per-queue and publish/subscribe state objects (redis_queue.py, redis_pubsub.py)
use of RedisStore (redis_store.py), as a Protocol: they are built by the store, so
importing it back would make an import cycle."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import redis

from adapter.shim.redis_marks import DefinitionMarks, PlainMarks
from adapter.shim.writebehind import Direct, WriteBehind


class StoreParts(Protocol):
    """The connection, scripts, caches and retry policy one RedisStore shares."""

    client: redis.Redis
    qmgr: str
    scripts: dict[str, Any]
    marks: DefinitionMarks | PlainMarks
    behind: WriteBehind | Direct
    _transient: Callable[[Callable[..., Any]], Callable[..., Any]]

    def now_ms(self) -> int: ...
