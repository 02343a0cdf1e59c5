"""Per-call costs, measured in the same run: where an MQ call's time goes.

These are the floors behind the 1 KiB ratios. A pymqi-shaped call builds its MQMD and
options structure, and the shim encodes or decodes the envelope that carries every MQMD
field. A destructive get outside read-ahead also makes one Redis round trip to claim the
message. docs/benchmarks.md compares these floors with the raw client's cost per
record. When the floors alone exceed what a target allows, the gap is a wall and not
overhead left to remove.
"""

from __future__ import annotations

import socket
import statistics
import time
from collections.abc import Callable
from urllib.parse import urlparse

from confluent_kafka import Consumer, Producer, TopicPartition
from mqk_avro import codec

import adapter.pymqi as pymqi
from adapter import config
from adapter.shim import naming, redis_store
from ops.bench import mqside, rawkafka
from ops.bench.model import Row
from ops.bench.settings import KIB, BenchConfig

C = pymqi.CMQC
SECTION = "costs"
UNIT = "us/call"
# Candidate strings shaped like a claim's (lane:offset), as many as one claim offers.
_CLAIM_ARGS = [f"0.0:{i}" for i in range(16)]

PUT = "MQPUT call, async response, 1 KiB persistent"
SHAPE = "building MD() + PMO() for one call (the pymqi call shape)"
ENCODE = "envelope encode (Avro: every MQMD field + 1 KiB)"
DECODE = "envelope decode"
REDIS = "Redis Lua call via redis-py (a claim's arguments)"
FACE_PUT = "MQPUT through the pymqi face alone (MD + PMO built, request made, MQMD filled)"
FACE_GET = "MQGET through the pymqi face alone (MD + GMO built, request made, MD/GMO filled)"
MARKER = "a consumption marker's write to Redis's socket (no reply awaited)"


class _Canned:
    """An open queue handle whose put and get return a result captured from a real call
    at once: what is left of an MQI call is the face's own work, which every call pays
    whatever the engine beneath does (the floor the ratios cannot pass while the
    application calls pymqi's shape)."""

    def __init__(self, handle, put_result=None, get_result=None) -> None:
        self._handle, self._put, self._get = handle, put_result, get_result

    def __getattr__(self, name: str):
        return getattr(self._handle, name)

    def put(self, req, payload, *, put1=False):
        return self._put

    def get(self, req, max_length=None, wait_interval=0):
        return self._get


def per_call_us(fn: Callable[[], object], n: int, repeats: int = 3) -> float:
    """Median over `repeats` of the mean time of n calls, in microseconds."""
    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(n):
            fn()
        runs.append((time.perf_counter() - start) / n * 1e6)
    return statistics.median(runs)


def _ping_us(redis_url: str, n: int) -> float:
    """A bare RESP PING over a plain socket (TCP or the unix socket the URL names: the
    local stack's is the transport the store uses): the round trip with no client."""
    with _socket(redis_url) as s:

        def ping() -> None:
            s.sendall(b"*1\r\n$4\r\nPING\r\n")
            s.recv(64)

        return per_call_us(ping, n)


def _socket(redis_url: str) -> socket.socket:
    """A plain socket to Redis (TCP, or the unix socket the URL names)."""
    url = urlparse(redis_url)
    if url.scheme == "unix":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(5)
        s.connect(url.path)
        return s
    s = socket.create_connection((url.hostname or "127.0.0.1", url.port or 6379), 5)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def _marker_us(redis_url: str, sha: str, key: str, n: int) -> float:
    """One EVALSHA the size of a get's consumption marker written to the socket, its
    reply left unread (as the write-behind connection does); the replies are read after
    each run."""
    packed = b"".join(
        b"$%d\r\n%b\r\n" % (len(a), a)
        for a in (b"EVALSHA", sha.encode(), b"3", *(f"{key}{k}".encode() for k in "abc"))
        + tuple(a.encode() for a in ("1795808003265", "~0123456789ab.1", "C", "", "0", "0.0:1"))
    )
    command = b"*12\r\n" + packed
    with _socket(redis_url) as s:

        def write() -> None:
            s.sendall(command)

        runs = []
        for _ in range(3):
            runs.append(per_call_us(write, n, repeats=1))
            want = b"*2\r\n:0\r\n:0\r\n" * n  # the script returns {0, 0}
            got = b""
            while len(got) < len(want):
                got += s.recv(1 << 20)
        return statistics.median(runs)


def _face_us(qm: pymqi.QueueManager, queue: str, payload: bytes, n: int) -> tuple[float, float]:
    """(put, get) microseconds per call through the face over a _Canned handle, the
    results captured from one real put and get of the same message shape."""
    q = pymqi.Queue(qm, queue, C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    real = q.get_handle()
    persistent = C.MQPER_PERSISTENT
    put_opts = C.MQPMO_ASYNC_RESPONSE | C.MQPMO_NO_SYNCPOINT
    get_opts = C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT
    captured: dict[str, object] = {}

    class _Capture(_Canned):
        def put(self, req, data, *, put1=False):
            captured["put"] = real.put(req, data, put1=put1)
            return captured["put"]

        def get(self, req, max_length=None, wait_interval=0):
            captured["get"] = real.get(req, max_length, wait_interval)
            return captured["get"]

    try:
        q._handle = _Capture(real)
        q.put(payload, pymqi.MD(Persistence=persistent), pymqi.PMO(Options=put_opts))
        qm.get_handle().barrier()
        q.get(None, pymqi.MD(), pymqi.GMO(Options=get_opts, WaitInterval=5000))
        q._handle = _Canned(real, captured["put"], captured["get"])

        def put() -> None:
            q.put(payload, pymqi.MD(Persistence=persistent), pymqi.PMO(Options=put_opts))

        def get() -> None:
            q.get(None, pymqi.MD(), pymqi.GMO(Options=get_opts, WaitInterval=5000))

        return per_call_us(put, n), per_call_us(get, n)
    finally:
        q._handle = real
        q.close()


def _one_envelope(bootstrap: str, topic: str) -> bytes:
    consumer = Consumer(rawkafka.consumer_conf(bootstrap))
    consumer.assign([TopicPartition(topic, 0, 0)])
    try:
        return rawkafka.consume_n(consumer, 1)[0][0].value()
    finally:
        consumer.close()


def run(cfg: BenchConfig, bootstrap: str, log=print) -> list[Row]:
    n = cfg.put_async[KIB]
    payload = bytes(KIB)
    persistent = C.MQPER_PERSISTENT
    opts = C.MQPMO_ASYNC_RESPONSE | C.MQPMO_NO_SYNCPOINT
    rows: list[Row] = []

    def row(pair: str, value: float, raw: float | None = None, raw_label: str = "") -> None:
        rows.append(Row(pair, SECTION, UNIT, value, raw, raw_label))
        log(f"  {pair}: {value:,.1f} us" + (f" vs raw {raw:,.1f} us" if raw else ""))

    with mqside.mq_session("costs") as mq, rawkafka.raw_topics(bootstrap) as topics:
        queue = mq.define("COSTS")
        conn = mq.qm.get_handle()
        q = pymqi.Queue(mq.qm, queue, C.MQOO_OUTPUT)
        topic = topics.create("costs")
        producer = Producer(rawkafka.producer_conf(bootstrap))
        rawkafka.warm_producer(producer, topic)

        def produce() -> None:
            rawkafka.produce(producer, topic, payload)
            producer.poll(0)

        def put() -> None:
            q.put(payload, pymqi.MD(Persistence=persistent), pymqi.PMO(Options=opts))

        raw_put = per_call_us(produce, n)
        producer.flush(30)
        mq_put = per_call_us(put, n)
        conn.barrier()
        q.close()
        row(PUT, mq_put, raw_put, "produce() + poll(0), same bytes (the put pair's raw side)")
        row(SHAPE, per_call_us(lambda: (pymqi.MD(Persistence=persistent), pymqi.PMO()), n))

        value = _one_envelope(bootstrap, naming.data_topic(mq.name, queue, 0))
        env = codec.decode(value)
        row(ENCODE, per_call_us(lambda: codec.encode(env), n))
        row(DECODE, per_call_us(lambda: codec.decode(value), n))

        redis_url = config.endpoints().redis_url
        sha = conn.redis.script_load("return {0, 0}")
        key = redis_store.queue_prefix(mq.name, queue)
        lua = per_call_us(lambda: conn.redis.evalsha(sha, 1, key, *_CLAIM_ARGS), n // 10)
        row(REDIS, lua, _ping_us(redis_url, n // 10), "bare PING over a socket")
        row(MARKER, _marker_us(redis_url, sha, key, n // 10))
        face_put, face_get = _face_us(mq.qm, queue, payload, n)
        row(FACE_PUT, face_put)
        row(FACE_GET, face_get)
    return rows


def lookup(rows: list[Row]) -> dict[str, float]:
    """{pair: us} of the costs rows (absent when the section did not run)."""
    return {r.pair: r.value for r in rows if r.section == SECTION and r.value is not None}
