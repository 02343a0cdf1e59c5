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
"""

from __future__ import annotations

import logging

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


def not_authorized(exc: BaseException) -> bool:
    """Whether a backend failure is the servers' security refusing the caller."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:  # the cause may be wrapped
        seen.add(id(exc))
        if isinstance(exc, REDIS_NOT_AUTHORIZED):
            return True
        if isinstance(exc, KafkaException) and exc.args:
            err = exc.args[0]
            if isinstance(err, KafkaError) and err.code() in KAFKA_NOT_AUTHORIZED:
                return True
        exc = exc.__cause__ or exc.__context__
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
