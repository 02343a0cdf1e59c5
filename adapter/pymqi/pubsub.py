"""Publish/subscribe in the pymqi / ibmmq shape: `SD` (MQSD), `SRO` (MQSRO), `Topic`
(MQOPEN of a topic, MQPUT as `pub`, MQCLOSE) and `Subscription` (MQSUB as `sub`, MQGET
of its queue as `get`, MQSUBRQ as `subrq`, MQCLOSE with MQCO_KEEP_SUB /
MQCO_REMOVE_SUB), as IBM's mq-mqi-python has them (code/ibmmq/mqtopic.py, mqsub.py,
mqsd.py). The engine does the work: adapter/shim/publish.py, shim/subscribe.py.

A topic's or subscription's queue is the face's own `Queue` (its put, get, get_rfh2 and
close), which `adapter.pymqi` gives this module when it is imported (`bind`), so this
module does not import the package that imports it.
"""

from __future__ import annotations

from typing import Any

from adapter.core import cmqc as C
from adapter.core.calls import SubRequest
from adapter.core.model import id24
from adapter.core.openrules import put1_open_options
from adapter.pymqi.errors import MQMIError, PYIFError
from adapter.pymqi.failures import mqi
from adapter.pymqi.structs import OD, MQOpts, charv_fields, mqstr

_L = "i"
_QUEUE: Any = None  # adapter.pymqi.Queue, given by bind()

_SD_FIELDS: list[tuple[str, Any, str]] = [
    ("_StrucId", C.MQSD_STRUC_ID, "4s"),
    ("Version", C.MQSD_VERSION_1, _L),
    ("Options", C.MQSO_NON_DURABLE, _L),
    ("ObjectName", b"", "48s"),
    ("AlternateUserId", b"", "12s"),
    ("AlternateSecurityId", C.MQSID_NONE, "40s"),
    ("SubExpiry", C.MQEI_UNLIMITED, _L),
]
_SD_FIELDS += charv_fields("ObjectString", "SubName", "SubUserData")
_SD_FIELDS += [
    ("SubCorrelId", C.MQCI_NONE, "24s"),
    ("PubPriority", C.MQPRI_PRIORITY_AS_Q_DEF, _L),
    ("PubAccountingToken", C.MQACT_NONE, "32s"),
    ("PubApplIdentityData", b"", "32s"),
]
_SD_FIELDS += charv_fields("SelectionString")
_SD_FIELDS += [("SubLevel", 1, _L)]
_SD_FIELDS += charv_fields("ResObjectString")


class SD(MQOpts):
    """MQSD subscription descriptor (version 1, the fields and initial values of IBM's;
    PubPriority's initial value is MQPRI_PRIORITY_AS_Q_DEF there too)."""

    _fields = tuple(_SD_FIELDS)

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)


class SRO(MQOpts):
    """MQSRO subscription request options: NumPubs is set by MQSUBRQ."""

    _fields = (
        ("_StrucId", C.MQSRO_STRUC_ID, "4s"),
        ("Version", C.MQSRO_VERSION_1, _L),
        ("Options", C.MQSRO_NONE, _L),
        ("NumPubs", 0, _L),
    )

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)


def bind(queue_class: type) -> None:
    global _QUEUE
    _QUEUE = queue_class


def _text(value: bytes | str | None) -> str:
    if value is None:
        return ""
    return mqstr(value) if isinstance(value, bytes | str) else str(value)


def _vs_text(desc: MQOpts, name: str) -> str:
    raw = desc.get_vs(name)
    if raw is None:
        return ""
    return raw.decode("utf-8") if isinstance(raw, bytes) else str(raw)


def open_topic_for_put1(qmgr: Any, od: OD, put_options: int) -> Any:
    """MQPUT1 to a topic (an MQOD with ObjectType MQOT_TOPIC): the topic handle it
    publishes through, opened with what its put options need."""
    options = put1_open_options(put_options)
    return qmgr.get_handle().open_topic(_text(od.ObjectName), _vs_text(od, "ObjectString"), options)


class Topic:
    """ibmmq's Topic: opened at construction with `open_opts`, else by `open(open_opts=)`
    or the first `pub` (MQOO_OUTPUT)."""

    def __init__(
        self,
        queue_manager: Any,
        topic_name: str | bytes | None = None,
        topic_string: str | bytes | None = None,
        topic_desc: OD | None = None,
        open_opts: int | None = None,
    ) -> None:
        self._qmgr = queue_manager
        self.topic_name = topic_name
        self.topic_string = topic_string
        self._desc = topic_desc
        self._queue: Any = None
        if topic_desc is not None and topic_desc.ObjectType != C.MQOT_TOPIC:
            raise PYIFError("The Topic Descriptor ObjectType is not MQOT_TOPIC.")
        if topic_desc is not None and topic_desc.Version < C.MQOD_VERSION_4:
            raise PYIFError("The Topic Descriptor Version must be at least MQOD_VERSION_4.")
        if open_opts:
            self._open(open_opts)

    def _names(self) -> tuple[str, str]:
        if self._desc is not None:
            return _text(self._desc.ObjectName), _vs_text(self._desc, "ObjectString")
        string = self.topic_string
        if isinstance(string, bytes):
            string = string.decode("utf-8")
        return _text(self.topic_name), string or ""

    @mqi
    def _open(self, options: int) -> None:
        if self._qmgr._conn is None:
            raise MQMIError(C.MQCC_FAILED, C.MQRC_HCONN_ERROR)
        name, string = self._names()
        handle = self._qmgr.get_handle().open_topic(name, string, options)
        self._queue = _QUEUE(self._qmgr)
        self._queue.set_handle(handle)
        if self._desc is not None:
            self._desc.set_vs("ResObjectString", handle.topic)

    def open(
        self,
        topic_name: str | bytes | None = None,
        topic_string: str | bytes | None = None,
        topic_desc: OD | None = None,
        open_opts: int | None = None,
    ) -> None:
        if self._queue is not None:
            raise PYIFError("The Topic is already open.")
        if topic_name:
            self.topic_name = topic_name
        if topic_string:
            self.topic_string = topic_string
        if topic_desc is not None:
            self._desc = topic_desc
        if open_opts:
            self._open(open_opts)

    def pub(self, msg: bytes | str, *opts: Any) -> None:
        """MQPUT to the topic (opened for output first if it is not open)."""
        if self._queue is None:
            self._open(C.MQOO_OUTPUT)
        self._queue.put(msg, *opts)

    put = pub

    def pub_rfh2(self, msg: bytes, *opts: Any) -> None:
        if self._queue is None:
            self._open(C.MQOO_OUTPUT)
        self._queue.put_rfh2(msg, *opts)

    def get_handle(self) -> Any:
        if self._queue is None:
            raise PYIFError("not open")
        return self._queue.get_handle()

    def close(self, options: int = C.MQCO_NONE) -> None:
        if self._queue is None:
            raise PYIFError("Topic not open.")
        self._queue.close(options)
        self._queue = None


class Subscription:
    """ibmmq's Subscription: `sub()` is MQSUB (a new, resumed or altered
    subscription); `get` / `get_rfh2` read its queue; `close` is MQCLOSE of the
    subscription handle (and of its queue with `close_sub_queue`)."""

    def __init__(
        self,
        queue_manager: Any,
        sub_desc: SD | None = None,
        sub_name: str | bytes | None = None,
        sub_queue: Any = None,
        sub_opts: int | None = None,
        topic_name: str | bytes | None = None,
        topic_string: str | bytes | None = None,
    ) -> None:
        self._qmgr = queue_manager
        self.sub_queue = sub_queue
        self.sub_desc = sub_desc
        self.sub_name = sub_name
        self.sub_opts = sub_opts
        self.topic_name = topic_name
        self.topic_string = topic_string
        self._handle: Any = None
        if sub_desc is not None:
            self.sub(sub_desc=sub_desc)

    def get_handle(self) -> Any:
        return self._handle

    def get_queue_manager(self) -> Any:
        return self._qmgr

    def get_sub_queue(self) -> Any:
        return self.sub_queue

    def get(self, max_length: int | None = None, *opts: Any) -> bytes:
        return self.sub_queue.get(max_length, *opts)

    def get_rfh2(self, max_length: int | None = None, *opts: Any) -> bytes:
        return self.sub_queue.get_rfh2(max_length, *opts)

    def _desc(self, sub_opts: int | None) -> SD:
        desc = SD()
        desc.Options = sub_opts or (C.MQSO_CREATE | C.MQSO_NON_DURABLE | C.MQSO_MANAGED)
        if self.sub_name:
            desc.set_vs("SubName", self.sub_name)
        if self.topic_name:
            desc.ObjectName = self.topic_name
        if self.topic_string:
            desc.set_vs("ObjectString", self.topic_string)
        return desc

    @mqi
    def sub(
        self,
        sub_desc: SD | None = None,
        sub_queue: Any = None,
        sub_name: str | bytes | None = None,
        sub_opts: int | None = None,
        topic_name: str | bytes | None = None,
        topic_string: str | bytes | None = None,
    ) -> None:
        if topic_name:
            self.topic_name = topic_name
        if topic_string:
            self.topic_string = topic_string
        if sub_name:
            self.sub_name = sub_name
        if sub_desc is not None and not isinstance(sub_desc, SD):
            raise TypeError("sub_desc must be a SD(sub descriptor) object.")
        desc = sub_desc if sub_desc is not None else self._desc(sub_opts)
        if desc._StrucId != C.MQSD_STRUC_ID or desc.Version != C.MQSD_VERSION_1:
            raise MQMIError(C.MQCC_FAILED, C.MQRC_SD_ERROR)
        if self._qmgr._conn is None:
            raise MQMIError(C.MQCC_FAILED, C.MQRC_HCONN_ERROR)
        queue_handle = None
        if sub_queue is not None:
            queue_handle = sub_queue.get_handle() if hasattr(sub_queue, "get_handle") else sub_queue
        req = SubRequest(
            options=desc.Options,
            object_name=_text(desc.ObjectName),
            object_string=_vs_text(desc, "ObjectString"),
            sub_name=_vs_text(desc, "SubName"),
            sub_user_data=_vs_text(desc, "SubUserData"),
            sub_correl_id=id24(desc.SubCorrelId),
            selection_string=_vs_text(desc, "SelectionString"),
            pub_priority=desc.PubPriority,
            sub_expiry=desc.SubExpiry,
        )
        conn = self._qmgr.get_handle()
        handle, qh, resolved = conn.subscribe(req, queue_handle)
        desc.set_vs("ResObjectString", resolved)
        if not desc.Options & C.MQSO_SET_CORREL_ID:
            desc.SubCorrelId = handle.sd.correl_bytes  # MQSUB returns the generated one
        self.sub_desc = desc
        if sub_queue is not None and hasattr(sub_queue, "get_handle"):
            self.sub_queue = sub_queue
        else:
            self.sub_queue = _QUEUE(self._qmgr)
            self.sub_queue.set_handle(qh)
        self._handle = handle

    @mqi
    def subrq(self, sub_action: int = C.MQSR_ACTION_PUBLICATION, sro: SRO | None = None) -> None:
        """MQSUBRQ: the retained publication(s) sent again; SRO.NumPubs says how many."""
        if self._handle is None:
            raise PYIFError("Subscription not open.")
        if sro is not None and not isinstance(sro, SRO):
            raise TypeError("sro must be an SRO(sub request options) object.")
        n = self._handle.request(sub_action)
        if sro is not None:
            sro.NumPubs = n

    @mqi
    def close(
        self,
        sub_close_options: int = C.MQCO_NONE,
        close_sub_queue: bool = False,
        close_sub_queue_options: int = C.MQCO_NONE,
    ) -> None:
        if self._handle is None:
            raise PYIFError("Subscription not open.")
        self._handle.close(sub_close_options)
        self._handle = None
        if close_sub_queue:
            self.sub_queue.close(close_sub_queue_options)
