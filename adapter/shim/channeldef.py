"""Message channel definitions (DEFINE / ALTER / DELETE CHANNEL, CHLTYPE SDR and RCVR):
what a channel definition holds, its defaults and ranges, and where it lives.

Durable in the queue manager's compacted catalog topic beside the queues, under the key
``*CHANNEL:<name>`` (a '*' and a ':' no queue name may hold, like the queue manager
object's ``*QMGR``), and cached in the state store's catalog like the queue definitions;
`ChannelCatalog` writes and reads them through the queue catalog (catalog.py).

IBM's DEFINE CHANNEL (attributes per channel type, defaults, ranges):
https://www.ibm.com/docs/ja/SSFKSJ_8.0.0/com.ibm.mq.ref.adm.doc/q085520_.htm and the
channel attribute pages: BATCHSZ 1-9999, default 50 (SDR and RCVR; the two ends agree on
the lower); BATCHINT 0-999 999 999 ms, default 0
(https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_8.0.0/com.ibm.mq.ref.con.doc/q081700_.html);
BATCHLIM 0-999 999 KB, default 5000, 0 = no limit
(https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_8.0.0/com.ibm.mq.ref.con.doc/q114230_.html);
NPMSPEED FAST (default) or NORMAL (SDR and RCVR); XMITQ and CONNAME for a sender only;
BATCHINT / BATCHLIM are not attributes of a receiver (MQRCCF_BATCH_INT_WRONG_TYPE, 4087:
https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q049000_.html).

mqk's one addition, QMNAME on a sender (the keyword MQ gives a CLNTCONN channel for "the
queue manager to connect to"): MQ finds the partner by its network address, one
listener one queue manager; a Kafka cluster holds many queue managers, so the address
alone does not name one. Blank, the default, means the queue manager named like the
channel's transmission queue (MQ's own convention for naming transmission queues).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass, fields

from adapter.core import cmqc as C
from adapter.core import cmqxc as X
from adapter.core.errors import fail

CHANNEL_PREFIX = "*CHANNEL:"
SDR, RCVR = X.MQCHT_SENDER, X.MQCHT_RECEIVER
CHANNEL_TYPES = {"SDR": SDR, "RCVR": RCVR}
MQ_CHANNEL_NAME_LENGTH = 20
MQ_CONN_NAME_LENGTH = 264
MQ_CHANNEL_DESC_LENGTH = 64
# Attributes only a sender has (a receiver's DEFINE refuses them).
SENDER_ONLY = frozenset(
    {"xmit_q_name", "conn_name", "batch_interval", "batch_data_limit", "qmgr_name"}
)
_VALID = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._/%")


def channel_key(name: str) -> str:
    """The catalog key of channel `name`."""
    return CHANNEL_PREFIX + name


@dataclass
class ChannelDef:
    """One channel definition, with MQSC's names in the comments and MQ's defaults."""

    name: str
    channel_type: int = SDR  # CHLTYPE: MQCHT_SENDER or MQCHT_RECEIVER
    xmit_q_name: str = ""  # XMITQ (sender)
    conn_name: str = ""  # CONNAME (sender): blank / host(port)[,host(port)]
    batch_size: int = 50  # BATCHSZ
    batch_interval: int = 0  # BATCHINT, milliseconds (sender)
    batch_data_limit: int = 5000  # BATCHLIM, kilobytes, 0 = none (sender)
    npm_speed: int = X.MQNPMS_FAST  # NPMSPEED
    description: str = ""  # DESCR
    qmgr_name: str = ""  # QMNAME (mqk, sender): the partner; blank = named as XMITQ

    @property
    def is_sender(self) -> bool:
        return self.channel_type == SDR

    @property
    def partner(self) -> str:
        """The receiving queue manager of a sender channel."""
        return self.qmgr_name or self.xmit_q_name

    def validate(self) -> None:
        """ValueError for a value MQ refuses or a required one missing."""
        if not self.name or len(self.name) > MQ_CHANNEL_NAME_LENGTH or set(self.name) - _VALID:
            raise ValueError(f"channel name: 1-{MQ_CHANNEL_NAME_LENGTH} valid characters")
        if self.channel_type not in (SDR, RCVR):
            raise ValueError("CHLTYPE must be SDR or RCVR")
        if not 1 <= self.batch_size <= 9999:
            raise ValueError("BATCHSZ must be 1-9999")
        if not 0 <= self.batch_interval <= 999_999_999:
            raise ValueError("BATCHINT must be 0-999999999")
        if not 0 <= self.batch_data_limit <= 999_999:
            raise ValueError("BATCHLIM must be 0-999999")
        if self.npm_speed not in (X.MQNPMS_FAST, X.MQNPMS_NORMAL):
            raise ValueError("NPMSPEED must be FAST or NORMAL")
        if len(self.conn_name) > MQ_CONN_NAME_LENGTH:
            raise ValueError(f"CONNAME is at most {MQ_CONN_NAME_LENGTH} characters")
        if len(self.description) > MQ_CHANNEL_DESC_LENGTH:
            raise ValueError(f"DESCR is at most {MQ_CHANNEL_DESC_LENGTH} characters")
        if len(self.xmit_q_name) > C.MQ_Q_NAME_LENGTH:
            raise ValueError(f"XMITQ is at most {C.MQ_Q_NAME_LENGTH} characters")
        if len(self.qmgr_name) > C.MQ_Q_MGR_NAME_LENGTH:
            raise ValueError(f"QMNAME is at most {C.MQ_Q_MGR_NAME_LENGTH} characters")
        if self.is_sender and not self.xmit_q_name:
            raise ValueError("XMITQ is required for a sender channel")

    def check_type_attributes(self, given: set[str]) -> None:
        """ValueError for attributes the channel's type does not have."""
        if not self.is_sender:
            foreign = given & SENDER_ONLY
            if foreign:
                raise ValueError(f"attributes a receiver channel does not have: {sorted(foreign)}")

    def to_json(self) -> bytes:
        return json.dumps(asdict(self), sort_keys=True).encode()

    @classmethod
    def from_json(cls, raw: bytes) -> ChannelDef:
        data = json.loads(raw)
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


class CatalogObjects:
    """What ChannelCatalog needs of the queue catalog: durable, cached objects by key."""

    def write_object(self, key: str, raw: bytes | None) -> None: ...

    def read_object(self, key: str) -> bytes | None: ...

    def object_keys(self) -> list[str]: ...

    def claimed(self, key: str) -> AbstractContextManager[None]:
        """One definer of `key` at a time, across processes (shim/nameclaims.py)."""
        ...


class ChannelCatalog:
    """DEFINE / ALTER / DELETE CHANNEL and lookups, on a queue catalog. Each change
    runs holding the claim of the channel's catalog key: of two DEFINEs of one channel
    at once the second finds the first's (4001 without REPLACE), and an ALTER changes
    the definition it read."""

    def __init__(self, catalog: CatalogObjects) -> None:
        self.catalog = catalog

    def lookup(self, name: str) -> ChannelDef | None:
        raw = self.catalog.read_object(channel_key(name))
        return None if raw is None else ChannelDef.from_json(raw)

    def define(self, cdef: ChannelDef, replace: bool = False) -> ChannelDef:
        """DEFINE CHANNEL (REPLACE): 4001 if it exists without REPLACE, 4002 if REPLACE
        names a channel of another type (as DEFINE of a queue)."""
        cdef.validate()
        with self.catalog.claimed(channel_key(cdef.name)):
            existing = self.lookup(cdef.name)
            if existing is not None and not replace:
                raise fail(C.MQRCCF_OBJECT_ALREADY_EXISTS)
            if existing is not None and existing.channel_type != cdef.channel_type:
                raise fail(C.MQRCCF_OBJECT_WRONG_TYPE)
            self.catalog.write_object(channel_key(cdef.name), cdef.to_json())
            return cdef

    def alter(self, name: str, change: Callable[[ChannelDef], None]) -> ChannelDef:
        """ALTER CHANNEL / Change Channel: `change` (the face's checks, which raise its
        own errors, and the new values) applied to the definition as it is now, then
        validated and written. 2085 when there is no such channel."""
        with self.catalog.claimed(channel_key(name)):
            cdef = self.lookup(name)
            if cdef is None:
                raise fail(C.MQRC_UNKNOWN_OBJECT_NAME)
            change(cdef)
            return self.define(cdef, replace=True)

    def delete(self, name: str) -> None:
        with self.catalog.claimed(channel_key(name)):
            if self.lookup(name) is None:
                raise fail(C.MQRC_UNKNOWN_OBJECT_NAME)
            self.catalog.write_object(channel_key(name), None)

    def names(self) -> list[str]:
        n = len(CHANNEL_PREFIX)
        return sorted(k[n:] for k in self.catalog.object_keys() if k.startswith(CHANNEL_PREFIX))
