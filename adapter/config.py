"""Where the servers are: environment variables first, then the local stack's defaults.

`MQK_KAFKA_BOOTSTRAP` and `MQK_REDIS_URL` point the library, the CLI and the tests at
existing servers; without them everything uses the native local stack (`mqk stack up`).

Security settings pass through with the ecosystem's own names:

- Kafka: librdkafka's properties (`security.protocol`, `sasl.mechanism`,
  `sasl.username`, `sasl.password`, `ssl.ca.location`, `ssl.certificate.location`,
  `ssl.key.location`, ...; https://github.com/confluentinc/librdkafka/blob/master/CONFIGURATION.md)
  from the properties file MQK_KAFKA_CONFIG (`key=value` lines, `#` comments), then
  MQK_KAFKA_<KEY> variables (the key upper-cased, dots as underscores:
  MQK_KAFKA_SECURITY_PROTOCOL=SASL_SSL), which win. `kafka_settings()` is applied to
  every producer, consumer and admin client the library makes (`kafka_client`).
- Redis: redis-py's URL forms in MQK_REDIS_URL, e.g.
  `rediss://user:password@host:port/0?ssl_ca_certs=/path/ca.pem` (TLS, an ACL user);
  https://redis-py.readthedocs.io/en/stable/connections.html#redis.Redis.from_url

Secrets from either never reach a log line, an error or `mqk stack env`: see
adapter/redact.py.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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


# A unix socket path longer than this does not fit sockaddr_un (108 bytes with its NUL).
_MAX_SOCKET_PATH = 100


def redis_socket() -> Path | None:
    """The unix socket the local stack's Redis listens on besides its TCP port (None when
    MQK_HOME is too deep for a socket path): a round trip over it costs a fraction of one
    over loopback TCP, and every MQGET pays one."""
    path = mqk_home() / "run" / "redis.sock"
    return path if len(str(path)) <= _MAX_SOCKET_PATH else None


def local_endpoints() -> Endpoints:
    sock = redis_socket()
    return Endpoints(
        kafka_bootstrap=f"127.0.0.1:{DEFAULT_KAFKA_PORT}",
        redis_url=f"unix://{sock}?db=0" if sock else f"redis://127.0.0.1:{DEFAULT_REDIS_PORT}/0",
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


# ------------------------------------------------------------------ client settings
KAFKA_CONFIG_ENV = "MQK_KAFKA_CONFIG"
_KAFKA_ENV_PREFIX = "MQK_KAFKA_"
# MQK_KAFKA_* variables that are the launcher's or the tests', not client properties.
_NOT_KAFKA_PROPERTIES = ("BOOTSTRAP", "PORT", "HEAP_MB", "CONFIG")
# librdkafka properties whose values are secrets (never shown; adapter/redact.py).
SECRET_KAFKA_KEYS = frozenset(
    {
        "sasl.password",
        "ssl.key.password",
        "ssl.keystore.password",
        "ssl.key.pem",
        "sasl.oauthbearer.client.secret",
        "sasl.jaas.config",
    }
)


# A test harness's own administrator on secured servers (adapter/testing/servers.py):
# a librdkafka properties file and a file holding a Redis URL, for what the tests need
# and the application's user is refused on purpose (FLUSHALL to simulate losing Redis).
# Files, so the secrets are never in an environment listing or a command line.
TEST_ADMIN_KAFKA_CONFIG_ENV = "MQK_TEST_ADMIN_KAFKA_CONFIG"
TEST_ADMIN_REDIS_URL_FILE_ENV = "MQK_TEST_ADMIN_REDIS_URL_FILE"


def read_properties(path: str | Path) -> dict[str, str]:
    """A Java-style properties file's `key=value` (or `key: value`) lines; blank lines
    and `#` / `!` comments skipped. A line without a separator is an error (naming the
    line number only: the line may hold a secret)."""
    settings: dict[str, str] = {}
    for number, raw in enumerate(Path(path).read_text().splitlines(), 1):
        line = raw.strip()
        if not line or line[0] in "#!":
            continue
        cut = min((i for i in (line.find("="), line.find(":")) if i > 0), default=-1)
        if cut < 0:
            raise ValueError(f"{path}: line {number} is not key=value")
        settings[line[:cut].strip()] = line[cut + 1 :].strip()
    return settings


def kafka_settings(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The Kafka client properties the operator set: the MQK_KAFKA_CONFIG file, then
    MQK_KAFKA_<KEY> variables over it. Empty when neither is set (plaintext)."""
    env = os.environ if environ is None else environ
    settings = read_properties(env[KAFKA_CONFIG_ENV]) if env.get(KAFKA_CONFIG_ENV) else {}
    for name, value in env.items():
        if not name.startswith(_KAFKA_ENV_PREFIX):
            continue
        rest = name[len(_KAFKA_ENV_PREFIX) :]
        if not rest or rest.startswith(_NOT_KAFKA_PROPERTIES):
            continue
        settings[rest.lower().replace("_", ".")] = value
    settings.pop("bootstrap.servers", None)  # the endpoint comes from MQK_KAFKA_BOOTSTRAP
    return settings


def kafka_client(bootstrap: str, **conf: Any) -> dict[str, Any]:
    """A confluent-kafka client configuration: the bootstrap servers, the operator's
    settings (security), then the caller's own tuning `conf` (keys with dots passed as
    a dict: `kafka_client(b, **{"group.id": g})`). Every Producer, Consumer and
    AdminClient of the library and its tools is built from one."""
    return {"bootstrap.servers": bootstrap, **kafka_settings(), **conf}


# ---------------------------------------------------------------------------- tuning
# Read once at import; the environment variables let tests and operators shorten them.

# How long a server may stay unreachable before a call gives MQRC_CONNECTION_BROKEN.
BROKEN_AFTER_S = float(os.environ.get("MQK_BROKEN_AFTER_S", "15"))
# Tests: every Redis script runs behind a check that refuses a key it did not declare
# in KEYS (adapter/shim/redis_scripts.py CHECK_PRELUDE).
REDIS_CHECK_KEYS = os.environ.get("MQK_REDIS_CHECK_KEYS") == "1"
# The disk guard (adapter/shim/diskguard.py): how often a connection asks its brokers
# for their log directories' usable space (0: the guard is off), and the space a
# directory keeps back from puts: the larger of the two, MiB and per cent of the volume
# (diskguard.py says why the reserve must cover what producers write between two checks).
DISK_CHECK_S = float(os.environ.get("MQK_DISK_CHECK_S", "2"))
DISK_RESERVE_MB = float(os.environ.get("MQK_DISK_RESERVE_MB", "1024"))
DISK_RESERVE_PCT = float(os.environ.get("MQK_DISK_RESERVE_PCT", "5"))
# Lease on messages got under syncpoint; renewed every third of it while the UOW lives.
LEASE_MS = int(os.environ.get("MQK_UOW_LEASE_MS", "30000"))
# The broker aborts a transaction open this long (Kafka counts from its first record).
TXN_TIMEOUT_MS = int(os.environ.get("MQK_TXN_TIMEOUT_MS", "20000"))
# A unit of work keeps its syncpoint puts in memory until MQCMIT, up to this many bytes
# (shim/uow.py says why); past it, they go to Kafka as they are put. 0: always at once.
UOW_BUFFER_BYTES = int(float(os.environ.get("MQK_UOW_BUFFER_MB", "64")) * 1024 * 1024)
# The pump's period: delivery reports of async puts, depth counts and acks batch up to it.
PUMP_INTERVAL_S = 0.005
# An open handle's registration (IPPROCS/OPPROCS, exclusive input) outlives a dead
# process this long; live connections renew theirs every third of it.
OPEN_LEASE_MS = int(os.environ.get("MQK_OPEN_LEASE_MS", "120000"))
# A DELETE QLOCAL in progress refuses opens this long at most (a deleter that died
# mid-way must not keep the queue unusable for longer).
DELETE_LEASE_MS = 60_000
# DEFINE / ALTER / DELETE of an object hold a claim of its name (shim/nameclaims.py)
# while they check and write: a definer that died mid-way frees the name after this.
# Longer than a definition takes (its topics' creation and a catalog write, each bounded
# by MQK_BROKEN_AFTER_S); the claim is confirmed before the catalog write.
DEFINE_LEASE_MS = int(os.environ.get("MQK_DEFINE_LEASE_MS", "60000"))
# How long a deleted queue's DELETED mark outlives it. It tells open handles at once (and
# refuses an MQOPEN racing the delete); once it is gone, a handle still learns the queue
# is gone from the catalog, so it need not stay forever (no key is left behind).
DELETED_MARK_TTL_MS = 10 * 60_000
CONTEXT_AUTHORITY_ENV = "MQK_CONTEXT_AUTHORITY"


def context_authority(user: str) -> bool:
    """The queue manager's policy for MQOO_SET_*_CONTEXT / PASS_*_CONTEXT: the users
    allowed to set or pass message context (MQ's +setid / +setall / +passid / +passall
    authorities), from MQK_CONTEXT_AUTHORITY: a comma list of user ids, or '*' for
    every user. Unset or empty: nobody, so no application can forge another's identity
    unless the administrator allows it."""
    return _listed(CONTEXT_AUTHORITY_ENV, user)


ALTERNATE_USER_AUTHORITY_ENV = "MQK_ALTERNATE_USER_AUTHORITY"


def alternate_user_authority(user: str) -> bool:
    """The queue manager's policy for MQOO_ALTERNATE_USER_AUTHORITY (and MQPUT1's
    MQPMO_ALTERNATE_USER_AUTHORITY): the users allowed to have an open checked as another
    user id (MQ's +altusr authority), from MQK_ALTERNATE_USER_AUTHORITY: a comma list of
    user ids, or '*' for every user. Unset or empty: nobody (MQRC_NOT_AUTHORIZED)."""
    return _listed(ALTERNATE_USER_AUTHORITY_ENV, user)


def _listed(variable: str, user: str) -> bool:
    allowed = {u.strip() for u in os.environ.get(variable, "").split(",")}
    return "*" in allowed or user in allowed


# A depth estimate this far below MAXDEPTH is trusted without asking the state.
DEPTH_MARGIN = 256
# Candidates offered to one claim: enough to get past the messages other getters took
# since this handle last looked, without shipping the whole queue.
CLAIM_BATCH = 16
# How often (consumed messages) a handle raises the low watermarks it can prove.
ADVANCE_EVERY = 512
# A get trusts a view this fresh; older, it first reads what was committed meanwhile
# (so a higher-priority message put just before the get is not overtaken).
STALE_VIEW_S = 0.1
# A get in a burst takes what the reader's consumer has fetched at most this often (each
# take releases the interpreter lock: ~10 us a get when another thread wants it); well
# inside STALE_VIEW_S, the bound a get keeps anyway.
PUMP_GAP_S = 0.001
# Non-persistent messages one read-ahead claim takes for a handle's buffer.
READ_AHEAD_BATCH = 256
# A browse lock (MQGMO_LOCK) lasts this long without renewal.
BROWSE_LOCK_MS = 600_000
# Recovery: long enough for live connections' batched acks (flushed every ~5 ms) to land.
ACK_GRACE_S = 1.0
REBUILD_LOCK_S = 120
# Short: a process killed while reconciling must not block everyone else for long.
RECONCILE_LOCK_S = 5
# Get leases (shim/getlease.py): the most messages one claim locks ahead for a handle's
# destructive gets outside a unit of work (0: one claim round trip per get), and how
# long such a lock lasts (a message is handed out only in the first half).
GET_LEASE_BATCH = int(os.environ.get("MQK_GET_LEASE_BATCH", "16"))
GET_LEASE_MS = int(os.environ.get("MQK_GET_LEASE_MS", "2000"))
# A handle leases only while it gets in a burst (gets closer than this), and the pump
# gives back the run of a handle idle this long.
GET_LEASE_IDLE_MS = int(os.environ.get("MQK_GET_LEASE_IDLE_MS", "20"))
