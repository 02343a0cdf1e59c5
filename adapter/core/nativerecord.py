"""A record a Kafka producer wrote to a queue's topic without the mqk envelope, seen as an
MQ message: its MQMD fields and properties. Pure: no I/O.

The record's value is the message data and its headers its properties
(`kafkaheaders.from_headers`, the names IBM's Kafka connectors use). The descriptor
fields come from the JMS names that stand for MQMD fields, as IBM MQ maps them when a
JMS message arrives ("Mapping IBM MQ fields onto JMS fields (incoming messages)" and
"JMS fields and properties with corresponding MQMD fields", IBM MQ 9.4):

- JMSCorrelationID -> CorrelId: ``ID:`` + hex digits are the identifier's bytes; any
  other text its UTF-8 bytes (both NUL-padded or cut to 24). The header also stays the
  ``jms.Cid`` property, as an MQRFH2 ``jms`` folder value beside the MQMD would;
- JMSDeliveryMode -> Persistence (2 PERSISTENT, 1 NON_PERSISTENT); absent: the queue's
  DEFPSIST, as an MQPUT with MQPER_PERSISTENCE_AS_Q_DEF;
- JMSExpiration (absolute ms, 0 = never) -> Expiry in tenths of a second from the put
  time, at least 1 (MQ's smallest lifetime), unlimited when 0 or absent;
- JMSXUserID -> UserIdentifier, JMSXAppID -> PutApplName (cut to their MQCHAR lengths).
- IBM MQ JMS's provider-specific properties ("Mapping JMS provider-specific fields",
  https://www.ibm.com/docs/en/ibm-mq/9.4.x?topic=messages-mapping-jms-provider-specific-fields):
  JMS_IBM_Format -> Format, JMS_IBM_MsgType -> MsgType, JMS_IBM_Feedback -> Feedback,
  JMS_IBM_Encoding -> Encoding, JMS_IBM_PutApplType -> PutApplType (integers in decimal
  text), JMS_IBM_Character_Set -> CodedCharSetId (a Java character-set name such as
  ``UTF-8`` or ``IBM037``, or a CCSID in decimal), each JMS_IBM_Report_* OR-ed into
  Report (its MQRO_* value). A value that does not read as its field's is left out and
  listed as skipped; the field keeps its default.

Priority is the topic's (``.p<n>``): it decides the message's place among the others,
so MD.Priority agrees with the order MQGET delivers in. A JMSPriority header is not
read. PutDate/PutTime come from the record timestamp, as the queue manager's put time.

Without those headers, Format is MQFMT_NONE, as the sink connector's
DefaultMessageBuilder writes a byte-array value (a BytesMessage, "Outgoing message
format MQFMT_NONE" in the connector's README): a Kafka value carries no type, so bytes
it is, and the application decides, as with any MQFMT_NONE message. CodedCharSetId is
1208 (UTF-8, what a Kafka client writes text in). The message is a datagram, in no
group, not segmented.

MsgId: 24 bytes from (topic, partition, offset) (12 bytes of the topic's BLAKE2b hash,
the partition as 4 bytes and the offset as 8, big-endian), so every reader, and a rebuild
after the state was lost, gives one record the same identifier.
"""

from __future__ import annotations

import codecs
import hashlib
import struct
from collections.abc import Iterable
from typing import Any

from adapter.core import cmqc as C  # noqa: N812 (the project-wide alias)
from adapter.core.codepages import CODECS
from adapter.core.kafkaheaders import JMS_IBM_REPORTS, HeaderProperties, from_headers

__all__ = ["NATIVE_CCSID", "NativeMessage", "correl_id", "msg_id", "native_message"]

NATIVE_CCSID = 1208
_POSITION = struct.Struct(">IQ")
_ID_LEN = 24


def msg_id(topic: str, partition: int, offset: int) -> bytes:
    """The MsgId of the native record at (topic, partition, offset)."""
    digest = hashlib.blake2b(topic.encode("utf-8"), digest_size=12).digest()
    return digest + _POSITION.pack(partition, offset)


def correl_id(text: str) -> bytes:
    """CorrelId for a JMSCorrelationID value (see the module text)."""
    if text[:3] == "ID:":
        try:
            raw = bytes.fromhex(text[3:])
        except ValueError:
            raw = text.encode("utf-8")
    else:
        raw = text.encode("utf-8")
    return raw[:_ID_LEN].ljust(_ID_LEN, b"\0")


# Java character-set names (any alias Python's codecs know) -> CCSID: the first CCSID
# CODECS gives each character set, so UTF-16 is 1200 and windows-1252 is 1252.
_CCSID_OF_CODEC: dict[str, int] = {"utf-16": 1200, "utf-32": 1232}  # Java's: big-endian
for _ccsid, _codec in CODECS.items():
    _CCSID_OF_CODEC.setdefault(codecs.lookup(_codec).name, _ccsid)
_INT_FIELDS = {
    "JMS_IBM_MsgType": "MsgType",
    "JMS_IBM_Feedback": "Feedback",
    "JMS_IBM_Encoding": "Encoding",
    "JMS_IBM_PutApplType": "PutApplType",
}


def ccsid_of_charset(name: str) -> int | None:
    """The CCSID of a JMS_IBM_Character_Set value (a Java character-set name, or a CCSID
    in decimal), None when neither."""
    text = name.strip()
    if text.isdigit():
        return int(text)
    try:
        return _CCSID_OF_CODEC.get(codecs.lookup(text).name)
    except LookupError:
        return None


def _jms_ibm_fields(desc: dict[str, str], fields: dict[str, Any], skipped: list[str]) -> None:
    """The MQMD fields the JMS_IBM_* headers give (see the module text)."""
    for name, field in _INT_FIELDS.items():
        if name in desc:
            text = desc[name].strip()
            if text.lstrip("-").isdigit() and -(2**31) <= int(text) < 2**31:
                fields[field] = int(text)
            else:
                skipped.append(name)
    if "JMS_IBM_Format" in desc:
        fmt = desc["JMS_IBM_Format"]
        if len(fmt.encode("utf-8")) <= 8:
            fields["Format"] = fmt
        else:
            skipped.append("JMS_IBM_Format")
    if "JMS_IBM_Character_Set" in desc:
        ccsid = ccsid_of_charset(desc["JMS_IBM_Character_Set"])
        if ccsid is None:
            skipped.append("JMS_IBM_Character_Set")
        else:
            fields["CodedCharSetId"] = ccsid
    report = 0
    for name, bits in JMS_IBM_REPORTS.items():
        text = desc.get(name, "").strip()
        if not text:
            continue
        if text.isdigit() and not int(text) & ~bits:
            report |= int(text)
        else:
            skipped.append(name)
    if report:
        fields["Report"] = report


def _mqchar(text: str, n: int) -> str:
    return text.encode("utf-8")[:n].decode("utf-8", "ignore")


class NativeMessage:
    """The MQMD fields (envelope names) and properties of one native record."""

    __slots__ = ("fields", "headers")

    def __init__(self, fields: dict[str, Any], headers: HeaderProperties) -> None:
        self.fields = fields
        self.headers = headers


def native_message(
    topic: str,
    partition: int,
    offset: int,
    timestamp_ms: int,
    priority: int,
    headers: Iterable[tuple[str | bytes, bytes | str | None]] | None,
    def_persistence: int,
) -> NativeMessage:
    """The MQ view of a native record (everything but its data)."""
    got = from_headers(headers or ())
    desc = got.descriptor
    fields: dict[str, Any] = {
        "MsgId": msg_id(topic, partition, offset),
        "Priority": priority,
        "Persistence": def_persistence,
        "PutTimestamp": max(timestamp_ms, 0),
        "Format": C.MQFMT_NONE.decode(),
        "CodedCharSetId": NATIVE_CCSID,
        "Encoding": C.MQENC_NATIVE,
        "MsgType": C.MQMT_DATAGRAM,
    }
    cid = got.properties.get("JMSCorrelationID")
    if cid is not None and isinstance(cid.value, str):
        fields["CorrelId"] = correl_id(cid.value)
    mode = desc.get("JMSDeliveryMode", "").strip()
    if mode == "2":
        fields["Persistence"] = C.MQPER_PERSISTENT
    elif mode == "1":
        fields["Persistence"] = C.MQPER_NOT_PERSISTENT
    expiration = desc.get("JMSExpiration", "").strip()
    if expiration.lstrip("-").isdigit() and int(expiration) > 0:
        tenths = (int(expiration) - fields["PutTimestamp"]) // 100
        fields["Expiry"] = min(max(tenths, 1), 0x7FFFFFFF)
    if "JMSXUserID" in desc:
        fields["UserIdentifier"] = _mqchar(desc["JMSXUserID"], 12)
    if "JMSXAppID" in desc:
        fields["PutApplName"] = _mqchar(desc["JMSXAppID"], 28)
    _jms_ibm_fields(desc, fields, got.skipped)
    return NativeMessage(fields, got)
