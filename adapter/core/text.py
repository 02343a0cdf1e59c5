"""MQCHAR and MQBYTE field values as MQ defines them: blank-padded characters, NUL-padded
identifiers. Pure; used by the engine and by the API faces' structures."""

from __future__ import annotations

from typing import Any


def _bytes_like(v: Any) -> bool:
    return isinstance(v, bytes | bytearray | memoryview)


def pad_id(b: bytes, n: int = 24) -> bytes:
    """Return the MQBYTE identifier ``b`` NUL-padded to ``n`` bytes (b'' -> MQMI_NONE).

    TypeError for str (identifiers are bytes), ValueError if longer than ``n``.
    """
    if isinstance(b, str):
        raise TypeError(f"MQBYTE{n} identifiers must be bytes, not str: {b!r}")
    if not _bytes_like(b):
        raise TypeError(f"MQBYTE{n} identifiers must be bytes, not {type(b).__name__}")
    b = bytes(b)
    if len(b) > n:
        raise ValueError(f"identifier is {len(b)} bytes long; an MQBYTE{n} holds at most {n}")
    return b.ljust(n, b"\0")


def mqchar(v: str | bytes | None, n: int, pad: bytes = b" ") -> bytes:
    """Return ``v`` as an MQCHARn value: exactly ``n`` bytes, blank-padded.

    ``str`` is encoded as UTF-8; ``None`` gives all blanks. As in MQ, a NUL ends the value
    (the NUL and anything after it count as blanks), so pymqi's NUL-packed defaults
    (e.g. ``Format=b''``) normalise to the blank-padded form (MQFMT_NONE is 8 blanks).
    ValueError if the value is longer than ``n`` bytes; TypeError for other types.
    """
    if v is None:
        b = b""
    elif isinstance(v, str):
        b = v.encode("utf-8")
    elif _bytes_like(v):
        b = bytes(v)
    else:
        raise TypeError(f"MQCHAR{n} value must be str or bytes, not {type(v).__name__}")
    nul = b.find(b"\0")
    if nul >= 0:
        b = b[:nul]
    if len(b) > n:
        raise ValueError(f"value {b!r} is {len(b)} bytes long; an MQCHAR{n} holds at most {n}")
    return b.ljust(n, pad)


def mqstr(v: str | bytes | None) -> str:
    """MQCHAR value as a Python str: decoded as UTF-8, cut at a NUL, trailing blanks removed."""
    if v is None:
        return ""
    if _bytes_like(v):
        b = bytes(v)
        nul = b.find(b"\0")
        if nul >= 0:
            b = b[:nul]
        v = b.decode("utf-8", errors="replace")
    elif not isinstance(v, str):
        raise TypeError(f"MQCHAR value must be str or bytes, not {type(v).__name__}")
    else:
        nul = v.find("\0")
        if nul >= 0:
            v = v[:nul]
    return v.rstrip(" ")


_OBJECT_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789./_%")


def object_name_error(name: str, most: int = 48) -> str | None:
    """Why `name` cannot be an MQ object's name, None when it can: 1 to `most`
    characters, each an upper- or lowercase letter, a digit, or one of ``. / _ %``, no
    blank ("Rules for naming IBM MQ objects",
    https://www.ibm.com/docs/ko/ibm-mq/9.4.x?topic=objects-rules-naming-mq; "ObjectName
    (MQCHAR48)", https://www.ibm.com/docs/en/SSFKSJ_9.3.0/refdev/q098180_.html)."""
    if not name or len(name) > most:
        return f"an object name has 1-{most} characters: {name!r}"
    bad = sorted(set(name) - _OBJECT_NAME_CHARS)
    if bad:
        return f"{name!r} has characters MQ object names cannot have: {''.join(bad)!r}"
    return None
