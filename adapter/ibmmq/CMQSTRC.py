"""ibmmq 2.x's ``CMQSTRC``: dictionaries from a constant's value to its name, one per
constant family (``MQRC_DICT``, ``MQCC_DICT``, ``MQOT_DICT``, ``MQCMD_DICT``, ...),
generated here from the project's constants (adapter.core.cmqc, cmqcfc, cmqxc), not
written by hand.

A family is the name up to its first ``_`` after ``MQ`` (``MQGMO_WAIT`` -> ``MQGMO``),
except the families IBM's header splits further (``MQQA_GET``, ``MQBNO_TIMEOUT``, ...;
``MQQA_NOT_SHAREABLE`` belongs to ``MQQA_SHAREABLE``). Structure ids, versions and
lengths are not values of a field and are left out, as in IBM's file. Where several
names share a value the ``*_NONE`` name is kept, else the first defined; reason codes
take the name adapter.core.errors reports (``MQRC_CONVERTED_MSG_TOO_BIG`` for 2120).
Pure: no I/O.
"""

from __future__ import annotations

import re
from types import ModuleType

from adapter.core import cmqc, cmqcfc, cmqxc
from adapter.core.errors import REASON_NAMES

# Families that IBM's header divides below the first word (the suffix of each *_DICT).
_SUBFAMILIES = (
    "MQADOPT_CHECK",
    "MQADOPT_TYPE",
    "MQBNO_BALTYPE",
    "MQBNO_OPTIONS",
    "MQBNO_TIMEOUT",
    "MQCFO_REFRESH",
    "MQCFO_REMOVE",
    "MQCSRV_CONVERT",
    "MQCSRV_DLQ",
    "MQIAMO_MONITOR_DATATYPE",
    "MQIAMO_MONITOR_FLAGS",
    "MQLDAP_AUTHORMD",
    "MQLDAP_NESTGRP",
    "MQMLP_ENCRYPTION",
    "MQMLP_SIGN",
    "MQMLP_TOLERATE",
    "MQMON_OVERRIDE",
    "MQMON_AVAILABILITY",
    "MQQA_BACKOUT",
    "MQQA_GET",
    "MQQA_PUT",
    "MQQA_SHAREABLE",
    "MQSEL_ALL",
    "MQSEL_ANY",
    "MQSUB_DURABILITY",
    "MQSVC_CONTROL",
    "MQSVC_STATUS",
    "MQSVC_TYPE",
    "MQUSAGE_DS",
    "MQUSAGE_EXPAND",
    "MQUSAGE_PS",
    "MQUSAGE_SMDS",
)
_MOVED = {"MQQA_NOT_SHAREABLE": "MQQA_SHAREABLE"}
_NOT_VALUES = re.compile(r"_(STRUC_ID|VERSION_\d+|CURRENT_VERSION|LENGTH_\d+|CURRENT_LENGTH)$")


def _family(name: str) -> str | None:
    if name in _MOVED:
        return _MOVED[name]
    for sub in _SUBFAMILIES:
        if name == sub or name.startswith(sub + "_"):
            return sub
    head, sep, _rest = name.partition("_")
    if not sep or head == "MQ":  # MQ_*_LENGTH and the like: lengths, not values
        return None
    return head


def _dictionaries(*modules: ModuleType) -> dict[str, dict[int, str]]:
    families: dict[str, dict[int, str]] = {}
    for module in modules:
        for name, value in vars(module).items():
            if not name.startswith("MQ") or type(value) is not int or _NOT_VALUES.search(name):
                continue
            family = _family(name)
            if family is None:
                continue
            names = families.setdefault(family, {})
            if value not in names or name.endswith("_NONE"):
                names[value] = name
    families["MQRC"] = {v: n for v, n in sorted(REASON_NAMES.items())}
    return {f"{family}_DICT": dict(sorted(d.items())) for family, d in families.items()}


_DICTS = _dictionaries(cmqc, cmqcfc, cmqxc)
globals().update(_DICTS)

__all__ = sorted(_DICTS)  # noqa: PLE0605 - generated names
