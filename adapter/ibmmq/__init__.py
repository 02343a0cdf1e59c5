"""ibmmq 2.x-compatible MQI on Kafka: `import adapter.ibmmq as ibmmq` (or `as mq`) and
keep a program written for IBM's `ibmmq` package (ibm-messaging/mq-mqi-python).

The same implementation as adapter.pymqi, under ibmmq's names: `connect` with its client
arguments, `QueueManager` (`get_name`, `inquire`/`inq` with one selector or a list
returning a dict, `stat`, `put1`, `begin`/`commit`/`backout`, `cb`/`ctl`), `Queue`
(`get_name`, `inquire`/`inq`, `set` with a dict, `cb`), publish/subscribe's `Topic` and
`Subscription` (adapter/pymqi/pubsub.py), the structures SD, SRO, MD, GMO, PMO, OD,
CD, CNO, CSP, SCO, BNO, STS, CBD, CBC, CTLO, the constant modules CMQC, CMQCFC, CMQXC and
CMQSTRC, `MQMIError` (`comp`, `reason`, `get('original_length')`, `get('message')`),
`to_string` and `get_versions`.

Differences from IBM's package, on purpose:

* `connect`'s channel, connection name, MQCD, MQSCO and MQBNO are accepted and mean
  nothing (there is no channel: the servers are MQK_KAFKA_BOOTSTRAP / MQK_REDIS_URL);
  user and password are checked as ibmmq checks them (a user needs a password) and an
  MQCNO / MQCSP is validated as MQCONNX does, but they are not passed to Kafka or
  Redis, whose credentials are part of their own configuration (the Redis URL, the
  Kafka client settings);
* asynchronous consume (`cb`, `ctl`; adapter/pymqi/asyncconsume.py) calls the callback
  with ibmmq's keyword arguments (queue_manager, queue, md, gmo, msg, cbc) on a thread of
  the connection's, but the event handler hears of a quiescing or ending queue manager
  or a broken connection only while the connection is started (MQ tells it while
  stopped too), and a callback that raises is logged and reported to the event handler
  as MQRC_UNEXPECTED_ERROR (a C callback cannot raise);
* the exceptions are pymqi's classes (so `except` clauses of either face catch what the
  shared implementation raises): `str(MQMIError)` reads "Comp: 2" where ibmmq prints
  "Comp 2", and PYIFError's text starts "PYMQI Error:".
"""

from __future__ import annotations

from typing import Any

from adapter.ibmmq import CMQSTRC
from adapter.pymqi import (
    BNO,
    CBC,
    CBD,
    CD,
    CFBS,
    CFH,
    CFIF,
    CFIL,
    CFIN,
    CFSF,
    CFSL,
    CFST,
    CMQC,
    CMQCFC,
    CMQXC,
    CNO,
    CSP,
    CTLO,
    DLH,
    GMO,
    MD,
    OD,
    PMO,
    SCO,
    SD,
    SRO,
    STS,
    XQH,
    ByteString,
    Error,
    Filter,
    MessageHandle,
    MQMIError,
    MQOpts,
    PCFExecute,
    PYIFError,
    Queue,
    Subscription,
    Topic,
    bno,
    cd,
    cno,
    csp,
    gmo,
    md,
    od,
    pmo,
    sco,
    sts,
)
from adapter.pymqi import QueueManager as _PymqiQueueManager
from adapter.shim.attributes import COMMAND_LEVEL

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
    "CMQSTRC",
    "CMQXC",
    "CNO",
    "CSP",
    "CTLO",
    "DLH",
    "XQH",
    "EncodingDefault",
    "Error",
    "Filter",
    "GMO",
    "MD",
    "MQMIError",
    "MQOpts",
    "MessageHandle",
    "OD",
    "PCFExecute",
    "PMO",
    "PYIFError",
    "Queue",
    "QueueManager",
    "SCO",
    "SD",
    "SRO",
    "STS",
    "Subscription",
    "Topic",
    "bno",
    "cd",
    "cno",
    "connect",
    "csp",
    "get_versions",
    "gmo",
    "md",
    "od",
    "pmo",
    "sco",
    "sts",
    "to_string",
]

__version__ = "2.0.0+mqk"
__cmdlevel__ = COMMAND_LEVEL
__mqbuild__ = "client"


class EncodingDefault:
    """ibmmq's defaults for str data: the encoding and the CCSID put with it."""

    bytes_encoding = "utf8"
    ccsid = 1208


class QueueManager(_PymqiQueueManager):
    """ibmmq's QueueManager: as pymqi's, except that MQCONNX makes a shared handle
    (MQCNO_HANDLE_SHARE_BLOCK) unless the options name BLOCK or NO_BLOCK themselves, as
    ibmmq's connect_with_options does; MQCONN (`connect`) stays nonshared."""

    def _connect_options(self, options: int) -> int:
        sharing = CMQC.MQCNO_HANDLE_SHARE_BLOCK | CMQC.MQCNO_HANDLE_SHARE_NO_BLOCK
        return options if options & sharing else options | CMQC.MQCNO_HANDLE_SHARE_BLOCK


def get_versions() -> dict[str, Any]:
    """This library's version and the MQ command level it behaves as (ibmmq's shape)."""
    return {"module": __version__, "MQ": __cmdlevel__}


def to_string(value: Any, encoding: str = EncodingDefault.bytes_encoding) -> Any:
    """An MQCHAR field as text: up to the first NUL, decoded, stripped; anything that is
    not bytes (or does not decode) comes back unchanged, as ibmmq's."""
    if isinstance(value, bytes):
        try:
            return value.split(b"\0", 1)[0].decode(encoding).strip()
        except UnicodeError:
            return value
    return value


def connect(
    queue_manager: str | bytes | None,
    channel: str | bytes | None = None,
    conn_info: str | bytes | None = None,
    user: str | None = None,
    password: str | None = None,
    disconnect_on_exit: bool = True,
    bytes_encoding: str = EncodingDefault.bytes_encoding,
    default_ccsid: int = EncodingDefault.ccsid,
    cd: CD | None = None,
    cno: CNO | None = None,
    csp: CSP | None = None,
    sco: SCO | None = None,
    bno: BNO | None = None,
    **targets: Any,
) -> QueueManager:
    """ibmmq.connect: a connected QueueManager, by MQCONNX (its structures validated).
    `targets` (kafka_bootstrap, redis_url, or in-memory backends) choose the servers."""
    qmgr = QueueManager(None, disconnect_on_exit, bytes_encoding, default_ccsid, **targets)
    structures = {"cno": cno, "csp": csp, "sco": sco, "bno": bno}
    if channel and conn_info:
        qmgr.connect_tcp_client(
            queue_manager or "", cd or CD(), channel, conn_info, user, password, **structures
        )
    elif queue_manager:
        qmgr.connect_with_options(queue_manager, user=user, password=password, cd=cd, **structures)
    else:
        raise TypeError(f"Invalid arguments: {[queue_manager, channel, conn_info, user]!r}")
    return qmgr
