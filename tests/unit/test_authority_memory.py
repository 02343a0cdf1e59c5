"""MQ authorities over Kafka ACLs on the in-memory backends: the OAM -> ACL mapping
(core/oam.py), MQOPEN's check (2035 for an option the ACLs do not carry), refused
credentials and ACL denials answered MQRC_NOT_AUTHORIZED, a refused TLS handshake
answered MQRC_SSL_INITIALIZATION_ERROR, and `mqk setmqaut`."""

from __future__ import annotations

import ssl

import pytest
import redis
from confluent_kafka import KafkaError, KafkaException
from hypothesis import given
from hypothesis import strategies as st

import adapter.pymqi as pymqi
from adapter.cli import main
from adapter.core import oam
from adapter.shim import naming
from adapter.shim.authority import not_authorized, tls_failed
from adapter.shim.handle import QueueHandle
from adapter.shim.memory_log import MemoryLog
from adapter.shim.memory_store import MemoryStore
from adapter.tools.setmqaut import acl_rows
from tests.integration.conftest import mqerror

C = pymqi.CMQC
IN, OUT, BROWSE, INQ, SET = (
    C.MQOO_INPUT_SHARED,
    C.MQOO_OUTPUT,
    C.MQOO_BROWSE,
    C.MQOO_INQUIRE,
    C.MQOO_SET,
)
OPTION_OF = {"get": IN, "put": OUT, "browse": BROWSE, "inq": INQ, "set": SET}


def granted_ops(qmgr: str, queue: str, authorities: set[str]) -> dict[str, set[str]]:
    """The ACLs `mqk setmqaut +<auths>` makes, as the broker reports them per topic."""
    add, _ = acl_rows(qmgr, "queue", queue, "bob", [f"+{a}" for a in authorities])
    held: dict[str, set[str]] = {}
    for row in add:
        held.setdefault(row.name, set()).add(row.operation)
        if row.operation in ("READ", "WRITE"):  # Kafka implies DESCRIBE from both
            held[row.name].add("DESCRIBE")
    return held


def test_put_only_user_gets_2035_on_mqopen_for_input(world, qmgr, qmgr_name: str) -> None:
    qmgr.define_queue("Q.AUTH")
    world.cluster.acls = granted_ops(qmgr_name, "Q.AUTH", {"put"})
    out = pymqi.Queue(qmgr, "Q.AUTH", OUT)  # allowed
    out.put(b"m", pymqi.MD(), pymqi.PMO(Options=C.MQPMO_NO_SYNCPOINT))
    for options in (IN, C.MQOO_INPUT_EXCLUSIVE, C.MQOO_INPUT_AS_Q_DEF, BROWSE, OUT | IN):
        with pytest.raises(pymqi.MQMIError) as exc:
            pymqi.Queue(qmgr, "Q.AUTH", options)
        assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_NOT_AUTHORIZED)
    # Granted get as well: the same open works.
    world.cluster.acls = granted_ops(qmgr_name, "Q.AUTH", {"put", "get"})
    q = pymqi.Queue(qmgr, "Q.AUTH", IN)
    assert q.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_NO_SYNCPOINT)) == b"m"


@given(
    held=st.sets(st.sampled_from(oam.QUEUE_AUTHORITIES)),
    asked=st.sets(st.sampled_from(oam.QUEUE_AUTHORITIES), min_size=1),
)
def test_open_allowed_exactly_when_every_option_is_granted(held, asked) -> None:
    """IBM: "If you open a queue for multiple options, you must be authorized for each"."""
    options = 0
    for a in asked:
        options |= OPTION_OF[a]
    ops = granted_ops("QM", "Q", held)
    granted = {
        oam.DATA: ops.get(naming.data_topic("QM", "Q", 0), set()),
        oam.ACKS: ops.get(naming.ack_topic("QM", "Q"), set()),
    }
    missing = oam.missing_authority(options, granted)
    # browse's needs are a subset of get's: +get alone also opens for browse.
    effective = held | ({"browse"} if "get" in held else set())
    assert (missing is None) == (asked <= effective)


def test_mapping_rows_cover_every_priority_topic() -> None:
    add, remove = acl_rows("QM1", "queue", "ORDERS", "bob", ["+put", "+get", "-set"])
    topics = {r.name for r in add}
    assert {naming.data_topic("QM1", "ORDERS", p) for p in range(10)} <= topics
    assert naming.ack_topic("QM1", "ORDERS") in topics
    assert {(r.name, r.operation) for r in add if r.name.endswith(".p7")} == {
        ("mqk.QM1.ORDERS.p7", "READ"),
        ("mqk.QM1.ORDERS.p7", "WRITE"),
    }
    assert all(r.principal == "User:bob" and r.permission == "ALLOW" for r in add)
    assert {r.operation for r in remove} == {"ALTER_CONFIGS", "WRITE"}  # -set
    # +browse -get: browse keeps its READ bindings.
    add, remove = acl_rows("QM1", "queue", "Q", "bob", ["+browse", "-get"])
    assert {(r.name, r.operation) for r in remove} == {("mqk.QM1.Q.acks", "WRITE")}


def test_parse_authorities_rejects_what_setmqaut_would() -> None:
    assert oam.parse_authorities(["+allmqi", "-set"]) == (
        {"browse", "get", "inq", "put"},
        {"set"},
    )
    for bad in (["put"], ["+connect"], ["+crt"], [""]):
        with pytest.raises(ValueError):
            oam.parse_authorities(bad)


def test_setmqaut_prints_kafka_acls(capsys) -> None:
    assert main(["setmqaut", "-m", "QM1", "-n", "Q1", "-t", "queue", "-p", "bob", "+put"]) == 0
    out = capsys.readouterr().out
    assert (
        "Adding ACLs for resource `ResourcePattern(resourceType=TOPIC, name=mqk.QM1.Q1.p0, "
        "patternType=LITERAL)`: \n \t(principal=User:bob, host=*, operation=WRITE, "
        "permissionType=ALLOW) " in out
    )
    assert out.count("Adding ACLs") == 10  # p0..p9, nothing on the ack topic
    assert main(["setmqaut", "-m", "QM1", "-t", "qmgr", "-g", "grp", "+connect"]) == 2


def test_refused_credentials_and_acl_denials_are_recognised() -> None:
    assert not_authorized(KafkaException(KafkaError(KafkaError._AUTHENTICATION)))
    assert not_authorized(KafkaException(KafkaError(KafkaError.TOPIC_AUTHORIZATION_FAILED)))
    assert not_authorized(redis.exceptions.NoPermissionError("NOPERM"))
    assert not_authorized(redis.exceptions.AuthenticationError("WRONGPASS"))
    assert not not_authorized(KafkaException(KafkaError(KafkaError._TRANSPORT)))
    assert not not_authorized(redis.ConnectionError("refused"))
    assert not not_authorized(KafkaException("no KafkaError inside"))


def _redis_wrapping(err: OSError) -> redis.ConnectionError:
    """What redis-py raises for a socket error while connecting: its ConnectionError,
    raised while handling the OSError (so the OSError is its __context__)."""
    try:
        raise err
    except OSError:
        try:
            raise redis.ConnectionError("Error 1 connecting to 127.0.0.1:6380.")
        except redis.ConnectionError as wrapped:
            return wrapped


def test_refused_tls_handshakes_are_told_from_unreachable_servers() -> None:
    assert tls_failed(KafkaException(KafkaError(KafkaError._SSL, "SSL handshake failed")))
    # librdkafka's words for the broker refusing a missing client certificate (measured).
    alert = (
        "ssl://127.0.0.1:19301/bootstrap: Receive failed: error:0A000412:SSL routines::"
        "ssl/tls alert bad certificate: SSL alert number 42 (after 0ms in state APIVERSION_QUERY)"
    )
    assert tls_failed(KafkaException(KafkaError(KafkaError._TRANSPORT, alert)))
    assert not tls_failed(KafkaException(KafkaError(KafkaError._TRANSPORT, "Connection refused")))
    verify = ssl.SSLCertVerificationError(1, "certificate verify failed")
    assert tls_failed(_redis_wrapping(verify))
    assert tls_failed(_redis_wrapping(ssl.SSLError(1, "tlsv13 alert certificate required")))
    # The transport, not the certificates: a server gone, or going, mid-handshake.
    assert not tls_failed(_redis_wrapping(ssl.SSLEOFError(8, "EOF in violation of protocol")))
    assert not tls_failed(_redis_wrapping(ConnectionRefusedError(111, "refused")))
    assert not tls_failed(KafkaException(KafkaError(KafkaError._TRANSPORT)))
    assert not tls_failed(KafkaException(KafkaError(KafkaError._AUTHENTICATION)))
    assert not not_authorized(KafkaException(KafkaError(KafkaError._SSL)))


class _TlsRefusedLog(MemoryLog):
    def check_reachable(self) -> None:
        raise KafkaException(KafkaError(KafkaError._SSL, "SSL handshake failed"))


class _TlsRefusedStore(MemoryStore):
    def ping(self) -> None:
        raise _redis_wrapping(ssl.SSLCertVerificationError(1, "certificate verify failed"))


def test_refused_tls_handshake_at_mqconn_is_2393(world, qmgr_name: str) -> None:
    clock = world.clock
    for log, store in (
        (_TlsRefusedLog(clock, world.cluster), MemoryStore(qmgr_name, clock.now_ms, world.server)),
        (MemoryLog(clock, world.cluster), _TlsRefusedStore(qmgr_name, clock.now_ms, world.server)),
    ):
        with pytest.raises(pymqi.MQMIError) as exc:
            pymqi.QueueManager(qmgr_name, log_backend=log, store=store, clock=clock)
        assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_SSL_INITIALIZATION_ERROR)


class _RefusingLog(MemoryLog):
    def check_reachable(self) -> None:
        raise KafkaException(KafkaError(KafkaError._AUTHENTICATION, "bad credentials"))


class _RefusingStore(MemoryStore):
    def ping(self) -> None:
        raise redis.exceptions.AuthenticationError("invalid username-password pair")


def test_refused_credentials_at_mqconn_are_2035(world, qmgr_name: str) -> None:
    clock = world.clock
    for log, store in (
        (_RefusingLog(clock, world.cluster), MemoryStore(qmgr_name, clock.now_ms, world.server)),
        (MemoryLog(clock, world.cluster), _RefusingStore(qmgr_name, clock.now_ms, world.server)),
    ):
        with pytest.raises(pymqi.MQMIError) as exc:
            pymqi.QueueManager(qmgr_name, log_backend=log, store=store, clock=clock)
        assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_NOT_AUTHORIZED)


def test_mqcsp_user_id_without_a_password_on_a_sasl_cluster_is_2035(
    world, qmgr_name: str, monkeypatch
) -> None:
    """MQCONNX's MQCSP user id with an empty password is no valid pair: 2035 at once,
    before any client is built (librdkafka refuses a SASL client without a password)."""
    monkeypatch.setenv("MQK_KAFKA_SECURITY_PROTOCOL", "SASL_SSL")
    monkeypatch.setenv("MQK_KAFKA_SASL_MECHANISM", "SCRAM-SHA-512")
    store = MemoryStore(qmgr_name, world.clock.now_ms, world.server)
    for credentials in (
        {"user": "app", "password": ""},
        {"csp": pymqi.CSP(CSPUserId="app", CSPPassword="")},
    ):
        qm = pymqi.QueueManager(None, kafka_bootstrap="127.0.0.1:1", store=store)
        with pytest.raises(pymqi.MQMIError) as exc:
            qm.connect_with_options(qmgr_name, **credentials)
        assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_NOT_AUTHORIZED)


def test_redis_noperm_mid_call_is_2035(world, qmgr, monkeypatch) -> None:
    qmgr.define_queue("Q.NOPERM")
    q = pymqi.Queue(qmgr, "Q.NOPERM", OUT)

    def refuse(*args, **kwargs):
        raise redis.exceptions.NoPermissionError("NOPERM this user has no permissions")

    monkeypatch.setattr(QueueHandle, "put", refuse)
    with pytest.raises(pymqi.MQMIError) as exc:
        q.put(b"x")
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_NOT_AUTHORIZED)
