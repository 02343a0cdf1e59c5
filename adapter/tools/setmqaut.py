"""`mqk setmqaut`: MQ's setmqaut for queues and the queue manager, as Kafka ACLs.

    mqk setmqaut -m QM1 -n ORDERS -t queue -p bob -- +put -get   # `--`: -get is no flag
    mqk setmqaut -m QM1 -t qmgr -p bob +connect
    mqk setmqaut ... --apply          # also create / delete them through the admin API

prints the ACL bindings that carry the authorities (core/oam.py's mapping) the way
`kafka-acls.sh --add` / `--remove` prints them; `--apply` creates the granted ones and
deletes the revoked ones (the Kafka client settings of the environment must be an
administrator's: MQK_KAFKA_CONFIG). setmqaut's syntax (-m, -n, -t, -p, +/- authorities):
https://www.ibm.com/support/knowledgecenter/SSFKSJ_9.1.0/com.ibm.mq.ref.adm.doc/q083500_.html
Group principals (-g) have no Kafka counterpart (Kafka's principals are users) and are
refused.
"""

from __future__ import annotations

import argparse
import sys

from adapter import config
from adapter.core import oam
from adapter.shim import naming
from adapter.shim.kafka_log import KafkaLog

_QUEUE_TYPES = {"queue", "q"}
_QMGR_TYPES = {"qmgr"}


def acl_rows(
    qmgr: str, object_type: str, name: str | None, principal: str, tokens: list[str]
) -> tuple[list[oam.AclRow], list[oam.AclRow]]:
    """(bindings to add, bindings to remove) for one setmqaut command."""
    catalog = naming.catalog_topic(qmgr)
    if object_type in _QMGR_TYPES:
        grant, revoke = _qmgr_authorities(tokens)
        rows = oam.connect_acls(principal, catalog, f"mqk.{qmgr}.")
        return (rows if "connect" in grant else []), (rows if "connect" in revoke else [])
    if object_type not in _QUEUE_TYPES:
        raise ValueError(f"object type {object_type!r}: queue or qmgr")
    if not name:
        raise ValueError("a queue needs its profile name (-n)")
    grant, revoke = oam.parse_authorities(tokens)
    data = [naming.data_topic(qmgr, name, p) for p in naming.PRIORITIES]
    acks = naming.ack_topic(qmgr, name)
    add = oam.queue_acls(principal, grant, data, acks, catalog)
    # A binding a granted authority also needs stays (+browse -get keeps READ).
    kept = set(add)
    return add, [r for r in oam.queue_acls(principal, revoke, data, acks, catalog) if r not in kept]


def _qmgr_authorities(tokens: list[str]) -> tuple[set[str], set[str]]:
    grant, revoke = set(), set()
    for token in tokens:
        sign, auth = token[:1], token[1:].lower()
        if sign not in ("+", "-") or auth not in ("connect", "all", "allmqi"):
            raise ValueError(f"authorization {token!r} is not mapped for a queue manager")
        (grant if sign == "+" else revoke).add("connect")
    return grant - revoke, revoke


def _run(args: argparse.Namespace) -> int:
    if args.group:
        print("mqk setmqaut: -g: Kafka has no group principals; name users with -p",
              file=sys.stderr)  # fmt: skip
        return 2
    try:
        add, remove = acl_rows(args.m, args.t.lower(), args.n, args.p, args.authorities)
    except ValueError as exc:
        print(f"mqk setmqaut: {exc}", file=sys.stderr)
        return 2
    if add:
        print(oam.kafka_acls_text(add))
    if remove:
        print(oam.kafka_acls_text(remove).replace("Adding ACLs", "Removing ACLs"))
    if args.apply:
        klog = KafkaLog(config.endpoints().kafka_bootstrap)
        klog.alter_acls(add, add=True)
        klog.alter_acls(remove, add=False)
        klog.close()
        print(f"applied: {len(add)} added, {len(remove)} removed")
    return 0


def add_parser(subparsers) -> None:
    """`mqk setmqaut`: entry point `setmqaut` of the group `mqk.commands`."""
    p = subparsers.add_parser(
        "setmqaut",
        help="setmqaut for queues / the queue manager: print (or --apply) the Kafka ACLs",
        description="Grant (+auth) or revoke (-auth) MQ authorities as Kafka ACL bindings: "
        "put, get, browse, inq, set, allmqi, all for a queue; connect for qmgr.",
    )
    p.add_argument("-m", required=True, metavar="QMGR", help="queue manager name")
    p.add_argument("-n", metavar="PROFILE", help="the queue's name")
    p.add_argument("-t", required=True, metavar="TYPE", help="queue (q) or qmgr")
    p.add_argument("-p", metavar="PRINCIPAL", help="the Kafka user (User:<name> or <name>)")
    p.add_argument("-g", dest="group", metavar="GROUP", help="refused: no Kafka groups")
    p.add_argument("--apply", action="store_true", help="create / delete them on the cluster")
    p.add_argument("authorities", nargs="+", metavar="+AUTH|-AUTH")
    p.set_defaults(func=_run)
