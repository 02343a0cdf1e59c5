"""Message handles and their properties (MQCRTMH, MQSETMP, MQINQMP, MQDLTMP, MQDLTMH) in
the shape of ibmmq's `MessageHandle` (code/ibmmq/mqmsghdl.py of mq-mqi-python): a handle
number for PMO.OriginalMsgHandle and GMO.MsgHandle, and `properties.get / set / dlt`.

The rules are adapter/core/properties.py's; a handle belongs to its connection (an
unknown or deleted handle is MQRC_HMSG_ERROR, 2460).
"""

from __future__ import annotations

import itertools
from typing import Any

from adapter.core import cmqc as C
from adapter.core import propwire, putprops
from adapter.core.errors import MQMIError, fail
from adapter.core.properties import MessageProperties


class MessageHandles:
    """A connection's message handles: number -> properties."""

    def __init__(self) -> None:
        self._numbers = itertools.count(1)
        self._props: dict[int, MessageProperties] = {}
        # The last put's (Action, original, its version, new, its version, packed): an
        # application puts with the same handle again and again, and packing it anew
        # each time was a measurable part of a put with properties.
        self._last_put: tuple | None = None

    def create(self) -> int:
        number = next(self._numbers)
        self._props[number] = MessageProperties()
        return number

    def properties(self, number: int) -> MessageProperties:
        props = self._props.get(int(number))
        if props is None:
            raise fail(C.MQRC_HMSG_ERROR)
        return props

    def replace(self, number: int, props: MessageProperties) -> None:
        """MQGET with the handle: it now holds the got message's properties only."""
        self.properties(number)
        self._props[int(number)] = props

    def delete(self, number: int) -> None:
        self.properties(number)
        del self._props[int(number)]

    def packed_for_put(self, action: int, original: int | None, new: int | None) -> bytes:
        """The envelope's Properties bytes of an MQPUT with PMO.Action and these handles
        (putprops.compose's rules and reasons), reused while neither handle changed."""
        orig = self.properties(original) if original is not None else None
        newp = self.properties(new) if new is not None else None
        orig_v = orig.version if orig is not None else -1
        new_v = newp.version if newp is not None else -1
        last = self._last_put
        if (
            last is not None
            and last[0] == action
            and last[1] is orig
            and last[2] == orig_v
            and last[3] is newp
            and last[4] == new_v
        ):
            return last[5]
        packed = propwire.pack(putprops.compose(action, orig, newp))
        self._last_put = (action, orig, orig_v, newp, new_v, packed)
        return packed


def _options(struct: Any, default: int) -> int:
    return default if struct is None else int(getattr(struct, "Options", struct))


class _Properties:
    """`MessageHandle.properties`: ibmmq's get / set / dlt (and dict-style access)."""

    def __init__(self, handles: MessageHandles, number: int) -> None:
        self._handles = handles
        self._number = number
        self.default_value_length = 64  # ibmmq's; a longer value is returned whole here

    def get(
        self,
        name: str | bytes,
        default: Any = None,
        max_value_length: int | None = None,
        impo_options: int = C.MQIMPO_INQ_FIRST,
        impo: Any = None,
        pd: Any = None,
        property_type: int = C.MQTYPE_AS_SET,
    ) -> Any:
        """MQINQMP: the value, or (value, name) when `name` has a `%` wildcard. Failures
        raise MQMIError with `value=default` (2471 when there is no such property)."""
        options = _options(impo, impo_options | C.MQIMPO_CONVERT_VALUE)
        try:
            props = self._handles.properties(self._number)
            got = props.inquire(name, options, property_type, max_value_length)
        except MQMIError as err:
            raise MQMIError(
                err.comp, err.reason, value=default, data_length=getattr(err, "data_length", 0)
            ) from None
        text = name.decode() if isinstance(name, bytes | bytearray) else name
        if "%" in text:
            return got.value, got.name.encode()
        return got.value

    def set(
        self,
        name: str | bytes,
        value: Any,
        property_type: int = C.MQTYPE_STRING,
        value_length: int = C.MQVL_NULL_TERMINATED,
        pd: Any = None,
        smpo: Any = None,
    ) -> None:
        """MQSETMP (2442 bad name, 2473 bad type, ...)."""
        length = None if property_type != C.MQTYPE_STRING else value_length
        if property_type == C.MQTYPE_BYTE_STRING and value_length >= 0:
            length = value_length
        self._handles.properties(self._number).set(name, value, property_type, length)

    def dlt(self, name: str | bytes, dmpo: Any = None) -> None:
        """MQDLTMP (2471 when there is no such property)."""
        options = _options(dmpo, C.MQDMPO_DEL_FIRST)
        self._handles.properties(self._number).delete(name, options)

    def __getitem__(self, name: str | bytes) -> Any:
        try:
            return self.get(name)
        except MQMIError as err:
            if err.reason == C.MQRC_PROPERTY_NOT_AVAILABLE:
                raise KeyError(f"No such property [{name}]") from None
            raise

    def __setitem__(self, name: str | bytes, value: Any) -> None:
        self.set(name, value)


class MessageHandle:
    """MQCRTMH: `MessageHandle(qmgr)`; `.msg_handle` goes in PMO.OriginalMsgHandle or
    GMO.MsgHandle; `.properties` sets and inquires; `dlt()` is MQDLTMH."""

    def __init__(self, qmgr: Any = None, cmho: Any = None, dup_handle: int | None = None) -> None:
        if qmgr is None or getattr(qmgr, "_conn", None) is None:
            raise MQMIError(C.MQCC_FAILED, C.MQRC_HCONN_ERROR)
        self._handles: MessageHandles = qmgr._msg_handles
        self.duplicated = dup_handle is not None
        self.msg_handle = dup_handle if dup_handle is not None else self._handles.create()
        self.conn_handle = qmgr.get_handle()
        self.properties = _Properties(self._handles, self.msg_handle)

    def get_handle(self) -> int:
        return self.msg_handle

    def get_queue_manager(self) -> Any:
        return self.conn_handle

    def dlt(self, dmho: Any = None) -> None:
        """MQDLTMH: the handle and its properties go (2460 afterwards)."""
        if not self.duplicated:
            self._handles.delete(self.msg_handle)
