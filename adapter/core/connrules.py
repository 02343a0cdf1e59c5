"""MQCONNX's option rules (MQCNO.Options). Pure.

From the MQCNO Options page (https://www.ibm.com/docs/SSFKSJ_9.3.0/refdev/q095480_.html):
each group of options allows only one of its members (binding, connection tag,
handle sharing, the two accounting pairs, conversation sharing, reconnection, activity
trace), and bits that are not MQCNO options are invalid; both give MQRC_OPTIONS_ERROR
(2046's page: "Options is a field in ... MQCNO"). STANDARD_BINDING, RECONNECT_AS_DEF
and NONE are 0, so they never conflict.
"""

from __future__ import annotations

from adapter.core import cmqc as C

_GROUPS = (
    C.MQCNO_FASTPATH_BINDING
    | C.MQCNO_SHARED_BINDING
    | C.MQCNO_ISOLATED_BINDING
    | C.MQCNO_LOCAL_BINDING
    | C.MQCNO_CLIENT_BINDING,
    C.MQCNO_SERIALIZE_CONN_TAG_Q_MGR
    | C.MQCNO_SERIALIZE_CONN_TAG_QSG
    | C.MQCNO_RESTRICT_CONN_TAG_Q_MGR
    | C.MQCNO_RESTRICT_CONN_TAG_QSG,
    C.MQCNO_HANDLE_SHARE_NONE | C.MQCNO_HANDLE_SHARE_BLOCK | C.MQCNO_HANDLE_SHARE_NO_BLOCK,
    C.MQCNO_ACCOUNTING_MQI_ENABLED | C.MQCNO_ACCOUNTING_MQI_DISABLED,
    C.MQCNO_ACCOUNTING_Q_ENABLED | C.MQCNO_ACCOUNTING_Q_DISABLED,
    C.MQCNO_NO_CONV_SHARING | C.MQCNO_ALL_CONVS_SHARE,
    C.MQCNO_RECONNECT | C.MQCNO_RECONNECT_DISABLED | C.MQCNO_RECONNECT_Q_MGR,
    C.MQCNO_ACTIVITY_TRACE_ENABLED | C.MQCNO_ACTIVITY_TRACE_DISABLED,
)
VALID_CONNECT_OPTIONS = (
    C.MQCNO_CD_FOR_OUTPUT_ONLY | C.MQCNO_USE_CD_SELECTION | C.MQCNO_GENERATE_CONN_TAG
)
for _group in _GROUPS:
    VALID_CONNECT_OPTIONS |= _group


def connect_options_error(options: int) -> int | None:
    """MQRC_OPTIONS_ERROR (or None) for MQCNO.Options."""
    if options & ~VALID_CONNECT_OPTIONS:
        return C.MQRC_OPTIONS_ERROR
    for group in _GROUPS:
        chosen = options & group
        if chosen & (chosen - 1):
            return C.MQRC_OPTIONS_ERROR
    return None


_SHARING = C.MQCNO_HANDLE_SHARE_NONE | C.MQCNO_HANDLE_SHARE_BLOCK | C.MQCNO_HANDLE_SHARE_NO_BLOCK


def handle_sharing(options: int) -> int:
    """The MQCNO_HANDLE_SHARE_* option a connection made with these (valid) options has:
    none named is MQCNO_HANDLE_SHARE_NONE, MQ's default outside MTS ("Shared (thread
    independent) connections with MQCONNX",
    https://www.ibm.com/docs/SSFKSJ_7.5.0/com.ibm.mq.dev.doc/q025940_.html)."""
    return options & _SHARING or C.MQCNO_HANDLE_SHARE_NONE
