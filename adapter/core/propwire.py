"""Message properties on the wire: the bytes of the envelope's `Properties` field.

A compact binary form (the envelope is written on every put and read on every get, so
neither XML nor JSON): a version byte, then per property its qualified name, its
MQTYPE_* and its value. Integers are 64-bit and floats doubles whatever their MQ type
(the type says how MQINQMP returns them; normalise_value already narrowed them). An
empty field means no properties, which is every envelope written before properties
existed. Pure.
"""

from __future__ import annotations

import struct

from adapter.core import cmqc as C  # noqa: N812 (the project-wide alias)
from adapter.core.properties import MessageProperties, Property

VERSION = 1
_HEAD = struct.Struct(">BH")  # version, number of properties
_NAME = struct.Struct(">HH")  # name length, MQTYPE_*
_LEN = struct.Struct(">I")
_INT = struct.Struct(">q")
_FLOAT = struct.Struct(">d")
_INTS = frozenset((C.MQTYPE_INT8, C.MQTYPE_INT16, C.MQTYPE_INT32, C.MQTYPE_INT64))
_FLOATS = frozenset((C.MQTYPE_FLOAT32, C.MQTYPE_FLOAT64))


class PropertiesWireError(ValueError):
    """The Properties field of an envelope cannot be read."""


def pack(props: MessageProperties | None) -> bytes:
    """The envelope's Properties bytes for `props` (b"" for none)."""
    if not props:
        return b""
    out = [_HEAD.pack(VERSION, len(props))]
    for prop in props:
        name = prop.name.encode("utf-8")
        out.append(_NAME.pack(len(name), prop.type))
        out.append(name)
        ptype, value = prop.type, prop.value
        if ptype == C.MQTYPE_STRING:
            data = value.encode("utf-8")
            out.append(_LEN.pack(len(data)))
            out.append(data)
        elif ptype == C.MQTYPE_BYTE_STRING:
            out.append(_LEN.pack(len(value)))
            out.append(value)
        elif ptype in _INTS:
            out.append(_INT.pack(value))
        elif ptype in _FLOATS:
            out.append(_FLOAT.pack(value))
        elif ptype == C.MQTYPE_BOOLEAN:
            out.append(b"\x01" if value else b"\x00")
        # MQTYPE_NULL: no value
    return b"".join(out)


def unpack(data: bytes) -> MessageProperties:
    """The properties packed in `data` (an empty MessageProperties for b"")."""
    props = MessageProperties()
    if not data:
        return props
    try:
        version, count = _HEAD.unpack_from(data, 0)
        if version != VERSION:
            raise PropertiesWireError(f"properties version {version} is not {VERSION}")
        pos = _HEAD.size
        for _ in range(count):
            nlen, ptype = _NAME.unpack_from(data, pos)
            pos += _NAME.size
            name = data[pos : pos + nlen].decode("utf-8")
            pos += nlen
            value: object
            if ptype in (C.MQTYPE_STRING, C.MQTYPE_BYTE_STRING):
                (vlen,) = _LEN.unpack_from(data, pos)
                pos += _LEN.size
                raw = data[pos : pos + vlen]
                if len(raw) != vlen:
                    raise PropertiesWireError("a property value runs past the end")
                pos += vlen
                value = raw.decode("utf-8") if ptype == C.MQTYPE_STRING else bytes(raw)
            elif ptype in _INTS:
                (value,) = _INT.unpack_from(data, pos)
                pos += _INT.size
            elif ptype in _FLOATS:
                (value,) = _FLOAT.unpack_from(data, pos)
                pos += _FLOAT.size
            elif ptype == C.MQTYPE_BOOLEAN:
                value = data[pos] != 0
                pos += 1
            elif ptype == C.MQTYPE_NULL:
                value = None
            else:
                raise PropertiesWireError(f"unknown property type {ptype}")
            props.add(Property(name, ptype, value))
    except (struct.error, IndexError, UnicodeDecodeError) as exc:
        raise PropertiesWireError(f"unreadable properties: {exc}") from None
    if pos != len(data):
        raise PropertiesWireError("bytes after the last property")
    return props
