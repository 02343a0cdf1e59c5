"""Message properties as Kafka record headers, named as IBM's Kafka Connect MQ connectors
name them, and back.

IBM's connectors (github.com/ibm-messaging/kafka-connect-mq-source and -mq-sink):

- the source connector (``processor/JmsToKafkaHeaderConverter.java``, with
  ``mq.jms.properties.copy.to.kafka.headers=true``) makes one header per JMS property,
  named by the property's JMS name (``message.getPropertyNames()``: user properties
  without ``usr.``, the JMSX properties such as ``JMSXGroupID``, ``JMSXUserID``), its
  value the property as a typed Connect header (``addInt``, ``addBoolean``, ...; older
  releases ``addString(key, value.toString())``), which Kafka's default header converter
  (``SimpleHeaderConverter``) writes as UTF-8 text: ints as decimal text, booleans as
  ``true``/``false``. (It writes a ``byte[]`` -- only the ``JMS_IBM_MQMD_*`` byte
  fields are one -- as Base64 text; a BYTE_STRING property goes out here as its bytes.)
- the sink connector (``builders/KafkaToJmsHeaderConverter.java``) sets one JMS property
  per header, by the header's name, a null header value giving a null property, strings
  as they are (and ``JMS_IBM_MQMD_*`` names typed for the MQMD when MQMD writing is on).

So: a property goes out as a header named `properties.display_name` of it
(``usr.Color`` -> ``Color``, ``jms.Cid`` -> ``JMSCorrelationID``, ``a.b`` -> ``a.b``),
value as the connector writes it -- STRING UTF-8, BOOLEAN ``true``/``false``, integers
decimal, floats their shortest decimal text (``NaN``/``Infinity`` as Java writes them),
NULL a null header value, BYTE_STRING its raw bytes (JMS has no byte-string property).
The JMS names of the message descriptor that MQPUT writes (`PUT_DESCRIPTOR_NAMES`:
JMSCorrelationID and the JMSX names) go out the same way, before the properties
(`descriptor_headers`, held equal to the general `to_headers(props, put_descriptor(env))`).
Because text
loses the type, one more header, ``mqk.types``, lists ``name=dt`` pairs (the MQRFH2
``dt`` names, ``;``-separated) for every property that is not a string; a plain Kafka
consumer can ignore it, and an MQ getter gets the types back.

A header without a type in ``mqk.types`` comes back as a STRING property when its value
is UTF-8, a BYTE_STRING when it is not, NULL when the value is null. The JMS names that
have a fixed type (JMSXGroupSeq INT32, ...) are read as that type. The JMS names that
stand for MQMD fields and cannot be set as properties (JMSPriority, JMSDeliveryMode,
JMSMessageID, JMSTimestamp, JMSExpiration, JMSRedelivered, JMSXDeliveryCount,
JMSXUserID, JMSXAppID) come back in ``descriptor`` as text, for the engine to apply to
the MQMD. A header whose name is not a valid MQ property name (``content-type``) or whose
value does not read as its type is left out and listed in ``skipped``.

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from adapter.core import cmqc as C  # noqa: N812 (the project-wide alias)
from adapter.core.errors import MQMIError
from adapter.core.properties import (
    JMS_SYNONYMS,
    MessageProperties,
    Property,
    descriptor_properties,
    display_name,
    float_text,
)
from adapter.core.rfh2 import DT_OF_TYPE
from adapter.core.text import mqstr

__all__ = [
    "PUT_DESCRIPTOR_NAMES",
    "TYPES_HEADER",
    "HeaderProperties",
    "descriptor_headers",
    "from_headers",
    "header_value",
    "property_headers",
    "put_descriptor",
    "to_headers",
]

TYPES_HEADER = "mqk.types"
"""The header listing ``name=dt`` for the properties that are not strings."""

_NULL_DT = "null"
_TYPE_OF_DT = {dt: t for t, dt in DT_OF_TYPE.items()}
_TYPE_OF_DT.update({"string": C.MQTYPE_STRING, _NULL_DT: C.MQTYPE_NULL})

# JMS names that stand for MQMD fields and cannot be set as properties.
JMS_IBM_REPORTS = {
    "JMS_IBM_Report_Exception": C.MQRO_EXCEPTION_WITH_FULL_DATA,
    "JMS_IBM_Report_Expiration": C.MQRO_EXPIRATION_WITH_FULL_DATA,
    "JMS_IBM_Report_COA": C.MQRO_COA_WITH_FULL_DATA,
    "JMS_IBM_Report_COD": C.MQRO_COD_WITH_FULL_DATA,
    "JMS_IBM_Report_PAN": C.MQRO_PAN,
    "JMS_IBM_Report_NAN": C.MQRO_NAN,
    "JMS_IBM_Report_Pass_Msg_ID": C.MQRO_PASS_MSG_ID,
    "JMS_IBM_Report_Pass_Correl_ID": C.MQRO_PASS_CORREL_ID,
    "JMS_IBM_Report_Discard_Msg": C.MQRO_DISCARD_MSG,
}
"""The JMS_IBM_Report_* properties and the Report bits each may carry (its MQRO_*
value, or for COA/COD/EXCEPTION/EXPIRATION the _WITH_DATA / _WITH_FULL_DATA forms)."""

JMS_IBM_MQMD_NAMES = frozenset(
    {
        "JMS_IBM_Format",
        "JMS_IBM_MsgType",
        "JMS_IBM_Feedback",
        "JMS_IBM_Encoding",
        "JMS_IBM_Character_Set",
        "JMS_IBM_PutApplType",
        *JMS_IBM_REPORTS,
    }
)
"""IBM MQ JMS's provider-specific properties that map onto MQMD fields ("Mapping JMS
provider-specific fields"): a record's header of one of these names sets the field."""

DESCRIPTOR_NAMES = frozenset(
    {
        "JMSPriority",
        "JMSDeliveryMode",
        "JMSMessageID",
        "JMSTimestamp",
        "JMSExpiration",
        "JMSRedelivered",
        "JMSXDeliveryCount",
        "JMSXUserID",
        "JMSXAppID",
        "JMSDestination",
        # IBM MQ JMS's provider-specific properties that are MQMD fields (nativerecord.py)
        *JMS_IBM_MQMD_NAMES,
    }
)

Header = tuple[str, bytes | None]

PUT_DESCRIPTOR_NAMES = (
    "JMSCorrelationID",
    "JMSXUserID",
    "JMSXAppID",
    "JMSXGroupID",
    "JMSXGroupSeq",
)
"""The JMS names of the MQMD an MQPUT writes as headers beside the properties: the
JMSX properties the source connector copies (``getPropertyNames`` of a received JMS
message lists them; JMSXDeliveryCount only means something once a message is got, so
it is left out) and JMSCorrelationID, the one JMS header field a Kafka-native service
needs to match a reply (the issue names it). The connector itself puts no JMS header
field in a header (it can put JMSCorrelationID in the record key), so JMSPriority,
JMSDeliveryMode and JMSTimestamp are not written: the priority is the topic's (`.p<n>`),
the put time is the record's timestamp (LogAppendTime, within milliseconds of the put),
and every header costs the producer on every message (MQPUT with five properties fell
from 0.76-0.87 to 0.90-0.96 of a plain MQPUT without them, in one A/B). The MQ getter
reads all of them from the envelope; a native record's JMSPriority / JMSDeliveryMode /
JMSExpiration headers are still read (`core/nativerecord.py`)."""

_PUT_MD_FIELDS = (
    "CorrelId",
    "UserIdentifier",
    "PutApplName",
    "MsgFlags",
    "GroupId",
    "MsgSeqNumber",
)


def header_value(prop: Property) -> bytes | None:
    """The header value the connector would write for `prop`."""
    t, v = prop.type, prop.value
    if t == C.MQTYPE_NULL:
        return None
    if t == C.MQTYPE_BYTE_STRING:
        return bytes(v)
    if t == C.MQTYPE_BOOLEAN:
        return b"true" if v else b"false"
    if t in (C.MQTYPE_FLOAT32, C.MQTYPE_FLOAT64):
        return float_text(t, v).encode()
    if t == C.MQTYPE_STRING:
        return v.encode("utf-8")
    return str(v).encode()


def property_headers(props: Iterable[Property]) -> tuple[frozenset[str], list[Header]]:
    """The headers of the properties alone (``mqk.types`` last) and the names they use
    (``Root.MQMD.*`` names are not sent)."""
    names: set[str] = set()
    headers: list[Header] = []
    hints: list[str] = []
    for prop in props:
        if prop.name.startswith("Root.MQMD."):
            continue
        name = display_name(prop.name)
        names.add(name)
        headers.append((name, header_value(prop)))
        if prop.type == C.MQTYPE_NULL:
            hints.append(f"{name}={_NULL_DT}")
        elif prop.type != C.MQTYPE_STRING:
            hints.append(f"{name}={DT_OF_TYPE[prop.type]}")
    if hints:
        headers.append((TYPES_HEADER, ";".join(hints).encode("utf-8")))
    return frozenset(names), headers


def to_headers(
    props: Iterable[Property], descriptor: Mapping[str, Property] | None = None
) -> list[Header]:
    """The Kafka headers for a message's properties and (optionally) the JMS names of its
    descriptor (`properties.descriptor_properties`; ``Root.MQMD.*`` names are not sent).
    A property wins over a descriptor value of the same JMS name (as an MQRFH2 value wins
    in JMS). Order: descriptor names, then the properties in their order."""
    names, prop_headers = property_headers(props)
    headers: list[Header] = [
        (name, header_value(prop))
        for name, prop in (descriptor or {}).items()
        if name.startswith("JMS") and name not in names
    ]
    return headers + prop_headers


def put_descriptor(env: Mapping[str, Any]) -> dict[str, Property]:
    """The `PUT_DESCRIPTOR_NAMES` of an envelope (MQMD field names), for `to_headers`."""
    md = {f: env[f] for f in _PUT_MD_FIELDS if f in env}
    derived = descriptor_properties(md)
    return {n: derived[n] for n in PUT_DESCRIPTOR_NAMES if n in derived}


_GROUPED = C.MQMF_MSG_IN_GROUP | C.MQMF_LAST_MSG_IN_GROUP


def descriptor_headers(
    env: Mapping[str, Any], exclude: frozenset[str] = frozenset()
) -> list[Header]:
    """The headers `to_headers` writes for `put_descriptor(env)`, built straight from
    the envelope: MQPUT pays this on every message with properties, and the general
    path (every MQMD field as a property first) costs several times as much. A unit
    test holds the two equal. Names in `exclude` (the message's own properties) win."""
    out: list[Header] = []
    cid = env.get("CorrelId")
    if cid is not None and bytes(cid).ljust(24, b"\0") != C.MQCI_NONE:
        out.append(("JMSCorrelationID", b"ID:" + bytes(cid).ljust(24, b"\0").hex().encode()))
    if "UserIdentifier" in env:
        out.append(("JMSXUserID", mqstr(env["UserIdentifier"]).encode("utf-8")))
    if "PutApplName" in env:
        out.append(("JMSXAppID", mqstr(env["PutApplName"]).encode("utf-8")))
    if int(env.get("MsgFlags", 0) or 0) & _GROUPED:
        if "GroupId" in env:
            gid = bytes(env["GroupId"]).ljust(24, b"\0")
            out.append(("JMSXGroupID", b"ID:" + gid.hex().encode()))
        if "MsgSeqNumber" in env:
            out.append(("JMSXGroupSeq", str(int(env["MsgSeqNumber"])).encode()))
    if exclude:
        out = [h for h in out if h[0] not in exclude]
    return out


@dataclass
class HeaderProperties:
    """What `from_headers` read: the properties, the descriptor's JMS values (text) and
    the names of the headers it could not take."""

    properties: MessageProperties
    descriptor: dict[str, str] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)


def _parse_hints(raw: bytes | None) -> dict[str, int]:
    hints: dict[str, int] = {}
    if not raw:
        return hints
    for pair in raw.decode("utf-8", "replace").split(";"):
        name, sep, dt = pair.rpartition("=")
        if sep and dt in _TYPE_OF_DT:
            hints[name] = _TYPE_OF_DT[dt]
    return hints


def _read(ptype: int, raw: bytes | None) -> Any:
    if ptype == C.MQTYPE_NULL or raw is None:
        return None
    if ptype == C.MQTYPE_BYTE_STRING:
        return raw
    text = raw.decode("utf-8")  # UnicodeDecodeError is a ValueError
    if ptype == C.MQTYPE_STRING:
        return text
    if ptype == C.MQTYPE_BOOLEAN:
        t = text.strip().lower()
        if t in ("true", "1"):
            return True
        if t in ("false", "0"):
            return False
        raise ValueError(text)
    if ptype in (C.MQTYPE_FLOAT32, C.MQTYPE_FLOAT64):
        java = {"NaN": "nan", "Infinity": "inf", "-Infinity": "-inf"}
        return float(java.get(text.strip(), text))
    value = int(text)
    bits = {C.MQTYPE_INT8: 8, C.MQTYPE_INT16: 16, C.MQTYPE_INT32: 32, C.MQTYPE_INT64: 64}[ptype]
    if not -(1 << (bits - 1)) <= value < (1 << (bits - 1)):
        raise ValueError(text)
    return value


def _plain_type(raw: bytes | None) -> int:
    if raw is None:
        return C.MQTYPE_NULL
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return C.MQTYPE_BYTE_STRING
    return C.MQTYPE_STRING


def from_headers(headers: Iterable[tuple[str | bytes, bytes | str | None]]) -> HeaderProperties:
    """The properties an MQ getter sees for a record with `headers` (see the module text).
    Header values may be bytes, str (UTF-8) or None; a later header of the same name
    replaces an earlier one."""
    items: list[Header] = []
    for name, value in headers:
        if isinstance(name, bytes):
            name = name.decode("utf-8", "replace")
        if isinstance(value, str):
            value = value.encode("utf-8")
        items.append((name, value))
    hints: dict[str, int] = {}
    for name, value in items:
        if name == TYPES_HEADER:
            hints = _parse_hints(value)
    out = HeaderProperties(MessageProperties())
    for name, raw in items:
        if name == TYPES_HEADER:
            continue
        if name in DESCRIPTOR_NAMES:
            if raw is not None:
                try:
                    out.descriptor[name] = raw.decode("utf-8")
                except UnicodeDecodeError:
                    out.skipped.append(name)
            continue
        if name in JMS_SYNONYMS:
            ptype = JMS_SYNONYMS[name][1]
            if raw is None:
                ptype = C.MQTYPE_NULL
        else:
            ptype = hints.get(name, _plain_type(raw))
        try:
            out.properties.set(name, _read(ptype, raw), ptype)
        except (MQMIError, ValueError, TypeError, OverflowError):
            out.skipped.append(name)
    return out
