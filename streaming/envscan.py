"""The envelope fields reassembly needs, read for a whole chunk of records at once.

`codec.decode` builds a dict of 29 fields per record in Python (about 7 us a record on
an idle core, 25-40 us under the job's load); the processor needs six of them for the
records of units that complete inside one micro-batch, and the bytes of the first
segment to write the logical message. `scan` reads those fields for every record of
a chunk with numpy over the chunk's one contiguous buffer (no Python per record): the
fixed-size identifiers at their fixed places, then the zigzag varints one field at a
time across all records.

`Scan.ok` is True only for a record that `codec.decode` would return unchanged by a
round trip through `codec.encode` (current schema version, minimal varints, ASCII
strings, no trailing bytes) and whose MQMD values are the plain ones
`recordrules.impossible_field` accepts at once, with the Kafka key the shim gives it.
For such a record the fields here equal decode's, and a logical message can be written
by patching the first segment's bytes (`join`): the same bytes `codec.encode` gives.
Every other record (native, corrupt, older schema, unusual values) is False and goes
to the processor's record-by-record path, which decides exactly as before.

Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from mqk_avro import codec

from adapter.core import cmqc as C  # noqa: N812 (the project-wide alias)
from adapter.core import recordrules

ID = 24  # MsgId, CorrelId, GroupId
_MSG_ID = 1  # version byte, then MsgId, CorrelId, GroupId, AccountingToken (32)
_GROUP_ID = 1 + 2 * ID
_INTS_AT = 1 + 3 * ID + 32  # MsgSeqNumber, the first varint

# The field order of the current schema, checked at import against the codec's.
_ORDER = (
    "MsgId",
    "CorrelId",
    "GroupId",
    "AccountingToken",
    "MsgSeqNumber",
    "Offset",
    "MsgFlags",
    "OriginalLength",
    "Persistence",
    "Priority",
    "Expiry",
    "PutTimestamp",
    "Format",
    "CodedCharSetId",
    "Encoding",
    "MsgType",
    "Report",
    "Feedback",
    "ReplyToQ",
    "ReplyToQMgr",
    "UserIdentifier",
    "ApplIdentityData",
    "PutApplType",
    "PutApplName",
    "ApplOriginData",
    "BackoutCount",
    "Payload",
    "Properties",
)
if tuple(_ORDER) != codec.FIELD_NAMES:  # pragma: no cover - a schema change must revisit this
    raise ImportError("streaming.envscan: the envelope schema changed; update its field walk")

# MQCHAR fields with the most bytes recordrules accepts at once (more characters than
# that is an impossible MQMD).
_STRINGS = recordrules.MQCHAR_LENGTHS
_INT32 = (-(1 << 31), (1 << 31) - 1)
_TYPES = np.array([C.MQMT_REQUEST, C.MQMT_REPLY, C.MQMT_REPORT, C.MQMT_DATAGRAM])


@dataclass
class Scan:
    """Per record of the chunk (numpy arrays of equal length)."""

    ok: np.ndarray  # bool: the fast path may use the fields below (see the module text)
    start: np.ndarray  # int64: where the record starts in `data`
    seq: np.ndarray  # MsgSeqNumber
    offset: np.ndarray  # Offset
    flags: np.ndarray  # MsgFlags
    expiry: np.ndarray  # Expiry (tenths, -1 unlimited)
    put_ms: np.ndarray  # PutTimestamp
    flags_at: np.ndarray  # where MsgFlags' varint starts
    flags_end: np.ndarray  # and ends
    payload_len_at: np.ndarray  # where the Payload's length varint starts
    payload_at: np.ndarray  # where the Payload's bytes start
    payload_len: np.ndarray
    data: np.ndarray  # uint8: the chunk's buffer (plus zero padding)

    def group_ids(self) -> np.ndarray:
        """GroupId of each record as an (n, 24) uint8 array."""
        return _gather(self.data, self.start + _GROUP_ID, ID)


def _gather(data: np.ndarray, at: np.ndarray, width: int) -> np.ndarray:
    """The `width` bytes at each of `at` as an (n, width) array (reads past the end of
    `data`, only ever for records already found bad, give its last byte)."""
    return data[np.minimum(at[:, None] + np.arange(width), len(data) - 1)]


def _varint(data: np.ndarray, pos: np.ndarray, ok: np.ndarray, most: int):
    """Zigzag varints at `pos`: (values, new positions, ok). Not ok: longer than `most`
    bytes, or not minimal (a multi-byte varint whose last byte is 0)."""
    top = len(data) - 1  # reads past the end (a bad record's) are clamped; the
    b = data[np.minimum(pos, top)].astype(np.uint64)  # positions are not, so it shows
    n = b & 0x7F
    size = np.ones(len(pos), dtype=np.int64)
    more = b >= 0x80
    if more.any():
        idx = np.flatnonzero(more)
        shift = 7
        while idx.size:
            if shift >= 7 * most:
                ok[idx] = False
                break
            nb = data[np.minimum(pos[idx] + size[idx], top)].astype(np.uint64)
            n[idx] |= (nb & 0x7F) << np.uint64(shift)
            size[idx] += 1
            last = nb < 0x80
            ok[idx[last & (nb == 0)]] = False  # non-minimal: decode, then encode, differs
            idx = idx[~last]
            shift += 7
    values = (n >> np.uint64(1)).astype(np.int64) ^ -(n & np.uint64(1)).astype(np.int64)
    return values, pos + size, ok


def _ascii(data: np.ndarray, at: np.ndarray, length: np.ndarray, ok: np.ndarray) -> None:
    """ok &= the `length` bytes at `at` are ASCII (so UTF-8, one byte a character)."""
    widest = int(length[ok].max(initial=0))
    if widest == 0:
        return
    cells = _gather(data, at, widest)
    high = (cells >= 0x80) & (np.arange(widest) < length[:, None])
    ok &= ~high.any(axis=1)


def scan(offsets: np.ndarray, buffer: np.ndarray) -> Scan:
    """Read the records `buffer[offsets[i]:offsets[i+1]]` (Arrow binary layout)."""
    starts = offsets[:-1].astype(np.int64)
    ends = offsets[1:].astype(np.int64)
    data = buffer if len(buffer) else np.zeros(1, dtype=np.uint8)  # reads are clamped to it
    n = len(starts)
    # Shortest envelope: fixed part, 23 one-byte varints/lengths and the version byte.
    ok = ends - starts >= _INTS_AT + 23
    safe = np.where(ok, starts, 0)
    ok &= data[safe] == codec.SCHEMA_VERSION
    empty = np.zeros(n, dtype=np.int64)
    pos = safe + _INTS_AT
    fields: dict[str, np.ndarray] = {}
    flags_at = flags_end = payload_len_at = payload_at = payload_len = empty
    for name in _ORDER[4:]:
        if name == "MsgFlags":
            flags_at = pos
        if name == "Payload":
            payload_len_at = pos
        if name == "PutTimestamp":
            value, pos, ok = _varint(data, pos, ok, 10)
        elif name in _STRINGS or name in ("Payload", "Properties"):
            length, at, ok = _varint(data, pos, ok, 5)
            ok &= (length >= 0) & (at <= ends)
            length = np.where(ok, length, 0)
            if name in _STRINGS:
                ok &= length <= _STRINGS[name]
                _ascii(data, at, np.where(ok, length, 0), ok)
            if name == "Payload":
                payload_at, payload_len = at, length
            ok &= at + length <= ends
            pos = np.where(ok, at + length, safe)
            value = length
        else:
            value, pos, ok = _varint(data, pos, ok, 5)
            ok &= (value >= _INT32[0]) & (value <= _INT32[1])
        if name == "MsgFlags":
            flags_end = pos
        ok &= pos <= ends
        pos = np.where(ok, pos, safe)  # keep reads of bad records inside the buffer
        fields[name] = value
    ok &= pos == ends
    # recordrules' plainly possible MQMD (its _plainly_possible; lengths checked above).
    ok &= fields["Priority"] >= 0
    ok &= (fields["Persistence"] >= 0) & (fields["Persistence"] <= 1)
    ok &= np.isin(fields["MsgType"], _TYPES)
    ok &= fields["Feedback"] == C.MQFB_NONE
    ok &= fields["Expiry"] >= -1
    ok &= (fields["MsgFlags"] >= 0) & (fields["MsgFlags"] <= 31)
    ok &= fields["MsgSeqNumber"] >= 1
    ok &= fields["Offset"] >= 0
    ok &= fields["OriginalLength"] >= -1
    ok &= fields["BackoutCount"] >= 0
    ok &= (fields["PutTimestamp"] >= 0) & (fields["PutTimestamp"] <= recordrules.LAST_MS)
    return Scan(
        ok=ok,
        start=starts,
        seq=fields["MsgSeqNumber"],
        offset=fields["Offset"],
        flags=fields["MsgFlags"],
        expiry=fields["Expiry"],
        put_ms=fields["PutTimestamp"],
        flags_at=flags_at,
        flags_end=flags_end,
        payload_len_at=payload_len_at,
        payload_at=payload_at,
        payload_len=payload_len,
        data=data,
    )


def key_rows(key_offsets: np.ndarray, key_buffer: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The Kafka keys as an (n, 24) uint8 array, and which of them are 24 bytes long
    (the others, native records' keys, are rows of zeros there)."""
    klen = np.diff(key_offsets)
    good = klen == ID
    kstart = np.where(good, key_offsets[:-1], 0).astype(np.int64)
    kbuf = key_buffer if len(key_buffer) else np.zeros(1, dtype=np.uint8)
    rows = _gather(kbuf, kstart, ID)
    rows[~good] = 0
    return rows, good


def keys_match(scan: Scan, keys: np.ndarray, good: np.ndarray) -> np.ndarray:
    """Per record: its Kafka key (`key_rows`) is the shim's record key, GroupId or (no
    group) MsgId (adapter.shim.records.record_key), so the record is an envelope, not a
    native record whose value happens to decode."""
    start = np.where(scan.ok, scan.start, 0)
    gid = _gather(scan.data, start + _GROUP_ID, ID)
    mid = _gather(scan.data, start + _MSG_ID, ID)
    no_group = ~gid.any(axis=1)
    want = np.where(no_group[:, None], mid, gid)
    return good & (keys == want).all(axis=1)
