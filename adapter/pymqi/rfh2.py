"""pymqi/ibmmq's ``RFH2`` structure and ``Queue.put_rfh2`` / ``Queue.get_rfh2``.

The shape is ibmmq's (code/ibmmq/mqrfh2.py and mqqueue.py of ibm-messaging/
mq-mqi-python, pymqi's successor): the fixed fields ``_StrucId`` (alias ``StrucId``),
``Version``, ``StrucLength``, ``Encoding``, ``CodedCharSetId``, ``Format``, ``Flags``,
``NameValueCCSID``, then for every folder a pair of fields ``<name>Length`` and
``<name>`` (its bytes, blank-padded to a multiple of 4); ``add_folder``,
``get_folders``, ``pack(encoding)``, ``unpack(buff, encoding)``, ``get`` / ``set`` /
``obj['Field']``. Malformed input raises ``PYIFError`` as ibmmq does. The bytes are
adapter/core/rfh2.py's (one codec): what a queue manager does with an MQRFH2 put by an
application is adapter/core/putprops.py's.

IBM: "MQRFH2 - Rules and formatting header 2" (the fields above; CodedCharSetId's
initial value MQCCSI_UNDEFINED, which MQPUT refuses with 2334 MQRC_RFH_ERROR, so an
application sets it), NameValueCCSID (1208 initially).
"""

from __future__ import annotations

import re
from typing import Any

from adapter.core import cmqc as C  # noqa: N812 (the project-wide alias)
from adapter.core.errors import MQMIError
from adapter.core.rfh2 import FIXED, Folder, Rfh2, decode_fixed, decode_header, encode_fixed
from adapter.core.rfh2 import encode_folders as _encode_folders
from adapter.pymqi.errors import PYIFError
from adapter.pymqi.structs import MD

__all__ = ["RFH2", "get_rfh2", "put_rfh2"]

_FIXED_FIELDS = (
    "_StrucId",
    "Version",
    "StrucLength",
    "Encoding",
    "CodedCharSetId",
    "Format",
    "Flags",
    "NameValueCCSID",
)
_BYTES_FIELDS = frozenset(("_StrucId", "Format"))
_ALIASES = {"StrucId": "_StrucId"}
_LATIN1 = 819  # any bytes read as text and back unchanged


def _folder_name(folder_data: bytes) -> str:
    """The root tag of a folder, read as ibmmq does (its first ``<name``)."""
    m = re.match(rb"^\s*<([^\s/>]+)", folder_data)
    if m is None:
        raise PYIFError(f"RFH2 - XML Folder not well formed. Data {folder_data!r}")
    return m.group(1).decode("utf-8", "replace")


class RFH2:
    """An MQRFH2 header as ibmmq's ``RFH2``: ``RFH2(**fields)``."""

    def __init__(self, **kw: Any) -> None:
        self.__dict__["_values"] = {
            "_StrucId": C.MQRFH_STRUC_ID,
            "Version": C.MQRFH_VERSION_2,
            "StrucLength": 0,
            "Encoding": C.MQENC_NATIVE,
            "CodedCharSetId": C.MQCCSI_Q_MGR,
            "Format": C.MQFMT_NONE,
            "Flags": 0,
            "NameValueCCSID": C.MQCCSI_Q_MGR,
        }
        # [name, bytes] per folder in order; a name met twice (two usr folders) shows its
        # last one as a field, as ibmmq's structure does, and both are packed.
        self.__dict__["_folders"] = []
        self.set(**kw)

    # -- field access, as MQOpts -------------------------------------------------------
    def _field(self, name: str) -> str:
        name = _ALIASES.get(name, name)
        if name not in self._values:
            raise AttributeError(f"RFH2 has no field {name!r}")
        return name

    def __getitem__(self, name: str) -> Any:
        return self._values[self._field(name)]

    def __setitem__(self, name: str, value: Any) -> None:
        name = self._field(name)
        folder = self._last(name)
        if name in _BYTES_FIELDS or folder is not None:
            if isinstance(value, str):
                value = value.encode("utf-8")
            value = bytes(value)
            if folder is not None:
                folder[1] = value
        else:
            value = int(value)
        self._values[name] = value

    def _last(self, name: str) -> list | None:
        for folder in reversed(self._folders):
            if folder[0] == name:
                return folder
        return None

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except AttributeError:
            raise AttributeError(name) from None

    def __setattr__(self, name: str, value: Any) -> None:
        self[name] = value

    def set(self, **kw: Any) -> None:
        for name, value in kw.items():
            self[name] = value

    def get(self) -> dict[str, Any]:
        """Every field by name: the fixed ones, then each folder's Length and data."""
        return dict(self._values)

    def get_folders(self) -> list[str]:
        return [name for name, _data in self._folders]

    def get_length(self) -> int:
        return FIXED + sum(4 + len(data) for _name, data in self._folders)

    def __str__(self) -> str:
        return "\n".join(f"{k}: {v}" for k, v in self._values.items())

    # -- folders -------------------------------------------------------------------------
    def add_folder(self, folder_data: bytes) -> None:
        """Add an XML folder (bytes), blank-padded to a multiple of 4; StrucLength follows."""
        if isinstance(folder_data, str):
            raise TypeError("folder_data must be bytes, not str")
        folder_data = bytes(folder_data)
        name = _folder_name(folder_data)
        folder_data += b" " * (-len(folder_data) % 4)
        self._append(name, folder_data)
        self._values["StrucLength"] = self.get_length()

    def _append(self, name: str, data: bytes) -> None:
        if name in _FIXED_FIELDS or name.endswith("Length") and name[:-6] in _FIXED_FIELDS:
            raise PYIFError(f"RFH2 - a folder cannot be called {name!r}")
        self._folders.append([name, data])
        self._values[name + "Length"] = len(data)
        self._values[name] = data

    # -- bytes ---------------------------------------------------------------------------
    def _header(self) -> Rfh2:
        """The core's header for these fields, its folders as text in a codec the core
        writes back to the same bytes (UTF-8, or Latin-1 for anything else)."""
        v = self._values
        datas = [data.split(b"\0", 1)[0] for _name, data in self._folders]
        try:
            if v["NameValueCCSID"] not in (0, 1208):
                raise UnicodeDecodeError("utf-8", b"", 0, 1, "not UTF-8")
            folders, ccsid = [Folder(d.decode("utf-8")) for d in datas], 1208
        except UnicodeDecodeError:
            folders, ccsid = [Folder(d.decode("latin-1")) for d in datas], _LATIN1
        header = Rfh2(folders, v["Encoding"], v["CodedCharSetId"], v["Format"], v["Flags"])
        header.name_value_ccsid = ccsid
        return header

    def pack(self, encoding: int | None = None) -> bytes:
        """The header's bytes; its integers big-endian when `encoding` (that of the
        structure before it) says so, else native. The fixed fields go as they are set
        (a wrong StrucLength is MQPUT's 2334, as on MQ)."""
        int_encoding = C.MQENC_NATIVE if encoding is None else encoding
        header = self._header()
        body = _encode_folders(header, int_encoding)
        header.name_value_ccsid = self._values["NameValueCCSID"]
        fixed = encode_fixed(
            header,
            self._values["StrucLength"],
            int_encoding,
            self._values["_StrucId"],
            self._values["Version"],
        )
        return fixed + body

    def unpack(self, buff: bytes, encoding: int | None = None) -> RFH2:
        """Read the header at the start of `buff` (`encoding`: that of the structure
        before it; None guesses it from the Version field). A 36-byte buffer gives the
        fixed fields alone."""
        if isinstance(buff, str):
            raise TypeError("buff must be bytes, not str")
        buff = bytes(buff)
        if buff[:4] != C.MQRFH_STRUC_ID:
            raise PYIFError(f"RFH2 - _StrucId not MQRFH_STRUC_ID. Value: {buff[0:4]!r}")
        if len(buff) < FIXED:
            raise PYIFError(f"RFH2 - Buffer too short. Should be 36+ bytes instead of {len(buff)}")
        try:
            header, length, _big = decode_fixed(buff, encoding)
            if length < 0:
                raise PYIFError('RFH2 - "StrucLength" is negative. Check numeric encoding.')
            if len(buff) > FIXED:
                if length > len(buff):
                    raise PYIFError(
                        f"RFH2 - Buffer too short. Expected: {length} Buffer Length: {len(buff)}"
                    )
                header, length = decode_header(buff, encoding)
        except MQMIError as err:
            raise PYIFError(f"RFH2 - not a valid MQRFH2 (reason {err.reason})") from None
        self.__init__()
        self._values.update(
            {
                "_StrucId": C.MQRFH_STRUC_ID,
                "Version": C.MQRFH_VERSION_2,
                "StrucLength": length,
                "Encoding": header.encoding,
                "CodedCharSetId": header.ccsid,
                "Format": bytes(header.format),
                "Flags": header.flags,
                "NameValueCCSID": header.name_value_ccsid,
            }
        )
        codec = "utf-16-be" if header.name_value_ccsid in (1200, 13488, 17584) else "utf-8"
        for folder in header.folders:
            data = folder.xml.encode(codec, "surrogatepass")
            data += b" " * (-len(data) % 4)
            self._append(folder.name, data)
        return self


def put_rfh2(queue: Any, msg: bytes, opts: tuple[Any, ...]) -> None:
    """ibmmq's ``Queue.put_rfh2(msg, md, pmo, rfh2_headers)``: the headers packed in
    front of `msg` (each in the encoding of the structure before it: the MQMD's, then the
    previous header's), then MQPUT. The MQMD's Format must say MQHRF2 already."""
    if isinstance(msg, str):
        raise TypeError("Message must be bytes, not str (Python 3 bytes check)")
    if len(opts) >= 3 and opts[2] is not None:
        if not isinstance(opts[2], list):
            raise TypeError("Third item of opts should be a list.")
        encoding = C.MQENC_NATIVE if opts[0] is None else opts[0]["Encoding"]
        buff = b""
        for header in opts[2]:
            if header is not None:
                buff += header.pack(encoding)
                encoding = header["Encoding"]
        queue.put(buff + bytes(msg), *opts[0:2])
    else:
        queue.put(msg, *opts)


def get_rfh2(queue: Any, max_length: int | None, opts: tuple[Any, ...]) -> bytes:
    """ibmmq's ``Queue.get_rfh2(max_length, md, gmo, rfh2_headers)``: MQGET, then every
    MQRFH2 the MQMD's Format announces is unpacked into the list and cut off the data."""
    if len(opts) < 3:
        return queue.get(max_length, *opts)
    if opts[2] is None:
        raise AttributeError("get_opts cannot be None if passed.")
    if not isinstance(opts[2], list):
        raise TypeError("Third item of opts should be a list.")
    md = opts[0] if opts[0] is not None else MD()
    msg = queue.get(max_length, md, opts[1])
    headers = []
    fmt = md["Format"]
    while fmt == C.MQFMT_RF_HEADER_2:
        header = RFH2().unpack(msg)
        headers.append(header)
        msg = msg[header["StrucLength"] :]
        fmt = header["Format"]
    opts[2].extend(headers)
    return msg
