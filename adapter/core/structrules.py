"""StrucId and Version of the MQI structures an application passes. Pure.

Each structure's page says its StrucId must be its MQ*_STRUC_ID and its Version one of
the versions MQ defines; anything else is the structure's own reason code, e.g. MQMD
StrucId / Version (https://ibm.com/docs/SSFKSJ_9.4.0/refdev/q097395_.html) and
MQRC_MD_ERROR (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q040990_.html),
MQRC_PMO_ERROR 2173, MQRC_GMO_ERROR 2186, MQRC_OD_ERROR 2044
(https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041150_.html), MQRC_CNO_ERROR 2139,
MQRC_CSP_ERROR 2595 (the same pages for MQPMO, MQGMO, MQOD, MQCNO, MQCSP).
"""

from __future__ import annotations

from adapter.core import cmqc as C

# Structure -> (StrucId, highest Version MQ defines, reason when either is wrong).
STRUCTURES: dict[str, tuple[bytes, int, int]] = {
    "MD": (C.MQMD_STRUC_ID, C.MQMD_CURRENT_VERSION, C.MQRC_MD_ERROR),
    "PMO": (C.MQPMO_STRUC_ID, C.MQPMO_CURRENT_VERSION, C.MQRC_PMO_ERROR),
    "GMO": (C.MQGMO_STRUC_ID, C.MQGMO_CURRENT_VERSION, C.MQRC_GMO_ERROR),
    "OD": (C.MQOD_STRUC_ID, C.MQOD_CURRENT_VERSION, C.MQRC_OD_ERROR),
    "CNO": (C.MQCNO_STRUC_ID, C.MQCNO_CURRENT_VERSION, C.MQRC_CNO_ERROR),
    "CSP": (C.MQCSP_STRUC_ID, C.MQCSP_CURRENT_VERSION, C.MQRC_CSP_ERROR),
}


def structure_error(kind: str, struc_id: bytes, version: int) -> int | None:
    """The reason (or None) for a structure of `kind` ("MD", "PMO", "GMO", "OD", "CNO",
    "CSP") whose StrucId or Version MQ would not accept."""
    expected, newest, reason = STRUCTURES[kind]
    if struc_id != expected or not 1 <= version <= newest:
        return reason
    return None
