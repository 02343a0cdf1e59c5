"""Connecting to the state backend's Redis from an MQK_REDIS_URL.

The forms:
* `redis://[[user]:password@]host:port/db`, `rediss://…` (TLS), `unix:///path?db=0`:
  one Redis (redis-py's own URL forms, redis.Redis.from_url).
* `redis+sentinel://[[user]:password@]host:port[,host:port...]/<service>?db=0`: the
  primary of `<service>` as the listed Sentinels name it (redis.sentinel.Sentinel
  .master_for); the user and password are the data nodes' (AUTH / ACL user); the
  Sentinels' own, if they have one, go in `sentinel_username=` / `sentinel_password=`.
  Every call is retried through a failover (MQK_BROKEN_AFTER_S at most) and reconnects
  to the promoted replica.
* `redis+cluster://[[user]:password@]host:port[,host:port...]`: a Redis Cluster
  (redis.cluster.RedisCluster; any primaries as start-up nodes, db 0 only).

Sentinel: Redis replicates asynchronously, so a promoted replica may lack the last
writes of the dead primary (https://redis.io/docs/latest/operate/oss_and_stack/management/sentinel/
"Consistency under partitions"). Every new connection first reads the primary's
replication id (INFO replication, master_replid: a promoted replica draws a new one) and,
when it is not the one this process last saw, runs the `check_primary` script on every
queue of the queue manager: a state last checked under another primary loses its
`epoch`, so its next claim rebuilds it from Kafka (recovery.py), exactly as after a
FLUSHALL. Nothing is served on that connection before the check, so no claim ever runs
on a state the failover may have cut short.
"""

from __future__ import annotations

import logging
import socket
import ssl
import threading
from urllib.parse import parse_qs, unquote, urlsplit

import redis
from redis.backoff import ExponentialBackoff
from redis.cluster import ClusterNode, RedisCluster
from redis.connection import parse_url
from redis.retry import Retry
from redis.sentinel import Sentinel, SentinelManagedConnection

from adapter import config
from adapter.shim.redis_scripts import source

log = logging.getLogger("mqk.shim.redis_conn")

SENTINEL_SCHEME = "redis+sentinel"
CLUSTER_SCHEME = "redis+cluster"

# Every client of the state: a dead server is noticed within these (seconds).
CLIENT_OPTIONS = {"socket_connect_timeout": 5, "socket_timeout": 10, "health_check_interval": 30}


def is_cluster(url: str) -> bool:
    return url.startswith(CLUSTER_SCHEME + "://")


def _hosts(netloc: str) -> tuple[str | None, str | None, list[tuple[str, int]]]:
    """user, password and host:port pairs of `[user[:password]@]h:p[,h:p...]`."""
    auth, _, hosts = netloc.rpartition("@")
    user, password = None, None
    if auth:
        u, sep, p = auth.partition(":")
        user, password = (unquote(u) or None), (unquote(p) if sep else None)
    pairs = []
    for item in hosts.split(","):
        host, _, port = item.strip().rpartition(":")
        if not host or not port.isdigit():
            raise ValueError(f"Redis URL: expected host:port, got {item!r}")
        pairs.append((host.strip("[]"), int(port)))
    return user, password, pairs


def _failover_retry() -> Retry:
    """Retries that outlast a Sentinel failover (down-after-milliseconds plus the
    election), up to MQK_BROKEN_AFTER_S; then the call fails (MQRC_CONNECTION_BROKEN)."""
    backoff = ExponentialBackoff(cap=0.5, base=0.05)
    return Retry(backoff, retries=max(3, int(config.BROKEN_AFTER_S / 0.5)))


def connect(url: str, qmgr: str) -> redis.Redis:
    """A client for the URL (see the module's docstring for the forms)."""
    parts = urlsplit(url)
    if parts.scheme == SENTINEL_SCHEME:
        return _sentinel(parts, qmgr)
    if parts.scheme == CLUSTER_SCHEME:
        user, password, hosts = _hosts(parts.netloc)
        return RedisCluster(
            startup_nodes=[ClusterNode(h, p) for h, p in hosts],
            username=user,
            password=password,
            retry=_failover_retry(),
            **CLIENT_OPTIONS,
        )
    return redis.Redis.from_url(url, **CLIENT_OPTIONS)


def tls_refusal(url: str, wait_s: float = 1.0) -> ssl.SSLError | None:
    """For a `rediss://` URL: the server's TLS refusal of this client, if it makes one.

    A Redis that requires a client certificate (`tls-auth-clients yes`) and gets none, or
    one it does not trust, refuses it with an alert once the client's side of a TLS 1.3
    handshake is done, and closes. redis-py writes its first command at once, and that
    write meets the closed connection: an EOF, indistinguishable from a server going
    away, while the alert that says why is never read. This diagnosis (made only after
    such an EOF) opens one connection with the URL's TLS settings, completes its
    handshake, sends nothing, and waits `wait_s` for the server's first bytes: an alert
    is returned; silence, an EOF or a handshake this client refuses itself (redis-py
    reports those directly) give None."""
    parts = urlsplit(url)
    if parts.scheme != "rediss":
        return None
    opts = parse_url(url)
    context = ssl.create_default_context(cafile=opts.get("ssl_ca_certs"))
    context.check_hostname = False  # the server's alert is sought, not our verdict
    if opts.get("ssl_certfile"):
        context.load_cert_chain(opts["ssl_certfile"], opts.get("ssl_keyfile"))
    host, port = opts.get("host", "localhost"), int(opts.get("port", 6379))
    try:
        with (
            socket.create_connection((host, port), timeout=wait_s) as raw,
            context.wrap_socket(raw, server_hostname=host) as tls,
        ):
            tls.settimeout(wait_s)
            try:
                tls.recv(1)
            except (ssl.SSLEOFError, ssl.SSLZeroReturnError, ssl.SSLSyscallError):
                return None
            except ssl.SSLError as refusal:
                return refusal
    except OSError:  # unreachable, our own verdict on its certificate, a timeout
        return None
    return None


def _sentinel(parts, qmgr: str) -> redis.Redis:
    user, password, hosts = _hosts(parts.netloc)
    service = parts.path.strip("/")
    if not service:
        raise ValueError("redis+sentinel:// URL: the service name is missing (…/<service>)")
    query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
    sentinel_kwargs = {
        k: query[f"sentinel_{k}"] for k in ("username", "password") if f"sentinel_{k}" in query
    }
    sentinels = Sentinel(
        hosts,
        sentinel_kwargs={**sentinel_kwargs, "socket_timeout": 2, "socket_connect_timeout": 2},
    )
    check = PrimaryCheck(qmgr)
    return sentinels.master_for(
        service,
        db=int(query.get("db", 0)),
        username=user,
        password=password,
        retry=_failover_retry(),
        redis_connect_func=check,
        connection_class=_SentinelConnection,
        **CLIENT_OPTIONS,
    )


class _SentinelConnection(SentinelManagedConnection):
    """redis-py 8's Connection.send_packed_command reconnects a dropped connection by
    `connect_check_health`, to the address it had: after a failover, the dead primary's,
    refused until the retries run out (measured: MQRC_CONNECTION_BROKEN on a get). Every
    reconnection here asks the Sentinels for the primary first."""

    def connect_check_health(self, check_health: bool = True, retry_socket_connect: bool = True):
        if self._sock is None and retry_socket_connect:
            return self.connect()  # the Sentinels' primary; connect_to comes back here
        return super().connect_check_health(
            check_health=check_health, retry_socket_connect=retry_socket_connect
        )


class PrimaryCheck:
    """Run on every new connection of a Sentinel-managed client, before its first command
    (redis-py's `redis_connect_func`): see the module's docstring."""

    def __init__(self, qmgr: str) -> None:
        self.qmgr = qmgr
        self.seen: str | None = None  # the primary's replication id last checked
        self.dropped = 0  # states sent to a rebuild (tests read it)
        self._lock = threading.Lock()

    def __call__(self, conn) -> None:
        conn.on_connect()
        replid = _replid(_ask(conn, "INFO", "replication"))
        if replid == self.seen:
            return
        with self._lock:
            if replid == self.seen:
                return
            dropped = self._check_queues(conn, replid)
            if self.seen is not None or dropped:
                log.warning(
                    "Redis primary changed (replication id %s): %d queue state(s) of %s "
                    "were written under another primary and will be rebuilt from Kafka",
                    replid,
                    dropped,
                    self.qmgr,
                )
            self.dropped += dropped
            self.seen = replid

    def _check_queues(self, conn, replid: str) -> int:
        script = source("check_primary")
        dropped, cursor = 0, b"0"
        while True:
            cursor, keys = _ask(
                conn, "SCAN", cursor, "MATCH", f"mqk:{{{self.qmgr}/*}}:epoch", "COUNT", 1000
            )
            for key in keys:
                epoch = key.decode() if isinstance(key, bytes) else key
                primary = epoch[: -len("epoch")] + "primary"
                dropped += int(_ask(conn, "EVAL", script, 2, epoch, primary, replid))
            if cursor in (b"0", "0", 0):
                return dropped


def _ask(conn, *args):
    conn.send_command(*args)
    return conn.read_response()


def _replid(info) -> str:
    text = info.decode() if isinstance(info, bytes) else str(info)
    for line in text.splitlines():
        if line.startswith("master_replid:"):
            return line.split(":", 1)[1].strip()
    raise redis.ConnectionError("INFO replication has no master_replid")
