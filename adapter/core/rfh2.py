"""MQRFH2 headers: the bytes, the folders, and message properties carried in them.

An MQRFH2 (version 2) is a 36-byte fixed part -- StrucId ``'RFH '``, Version 2,
StrucLength, Encoding, CodedCharSetId and Format (of what follows the header), Flags,
NameValueCCSID -- then NameValueLength + NameValueData pairs, each NameValueData one
XML-like folder padded with blanks to a multiple of 4 bytes. StrucLength counts all of
it. The integers of a header are in the encoding named by the structure before it (the
MQMD's Encoding for the first header, the previous header's Encoding for the next):
MQENC_NATIVE 546 has MQENC_INTEGER_REVERSED (little-endian), 273 MQENC_INTEGER_NORMAL
(big-endian). Headers chain while Format is MQFMT_RF_HEADER_2 (``'MQHRF2  '``).

Folders MQ treats as message properties: ``usr`` (an unqualified property name ``X`` is
``<usr><X>``), ``jms``, ``mcd``, ``mqext``, ``mq``, ``mq_usr``, ``mqps``, ``sib``,
``sib_usr`` and any folder marked ``content='properties'``; a property ``f.g.X`` is
element ``X`` of group ``g`` in folder ``f``. Other folders (``psc``, ``pscr``,
application folders) stay in the header as they are. Element types are the ``dt``
attribute: i1, i2, i4, i8 (and ``int``, read as i8), r4, r8, boolean, bin.hex, string
(the default when there is none); ``xsi:nil='true'`` is a null value; an empty element
an empty string or byte string.

IBM pages:
- MQRFH2 structure: the MQRFH2 page of the MQ reference (fields as in ibmmq's mqrfh2.py and cmqc.h)
- NameValueData, NameValueLength, NameValueCCSID fields:
  the NameValueData / NameValueLength / NameValueCCSID field pages of MQRFH2
- Supported MQRFH2 folders (which folders hold properties):
  https://www.ibm.com/support/knowledgecenter/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q104150_.htm
- Mapping property data types to MQRFH2 data types (the ``dt`` table, ``int`` as i8,
  ``xsi:nil``): http://setgetweb.com/p/MQ92/ref.dev/q104140_.htm (IBM's page q104140_)
- Mapping from property names to MQRFH2 folder and element names:
  https://www.ibm.com/docs/en/ibm-mq/9.3.x?topic=psame-mapping-from-property-names-mqrfh2-folder-element-names

Errors: MQCC_FAILED 2334 MQRC_RFH_ERROR for a header whose fixed part is wrong (StrucId,
Version, StrucLength, a NameValueLength past the end); 2421 MQRC_RFH_FORMAT_ERROR for a
folder that cannot be read or a value that does not fit its ``dt``.

Pure: no I/O.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from adapter.core import cmqc as C  # noqa: N812 (the project-wide alias)
from adapter.core.errors import MQMIError, fail
from adapter.core.properties import MessageProperties, Property, float_text, normalise_value

__all__ = [
    "DT_OF_TYPE",
    "PROPERTY_FOLDERS",
    "Folder",
    "ParsedMessage",
    "Rfh2",
    "build_message",
    "decode_chain",
    "decode_fixed",
    "decode_header",
    "encode_fixed",
    "encode_folders",
    "encode_header",
    "folders_from_properties",
    "is_big_endian",
    "parse_message",
    "properties_from_folders",
    "restricted_format_error",
]

FIXED = C.MQRFH_STRUC_LENGTH_FIXED_2  # 36

PROPERTY_FOLDERS = frozenset(
    ("usr", "jms", "mcd", "mqext", "mq", "mq_usr", "mqps", "sib", "sib_usr")
)
"""Folders whose elements are message properties (beside ``content='properties'`` ones)."""

DT_OF_TYPE = {
    C.MQTYPE_BOOLEAN: "boolean",
    C.MQTYPE_BYTE_STRING: "bin.hex",
    C.MQTYPE_INT8: "i1",
    C.MQTYPE_INT16: "i2",
    C.MQTYPE_INT32: "i4",
    C.MQTYPE_INT64: "i8",
    C.MQTYPE_FLOAT32: "r4",
    C.MQTYPE_FLOAT64: "r8",
}
"""The ``dt`` attribute of each MQTYPE (strings are written without one)."""

_TYPE_OF_DT = {dt: t for t, dt in DT_OF_TYPE.items()}
_TYPE_OF_DT.update({"string": C.MQTYPE_STRING, "int": C.MQTYPE_INT64})

# Folders written first, in this order, as MQ and JMS write them.
_FOLDER_ORDER = ("mcd", "jms", "usr")


def is_big_endian(encoding: int) -> bool:
    """True when `encoding` has big-endian integers (MQENC_INTEGER_NORMAL, or undefined)."""
    return encoding & C.MQENC_INTEGER_MASK != C.MQENC_INTEGER_REVERSED


def _codec(ccsid: int) -> str:
    if ccsid in (1208, C.MQCCSI_Q_MGR, C.MQCCSI_INHERIT, C.MQCCSI_EMBEDDED):
        return "utf-8"
    if ccsid in (1200, 13488, 17584):
        return "utf-16-be"
    if ccsid in (819, 1051):
        return "latin-1"
    if ccsid in (437, 850):
        return f"cp{ccsid}"
    # NameValueCCSID must be 1200, 13488, 17584 or 1208 (IBM's NameValueCCSID page): the
    # folders of another cannot be read as properties.
    raise fail(C.MQRC_RFH_FORMAT_ERROR)


@dataclass(frozen=True)
class Folder:
    """One NameValueData folder: its text without the padding."""

    xml: str

    @property
    def name(self) -> str:
        m = re.match(r"\s*<([^\s/>]+)", self.xml)
        if m is None:
            raise fail(C.MQRC_RFH_FORMAT_ERROR)
        return m.group(1)


@dataclass
class Rfh2:
    """One MQRFH2 header. `encoding`, `ccsid` and `format` describe what follows it."""

    folders: list[Folder] = field(default_factory=list)
    encoding: int = C.MQENC_NATIVE
    ccsid: int = 1208
    format: bytes = C.MQFMT_NONE
    flags: int = C.MQRFH_NO_FLAGS
    name_value_ccsid: int = 1208


def _pad(data: bytes) -> bytes:
    return data + b" " * (-len(data) % 4)


def encode_fixed(
    header: Rfh2,
    struc_length: int,
    int_encoding: int = C.MQENC_NATIVE,
    struc_id: bytes = C.MQRFH_STRUC_ID,
    version: int = C.MQRFH_VERSION_2,
) -> bytes:
    """The 36-byte fixed part of `header` with this StrucLength (and StrucId, Version:
    an application's RFH2 structure may carry any), integers in `int_encoding`."""
    order = ">" if is_big_endian(int_encoding) else "<"
    return struct.pack(
        order + "4siiii8sii",
        bytes(struc_id)[:4].ljust(4, b" "),
        version,
        struc_length,
        header.encoding,
        header.ccsid,
        bytes(header.format)[:8].ljust(8, b" "),
        header.flags,
        header.name_value_ccsid,
    )


def encode_folders(header: Rfh2, int_encoding: int = C.MQENC_NATIVE) -> bytes:
    """The NameValueLength + NameValueData pairs of `header`, each folder blank-padded
    to a multiple of 4 bytes."""
    order = ">" if is_big_endian(int_encoding) else "<"
    codec = _codec(header.name_value_ccsid)
    parts = []
    for folder in header.folders:
        data = _pad(folder.xml.encode(codec, "surrogatepass"))
        parts.append(struct.pack(order + "i", len(data)) + data)
    return b"".join(parts)


def encode_header(header: Rfh2, int_encoding: int = C.MQENC_NATIVE) -> bytes:
    """The bytes of `header`, integers in `int_encoding` (the structure before it)."""
    body = encode_folders(header, int_encoding)
    return encode_fixed(header, FIXED + len(body), int_encoding) + body


def decode_fixed(data: bytes, int_encoding: int | None = None) -> tuple[Rfh2, int, bool]:
    """The 36-byte fixed part of the MQRFH2 at the start of `data`: the header without
    folders, its StrucLength and whether its integers are big-endian. `int_encoding` is
    the Encoding of the structure before it; None guesses it from the Version field (as
    ibmmq's RFH2.unpack does). 2334 for a StrucId or Version that is wrong."""
    if len(data) < FIXED or data[:4] != C.MQRFH_STRUC_ID:
        raise fail(C.MQRC_RFH_ERROR)
    big = data[4:5] == b"\0" if int_encoding is None else is_big_endian(int_encoding)
    order = ">" if big else "<"
    _sid, version, length, encoding, ccsid, fmt, flags, nv_ccsid = struct.unpack(
        order + "4siiii8sii", data[:FIXED]
    )
    if version != C.MQRFH_VERSION_2:
        raise fail(C.MQRC_RFH_ERROR)
    return Rfh2([], encoding, ccsid, fmt, flags, nv_ccsid), length, big


def decode_header(data: bytes, int_encoding: int | None = None) -> tuple[Rfh2, int]:
    """The MQRFH2 at the start of `data` and its StrucLength.

    `int_encoding` is the Encoding of the structure before it; None guesses it from the
    Version field (as ibmmq's RFH2.unpack does). 2334 MQRC_RFH_ERROR when the fixed part
    or the lengths are wrong.
    """
    header, length, big = decode_fixed(data, int_encoding)
    if length < FIXED or length > len(data):
        raise fail(C.MQRC_RFH_ERROR)
    order = ">" if big else "<"
    nv_ccsid = header.name_value_ccsid
    codec = _codec(nv_ccsid)
    folders = []
    pos = FIXED
    while pos < length:
        if pos + 4 > length:
            raise fail(C.MQRC_RFH_ERROR)
        (n,) = struct.unpack(order + "i", data[pos : pos + 4])
        pos += 4
        if n < 0 or pos + n > length:
            raise fail(C.MQRC_RFH_ERROR)
        try:
            text = data[pos : pos + n].decode(codec, "surrogatepass")
        except UnicodeDecodeError as exc:
            raise fail(C.MQRC_RFH_FORMAT_ERROR) from exc
        pos += n
        text = text.rstrip(" \0")
        if text:
            folders.append(Folder(text))
    header.folders = folders
    return header, length


def decode_chain(
    data: bytes, fmt: bytes, encoding: int | None = C.MQENC_NATIVE
) -> tuple[list[Rfh2], bytes, int | None, bytes]:
    """Every MQRFH2 at the start of a message body whose MQMD Format is `fmt` and
    Encoding `encoding`: (headers, format and encoding of the rest, the rest)."""
    headers = []
    fmt = bytes(fmt)[:8].ljust(8, b" ")
    while fmt == C.MQFMT_RF_HEADER_2:
        header, length = decode_header(data, encoding)
        headers.append(header)
        data = data[length:]
        fmt, encoding = header.format, header.encoding
    return headers, fmt, encoding, data


# ---------------------------------------------------------------------------
# A small reader for MQRFH2 folder XML. MQ's own parser is not a full XML parser
# either: folders are elements, attributes, text and the five entities (plus character
# references); element names may be anything a property name may be.

_ENTITIES = {"amp": "&", "lt": "<", "gt": ">", "apos": "'", "quot": '"'}
_ENTITY = re.compile(r"&(#x[0-9A-Fa-f]+|#[0-9]+|[A-Za-z]+);")
_ATTR = re.compile(r"""\s*([^\s=/>]+)\s*=\s*("([^"]*)"|'([^']*)')""")


def _unescape(text: str) -> str:
    def one(m: re.Match[str]) -> str:
        ref = m.group(1)
        if ref.startswith("#x"):
            return chr(int(ref[2:], 16))
        if ref.startswith("#"):
            return chr(int(ref[1:]))
        if ref in _ENTITIES:
            return _ENTITIES[ref]
        raise fail(C.MQRC_RFH_FORMAT_ERROR)

    try:
        return _ENTITY.sub(one, text)
    except (ValueError, OverflowError) as exc:
        raise fail(C.MQRC_RFH_FORMAT_ERROR) from exc


def _escape(text: str) -> str:
    return (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&apos;")
    )


@dataclass
class _Element:
    name: str
    attrs: dict[str, str]
    text: str = ""
    children: list[_Element] = field(default_factory=list)


def _parse_element(xml: str, pos: int) -> tuple[_Element, int]:
    if not xml.startswith("<", pos):
        raise fail(C.MQRC_RFH_FORMAT_ERROR)
    m = re.compile(r"<([^\s/>]+)").match(xml, pos)
    if m is None:
        raise fail(C.MQRC_RFH_FORMAT_ERROR)
    name = m.group(1)
    pos = m.end()
    attrs: dict[str, str] = {}
    while True:
        a = _ATTR.match(xml, pos)
        if a is None:
            break
        value = a.group(3) if a.group(3) is not None else a.group(4)
        attrs[a.group(1)] = _unescape(value)
        pos = a.end()
    while pos < len(xml) and xml[pos].isspace():
        pos += 1
    if xml.startswith("/>", pos):
        return _Element(name, attrs), pos + 2
    if not xml.startswith(">", pos):
        raise fail(C.MQRC_RFH_FORMAT_ERROR)
    pos += 1
    element = _Element(name, attrs)
    text: list[str] = []
    close = "</" + name
    while True:
        lt = xml.find("<", pos)
        if lt < 0:
            raise fail(C.MQRC_RFH_FORMAT_ERROR)
        text.append(xml[pos:lt])
        if xml.startswith(close, lt):
            end = xml.find(">", lt)
            if end < 0 or xml[lt + len(close) : end].strip():
                raise fail(C.MQRC_RFH_FORMAT_ERROR)
            element.text = _unescape("".join(text))
            return element, end + 1
        if xml.startswith("</", lt):
            raise fail(C.MQRC_RFH_FORMAT_ERROR)
        child, pos = _parse_element(xml, lt)
        element.children.append(child)


def _parse_folder(folder: Folder) -> _Element:
    xml = folder.xml.strip(" \0\t\r\n")
    root, end = _parse_element(xml, 0)
    if xml[end:].strip(" \0\t\r\n"):
        raise fail(C.MQRC_RFH_FORMAT_ERROR)
    return root


def _is_property_folder(root: _Element) -> bool:
    return root.name in PROPERTY_FOLDERS or root.attrs.get("content") == "properties"


def _value_of(element: _Element) -> tuple[int, Any]:
    if element.attrs.get("xsi:nil") == "true":
        return C.MQTYPE_NULL, None
    dt = element.attrs.get("dt", "string")
    ptype = _TYPE_OF_DT.get(dt)
    text = element.text
    if ptype is None:
        # An unknown dt: MQ returns its text (MQRC_PROP_TYPE_NOT_SUPPORTED on MQINQMP).
        return C.MQTYPE_STRING, text
    try:
        if ptype == C.MQTYPE_STRING:
            return ptype, text
        t = text.strip()
        if ptype == C.MQTYPE_BOOLEAN:
            if t.lower() in ("1", "true"):
                return ptype, True
            if t.lower() in ("0", "false"):
                return ptype, False
            raise ValueError(t)
        if ptype == C.MQTYPE_BYTE_STRING:
            return ptype, bytes.fromhex(t)
        if ptype in (C.MQTYPE_FLOAT32, C.MQTYPE_FLOAT64):
            java = {"NaN": "nan", "Infinity": "inf", "-Infinity": "-inf"}
            return ptype, normalise_value(ptype, float(java.get(t, t)))
        n = int(t)
        bits = {C.MQTYPE_INT8: 8, C.MQTYPE_INT16: 16, C.MQTYPE_INT32: 32, C.MQTYPE_INT64: 64}
        if not -(1 << (bits[ptype] - 1)) <= n < (1 << (bits[ptype] - 1)):
            raise ValueError(t)
        return ptype, n
    except ValueError as exc:
        raise fail(C.MQRC_RFH_FORMAT_ERROR) from exc


_SQL_KEYWORDS = frozenset(
    ("NULL", "TRUE", "FALSE", "NOT", "AND", "OR", "BETWEEN", "LIKE", "IN", "IS", "ESCAPE")
)


def _accessible(folder: str, element: str) -> bool:
    """IBM "MQRFH2 folder restrictions": an element named with a period, or in ``usr``
    one named ``JMS...`` or after an SQL keyword, does not stop the MQRFH2 being read but
    is no property the MQI can reach."""
    if "." in element:
        return False
    return folder != "usr" or not (element.startswith("JMS") or element.upper() in _SQL_KEYWORDS)


def _render(element: _Element) -> str:
    attrs = "".join(f" {k}='{_escape(v)}'" for k, v in element.attrs.items())
    inner = _escape(element.text) + "".join(_render(c) for c in element.children)
    return f"<{element.name}{attrs}>{inner}</{element.name}>"


def _walk(element: _Element, prefix: str, folder: str, out: MessageProperties) -> _Element | None:
    """Adds the properties under `element` to `out`; returns what of it is no property
    (the elements `_accessible` refuses, inside their groups), or None."""
    kept = []
    for child in element.children:
        if not _accessible(folder, child.name):
            kept.append(child)
            continue
        name = f"{prefix}.{child.name}"
        if child.children:
            rest = _walk(child, name, folder, out)
            if rest is not None:
                kept.append(rest)
        else:
            ptype, value = _value_of(child)
            if name not in out:  # the first one, closest to the head of the message, wins
                out.add(Property(name, ptype, value))
    return _Element(element.name, element.attrs, "", kept) if kept else None


def properties_from_folders(
    folders: Iterable[Folder], into: MessageProperties | None = None
) -> tuple[MessageProperties, list[Folder]]:
    """The properties held in `folders` and the folders that hold none (kept as they are).

    Names are stored as `properties.qualified_name` has them (``usr.X``, ``jms.Cid``).
    A property met twice keeps the value closest to the head of the message, the first
    (IBM, "MQRFH2 element name conflicts"); `into` may already hold properties that win.
    Elements of a property folder that cannot be properties stay behind in a folder of
    the same name holding only them.
    """
    props = into if into is not None else MessageProperties()
    others = []
    for folder in folders:
        root = _parse_folder(folder)
        if _is_property_folder(root):
            rest = _walk(root, root.name, root.name, props)
            if rest is not None:
                others.append(Folder(_render(rest)))
        else:
            others.append(folder)
    return props, others


_OTHER_SPACE = re.compile(r"[^\S ]")  # white space other than U+0020


def restricted_format_error(folder: Folder) -> bool:
    """True for an ``mq`` folder not in the restricted form IBM requires of it (2527
    MQRC_RFH_RESTRICTED_FORMAT_ERR on MQPUT): names of single-byte UTF-8 characters, no
    groups, no value that needs escaping, no white space but U+0020, no ``content``
    attribute on the folder tag, no null value. Other folders: False. A folder that
    cannot be read at all is `properties_from_folders`' 2421, not this."""
    try:
        root = _parse_folder(folder)
    except MQMIError:
        return False
    if root.name != "mq":
        return False
    if "content" in root.attrs or "&" in folder.xml or _OTHER_SPACE.search(folder.xml.strip()):
        return True
    for child in root.children:
        if child.children or child.attrs.get("xsi:nil") == "true" or not child.name.isascii():
            return True
    return False


def _text_of(prop: Property) -> str:
    if prop.type == C.MQTYPE_BOOLEAN:
        return "1" if prop.value else "0"
    if prop.type == C.MQTYPE_BYTE_STRING:
        return prop.value.hex().upper()
    if prop.type in (C.MQTYPE_FLOAT32, C.MQTYPE_FLOAT64):
        return float_text(prop.type, prop.value)
    if prop.type == C.MQTYPE_STRING:
        return _escape(prop.value)
    return str(prop.value)


def _element_xml(name: str, prop: Property) -> str:
    if prop.type == C.MQTYPE_NULL:
        return f"<{name} xsi:nil='true'></{name}>"
    dt = DT_OF_TYPE.get(prop.type)
    attr = f" dt='{dt}'" if dt else ""
    return f"<{name}{attr}>{_text_of(prop)}</{name}>"


def folders_from_properties(props: Iterable[Property]) -> list[Folder]:
    """The folders MQ writes for `props`: ``mcd``, ``jms``, ``usr`` first, then the other
    folders in the order their first property was set (marked ``content='properties'``
    unless MQ knows them as property folders). ``Root.MQMD.*`` properties are message
    descriptor fields, not folder content: they are left out."""
    tree: dict[str, dict] = {}
    for prop in props:
        if prop.name.startswith("Root.MQMD."):
            continue
        parts = prop.name.split(".")
        node = tree.setdefault(parts[0], {})
        for group in parts[1:-1]:
            node = node.setdefault(group, {})
        node[parts[-1]] = prop

    def render(node: dict) -> str:
        out = []
        for name, child in node.items():
            if isinstance(child, Property):
                out.append(_element_xml(name, child))
            else:
                out.append(f"<{name}>{render(child)}</{name}>")
        return "".join(out)

    order = [f for f in _FOLDER_ORDER if f in tree] + [f for f in tree if f not in _FOLDER_ORDER]
    folders = []
    for name in order:
        attr = "" if name in PROPERTY_FOLDERS else " content='properties'"
        folders.append(Folder(f"<{name}{attr}>{render(tree[name])}</{name}>"))
    return folders


@dataclass
class ParsedMessage:
    """A message body read past its MQRFH2 headers."""

    properties: MessageProperties
    headers: list[Rfh2]  # every header, each with only the folders that hold no property
    format: bytes  # the format of `body`
    encoding: int | None
    ccsid: int | None
    body: bytes


def parse_message(
    data: bytes, fmt: bytes, encoding: int | None = C.MQENC_NATIVE, ccsid: int | None = None
) -> ParsedMessage:
    """Split a message whose MQMD says `fmt`/`encoding`/`ccsid` into its properties (from
    every chained MQRFH2), the headers' other folders, and the body with its format."""
    props = MessageProperties()
    kept = []
    fmt = bytes(fmt)[:8].ljust(8, b" ")
    while fmt == C.MQFMT_RF_HEADER_2:
        header, length = decode_header(data, encoding)
        _props, others = properties_from_folders(header.folders, props)
        header.folders = others
        kept.append(header)
        data = data[length:]
        fmt, encoding, ccsid = header.format, header.encoding, header.ccsid
    return ParsedMessage(props, kept, fmt, encoding, ccsid, data)


def build_message(
    props: Iterable[Property],
    body: bytes,
    fmt: bytes = C.MQFMT_NONE,
    encoding: int = C.MQENC_NATIVE,
    ccsid: int = 1208,
    int_encoding: int = C.MQENC_NATIVE,
    extra_folders: Iterable[Folder] = (),
) -> bytes:
    """One MQRFH2 carrying `props` (and `extra_folders`) before `body`; the MQMD of the
    result has Format MQFMT_RF_HEADER_2 and Encoding `int_encoding`. `fmt`, `encoding`
    and `ccsid` describe `body`."""
    folders = list(extra_folders) + folders_from_properties(props)
    header = Rfh2(folders, encoding, ccsid, fmt)
    return encode_header(header, int_encoding) + body
