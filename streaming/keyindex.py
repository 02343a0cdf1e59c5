"""Compact per-bucket bookkeeping for the processor, as bytes in one state value.

The processor groups many units (GroupIds) under one state key (a hash bucket), because
each stateful call costs a round trip to the JVM. Two small structures keep per-unit
round trips for units that really span micro-batches:

* the open index: unit key -> earliest expiry of what it holds (-1 for none);
* tombstones: keys of units that finished recently, so late duplicates are ignored.

Pure: no Spark.
"""

from __future__ import annotations

import struct

_LEN = struct.Struct(">H")
_EXP = struct.Struct(">q")
NO_EXPIRY = -1


def encode_index(index: dict[bytes, int]) -> bytes:
    out = bytearray()
    for key, expires in index.items():
        out += _LEN.pack(len(key)) + key + _EXP.pack(expires)
    return bytes(out)


def decode_index(data: bytes | None) -> dict[bytes, int]:
    index: dict[bytes, int] = {}
    pos, end = 0, len(data or b"")
    while pos < end:
        (n,) = _LEN.unpack_from(data, pos)
        key = bytes(data[pos + 2 : pos + 2 + n])
        (expires,) = _EXP.unpack_from(data, pos + 2 + n)
        index[key] = expires
        pos += 10 + n
    return index


def encode_keys(keys: list[bytes]) -> list[bytes]:
    """Tombstone blobs: one per key width (GroupIds and MsgIds are all 24 bytes), each
    the width byte then the keys back to back, so reading is one slice per key."""
    by_width: dict[int, list[bytes]] = {}
    for key in keys:
        if not 0 < len(key) < 256:
            raise ValueError(f"unit key of {len(key)} bytes cannot be tombstoned")
        by_width.setdefault(len(key), []).append(key)
    return [bytes([w]) + b"".join(ks) for w, ks in by_width.items()]


def decode_keys(blob: bytes | None) -> set[bytes]:
    if not blob:
        return set()
    width = blob[0]
    return {blob[i : i + width] for i in range(1, len(blob), width)}


def earliest(index: dict[bytes, int]) -> int | None:
    """When the bucket's next timer must fire (None: no held unit can expire)."""
    times = [t for t in index.values() if t != NO_EXPIRY]
    return min(times) if times else None
