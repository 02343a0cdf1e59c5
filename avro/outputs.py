"""Codecs of the reassembly job's own records: complete-group events and commit markers.

Same wire format as the envelope (see codec.py): one schema-version byte, then
schemaless Avro binary written with the .avsc next to this module. Logical messages
themselves are envelopes (codec.encode), so MQ readers decode them unchanged.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import fastavro

__all__ = [
    "COMMIT_SCHEMA",
    "GROUP_EVENT_SCHEMA",
    "OutputError",
    "decode_commit",
    "decode_group_event",
    "encode_commit",
    "encode_group_event",
]

_HERE = Path(__file__).resolve().parent
GROUP_EVENT_VERSION = 1
COMMIT_VERSION = 1


class OutputError(ValueError):
    """A record cannot be encoded or decoded (bad field, unknown version, garbage)."""


def _load(name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    schema = json.loads((_HERE / name).read_text(encoding="utf-8"))
    return schema, fastavro.parse_schema(schema)


GROUP_EVENT_SCHEMA, _GROUP_PARSED = _load("mq_group_event.avsc")
COMMIT_SCHEMA, _COMMIT_PARSED = _load("mq_reassembly_commit.avsc")


def _encode(parsed: dict[str, Any], version: int, record: dict[str, Any]) -> bytes:
    buf = io.BytesIO()
    buf.write(bytes([version]))
    try:
        fastavro.schemaless_writer(buf, parsed, record)
    except (TypeError, ValueError, KeyError, AttributeError) as exc:
        raise OutputError(f"cannot encode {parsed['name']}: {exc}") from None
    return buf.getvalue()


def _decode(parsed: dict[str, Any], version: int, data: bytes) -> dict[str, Any]:
    if not data or data[0] != version:
        got = data[0] if data else None
        raise OutputError(f"{parsed['name']}: unknown schema version {got} (expected {version})")
    buf = io.BytesIO(data)
    buf.seek(1)
    try:
        record = fastavro.schemaless_reader(buf, parsed, None)
    except Exception as exc:  # noqa: BLE001 - fastavro raises many types for garbage
        raise OutputError(f"{parsed['name']} is truncated or corrupt: {exc}") from None
    if buf.tell() != len(data):
        raise OutputError(f"{parsed['name']}: {len(data) - buf.tell()} trailing bytes")
    return record


def group_event(qmgr: str, queue: str, group: Any, completed_ms: int) -> dict[str, Any]:
    """The complete-group event record of a group the reassembly completed (`group` has
    group_id, member_count, first = (priority, partition, offset), first_put_ms)."""
    return {
        "QMgrName": qmgr,
        "QName": queue,
        "GroupId": group.group_id,
        "MemberCount": group.member_count,
        "FirstPriority": group.first[0],
        "FirstPartition": group.first[1],
        "FirstOffset": group.first[2],
        "FirstPutTimestamp": group.first_put_ms,
        "CompletedTimestamp": completed_ms,
    }


def encode_group_event(event: dict[str, Any]) -> bytes:
    return _encode(_GROUP_PARSED, GROUP_EVENT_VERSION, event)


def decode_group_event(data: bytes) -> dict[str, Any]:
    return _decode(_GROUP_PARSED, GROUP_EVENT_VERSION, data)


def encode_commit(commit: dict[str, Any]) -> bytes:
    return _encode(_COMMIT_PARSED, COMMIT_VERSION, commit)


def decode_commit(data: bytes) -> dict[str, Any]:
    return _decode(_COMMIT_PARSED, COMMIT_VERSION, data)
