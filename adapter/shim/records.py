"""The one owner of message records on a queue's topics: the builder ((put plan, pieces,
MQMD fields, context) -> Kafka records) and the reader (record -> envelope).

MQPUT sends the built records; report messages, the dead-letter queue, the BOTHRESH
requeue and the read-ahead give-back write one whole envelope (`resend`). The envelope
format itself belongs to mqk_avro.codec.

Properties. The envelope's ``Properties`` field (core/propwire.py) is the source of
truth: typed, compact, read with the envelope in one decode, by the getter, the
selector and the Spark job alike, and by old records (schema v2) as new ones. A message
that has properties also carries them as Kafka record headers (core/kafkaheaders.py:
the names IBM's Kafka connectors use, text values, ``mqk.types`` for the types, and the
JMS names of `kafkaheaders.PUT_DESCRIPTOR_NAMES`) so a Kafka-native consumer reads them.
Kafka records cannot change, so the two never disagree. A message without properties
gets no header at all, and produce() is then called without the headers argument (even
headers=None costs confluent-kafka about a microsecond); with 5 properties the 10
headers cost about 5 us to render and 3.5 us of CPU in produce(), measured alone.

Envelope or native. A record is an envelope when its key is the key `record_key` gives
for the envelope its value decodes to (GroupId, else MsgId: 24 bytes): every record mqk
writes, of every schema version, is keyed so. A Kafka producer's record (no key, any
other key, or a value that is no envelope) is a native message (core/nativerecord.py):
the value is the data, the headers the properties. Accidental forgery would need a
value that decodes exactly as an envelope and a key equal to 24 bytes inside it. The
test costs no byte on the wire and one comparison per record read.

Corrupt or not. A record that is no envelope but is shaped like one -- a 24-byte key
that stands where an envelope keeps it, at the MsgId right after the version byte or at
the GroupId (bytes 49-72) -- was meant as an envelope: truncated, of a schema version
this reader does not know, or otherwise unreadable (`unreadable`). A producer's native
record would need its own key at that exact place in its value; an ObjectId-like
24-character key inside a JSON value is not at byte 1. Such a record, and an envelope
whose MQMD holds values MQPUT refuses (core/recordrules.py), is not delivered: the
getter moves it to the dead-letter queue (shim/corrupt.py).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Sequence
from typing import Any

from mqk_avro import codec

from adapter.core import cmqc as C
from adapter.core import kafkaheaders, nativerecord, propwire
from adapter.core.putrules import PutPlan
from adapter.core.segmentation import SegmentPlan
from adapter.shim.log import Headers
from adapter.shim.log import Record as LogRecord

Record = tuple[str, bytes, bytes, Headers | None]  # (topic, key, value, headers)
Header = tuple[str, bytes | None]

_ID_LEN = 24

log = logging.getLogger("mqk.shim.records")


def record_key(group_id: bytes, msg_id: bytes) -> bytes:
    """The Kafka key: the GroupId for groups and segments (one partition per group, so
    a group keeps its physical order), else the MsgId."""
    return group_id if group_id != C.MQGI_NONE else msg_id


def build(
    topic: str,
    plan: PutPlan,
    pieces: Sequence[SegmentPlan],
    fields: dict[str, Any],
    context: dict[str, Any],
    payload: bytes,
    msg_id: bytes,
    new_msg_id: Callable[[], bytes],
) -> list[Record]:
    """The physical messages of one put. `fields` are the MQMD fields the put stores
    (everything but MsgId, GroupId, MsgSeqNumber, Offset, MsgFlags and the context);
    the first piece keeps `msg_id`, later segments get new ones, as MQ's segmentation."""
    base = dict(fields)
    base.setdefault("Properties", b"")  # reports and requeues carry none of their own
    base["GroupId"] = plan.group_id
    base["MsgSeqNumber"] = plan.seq
    base.update(context)
    key = record_key(plan.group_id, msg_id)
    headers = headers_of({**base, "MsgFlags": pieces[0].flags}) if base["Properties"] else None
    if len(pieces) == 1 and pieces[0].start == 0 and pieces[0].length == len(payload):
        # The common case, one physical message: no copy of the envelope or the payload.
        base["MsgId"] = msg_id
        base["Offset"] = pieces[0].offset
        base["MsgFlags"] = pieces[0].flags
        base["Payload"] = payload
        return [(topic, key, codec.encode(base), headers)]
    view = memoryview(payload)
    out = []
    for i, piece in enumerate(pieces):
        env = dict(base)
        env["MsgId"] = msg_id if i == 0 else new_msg_id()
        env["Offset"] = piece.offset
        env["MsgFlags"] = piece.flags
        env["Payload"] = bytes(view[piece.start : piece.start + piece.length])
        out.append((topic, key, codec.encode(env), headers))
    return out


@functools.lru_cache(maxsize=256)
def _property_headers(packed: bytes) -> tuple[frozenset[str], tuple[Header, ...]]:
    """The property headers of packed properties. Cached: an application usually puts
    the same properties again and again (one message handle), and unpacking and
    rendering them is most of what headers cost a put."""
    names, headers = kafkaheaders.property_headers(propwire.unpack(packed))
    return names, tuple(headers)


def headers_of(env: dict[str, Any]) -> Headers | None:
    """The Kafka headers of an envelope with properties (None without): the JMS names
    of its MQMD, then its properties, as `kafkaheaders.to_headers` writes them. The
    descriptor headers of a group's or a segment's pieces are those of the first."""
    packed = env.get("Properties")
    if not packed:
        return None
    try:
        names, props = _property_headers(bytes(packed))
    except propwire.PropertiesWireError:
        # An old record whose properties cannot be read: the getter reports it; the
        # copy carries the bytes on in the envelope, with no headers.
        return None
    return kafkaheaders.descriptor_headers(env, names) + list(props)


def resend(topic: str, env: dict[str, Any]) -> Record:
    """An envelope written again as it is (moved to a requeue queue, or a read-ahead
    message given back): same MQMD, same put time, same key rule, its headers again."""
    key = record_key(env["GroupId"], env["MsgId"])
    return (topic, key, codec.encode(env), headers_of(env))


def envelope_of(key: bytes | None, value: bytes | None) -> dict[str, Any] | None:
    """The envelope a record holds, or None when it is a native record (see the module
    text for the rule)."""
    if key is None or len(key) != _ID_LEN or not value:
        return None
    try:
        env = codec.decode(value)
    except codec.EnvelopeError:
        return None
    return env if record_key(env["GroupId"], env["MsgId"]) == key else None


def unreadable(key: bytes | None, value: bytes | None) -> str | None:
    """Why a record that `envelope_of` found no envelope in was still meant as one (see
    the module text), None for a native record."""
    if key is None or len(key) != _ID_LEN or not value or len(value) <= _ID_LEN:
        return None
    if value[1 : 1 + _ID_LEN] != key and value[1 + 2 * _ID_LEN : 1 + 3 * _ID_LEN] != key:
        return None
    try:
        codec.decode(value)
    except codec.EnvelopeError as exc:
        return str(exc)
    return None  # an envelope under the wrong one of its two ids: data, as before


def native_envelope(msg: LogRecord, priority: int, def_persistence: int) -> dict[str, Any]:
    """The envelope of a native record: its MQMD (core/nativerecord.py), its properties
    packed into ``Properties`` (so every reader sees one shape), its value as the data
    (None, a tombstone, is an empty message)."""
    native = nativerecord.native_message(
        msg.topic(),
        msg.partition(),
        msg.offset(),
        msg.timestamp()[1],
        priority,
        msg.headers(),
        def_persistence,
    )
    if native.headers.skipped:
        log.debug(
            "native record %s:%d@%d: headers not taken as properties: %s",
            msg.topic(),
            msg.partition(),
            msg.offset(),
            native.headers.skipped,
        )
    return codec.new_envelope(
        **native.fields,
        Properties=propwire.pack(native.headers.properties),
        Payload=msg.value() or b"",
    )
