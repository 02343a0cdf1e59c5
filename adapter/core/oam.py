"""MQ's object authorities (the OAM's setmqaut authorizations) and the Kafka ACLs that
carry them. Pure: topic names come in from the caller (the engine's naming).

IBM: "Authorizations for MQI calls" (https://ibm.com/docs/SSFKSJ_9.3.0/refadmin/q083510_.html):
browse "Retrieve a message from a queue using an MQGET call with the BROWSE option",
get "Retrieve a message from a queue using an MQGET call", inq "Make an inquiry on a
specific queue using an MQINQ call", put "Put a message on a specific queue using an
MQPUT call", set "Set attributes on a queue from the MQI using an MQSET call", connect
"Connect the application to the specified queue manager"; "If you open a queue for
multiple options, you must be authorized for each option." setmqaut's list of
+/- authorizations, with `allmqi` and `all` as groups:
https://www.ibm.com/support/knowledgecenter/SSFKSJ_9.1.0/com.ibm.mq.ref.adm.doc/q083500_.html
MQOPEN checks them: MQRC_NOT_AUTHORIZED (2035) "On an MQOPEN or MQPUT1 call, the user
is not authorized to open the object for the option(s) specified"
(https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041060_.html).

A queue is ten data topics (`p0`..`p9`) and an ack topic; Kafka's operations on them
(https://kafka.apache.org/documentation/#operations_resources_and_protocols):

| MQ authority | MQOPEN option | Kafka ACLs (ALLOW, for the principal) |
|---|---|---|
| +put | MQOO_OUTPUT, MQPUT1 | WRITE on the data topics |
| +get | MQOO_INPUT_* | READ on the data topics; READ, WRITE on the ack topic |
| +browse | MQOO_BROWSE | READ on the data topics; READ on the ack topic |
| +inq | MQOO_INQUIRE | DESCRIBE, DESCRIBE_CONFIGS on the data topics |
| +set | MQOO_SET | ALTER_CONFIGS on the data topics; WRITE on the catalog topic |
| +connect (qmgr) | MQCONN | READ on the catalog; WRITE on txn ids `mqk.<QM>.*`; groups `mqk-*` |

Kafka implies DESCRIBE from READ and WRITE. What Kafka cannot express per queue: the
catalog topic holds every queue's definition, so +set on one queue lets its holder
write the catalog of the whole queue manager (MQSET's new definition goes there).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from adapter.core import cmqc as C

QUEUE_AUTHORITIES = ("browse", "get", "inq", "put", "set")
QMGR_AUTHORITIES = ("connect", "inq")
# setmqaut's groups: allmqi = every MQI authorization of the object type; all = allmqi
# plus the administration ones (this mapping has none for queues beyond allmqi).
_GROUPS = {"allmqi": QUEUE_AUTHORITIES, "all": QUEUE_AUTHORITIES, "none": ()}

DATA, ACKS, CATALOG = "data", "acks", "catalog"
# What each queue authority needs, by topic kind.
_NEEDS: dict[str, dict[str, frozenset[str]]] = {
    "put": {DATA: frozenset({"WRITE"})},
    "get": {DATA: frozenset({"READ"}), ACKS: frozenset({"READ", "WRITE"})},
    "browse": {DATA: frozenset({"READ"}), ACKS: frozenset({"READ"})},
    "inq": {DATA: frozenset({"DESCRIBE", "DESCRIBE_CONFIGS"})},
    "set": {DATA: frozenset({"ALTER_CONFIGS"}), CATALOG: frozenset({"WRITE"})},
}
# Probed at MQOPEN (the catalog's WRITE for +set is checked when MQSET writes).
_PROBED = {DATA, ACKS}


@dataclass(frozen=True)
class AclRow:
    """One Kafka ACL binding, with Kafka's own names (kafka-acls' output)."""

    resource_type: str  # TOPIC, GROUP, TRANSACTIONAL_ID
    name: str
    pattern: str  # LITERAL, PREFIXED
    principal: str
    operation: str
    permission: str = "ALLOW"
    host: str = "*"


def parse_authorities(tokens: Iterable[str]) -> tuple[set[str], set[str]]:
    """setmqaut's authorization list for a queue: (granted, revoked). Each token is
    `+name` or `-name`; `allmqi` / `all` expand; anything else is a ValueError."""
    grant: set[str] = set()
    revoke: set[str] = set()
    for token in tokens:
        sign, name = token[:1], token[1:].lower()
        if sign not in "+-" or not sign:
            raise ValueError(f"authorization {token!r} must start with + or -")
        names = _GROUPS.get(name, (name,) if name in QUEUE_AUTHORITIES else None)
        if names is None:
            raise ValueError(f"authorization {token!r} is not valid for a queue")
        (grant if sign == "+" else revoke).update(names)
    return grant - revoke, revoke


def authorities_for_open(options: int) -> list[str]:
    """The queue authorities an MQOPEN with `options` needs (IBM: each option's)."""
    needed = []
    if options & (C.MQOO_INPUT_AS_Q_DEF | C.MQOO_INPUT_SHARED | C.MQOO_INPUT_EXCLUSIVE):
        needed.append("get")
    if options & C.MQOO_BROWSE:
        needed.append("browse")
    if options & C.MQOO_OUTPUT:
        needed.append("put")
    if options & C.MQOO_INQUIRE:
        needed.append("inq")
    if options & C.MQOO_SET:
        needed.append("set")
    return needed


def probed_operations(authority: str) -> dict[str, frozenset[str]]:
    """The Kafka operations, by topic kind, MQOPEN checks for `authority`."""
    return {k: ops for k, ops in _NEEDS[authority].items() if k in _PROBED}


def missing_authority(options: int, granted: dict[str, set[str]]) -> str | None:
    """The first authority the open needs that `granted` (Kafka operations the
    principal holds, by topic kind) does not carry; None when all are there."""
    for authority in authorities_for_open(options):
        for kind, ops in probed_operations(authority).items():
            if not ops <= granted.get(kind, set()):
                return authority
    return None


def queue_acls(
    principal: str,
    authorities: Iterable[str],
    data_topics: list[str],
    ack_topic: str,
    catalog_topic: str,
) -> list[AclRow]:
    """The ACL bindings that carry `authorities` on one queue, each once, in a stable
    order (by topic kind, then topic, then operation)."""
    topics = {DATA: data_topics, ACKS: [ack_topic], CATALOG: [catalog_topic]}
    wanted: dict[tuple[str, str], None] = {}
    for authority in sorted(set(authorities)):
        for kind, ops in _NEEDS[authority].items():
            for topic in topics[kind]:
                for op in sorted(ops):
                    wanted[(topic, op)] = None
    order = {t: i for i, t in enumerate([*data_topics, ack_topic, catalog_topic])}
    return [
        AclRow("TOPIC", topic, "LITERAL", _user(principal), op)
        for topic, op in sorted(wanted, key=lambda k: (order[k[0]], k[1]))
    ]


def connect_acls(principal: str, catalog_topic: str, txn_prefix: str) -> list[AclRow]:
    """+connect on the queue manager: read its catalog, use transactional ids of its
    own (units of work) and the reader groups (never joined, but named)."""
    user = _user(principal)
    return [
        AclRow("TOPIC", catalog_topic, "LITERAL", user, "READ"),
        AclRow("TRANSACTIONAL_ID", txn_prefix, "PREFIXED", user, "WRITE"),
        AclRow("GROUP", "mqk-", "PREFIXED", user, "READ"),
    ]


def _user(principal: str) -> str:
    return principal if ":" in principal else f"User:{principal}"


def kafka_acls_text(rows: list[AclRow]) -> str:
    """The rows as `kafka-acls.sh --add` prints them: one block per resource pattern."""
    blocks: dict[tuple[str, str, str], list[AclRow]] = {}
    for row in rows:
        blocks.setdefault((row.resource_type, row.name, row.pattern), []).append(row)
    out = []
    for (kind, name, pattern), group in blocks.items():
        out.append(
            f"Adding ACLs for resource `ResourcePattern(resourceType={kind}, name={name}, "
            f"patternType={pattern})`: "
        )
        for r in group:
            out.append(
                f" \t(principal={r.principal}, host={r.host}, operation={r.operation}, "
                f"permissionType={r.permission}) "
            )
        out.append("")
    return "\n".join(out)
