"""pymqi-compatible MQI on Kafka: `import adapter.pymqi as pymqi` and keep the code.

The API shape follows pymqi (and IBM's ibmmq v2 defaults: MD version 2, GMO 4, PMO 3):
`connect`, `QueueManager`, `Queue`, `MD`, `GMO`, `PMO`, `OD`, `CMQC`, `MQMIError`.
Every non-zero completion code is raised as MQMIError, warnings included; on a get
warning the MD and GMO are filled first, on a put warning they are not (as pymqi).
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any

from adapter.core import cmqc as _C
from adapter.core import propwire
from adapter.core.calls import GetRequest, PutRequest
from adapter.core.connrules import connect_options_error, handle_sharing
from adapter.core.dynamic import DEFAULT_DYNAMIC_Q_NAME
from adapter.core.model import id24
from adapter.core.openrules import put1_open_options
from adapter.core.properties import MessageProperties
from adapter.core.putrules import put_options_error
from adapter.core.structrules import structure_error
from adapter.pymqi import CMQC, CMQCFC, CMQXC
from adapter.pymqi import inquire as _inq
from adapter.pymqi import pubsub as _pubsub
from adapter.pymqi.asyncconsume import AsyncConsume
from adapter.pymqi.dlh import DLH
from adapter.pymqi.errors import Error, MQMIError, PYIFError
from adapter.pymqi.failures import internal_failures, mqi
from adapter.pymqi.msghandle import MessageHandle, MessageHandles
from adapter.pymqi.pubsub import SD, SRO, Subscription, Topic
from adapter.pymqi.rfh2 import RFH2, get_rfh2, put_rfh2
from adapter.pymqi.sharing import HandleSharing
from adapter.pymqi.structs import (
    CNO,
    CSP,
    GMO,
    MD,
    OD,
    PMO,
    MQOpts,
    cno,
    csp,
    gmo,
    md,
    mqchar,
    mqstr,
    od,
    pmo,
)
from adapter.pymqi.structs_ext import BNO, CBC, CBD, CD, CTLO, SCO, STS, bno, cd, sco, sts
from adapter.pymqi.xqh import XQH
from adapter.shim import attributes as _attributes
from adapter.shim.catalog import REMOTE_ATTRIBUTES, QueueDef, check_alias_attributes
from adapter.shim.connection import Connection
from adapter.shim.qmgrdef import QMgrDef

__all__ = [
    "BNO",
    "CBC",
    "CBD",
    "CD",
    "ByteString",
    "CFBS",
    "CFH",
    "CFIF",
    "CFIL",
    "CFIN",
    "CFSF",
    "CFSL",
    "CFST",
    "CMQC",
    "CMQCFC",
    "CMQXC",
    "CNO",
    "CSP",
    "DLH",
    "XQH",
    "CTLO",
    "SCO",
    "STS",
    "bno",
    "cd",
    "sco",
    "sts",
    "GMO",
    "MD",
    "OD",
    "PMO",
    "Error",
    "Filter",
    "MQMIError",
    "PCFExecute",
    "MessageHandle",
    "MQOpts",
    "PYIFError",
    "Queue",
    "QueueManager",
    "RFH2",
    "SD",
    "SRO",
    "Subscription",
    "Topic",
    "cno",
    "connect",
    "csp",
    "gmo",
    "internal_failures",
    "md",
    "od",
    "pmo",
]
__version__ = "0.1.0"
__mqbuild__ = "client"

_MD_V2_FIELDS = {"GroupId", "MsgSeqNumber", "Offset", "MsgFlags", "OriginalLength"}
_SET_CONTEXT = _C.MQPMO_SET_IDENTITY_CONTEXT | _C.MQPMO_SET_ALL_CONTEXT
_PASS_CONTEXT = _C.MQPMO_PASS_IDENTITY_CONTEXT | _C.MQPMO_PASS_ALL_CONTEXT
_INPUT = _C.MQOO_INPUT_AS_Q_DEF | _C.MQOO_INPUT_SHARED | _C.MQOO_INPUT_EXCLUSIVE
_ACCESS = _INPUT | _C.MQOO_BROWSE | _C.MQOO_OUTPUT | _C.MQOO_INQUIRE | _C.MQOO_SET


_mqi = mqi  # every MQI verb: only MQ's answers escape (adapter/pymqi/failures.py)


def _check_structure(kind: str, value: MQOpts) -> None:
    """MQ's reason for a structure whose StrucId or Version it would not accept
    (MQRC_MD_ERROR, MQRC_PMO_ERROR, MQRC_GMO_ERROR, MQRC_OD_ERROR, ...)."""
    reason = structure_error(kind, value._StrucId, value.Version)
    if reason is not None:
        raise MQMIError(_C.MQCC_FAILED, reason)


def _check_live(handle) -> None:
    """MQRC_HCONN_ERROR before any parameter is looked at: MQDISC ended the connection."""
    if handle.svc.closed:
        raise MQMIError(_C.MQCC_FAILED, _C.MQRC_HCONN_ERROR)


@functools.lru_cache(maxsize=1024)
def _text(value: bytes | str) -> str:
    """mqstr, cached: the same formats and reply-to names recur on every put."""
    return mqstr(value)


@functools.lru_cache(maxsize=1024)
def _resolved_names(queue: str, qmgr: str) -> tuple[bytes, bytes]:
    return mqchar(queue, _C.MQ_Q_NAME_LENGTH), mqchar(qmgr, _C.MQ_Q_MGR_NAME_LENGTH)


def _resolved(handle) -> tuple[bytes, bytes]:
    """ResolvedQName / ResolvedQMgrName of a queue handle (a local queue: itself; an
    alias: its target, as MQPUT and MQGET return them; a remote queue: the destination
    queue and queue manager, RNAME and RQMNAME)."""
    route = handle.remote
    if route is not None:
        return _resolved_names(route.remote_q, route.remote_qmgr)
    return _resolved_names(handle.name, handle.svc.qmgr)


def _fill_od(od_: OD, handle, name: str, options: int) -> None:
    """MQOPEN's output fields, at MQ's widths (blank-padded MQCHAR48): a model queue's
    ObjectName and ObjectQMgrName become the dynamic queue's; an alias's stay. The
    Resolved names (MQOD version 3 and later) are the queue the handle works on (an
    alias's target) and this queue manager, blank unless it was opened to browse, get or
    put (MQOD ResolvedQName / ResolvedQMgrName,
    https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q098270_.html)."""
    opened = handle.object_name  # a model queue's: the dynamic queue created
    if opened != name:
        od_.__dict__["ObjectName"], od_.__dict__["ObjectQMgrName"] = _resolved_names(
            opened, handle.svc.qmgr
        )
    if od_.Version < _C.MQOD_VERSION_3:
        return
    if options & (_INPUT | _C.MQOO_BROWSE | _C.MQOO_OUTPUT):
        queue, qmgr = _resolved(handle)
    else:
        queue, qmgr = _resolved_names("", "")
    od_.__dict__["ResolvedQName"], od_.__dict__["ResolvedQMgrName"] = queue, qmgr


def put_request(md_: MD, pmo_: PMO) -> PutRequest:
    """MQMD + MQPMO -> the engine's PutRequest."""
    opts = pmo_.Options
    context = None
    if opts & _SET_CONTEXT:
        context = {
            "UserIdentifier": mqstr(md_.UserIdentifier),
            "AccountingToken": bytes(md_.AccountingToken),
            "ApplIdentityData": mqstr(md_.ApplIdentityData),
            "PutApplType": md_.PutApplType,
            "PutApplName": mqstr(md_.PutApplName),
            "ApplOriginData": mqstr(md_.ApplOriginData),
            "PutDate": mqstr(md_.PutDate),
            "PutTime": mqstr(md_.PutTime),
        }
    return PutRequest(
        opts,
        id24(md_.MsgId),
        id24(md_.CorrelId),
        md_.GroupId,
        md_.MsgSeqNumber,
        md_.Offset,
        md_.MsgFlags,
        md_.Persistence,
        md_.Priority,
        md_.Expiry,
        _text(md_.Format),
        md_.CodedCharSetId,
        md_.Encoding,
        md_.MsgType,
        md_.Report,
        md_.Feedback,
        _text(md_.ReplyToQ),
        _text(md_.ReplyToQMgr),
        md_.OriginalLength,
        md_.Version,
        context,
        pmo_.Context if opts & _PASS_CONTEXT else 0,
    )


def get_request(md_: MD, gmo_: GMO) -> GetRequest:
    """MQMD + MQGMO -> the rules core's GetRequest (a version-1 MD has no group fields)."""
    v2 = md_.Version >= 2
    return GetRequest(
        options=gmo_.Options,
        match_options=gmo_.MatchOptions,
        msg_id=id24(md_.MsgId),
        correl_id=id24(md_.CorrelId),
        group_id=id24(md_.GroupId) if v2 else _C.MQGI_NONE,
        seq=md_.MsgSeqNumber if v2 else 1,
        offset=md_.Offset if v2 else 0,
        gmo_version=gmo_.Version,
        md_version=md_.Version,
        msg_handle=_msg_handle(gmo_.MsgHandle) is not None if gmo_.Version >= 4 else False,
        ccsid=md_.CodedCharSetId,
        encoding=md_.Encoding,
    )


def _credentials(user: str | bytes | None, password: str | bytes | None) -> tuple[str, str] | None:
    """MQCSP's user id and password as text (None without a user id)."""
    if not user:
        return None
    text = [v.decode() if isinstance(v, bytes) else (v or "") for v in (user, password)]
    return text[0], text[1]


def _msg_handle(value: int) -> int | None:
    """A message handle field's handle, or None for MQHM_NONE / MQHM_UNUSABLE_HMSG."""
    value = int(value)
    return None if value in (_C.MQHM_NONE, _C.MQHM_UNUSABLE_HMSG) else value


def _name(value: Any) -> str:
    """An MQCHAR name field as the queue manager reads it ("ObjectName (MQCHAR48)",
    https://www.ibm.com/docs/en/SSFKSJ_9.3.0/refdev/q098180_.html): a NUL ends the
    significant data (it and what follows are blanks), trailing blanks are not part of
    the name, leading or embedded ones are (so no object has such a name: 2085). Bytes
    that are not UTF-8 cannot name an object either: they read as U+FFFD, never as an
    exception."""
    if isinstance(value, bytes | bytearray):
        value = bytes(value).split(b"\0", 1)[0].decode("utf-8", "replace")
    return str(value).split("\0", 1)[0].rstrip(" ")


class QueueManager:
    """MQCONN / MQDISC and the queue-manager verbs. `name=None` defers the connect."""

    def __init__(
        self,
        name: str | bytes | None = "",
        disconnect_on_exit: bool = True,
        bytes_encoding: str = "utf8",
        default_ccsid: int = 1208,
        *,
        kafka_bootstrap: str | None = None,
        redis_url: str | None = None,
        transactional_id: str | None = None,
        log_backend: Any = None,
        store: Any = None,
        clock: Any = None,
    ) -> None:
        """`log_backend`, `store` and `clock` replace Kafka, Redis and the system clock
        (the in-memory backends of adapter.shim.memory_log / memory_store)."""
        self.bytes_encoding = bytes_encoding
        self.default_ccsid = default_ccsid
        self._disconnect_on_exit = disconnect_on_exit
        self._msg_handles = MessageHandles()  # MQCRTMH handles of this connection
        self._targets = {
            "kafka_bootstrap": kafka_bootstrap,
            "redis_url": redis_url,
            "transactional_id": transactional_id,
            "log_backend": log_backend,
            "store": store,
            "clock": clock,
        }
        self._conn = None
        self._sharing: HandleSharing | None = None
        self._async: AsyncConsume | None = None  # MQCB / MQCTL state, made on first use
        if name is not None:
            self.connect(name)

    # -- connection ----------------------------------------------------------------
    def connect(self, name: str | bytes) -> None:
        """MQCONN: a nonshared handle (only this thread may use it)."""
        self._connect(name, _C.MQCNO_HANDLE_SHARE_NONE)

    @_mqi
    def _connect(
        self, name: str | bytes, sharing: int, credentials: tuple[str, str] | None = None
    ) -> None:
        if self._conn is not None:
            raise MQMIError(_C.MQCC_WARNING, _C.MQRC_ALREADY_CONNECTED)
        self._conn = Connection(_name(name), credentials=credentials, **self._targets)
        self._sharing = HandleSharing(sharing)

    def _connect_options(self, options: int) -> int:
        """MQCNO.Options as the face passes them to MQCONNX (pymqi: unchanged)."""
        return options

    def connect_with_options(self, name: str | bytes, *args: Any, **kwargs: Any) -> None:
        """MQCONNX, as pymqi / ibmmq: `connect_with_options(name, [opts=int], [cno=CNO],
        [csp=CSP], [user=, password=], [cd=], [sco=], [bno=])` or the old form
        `connect_with_options(name, cd[, sco])`. The MQCNO (its StrucId, Version and
        Options) and the MQCSP's StrucId and Version are validated as MQ does; channel
        and TLS structures have no meaning on Kafka and are accepted. The MQCSP's (or
        user= / password=) credentials are the connection's SASL user on a cluster the
        client settings reach over SASL (docs/security.md); refused: 2035."""
        if len(args) > 2:
            raise TypeError(f"Invalid options: {args}")
        user, password = kwargs.get("user"), kwargs.get("password")
        if user and password is None:  # pymqi: an empty password is allowed, None not
            raise ValueError("Password must not be None if user is provided")
        options = kwargs.get("opts", _C.MQCNO_NONE)
        cno_ = kwargs.get("cno")
        if cno_ is not None:
            if not isinstance(cno_, CNO):
                raise TypeError("cno must be an instance of CNO")
            _check_structure("CNO", cno_)
            options = cno_.Options  # ibmmq: the structure's Options win over opts=
        options = self._connect_options(options)
        reason = connect_options_error(options)
        if reason is not None:
            raise MQMIError(_C.MQCC_FAILED, reason)
        csp_ = kwargs.get("csp")
        if csp_ is not None:
            if not isinstance(csp_, CSP):
                raise TypeError("csp must be an instance of CSP")
            _check_structure("CSP", csp_)
            if csp_.CSPUserId:  # the structure's credentials win over user= / password=
                user, password = csp_.CSPUserId, csp_.CSPPassword or ""
        self._connect(name, handle_sharing(options), _credentials(user, password))

    connectWithOptions = connect_with_options

    def connect_tcp_client(
        self,
        name,
        cd=None,
        channel=None,
        conn_name=None,
        user=None,
        password=None,
        cno=None,
        csp=None,
        sco=None,
        bno=None,
    ) -> None:
        """A client connection (ibmmq adds `cno`, `csp`, `sco`, `bno`): there is no
        channel here, so this is MQCONNX with the structures checked as there."""
        self.connect_with_options(
            name, user=user, password=password, cd=cd, cno=cno, csp=csp, sco=sco, bno=bno
        )

    connectTCPClient = connect_tcp_client

    @mqi(async_control=True)
    def disconnect(self) -> None:
        """MQDISC: asynchronous consume is stopped first (from any thread, as MQ allows
        while it is started) and its callbacks deregistered."""
        if self._conn is None:
            raise PYIFError("not connected")
        if self._async is not None:
            self._async.shutdown()
            self._async = None
        conn, self._conn, self._sharing = self._conn, None, None
        conn.close()

    def get_handle(self):
        if self._conn is None:
            raise PYIFError("not connected")
        return self._conn

    getHandle = get_handle

    def _hconn(self):
        """The connection an MQI verb uses: MQRC_HCONN_ERROR (2018) once MQDISC ended it,
        as MQ answers a call on an Hconn that is no longer valid (as MQOPEN and MQPUT1
        here), not pymqi's PYIFError of its own get_handle."""
        if self._conn is None:
            raise MQMIError(_C.MQCC_FAILED, _C.MQRC_HCONN_ERROR)
        return self._conn

    def get_name(self) -> str:
        return self.get_handle().qmgr

    @property
    def is_connected(self) -> bool:
        if self._conn is None:
            return False
        try:
            self._conn.store.ping()
            return True
        except Exception:  # noqa: BLE001 - pymqi: False on any failure
            return False

    def __del__(self, _finalizing: Callable[[], bool] = sys.is_finalizing) -> None:
        # At interpreter exit no I/O: the application ended without MQDISC, so (as in
        # MQ) its unit of work is backed out, by lease expiry and transaction timeout.
        # (`sys.is_finalizing` bound at definition: at exit the module's globals may
        # already be None, and a finaliser must not raise.)
        if _finalizing():
            return
        conn = getattr(self, "_conn", None)
        if conn is not None and self._disconnect_on_exit:
            # Not through MQDISC's handle-sharing guard: the collector may run this on
            # any thread, and a nonshared handle would refuse it (2018) and leak.
            self._conn, self._sharing = None, None
            try:
                conn.close()
            except Exception:  # noqa: BLE001 - never raise from a finaliser
                pass

    # -- units of work -------------------------------------------------------------
    @_mqi
    def begin(self) -> None:
        """MQBEGIN: start the unit of work now (it also starts with the first syncpoint
        put or get). The queue manager coordinates it: there are no external resources."""
        self._hconn().begin()

    @_mqi
    def commit(self) -> None:
        """MQCMIT. A unit of work that cannot commit is backed out: MQMIError(1, 2003)."""
        self._hconn().commit()

    @_mqi
    def backout(self) -> None:
        """MQBACK: puts forgotten, gets back on their queues with BackoutCount + 1."""
        self._hconn().backout()

    # -- MQPUT1 --------------------------------------------------------------------
    @_mqi
    def put1(self, qDesc, msg, *opts) -> None:
        md_, pmo_ = (list(opts) + [None, None])[:2]
        if self._conn is None:
            raise MQMIError(_C.MQCC_FAILED, _C.MQRC_HCONN_ERROR)
        md_, pmo_ = md_ or MD(), pmo_ or PMO()
        # The parameters in MQPUT1's order, before anything is opened.
        if isinstance(qDesc, OD):
            _check_structure("OD", qDesc)
        _check_structure("MD", md_)
        _check_structure("PMO", pmo_)
        reason = put_options_error(pmo_.Options, put1=True)
        if reason is not None:
            raise MQMIError(_C.MQCC_FAILED, reason)
        q = Queue(self)
        # MQPUT1 opens with what its put options need (its authority is checked as such).
        if isinstance(qDesc, OD) and qDesc.ObjectType == _C.MQOT_TOPIC:  # a publication
            q.set_handle(_pubsub.open_topic_for_put1(self, qDesc, pmo_.Options))
        else:
            q._open_handle(qDesc, put1_open_options(pmo_.Options), put1=True)
        try:
            q._put(msg, md_, pmo_, put1=True)
        finally:
            q._handle.close()
            q._handle = None

    # -- administration (DEFINE / DELETE QLOCAL, DISPLAY QSTATUS) ------------------
    @mqi(admin=True)
    def define_queue(self, name: str, replace: bool = False, **attributes: Any):
        """DEFINE QLOCAL, or DEFINE QMODEL with `queue_type=CMQC.MQQT_MODEL` (and
        `definition_type` MQQDT_TEMPORARY_DYNAMIC, MQ's default, or
        MQQDT_PERMANENT_DYNAMIC), or DEFINE QALIAS with `queue_type=CMQC.MQQT_ALIAS`,
        `target=` (TARGET) and only the attributes an alias has (catalog.ALIAS_ATTRIBUTES),
        or DEFINE QREMOTE with `queue_type=CMQC.MQQT_REMOTE`, `remote_q_name=` (RNAME),
        `remote_q_mgr_name=` (RQMNAME), `xmit_q_name=` (XMITQ) and the attributes of
        catalog.REMOTE_ATTRIBUTES. `usage=CMQC.MQUS_TRANSMISSION` makes a local queue a
        transmission queue (USAGE(XMITQ)). Dynamic queues are made by MQOPEN of a model only."""
        if "creator" in attributes:
            raise ValueError("unknown queue attribute: creator")
        if attributes.get("queue_type") == _C.MQQT_ALIAS:
            check_alias_attributes(set(attributes) - {"queue_type"})
        if attributes.get("queue_type") == _C.MQQT_REMOTE:
            foreign = set(attributes) - REMOTE_ATTRIBUTES - {"queue_type"}
            if foreign:
                raise ValueError(f"attributes a remote queue does not have: {sorted(foreign)}")
        try:
            qdef = QueueDef(name=_name(name), **attributes)
        except TypeError as exc:
            raise ValueError(f"unknown queue attribute: {exc}") from None
        if not qdef.is_model and qdef.definition_type != _C.MQQDT_PREDEFINED:
            raise ValueError("a local queue is predefined: dynamic queues come from a model")
        return self.get_handle().define_queue(qdef, replace=replace)

    @mqi(admin=True)
    def alter_queue(self, name: str, force: bool = False, **attributes: Any):
        """ALTER QLOCAL / QALIAS (e.g. `get_inhibited=True` for GET(DISABLED)): every
        handle open on the queue, in any process, sees the change on its next call.
        ValueError for an attribute that ALTER cannot change. An alias's `target` changes
        while the alias is open only with `force` (FORCE; else MQRCCF_OBJECT_OPEN_FORCE),
        and its open handles then get MQRC_OBJECT_CHANGED."""
        return self.get_handle().alter_queue(_name(name), force=force, **attributes)

    @_mqi
    def delete_queue(self, name: str, purge: bool = False) -> None:
        """DELETE QLOCAL: MQRC_OBJECT_IN_USE while any handle has the queue open,
        MQRC_Q_NOT_EMPTY while messages remain (unless `purge`)."""
        self.get_handle().delete_queue(_name(name), purge=purge)

    @mqi(admin=True)
    def define_topic(
        self,
        name: str,
        topic_string: str,
        description: str = "",
        replace: bool = False,
        **attributes: Any,
    ):
        """DEFINE TOPIC(name) TOPICSTR(topic_string) DESCR(description) (REPLACE) and
        topic attributes by field (adapter/core/topicattrs.py: def_priority=..., ...)."""
        return self.get_handle().define_topic(
            _name(name), topic_string, description, replace=replace, **attributes
        )

    @mqi(admin=True)
    def alter_topic(self, name: str, description: str | None = None, **attributes: Any):
        """ALTER TOPIC(name): the description and attributes given change."""
        return self.get_handle().alter_topic(_name(name), description, **attributes)

    @_mqi
    def delete_topic(self, name: str) -> None:
        """DELETE TOPIC (MQRC_UNKNOWN_OBJECT_NAME when there is none)."""
        self.get_handle().delete_topic(_name(name))

    @_mqi
    def clear_queue(self, name: str) -> None:
        """CLEAR QLOCAL / MQCMD_CLEAR_Q: MQRC_OBJECT_IN_USE while the queue is open or
        has messages put under syncpoint and not committed (as MQ); then every message is
        removed by destructive gets under an exclusive input handle (mqk has no single
        truncate: each removal is an MQGET outside syncpoint)."""
        st = self.queue_status(name)
        conn = self.get_handle()
        qdef = conn.lookup_queue(_name(name), refresh=True)
        busy = st["open_input_count"] or st["open_output_count"]
        if busy or (qdef is not None and conn.catalog.has_uncommitted(qdef)):
            raise MQMIError(_C.MQCC_FAILED, _C.MQRC_OBJECT_IN_USE)
        queue = Queue(self, name, _C.MQOO_INPUT_EXCLUSIVE)
        options = _C.MQGMO_NO_WAIT | _C.MQGMO_NO_SYNCPOINT | _C.MQGMO_ACCEPT_TRUNCATED_MSG
        try:
            while True:
                try:
                    queue.get(0, MD(), GMO(Options=options))
                except MQMIError as err:
                    if err.reason == _C.MQRC_NO_MSG_AVAILABLE:
                        break
                    if err.reason != _C.MQRC_TRUNCATED_MSG_ACCEPTED:
                        raise
        finally:
            queue.close()

    @_mqi
    def queue_status(self, name: str) -> dict:
        return self.get_handle().queue_status(_name(name))

    @_mqi
    def queue_figures(self, name: str) -> Any:
        """DISPLAY QSTATUS's figures of a local queue (adapter/core/qstats.QueueFigures)."""
        return self.get_handle().queue_figures(_name(name))

    @mqi(admin=True)
    def reset_queue_stats(self, name: str) -> Any:
        """RESET QSTATS of one local queue (adapter/core/qstats.ResetFigures); 3224
        MQRCCF_EVENTS_DISABLED unless ALTER QMGR PERFMEV(ENABLED)."""
        return self.get_handle().reset_queue_stats(_name(name))

    @mqi(admin=True)
    def alter_qmgr(self, **attributes: Any) -> QMgrDef:
        """ALTER QMGR (`dead_letter_q`, `def_xmit_q`, `description`, `max_handles`,
        `max_uncommitted_msgs`, `max_msg_length`): ValueError for an attribute that is
        not one or a value MQ refuses."""
        return self.get_handle().alter_qmgr(**attributes)

    @_mqi
    def inquire(self, selectors: int | list[int]):
        """MQINQ on the queue manager object: one selector gives its value, a list a
        dict keyed by selector (ibmmq 2.x); character values are blank-padded bytes.
        The fixed answers (MQCA_VERSION, MQIA_COMMAND_LEVEL, ...): shim/attributes.py."""
        conn = self._hconn()
        conn.run.check()
        wanted, single = _inq.selector_list(selectors)
        answer = _attributes.inquire_qmgr(conn.qmgr, conn.qmgr_def(), wanted)
        return _inq.answer(answer, wanted, single)

    inq = inquire

    @_mqi
    def stat(self, status_type: int) -> STS:
        """MQSTAT: MQSTAT_TYPE_ASYNC_ERROR's counts of asynchronous puts since the last
        MQSTAT and the first failure (reason, queue), in an STS; the figures reset."""
        return _inq.status(self._hconn(), status_type)

    def cb(self, **kwargs: Any) -> None:
        """MQCB, as ibmmq: `cb(operation=MQOP_REGISTER, md=MD(), gmo=GMO(), cbd=CBD())`;
        on the queue manager it registers (deregisters, suspends, resumes) the event
        handler (adapter/pymqi/asyncconsume.py)."""
        _cb(self, None, kwargs)

    @mqi(async_control=True)
    def ctl(self, operation: int, ctlo: CTLO) -> None:
        """MQCTL: MQOP_START (delivery on a thread of the connection's), START_WAIT (on
        this thread, until stopped), STOP, SUSPEND, RESUME (adapter/pymqi/asyncconsume.py)."""
        if not isinstance(ctlo, CTLO):
            raise TypeError("ctlo must be an instance of CTLO")
        if self._conn is None:
            raise MQMIError(_C.MQCC_FAILED, _C.MQRC_HCONN_ERROR)
        self._async_consume().ctl(operation, ctlo)

    def _async_consume(self) -> AsyncConsume:
        if self._async is None:
            self._async = AsyncConsume(self)
        return self._async


class Queue:
    """MQOPEN handle. `Queue(qmgr, name)` opens lazily: OUTPUT on the first put,
    INPUT_AS_Q_DEF on the first get (pymqi's deferred open)."""

    def __init__(self, qMgr: QueueManager, *opts: Any) -> None:
        self._qmgr = qMgr
        self._handle = None
        self._desc = None
        self._closed = False  # closed by MQCLOSE: its Hobj is no longer valid
        if opts:
            self._desc = opts[0]
            if len(opts) > 1:
                self.open(opts[0], opts[1])

    def _open_handle(self, qDesc, options: int, *, put1: bool = False) -> None:
        if self._qmgr._conn is None:  # MQOPEN on an Hconn that MQDISC ended (or never made)
            raise MQMIError(_C.MQCC_FAILED, _C.MQRC_HCONN_ERROR)
        conn = self._qmgr.get_handle()
        is_od = isinstance(qDesc, OD)
        if is_od:
            _check_structure("OD", qDesc)
        name = _name(qDesc.ObjectName if is_od else qDesc)
        if is_od and qDesc.ObjectType != _C.MQOT_Q:
            raise MQMIError(_C.MQCC_FAILED, _C.MQRC_OBJECT_TYPE_ERROR)
        selection = qDesc.get_vs("SelectionString") if is_od else None
        # A queue name alone opens with the MQOD's initial DynamicQName, as pymqi does.
        dynamic = mqstr(qDesc.DynamicQName) if is_od else DEFAULT_DYNAMIC_Q_NAME
        self._handle = conn.open(
            name,
            options,
            dynamic,
            put1=put1,
            selection_string=selection,
            object_qmgr=_name(qDesc.ObjectQMgrName) if is_od else "",
        )
        self._closed = False
        if is_od:
            _fill_od(qDesc, self._handle, name, options)

    @_mqi
    def open(self, qDesc, *opts: Any) -> None:
        if self._handle is not None:
            raise PYIFError("The Queue is already open")
        self._desc = qDesc
        self._open_handle(qDesc, opts[0] if opts else _C.MQOO_INPUT_AS_Q_DEF)

    def _ensure_open(self, options: int):
        if self._handle is None:
            if self._closed:  # MQ: the Hobj of a closed queue is invalid (no reopen)
                raise MQMIError(_C.MQCC_FAILED, _C.MQRC_HOBJ_ERROR)
            if self._desc is None:
                raise PYIFError("not open")
            self._open_handle(self._desc, options)
        return self._handle

    def get_handle(self):
        if self._handle is None:
            raise PYIFError("not open")
        return self._handle

    getHandle = get_handle

    def set_handle(self, handle) -> None:
        """Adopt an open handle (ibmmq's set_handle): a subscription's queue, which MQSUB
        opened, or a topic handle (adapter/pymqi/pubsub.py)."""
        self._handle, self._closed = handle, False

    # -- MQPUT ---------------------------------------------------------------------
    @_mqi
    def put(self, msg, *opts: Any) -> None:
        md_, pmo_ = (list(opts) + [None, None])[:2]
        md_, pmo_ = md_ or MD(), pmo_ or PMO()
        handle = self._ensure_open(_C.MQOO_OUTPUT)
        _check_live(handle)
        _check_structure("MD", md_)
        _check_structure("PMO", pmo_)
        self._put(msg, md_, pmo_, handle=handle)

    def _put(self, msg, md_: MD, pmo_: PMO, *, put1: bool = False, handle=None) -> None:
        if isinstance(msg, str):
            msg = msg.encode(self._qmgr.bytes_encoding)
            md_.Format = _C.MQFMT_STRING
            md_.CodedCharSetId = self._qmgr.default_ccsid
        elif not isinstance(msg, bytes | bytearray | memoryview):
            raise TypeError(f"Message type is {type(msg).__name__}. Convert to bytes.")
        handle = handle or self._handle
        req = put_request(md_, pmo_)
        new_handle = None
        # PMO version 3 (the default): two fields and Action are zero on a plain put.
        if pmo_.Version >= 3 and (pmo_.OriginalMsgHandle or pmo_.NewMsgHandle or pmo_.Action):
            original = _msg_handle(pmo_.OriginalMsgHandle)
            new_handle = _msg_handle(pmo_.NewMsgHandle)
            req.properties = self._qmgr._msg_handles.packed_for_put(
                pmo_.Action, original, new_handle
            )
        result = handle.put(req, bytes(msg), put1=put1)
        if new_handle is not None:  # NewMsgHandle now shows the message put
            put = result.properties if result.properties is not None else req.properties
            self._qmgr._msg_handles.replace(new_handle, propwire.unpack(put))
        # Output fields at their MQ widths, straight into the structure (no coercion).
        pmo_.__dict__["ResolvedQName"], pmo_.__dict__["ResolvedQMgrName"] = _resolved(handle)
        if result.warning is not None:
            raise MQMIError(_C.MQCC_WARNING, result.warning)
        # Values built at their MQ types and widths: straight into the MD (pymqi's
        # per-field coercion is for application input).
        md_.__dict__.update(result.md)

    # -- MQGET ---------------------------------------------------------------------
    @_mqi
    def get(self, maxLength: int | None = None, *opts: Any, **kwargs: Any) -> bytes:
        md_, gmo_ = (list(opts) + [None, None])[:2]
        md_ = md_ if md_ is not None else MD()
        gmo_ = gmo_ if gmo_ is not None else GMO()
        handle = self._ensure_open(_C.MQOO_INPUT_AS_Q_DEF)
        _check_live(handle)
        _check_structure("MD", md_)
        _check_structure("GMO", gmo_)
        req = get_request(md_, gmo_)
        number = _msg_handle(gmo_.MsgHandle) if req.msg_handle else None
        if number is not None:
            self._qmgr._msg_handles.properties(number)  # 2460 before any message is taken
        try:
            result = handle.get(req, maxLength, gmo_.WaitInterval)
        except MQMIError as err:
            result = getattr(err, "result", None)
            if result is not None:  # a warning (2080): the MD and GMO are filled first
                self._fill(result, md_, gmo_)
            raise
        if result is None:  # MQGMO_UNLOCK returns no message
            return b""
        self._fill(result, md_, gmo_)
        if number is not None:  # the handle now holds this message's properties
            got = result.properties
            self._qmgr._msg_handles.replace(number, got if got is not None else MessageProperties())
        gmo_.__dict__["ResolvedQName"] = _resolved(handle)[0]
        if result.warning is not None:
            raise MQMIError(
                _C.MQCC_WARNING,
                result.warning,
                message=result.data,
                original_length=result.original_length,
            )
        return result.data

    @staticmethod
    def _fill(result, md_: MD, gmo_: GMO) -> None:
        # The shim built these values at their MQ types and widths (24-byte ids, blank-
        # padded MQCHARs), so they go straight into the MD, without a second coercion.
        if md_.Version >= _C.MQMD_VERSION_2:
            md_.__dict__.update(result.md)
        else:  # a version-1 MD has no group fields
            md_.__dict__.update({k: v for k, v in result.md.items() if k not in _MD_V2_FIELDS})
        if gmo_.Version >= _C.MQGMO_VERSION_2:
            gmo_.GroupStatus = result.gmo["GroupStatus"]
            gmo_.SegmentStatus = result.gmo["SegmentStatus"]
            gmo_.Segmentation = result.gmo["Segmentation"]
        if gmo_.Version >= _C.MQGMO_VERSION_3:
            gmo_.ReturnedLength = result.gmo["ReturnedLength"]

    def put_rfh2(self, msg, *opts: Any) -> None:
        """ibmmq's put_rfh2(msg, md, pmo, rfh2_headers): the RFH2 structures packed in
        front of `msg`; the queue manager reads their property folders as properties."""
        put_rfh2(self, msg, opts)

    def get_rfh2(self, max_length: int | None = None, *opts: Any) -> bytes:
        """ibmmq's get_rfh2(max_length, md, gmo, rfh2_headers): the MQRFH2 headers the
        MQMD announces unpacked into the list; returns the data after them."""
        return get_rfh2(self, max_length, opts)

    def get_no_jms(self, max_length: int | None = None, *args: Any) -> bytes:
        md_, gmo_ = (list(args) + [None, None])[:2]
        gmo_ = gmo_ if gmo_ is not None else GMO()
        gmo_.Options |= _C.MQGMO_NO_PROPERTIES | _C.MQGMO_FAIL_IF_QUIESCING
        return self.get(max_length, md_, gmo_)

    get_no_rfh2 = get_no_jms

    # -- MQCLOSE / MQINQ -----------------------------------------------------------
    @_mqi
    def close(self, options: int = _C.MQCO_NONE) -> None:
        """MQCLOSE with its options (MQCO_DELETE, MQCO_DELETE_PURGE for dynamic queues).
        A failed close (2045, 2046, 2055) leaves the queue open, as MQ does."""
        if self._closed:
            raise MQMIError(_C.MQCC_FAILED, _C.MQRC_HOBJ_ERROR)
        if self._handle is None:
            raise PYIFError("not open")
        handle = self._handle
        try:
            comp, reason = handle.close(options)
        except MQMIError as err:
            if err.reason == _C.MQRC_HCONN_ERROR:  # MQDISC ended it: no handle left
                self._handle, self._closed = None, True
            raise
        self._handle, self._closed = None, True
        if self._qmgr._async is not None:  # its consumer is deregistered (MQCB page)
            self._qmgr._async.closed(self)
        # A warning (unterminated group) is raised after the queue manager closed it.
        if comp != _C.MQCC_OK:
            raise MQMIError(comp, reason)

    @_mqi
    def inquire(self, selectors: int | list[int]):
        """MQINQ: one selector gives its value, a list a dict keyed by selector (ibmmq
        2.x); opens the queue for MQOO_INQUIRE if its open was deferred."""
        handle = self._ensure_open(_C.MQOO_INQUIRE)
        _check_live(handle)
        wanted, single = _inq.selector_list(selectors)
        return _inq.answer(_attributes.inquire_queue(handle, wanted), wanted, single)

    inq = inquire

    @_mqi
    def set(self, *args: Any) -> None:
        """MQSET: `set(selector, value)` or `set({selector: value, ...})`; needs the
        queue open with MQOO_SET (opens with it if its open was deferred). Every handle
        of every process sees the new values on its next call."""
        values = _inq.set_values(args, self._qmgr.bytes_encoding)
        handle = self._ensure_open(_C.MQOO_SET)
        _check_live(handle)
        _attributes.set_queue(handle, values)

    def get_name(self) -> str:
        """The queue's name (for a model queue: the dynamic queue MQOPEN created)."""
        if self._handle is not None:
            return self._handle.name
        if self._desc is None:
            raise PYIFError("not open")
        return _name(self._desc.ObjectName if isinstance(self._desc, OD) else self._desc)

    def get_queue_manager(self) -> QueueManager:
        return self._qmgr

    def cb(self, **kwargs: Any) -> None:
        """MQCB on this queue handle, as ibmmq: `cb(operation=MQOP_REGISTER, md=MD(),
        gmo=GMO(), cbd=CBD())` registers a message consumer (or, with CallbackType
        MQCBT_EVENT_HANDLER, the connection's event handler); a deferred open is made
        now, for browse or input as the MQGMO asks."""
        _cb(self._qmgr, self, kwargs)

    def __del__(self) -> None:
        if sys.is_finalizing():
            return
        handle = getattr(self, "_handle", None)
        if handle is not None:
            try:
                handle.close()
            except Exception:  # noqa: BLE001 - never raise from a finaliser
                pass


@_mqi
def _cb(qmgr: QueueManager, queue: Queue | None, kwargs: dict[str, Any]) -> None:
    """MQCB: ibmmq's keyword arguments (mqcallback.real_cb's defaults and type checks)."""
    operation = kwargs.get("operation", _C.MQOP_REGISTER)
    md_, gmo_, cbd_ = kwargs.get("md", MD()), kwargs.get("gmo", GMO()), kwargs.get("cbd", CBD())
    if not isinstance(cbd_, CBD):
        raise TypeError("cbd must be an instance of CBD")
    if not isinstance(md_, MD):
        raise TypeError("md must be an instance of MD")
    if not isinstance(gmo_, GMO):
        raise TypeError("gmo must be an instance of GMO")
    if qmgr._conn is None:
        raise MQMIError(_C.MQCC_FAILED, _C.MQRC_HCONN_ERROR)
    if queue is not None and operation & _C.MQOP_REGISTER:
        if cbd_.CallbackType == _C.MQCBT_MESSAGE_CONSUMER:
            _check_structure("MD", md_)
            _check_structure("GMO", gmo_)
            browse = gmo_.Options & (_C.MQGMO_BROWSE_FIRST | _C.MQGMO_BROWSE_NEXT)
            handle = queue._ensure_open(_C.MQOO_BROWSE if browse else _C.MQOO_INPUT_AS_Q_DEF)
            _check_live(handle)
    elif queue is not None and queue._handle is None:
        raise MQMIError(_C.MQCC_FAILED, _C.MQRC_HOBJ_ERROR)
    qmgr._async_consume().cb(qmgr, queue, operation, cbd_, md_, gmo_)


def connect(
    queue_manager: str | bytes,
    channel=None,
    conn_info=None,
    user=None,
    password=None,
    disconnect_on_exit: bool = True,
    bytes_encoding: str = "utf8",
    default_ccsid: int = 1208,
    **targets: Any,
) -> QueueManager:
    """pymqi.connect: a connected QueueManager. Channel, connection name and credentials
    are accepted for compatibility; the servers come from MQK_KAFKA_BOOTSTRAP /
    MQK_REDIS_URL or the keyword arguments `kafka_bootstrap` and `redis_url`."""
    if not queue_manager and not (channel and conn_info):
        raise TypeError("Invalid arguments: a queue manager name is required")
    return QueueManager(queue_manager, disconnect_on_exit, bytes_encoding, default_ccsid, **targets)


# PCF administration (after QueueManager: pcf.py builds on it).
from adapter.pymqi.pcf import ByteString, Filter, PCFExecute  # noqa: E402
from adapter.pymqi.pcfstructs import CFBS, CFH, CFIF, CFIL, CFIN, CFSF, CFSL, CFST  # noqa: E402

PCFExecute.connector = QueueManager
PCFExecute.queue_class = Queue
_pubsub.bind(Queue)  # Topic / Subscription use the face's Queue
