"""MQ's authority answers from the servers' own security: Kafka ACLs and SASL, Redis
ACL users. A server that refuses the credentials, or the principal an operation, gives
MQRC_NOT_AUTHORIZED (2035), never a generic connection error.

IBM, 2035 (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041060_.html): "On an
MQCONN or MQCONNX call, the user is not authorized to connect to the queue manager ...
An invalid user ID or password was specified"; "On an MQOPEN or MQPUT1 call, the user
is not authorized to open the object for the option(s) specified". A wrong password
is therefore 2035 on MQCONN (as a queue manager with CONNAUTH answers it), not 2063
MQRC_SECURITY_ERROR, which IBM keeps for a failure of the security machinery itself.

MQOPEN asks the broker which operations the principal holds on the queue's topics
(DescribeTopics with authorized operations, KIP-430) and refuses an open whose options
need an authority the ACLs do not carry (core/oam.py's mapping): a user allowed to put
but not get gets 2035 on MQOPEN for input, not on the first MQGET.

A TLS handshake that fails (a server certificate the client's CA does not sign, a
client certificate the server requires and does not get or does not trust) is 2393
MQRC_SSL_INITIALIZATION_ERROR on MQCONN. IBM, 2393
(https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q044210_.html): "An MQCONN or
MQCONNX call was issued with TLS configuration options specified, but an error occurred
during the initialization of the TLS environment"; it is what an MQ client gets when its
channel's handshake fails on certificates (IBM's MQ team lists "certificate (or signing
cert from CA) not in partner's keystore" among its common causes:
https://github.com/ibm-messaging/mq-jms-spring/issues/56). Not 2538: the host answered,
so no retry can help, and the application must fix its TLS settings.
"""

from __future__ import annotations

import logging
import ssl

import redis
from confluent_kafka import KafkaError, KafkaException

from adapter.core import cmqc as C
from adapter.core import oam
from adapter.core.errors import fail
from adapter.shim import naming
from adapter.shim.log import Log

log = logging.getLogger("mqk.shim.authority")

# librdkafka's and Kafka's codes for refused credentials and refused operations.
KAFKA_NOT_AUTHORIZED = frozenset(
    {
        KafkaError._AUTHENTICATION,
        KafkaError.SASL_AUTHENTICATION_FAILED,
        KafkaError.TOPIC_AUTHORIZATION_FAILED,
        KafkaError.GROUP_AUTHORIZATION_FAILED,
        KafkaError.CLUSTER_AUTHORIZATION_FAILED,
        KafkaError.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
    }
)
# Redis: WRONGPASS / "invalid username-password pair" and NOPERM (an ACL user's
# command, key or channel refused).
REDIS_NOT_AUTHORIZED = (redis.exceptions.AuthenticationError, redis.exceptions.NoPermissionError)


# A refused TLS handshake. Kafka: librdkafka's _SSL ("SSL handshake failed: ...": this
# client refused the server's certificate), or a _TRANSPORT failure carrying the
# server's TLS alert ("... ssl/tls alert bad certificate: SSL alert number 42": with TLS
# 1.3 the server refuses a missing or untrusted client certificate after the client's
# side of the handshake is done, so librdkafka sees it on its first receive). Redis:
# redis-py's ConnectionError raised while handling Python's ssl.SSLError. Not an EOF or
# a bare socket error in the handshake: those are the transport (a server going away
# mid-handshake), which may pass.
_KAFKA_TLS_ALERT = "SSL alert number"
_TLS_TRANSPORT = (ssl.SSLEOFError, ssl.SSLZeroReturnError, ssl.SSLSyscallError)


def kafka_tls_refused(err: KafkaError) -> bool:
    """Whether librdkafka's error is a TLS handshake refused on certificates."""
    code = err.code()
    return code == KafkaError._SSL or (
        code == KafkaError._TRANSPORT and _KAFKA_TLS_ALERT in (err.str() or "")
    )


def _chain(exc: BaseException | None):
    """`exc` and what it wraps (cause, else context), each once."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__


def _kafka_error(exc: BaseException) -> KafkaError | None:
    if isinstance(exc, KafkaException) and exc.args and isinstance(exc.args[0], KafkaError):
        return exc.args[0]
    return None


def _kafka_code(exc: BaseException) -> int | None:
    err = _kafka_error(exc)
    return None if err is None else err.code()


def not_authorized(exc: BaseException) -> bool:
    """Whether a backend failure is the servers' security refusing the caller."""
    return any(
        isinstance(e, REDIS_NOT_AUTHORIZED) or _kafka_code(e) in KAFKA_NOT_AUTHORIZED
        for e in _chain(exc)
    )


def tls_failed(exc: BaseException) -> bool:
    """Whether a backend failure is a TLS handshake refused on certificates (either
    side), as opposed to a server that cannot be reached."""
    for e in _chain(exc):
        err = _kafka_error(e)
        if err is not None and kafka_tls_refused(err):
            return True
        if isinstance(e, ssl.SSLError) and not isinstance(e, _TLS_TRANSPORT):
            return True
    return False


class QueueAuthority:
    """The MQOPEN check of one connection against the Kafka ACLs."""

    def __init__(self, log_backend: Log, qmgr: str) -> None:
        self.log = log_backend
        self.qmgr = qmgr

    def check_open(self, queue: str, options: int) -> None:
        """MQRC_NOT_AUTHORIZED if the principal lacks an authority `options` need.
        Nothing is asked of a cluster that enforces no ACLs (plaintext, no authorizer)."""
        needed = oam.authorities_for_open(options)
        if not needed:
            return
        topics = {
            oam.DATA: naming.data_topic(self.qmgr, queue, 0),
            oam.ACKS: naming.ack_topic(self.qmgr, queue),
        }
        held = self.log.authorized_operations(list(topics.values()))
        if held is None:
            return
        granted = {kind: held.get(topic, set()) for kind, topic in topics.items()}
        missing = oam.missing_authority(options, granted)
        if missing is not None:
            log.warning(
                "MQOPEN of %s: the Kafka ACLs carry no +%s authority for this principal "
                "(MQRC_NOT_AUTHORIZED)",
                queue,
                missing,
            )
            raise fail(C.MQRC_NOT_AUTHORIZED)
