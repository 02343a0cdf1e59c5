"""Where the servers are: environment variables first, then the local stack's defaults.

`MQK_KAFKA_BOOTSTRAP` and `MQK_REDIS_URL` point the library, the CLI and the tests at
existing servers; without them everything uses the native local stack (`mqk stack up`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

KAFKA_BOOTSTRAP_ENV = "MQK_KAFKA_BOOTSTRAP"
REDIS_URL_ENV = "MQK_REDIS_URL"

# Ports of the native stack. Off the usual 9092/6379 so a developer's own servers are
# never mistaken for ours (and ours never collide with theirs).
DEFAULT_KAFKA_PORT = int(os.environ.get("MQK_KAFKA_PORT", "19092"))
DEFAULT_CONTROLLER_PORT = int(os.environ.get("MQK_CONTROLLER_PORT", "19093"))
DEFAULT_REDIS_PORT = int(os.environ.get("MQK_REDIS_PORT", "16379"))


def mqk_home() -> Path:
    """Cache and run folder, outside any git checkout (jars, broker data, logs)."""
    return Path(os.environ.get("MQK_HOME", Path.home() / ".cache" / "mqk"))


@dataclass(frozen=True)
class Endpoints:
    kafka_bootstrap: str
    redis_url: str


def local_endpoints() -> Endpoints:
    return Endpoints(
        kafka_bootstrap=f"127.0.0.1:{DEFAULT_KAFKA_PORT}",
        redis_url=f"redis://127.0.0.1:{DEFAULT_REDIS_PORT}/0",
    )


def endpoints(kafka_bootstrap: str | None = None, redis_url: str | None = None) -> Endpoints:
    """Keyword arguments win, then the environment, then the local stack."""
    local = local_endpoints()
    return Endpoints(
        kafka_bootstrap=kafka_bootstrap
        or os.environ.get(KAFKA_BOOTSTRAP_ENV)
        or local.kafka_bootstrap,
        redis_url=redis_url or os.environ.get(REDIS_URL_ENV) or local.redis_url,
    )
