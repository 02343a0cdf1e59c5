"""The real log backend: confluent-kafka's clients and admin calls (log.Log)."""

from __future__ import annotations

import logging
import time
import uuid
from concurrent.futures import TimeoutError as FutureTimeout

from confluent_kafka import (
    Consumer,
    IsolationLevel,
    KafkaError,
    KafkaException,
    Producer,
    TopicCollection,
    TopicPartition,
)
from confluent_kafka.admin import (
    AclBinding,
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    AdminClient,
    NewTopic,
    OffsetSpec,
    ResourcePatternType,
    ResourceType,
)

from adapter import config
from adapter.core.oam import AclRow
from adapter.logs import kafka_logger
from adapter.shim.authority import kafka_tls_refused
from adapter.shim.log import LogDir, TopicSpec
from adapter.shim.logdirs import LogDirsClient

log = logging.getLogger("mqk.shim.kafka")

# A topic just created: metadata names its leader a moment before the broker serves it.
_TRANSIENT = {
    KafkaError.NOT_LEADER_FOR_PARTITION,
    KafkaError.UNKNOWN_LEADER_EPOCH,
    KafkaError.FENCED_LEADER_EPOCH,
    KafkaError.OFFSET_NOT_AVAILABLE,
    KafkaError.REPLICA_NOT_AVAILABLE,
    KafkaError.BROKER_NOT_AVAILABLE,
    KafkaError.LEADER_NOT_AVAILABLE,
    KafkaError.UNKNOWN_TOPIC_OR_PART,
    KafkaError.REQUEST_TIMED_OUT,
    KafkaError._TRANSPORT,
    KafkaError._TIMED_OUT,
}

# After a broker failover librdkafka's AdminClient keeps the old leaders (and their
# epochs) for the partitions it asked about: every ListOffsets then fails with
# FENCED_LEADER_EPOCH (or waits out its timeout on the dead leader) for minutes, where a
# new client answers at once (measured on a 3-node cluster, a leader SIGKILLed and
# restarted). These errors make a fresh admin client.
_STALE_METADATA = {
    KafkaError.NOT_LEADER_FOR_PARTITION,
    KafkaError.UNKNOWN_LEADER_EPOCH,
    KafkaError.FENCED_LEADER_EPOCH,
    KafkaError.LEADER_NOT_AVAILABLE,
    KafkaError._TIMED_OUT,
    KafkaError.REQUEST_TIMED_OUT,
}

# What error_cb reports that no retry mends: refused SASL credentials (and a TLS
# handshake refused on certificates: authority.kafka_tls_refused).
_REFUSED = frozenset({KafkaError._AUTHENTICATION, KafkaError.SASL_AUTHENTICATION_FAILED})

_MAX_RECORD = 100 * 1024 * 1024


# What ListOffsets answers for a partition created a moment ago on a cluster of several
# brokers: the leader does not know it yet (UNKNOWN_TOPIC_OR_PART), or the client's
# metadata has no leader for it yet (librdkafka's _NOENT, "No leaders found").
_NOT_YET_KNOWN = frozenset({KafkaError.UNKNOWN_TOPIC_OR_PART, KafkaError._NOENT})


class KafkaLog:
    """Clients of one queue-manager connection on one Kafka cluster."""

    def __init__(
        self,
        bootstrap: str,
        client_id: str | None = None,
        credentials: tuple[str, str] | None = None,
    ) -> None:
        """`credentials` (MQCSP's user id and password) replace the settings' SASL user
        when the cluster is reached over SASL; elsewhere they have no Kafka meaning."""
        self.bootstrap = bootstrap
        self.client_id = client_id or uuid.uuid4().hex[:12]
        # The operator's settings (TLS, SASL: adapter/config.py) under the library's own.
        self.conf = config.kafka_client(
            bootstrap,
            logger=kafka_logger(),
            # A queue exists when DEFINE made its topics. A put racing DELETE QLOCAL must
            # fail, never bring the topic back on a cluster that creates topics on use
            # (librdkafka's producers ask for that by default).
            **{"allow.auto.create.topics": False},
        )
        protocol = str(self.conf.get("security.protocol", "plaintext")).lower()
        if credentials is not None and protocol.startswith("sasl"):
            if not all(credentials):
                # A user id without its password (or the reverse) is no valid pair: MQ's
                # answer is 2035 (CONNAUTH checks "that if a user ID and password are
                # provided by an application, they are a valid pair",
                # https://ibm.com/docs/SSFKSJ_9.3.0/secure/q113250_.html), where
                # librdkafka would refuse to build the client at all (_INVALID_ARG).
                raise KafkaException(
                    KafkaError(KafkaError._AUTHENTICATION, "MQCSP: no password for the user id")
                )
            self.conf["sasl.username"], self.conf["sasl.password"] = credentials
        # Credentials the cluster refused, or a TLS handshake refused on certificates
        # (librdkafka reports them to error_cb only, served by poll(); a metadata call
        # merely times out): MQCONN answers 2035 / 2393 at once instead of retrying for
        # MQK_BROKEN_AFTER_S (shim/authority.py tells them apart).
        self.refused: KafkaError | None = None
        self.admin = self._new_admin()
        self._admin_made = time.monotonic()
        # A plaintext cluster here runs without an authorizer (the local stack); a
        # secured one is asked for the principal's operations at MQOPEN.
        self.enforces_acls = protocol != "plaintext"
        self._log_dirs: LogDirsClient | None = None  # made at the disk guard's first look

    def _new_admin(self) -> AdminClient:
        return AdminClient({**self.conf, "error_cb": self._on_error})

    def _on_error(self, err: KafkaError) -> None:
        if err.code() in _REFUSED or kafka_tls_refused(err):
            self.refused = err

    def _fresh_admin(self) -> None:
        """A new admin client (fresh metadata), at most one a second."""
        now = time.monotonic()
        if now - self._admin_made >= 1.0:
            log.info("Kafka metadata looks stale (a failover?): a new admin client")
            self.admin, self._admin_made = self._new_admin(), now

    # -- clients ---------------------------------------------------------------------
    def producer(self) -> Producer:
        return Producer(
            {
                **self.conf,
                # Persistent messages: idempotent, acks=all (MQ hardens persistent puts).
                "enable.idempotence": True,
                "acks": "all",
                "linger.ms": 2,
                "message.max.bytes": _MAX_RECORD,
                "message.timeout.ms": int(config.BROKEN_AFTER_S * 1000),
                "retry.backoff.ms": 10,
            }
        )

    def transactional_producer(self, transactional_id: str) -> Producer:
        return Producer(
            {
                **self.conf,
                "transactional.id": transactional_id,
                "enable.idempotence": True,
                "acks": "all",
                "linger.ms": 1,
                "retry.backoff.ms": 5,  # back-to-back short transactions (STACK-NOTES)
                "transaction.timeout.ms": config.TXN_TIMEOUT_MS,
                "message.max.bytes": _MAX_RECORD,
            }
        )

    def reader(self) -> Consumer:
        return Consumer(
            {
                **self.conf,
                "group.id": f"mqk-reader-{self.client_id}",  # never joined: assign() only
                "enable.auto.commit": False,
                "enable.auto.offset.store": False,
                "isolation.level": "read_committed",
                "fetch.wait.max.ms": 20,
                "fetch.error.backoff.ms": 20,
                "fetch.queue.backoff.ms": 1,
                "enable.partition.eof": False,
                # Offset 0 of a topic whose log start moved on: start at the oldest record.
                "auto.offset.reset": "earliest",
                # Prefetch bound: big segmented messages need not sit in memory twice.
                "queued.max.messages.kbytes": 8192,
            }
        )

    # -- administration --------------------------------------------------------------
    def check_reachable(self) -> None:
        deadline = time.monotonic() + config.BROKEN_AFTER_S
        while True:
            try:
                self.admin.list_topics(timeout=min(1.0, config.BROKEN_AFTER_S))
                return
            except KafkaException:
                self.admin.poll(0)  # serves error_cb: refused credentials or TLS
                if self.refused is not None:
                    raise KafkaException(self.refused) from None
                if time.monotonic() > deadline:
                    raise

    def authorized_operations(self, topics: list[str]) -> dict[str, set[str]] | None:
        if not self.enforces_acls:
            return None
        futures = self.admin.describe_topics(
            TopicCollection(topics), request_timeout=10, include_authorized_operations=True
        )
        held: dict[str, set[str]] = {}
        for topic, fut in futures.items():
            try:
                ops = fut.result(15).authorized_operations
            except KafkaException as exc:
                if exc.args[0].code() != KafkaError.TOPIC_AUTHORIZATION_FAILED:
                    raise
                ops = []  # not even DESCRIBE
            held[topic] = {op.name for op in ops or ()}
        return held

    def alter_acls(self, rows: list[AclRow], *, add: bool = True) -> None:
        """Create (or, `add` False, delete) ACL bindings (core/oam.py's rows) through
        the admin API, as `kafka-acls.sh --add/--remove` would; needs a principal
        allowed to ALTER the cluster (the secure stack's admin)."""
        kind = AclBinding if add else AclBindingFilter  # delete_acls takes filters
        bindings = [
            kind(
                ResourceType[r.resource_type if r.resource_type != "CLUSTER" else "BROKER"],
                r.name,
                ResourcePatternType[r.pattern],
                r.principal,
                r.host,
                AclOperation[r.operation],
                AclPermissionType[r.permission],
            )
            for r in rows
        ]
        if not bindings:
            return
        if add:
            futures = self.admin.create_acls(bindings, request_timeout=30)
        else:
            futures = self.admin.delete_acls(bindings, request_timeout=30)
        for fut in futures.values():
            fut.result(60)

    def topic_exists(self, topic: str) -> bool:
        md = self.admin.list_topics(topic=topic, timeout=10)
        return topic in md.topics and md.topics[topic].error is None

    def create_topics(self, topics: dict[str, TopicSpec]) -> None:
        new = [
            NewTopic(t, num_partitions=s.partitions, replication_factor=-1, config=s.config)
            for t, s in topics.items()
        ]
        for fut in self.admin.create_topics(new, operation_timeout=30).values():
            try:
                fut.result(60)
            except KafkaException as exc:
                if exc.args[0].code() != KafkaError.TOPIC_ALREADY_EXISTS:
                    raise
        self._await_leaders(list(topics))
        self._await_usable([(t, p) for t, s in topics.items() for p in range(s.partitions)])

    def _await_usable(self, partitions: list[tuple[str, int]], timeout: float = 30.0) -> None:
        """A new partition is usable once the broker answers ListOffsets for it (its
        leader epoch settles a moment after metadata names the leader). On a cluster of
        several brokers the partition may be unknown for a moment after the topic was
        created (_NOT_YET_KNOWN, both seen on a fresh 3-broker cluster in CI): asked
        again, not taken for a failure, only here, where the topic was just made."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.end_offsets(partitions)
                return
            except KafkaException as exc:
                err = exc.args[0] if exc.args else None
                unknown = err is not None and err.code() in _NOT_YET_KNOWN
                if not unknown or time.monotonic() > deadline:
                    raise
                self._fresh_admin()
                time.sleep(0.05)

    def _await_leaders(self, topics: list[str], timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        pending = set(topics)
        while pending:
            md = self.admin.list_topics(timeout=5)
            for t in list(pending):
                tmd = md.topics.get(t)
                if (
                    tmd
                    and tmd.error is None
                    and tmd.partitions
                    and all(p.leader >= 0 and p.error is None for p in tmd.partitions.values())
                ):
                    pending.discard(t)
            if pending:
                if time.monotonic() > deadline:
                    raise KafkaException(
                        KafkaError(KafkaError.LEADER_NOT_AVAILABLE, f"no leader: {sorted(pending)}")
                    )
                time.sleep(0.05)

    def delete_topics(self, topics: list[str]) -> None:
        for fut in self.admin.delete_topics(topics, operation_timeout=30).values():
            try:
                fut.result(60)
            except KafkaException as exc:
                if exc.args[0].code() != KafkaError.UNKNOWN_TOPIC_OR_PART:
                    raise
        self._await_gone(topics)

    def _await_gone(self, topics: list[str], timeout: float = 10.0) -> None:
        """Until the broker's metadata no longer lists them: the controller has accepted
        the deletion when the futures resolve, but a broker's metadata follows a moment
        later, and a deleted queue must be gone for whoever looks next (a DEFINE of the
        same name, a listing). Past `timeout` the deletion is left to finish (logged)."""
        deadline = time.monotonic() + timeout
        pending = set(topics)
        while pending:
            md = self.admin.list_topics(timeout=5)
            pending = {t for t in pending if t in md.topics and md.topics[t].error is None}
            if not pending:
                return
            if time.monotonic() > deadline:
                log.warning("topics still listed %.0f s after deletion: %s", timeout, pending)
                return
            time.sleep(0.02)

    def end_offsets(
        self, partitions: list[tuple[str, int]], *, committed: bool = True, timeout: float = 2.0
    ) -> dict[tuple[str, int], int]:
        """One ListOffsets request from the AdminClient (about 1 ms, where a consumer's
        own call waits on its fetch loop)."""
        level = IsolationLevel.READ_COMMITTED if committed else IsolationLevel.READ_UNCOMMITTED
        specs = {TopicPartition(t, p): OffsetSpec.latest() for t, p in partitions}
        deadline = time.monotonic() + config.BROKEN_AFTER_S
        while True:
            try:
                futures = self.admin.list_offsets(
                    specs, isolation_level=level, request_timeout=timeout
                )
                return {
                    (tp.topic, tp.partition): fut.result(timeout).offset
                    for tp, fut in futures.items()
                }
            except FutureTimeout:
                # A leader that died: the request waits on it (no KafkaError at all).
                if time.monotonic() > deadline:
                    raise KafkaException(KafkaError(KafkaError._TIMED_OUT)) from None
                self._fresh_admin()
            except KafkaException as exc:
                err = exc.args[0] if exc.args else None
                retriable = err is not None and (err.retriable() or err.code() in _TRANSIENT)
                if not retriable or time.monotonic() > deadline:
                    raise
                if err.code() in _STALE_METADATA:
                    self._fresh_admin()
                time.sleep(0.05)

    def log_dirs(self, topics: dict[str, int], timeout_s: float) -> tuple[list[LogDir], set[int]]:
        """DescribeLogDirs v4 on every broker (shim/logdirs.py), with this connection's
        own client settings (MQCSP's user included)."""
        if self._log_dirs is None:
            self._log_dirs = LogDirsClient(self.conf, self._broker_addresses)
        return self._log_dirs.describe(topics, timeout_s)

    def _broker_addresses(self, topics: list[str]) -> dict[int, tuple[str, int]]:
        """The brokers as metadata advertises them (a request naming one topic at most:
        the metadata of every topic is large on a busy cluster)."""
        md = self.admin.list_topics(topic=topics[0] if topics else None, timeout=5)
        return {b.id: (b.host, b.port) for b in md.brokers.values()}

    def close(self) -> None:
        """The admin client has nothing to flush; producers and readers are closed by
        their owners; the disk guard's own broker connections are closed here."""
        if self._log_dirs is not None:
            self._log_dirs.close()
