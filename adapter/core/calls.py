"""Request and result types of the MQI calls, between an API face and the engine.

An API face (pymqi, later ibmmq, the CLI) translates its own structures into these and
back; the engine never sees an API face's structure. MQGET's request is
`getrules.GetRequest` (the rules core selects with it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from adapter.core import cmqc as C
from adapter.core.getrules import GetRequest
from adapter.core.properties import MessageProperties

__all__ = ["GetRequest", "GetResult", "PutRequest", "PutResult"]


@dataclass(slots=True)
class PutRequest:
    """The inputs of one MQPUT / MQPUT1: PMO options and the MQMD's input fields, with
    MQCHAR fields as str (trailing blanks removed) and MQBYTE ids as 24 bytes."""

    options: int = C.MQPMO_NONE
    msg_id: bytes = C.MQMI_NONE
    correl_id: bytes = C.MQCI_NONE
    group_id: bytes = C.MQGI_NONE
    seq: int = 1
    offset: int = 0
    msg_flags: int = C.MQMF_NONE
    persistence: int = C.MQPER_PERSISTENCE_AS_Q_DEF
    priority: int = C.MQPRI_PRIORITY_AS_Q_DEF
    expiry: int = C.MQEI_UNLIMITED
    format: str = ""
    ccsid: int = 0
    encoding: int = C.MQENC_NATIVE
    msg_type: int = C.MQMT_DATAGRAM
    report: int = C.MQRO_NONE
    feedback: int = C.MQFB_NONE
    reply_to_q: str = ""
    reply_to_qmgr: str = ""
    original_length: int = C.MQOL_UNDEFINED
    md_version: int = C.MQMD_VERSION_2
    # The application's identity and origin context (MQMD field names, PutDate and
    # PutTime as MQCHAR text), given only with MQPMO_SET_IDENTITY_CONTEXT / SET_ALL_CONTEXT.
    context: dict[str, Any] | None = None
    # PMO.Context: the Hobj whose saved context MQPMO_PASS_*_CONTEXT passes.
    context_handle: int = 0
    # The message's properties (PMO.OriginalMsgHandle), in adapter.core.propwire's form.
    properties: bytes = b""


@dataclass(slots=True)
class PutResult:
    """MQMD output fields of a put (MQMD field names, at MQ's types and widths), or a
    warning reason (an MQCC_WARNING put leaves the caller's MQMD as given, as pymqi)."""

    md: dict[str, Any] | None
    warning: int | None = None
    # The properties the message was put with (propwire form) when the put read some out
    # of an application MQRFH2; None: those of the request (PMO NewMsgHandle shows them).
    properties: bytes | None = None


@dataclass(slots=True)
class GetResult:
    data: bytes
    md: dict[str, Any]  # MQMD fields to write into the caller's MD
    gmo: dict[str, Any]  # GMO output fields
    warning: int | None  # reason of an MQCC_WARNING completion
    original_length: int
    # Properties for the GMO's MsgHandle, already unpacked (the handle takes this object);
    # None when there were none or they went elsewhere (an MQRFH2 in `data`, or
    # discarded: adapter.core.propctl).
    properties: MessageProperties | None = None


@dataclass(slots=True)
class SubRequest:
    """The inputs of one MQSUB (the MQSD's input fields, MQCHAR as str without trailing
    blanks, SubCorrelId as 24 bytes); `queue` is the name of the queue the application
    opened for an unmanaged subscription (Hobj), None when it passed none."""

    options: int = C.MQSO_NON_DURABLE
    object_name: str = ""
    object_string: str = ""
    sub_name: str = ""
    sub_user_data: str = ""
    sub_correl_id: bytes = C.MQCI_NONE
    selection_string: str = ""
    pub_priority: int = C.MQPRI_PRIORITY_AS_PUBLISHED
    sub_expiry: int = C.MQEI_UNLIMITED
    queue: str | None = None
