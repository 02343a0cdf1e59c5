"""The queue attributes mqk implements, in one table shared by MQSC (`mqk mqsc`), the
Python API (`QueueManager.define_queue(**fields)`) and, later, a PCF command server
(CREATE_Q / CHANGE_Q / INQUIRE_Q by selector).

Each row names an attribute four ways: its MQSC keyword (with the synonyms runmqsc
takes, e.g. TARGQ for TARGET), its PCF parameter / MQINQ selector (MQIA_* / MQCA_*),
its field of `adapter.shim.catalog.QueueDef`, and the queue types (MQQT_*) it belongs to.
Its value domain converts MQSC text <-> the Python value of the field <-> the PCF value
(an integer constant or a string). Pure: no I/O, imports only adapter.core.

Keywords, values, ranges and the types each parameter applies to are IBM's:
- DEFINE queues: https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.ref.adm.doc/q085690_.html
  and DEFINE QLOCAL's syntax (9.4):
  https://www.ibm.com/support/knowledgecenter/SSFKSJ_9.4.0/refadmin/q085710_.html
- ALTER QLOCAL: https://www.ibm.com/docs/ja/SSFKSJ_9.3.0/refadmin/q085350_.html and ALTER
  queues: https://www.ibm.com/docs/zh/SSFKSJ_9.4.0/refadmin/q085330_.html
- DISPLAY QUEUE (its requested parameters):
  https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.ref.adm.doc/q086270_.html
- DISPLAY QSTATUS: https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.ref.adm.doc/q086260_.html

Attributes MQ users write but whose only value is what mqk does anyway are `fixed`:
accepted with that value (anything else fails, naming the attribute) and displayed,
never stored. They are DEFBIND(OPEN) (no clusters, so no binding choice),
TARGTYPE(QUEUE) (alias queues of topics are not implemented) and HARDENBO / NOHARDENBO:
the backout count of a message lives in the durable ack log and state store and
survives a restart either way, so both are accepted
and HARDENBO is displayed (what mqk does). Every other keyword MQ knows for queues is in
UNSUPPORTED: a command using one fails, naming it; it is never skipped.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from adapter.core import cmqc as C  # noqa: N812

LOCAL, MODEL, ALIAS, REMOTE = C.MQQT_LOCAL, C.MQQT_MODEL, C.MQQT_ALIAS, C.MQQT_REMOTE
_LM = frozenset({LOCAL, MODEL})
_LMA = frozenset({LOCAL, MODEL, ALIAS})
_ALL = frozenset({LOCAL, MODEL, ALIAS, REMOTE})
_MAX = 999_999_999

QUEUE_TYPES = {"QLOCAL": LOCAL, "QMODEL": MODEL, "QALIAS": ALIAS, "QREMOTE": REMOTE}
TYPE_NAMES = {v: k for k, v in QUEUE_TYPES.items()}


@dataclass(frozen=True)
class QueueAttr:
    """One queue attribute. `kind`: "int" (a range), "str" (a length), "enum" (MQSC
    words) or "flag" (a bare keyword and its negative, SHARE / NOSHARE). `words`:
    (MQSC word, Python value, PCF value) for enum and flag. `field` None: not stored in
    QueueDef (a fixed value, or a status figure). `settable`: DEFINE / ALTER may give it
    (False for what DISPLAY shows only: TYPE, CURDEPTH, ...)."""

    keyword: str
    selector: int
    field: str | None
    types: frozenset[int]
    kind: str
    words: tuple[tuple[str, Any, int], ...] = ()
    low: int = 0
    high: int = _MAX
    length: int = 0
    synonyms: tuple[str, ...] = ()
    fixed: bool = False
    settable: bool = True
    settable_types: frozenset[int] = field(default=frozenset())
    shown_only: tuple[str, ...] = ()  # words DISPLAY shows but DEFINE refuses

    def settable_on(self, qtype: int) -> bool:
        return self.settable and qtype in (self.settable_types or self.types)

    # -- MQSC text -> Python value ------------------------------------------------------
    def parse(self, text: str | None, keyword: str | None = None) -> Any:
        """The Python value of MQSC `text` (None for a bare keyword: SHARE, NOSHARE).
        ValueError, naming the keyword, for a value outside the domain."""
        kw = keyword or self.keyword
        if self.kind == "flag":
            if text is not None:
                raise ValueError(f"{kw} takes no value")
            return next(v for w, v, _ in self.words if w == kw)
        if text is None:
            raise ValueError(f"{kw} needs a value in parentheses")
        if self.kind == "enum":
            for word, value, _ in self.words:
                if word == text.upper() and word not in self.shown_only:
                    return value
            allowed = "|".join(w for w, _, _ in self.words if w not in self.shown_only)
            if self.fixed:
                raise ValueError(f"{kw}({text}) is not supported by mqk: only {kw}({allowed})")
            raise ValueError(f"{kw}({text}): the value must be {allowed}")
        if self.kind == "int":
            if not text.strip().isdigit():
                raise ValueError(f"{kw}({text}): the value must be a number")
            number = int(text)
            if not self.low <= number <= self.high:
                raise ValueError(f"{kw}({number}): the value must be {self.low}-{self.high}")
            return number
        if len(text) > self.length:
            raise ValueError(f"{kw}: at most {self.length} characters")
        return text

    # -- Python value -> MQSC / PCF, PCF -> Python ---------------------------------------
    def render(self, value: Any) -> str:
        """DISPLAY's text: KEYWORD(value), or the bare word of a flag; a blank string
        shows as `KEYWORD( )`, as runmqsc shows it."""
        if self.kind == "flag":
            return next(w for w, v, _ in self.words if v == value)
        if self.kind == "enum":
            text = next((w for w, v, _ in self.words if v == value), str(value))
        else:
            text = str(value) if value != "" else " "
        return f"{self.keyword}({text})"

    def to_pcf(self, value: Any) -> int | str:
        if self.kind in ("enum", "flag"):
            return next(p for _, v, p in self.words if v == value)
        return value

    def from_pcf(self, pcf: int | str) -> Any:
        if self.kind in ("enum", "flag"):
            for _, value, p in self.words:
                if p == pcf:
                    return value
            raise ValueError(f"{self.keyword}: {pcf!r} is not a value of selector {self.selector}")
        return pcf


def _enum(keyword, selector, fld, types, *words, **kw) -> QueueAttr:
    return QueueAttr(keyword, selector, fld, frozenset(types), "enum", tuple(words), **kw)


def _int(keyword, selector, fld, types, low=0, high=_MAX, **kw) -> QueueAttr:
    return QueueAttr(keyword, selector, fld, frozenset(types), "int", low=low, high=high, **kw)


def _str(keyword, selector, fld, types, length=C.MQ_Q_NAME_LENGTH, **kw) -> QueueAttr:
    return QueueAttr(keyword, selector, fld, frozenset(types), "str", length=length, **kw)


def _flag(keyword, selector, fld, types, on, off, **kw) -> QueueAttr:
    """A bare keyword pair: (word, value, pcf) for the keyword and for its negative."""
    return QueueAttr(keyword, selector, fld, frozenset(types), "flag", (on, off), **kw)


_ENABLED = ("ENABLED", False)
_DISABLED = ("DISABLED", True)

ATTRIBUTES: tuple[QueueAttr, ...] = (
    # What DISPLAY shows of every queue and never takes on DEFINE / ALTER.
    _enum("TYPE", C.MQIA_Q_TYPE, "queue_type", _ALL,
          *((n, t, t) for n, t in QUEUE_TYPES.items()), settable=False),
    _int("CURDEPTH", C.MQIA_CURRENT_Q_DEPTH, None, {LOCAL}, settable=False),
    _int("IPPROCS", C.MQIA_OPEN_INPUT_COUNT, None, {LOCAL}, settable=False),
    _int("OPPROCS", C.MQIA_OPEN_OUTPUT_COUNT, None, {LOCAL}, settable=False),
    # Every queue type (DEFINE QREMOTE's common attributes: DESCR, PUT, DEFPRTY,
    # DEFPSIST, DEFPRESP).
    _str("DESCR", C.MQCA_Q_DESC, "description", _ALL, length=C.MQ_Q_DESC_LENGTH),
    _enum("GET", C.MQIA_INHIBIT_GET, "get_inhibited", _LMA,
          (*_ENABLED, C.MQQA_GET_ALLOWED), (*_DISABLED, C.MQQA_GET_INHIBITED)),
    _enum("PUT", C.MQIA_INHIBIT_PUT, "put_inhibited", _ALL,
          (*_ENABLED, C.MQQA_PUT_ALLOWED), (*_DISABLED, C.MQQA_PUT_INHIBITED)),
    _int("DEFPRTY", C.MQIA_DEF_PRIORITY, "def_priority", _ALL, 0, 9),
    _enum("DEFPSIST", C.MQIA_DEF_PERSISTENCE, "def_persistence", _ALL,
          ("NO", C.MQPER_NOT_PERSISTENT, C.MQPER_NOT_PERSISTENT),
          ("YES", C.MQPER_PERSISTENT, C.MQPER_PERSISTENT)),
    _enum("DEFPRESP", C.MQIA_DEF_PUT_RESPONSE_TYPE, "def_put_response", _ALL,
          ("SYNC", C.MQPRT_SYNC_RESPONSE, C.MQPRT_SYNC_RESPONSE),
          ("ASYNC", C.MQPRT_ASYNC_RESPONSE, C.MQPRT_ASYNC_RESPONSE)),
    # DEFREADA(DISABLED) is not kept (the field is a yes/no): it fails as a bad value.
    _enum("DEFREADA", C.MQIA_DEF_READ_AHEAD, "def_read_ahead", _LMA,
          ("NO", False, C.MQREADA_NO), ("YES", True, C.MQREADA_YES)),
    _enum("PROPCTL", C.MQIA_PROPERTY_CONTROL, "property_control", _LMA,
          ("COMPAT", C.MQPROP_COMPATIBILITY, C.MQPROP_COMPATIBILITY),
          ("NONE", C.MQPROP_NONE, C.MQPROP_NONE), ("ALL", C.MQPROP_ALL, C.MQPROP_ALL),
          ("FORCE", C.MQPROP_FORCE_MQRFH2, C.MQPROP_FORCE_MQRFH2),
          ("V6COMPAT", C.MQPROP_V6COMPAT, C.MQPROP_V6COMPAT)),
    # Local and model queues.
    _int("MAXDEPTH", C.MQIA_MAX_Q_DEPTH, "max_depth", _LM),
    _int("MAXMSGL", C.MQIA_MAX_MSG_LENGTH, "max_msg_length", _LM, 0, 104_857_600),
    _enum("MSGDLVSQ", C.MQIA_MSG_DELIVERY_SEQUENCE, "msg_delivery_sequence", _LM,
          ("PRIORITY", C.MQMDS_PRIORITY, C.MQMDS_PRIORITY), ("FIFO", C.MQMDS_FIFO, C.MQMDS_FIFO)),
    _int("BOTHRESH", C.MQIA_BACKOUT_THRESHOLD, "backout_threshold", _LM),
    _str("BOQNAME", C.MQCA_BACKOUT_REQ_Q_NAME, "backout_requeue_q", _LM),
    _flag("SHARE", C.MQIA_SHAREABILITY, "shareable", _LM,
          ("SHARE", True, C.MQQA_SHAREABLE), ("NOSHARE", False, C.MQQA_NOT_SHAREABLE)),
    _enum("DEFSOPT", C.MQIA_DEF_INPUT_OPEN_OPTION, "def_input_exclusive", _LM,
          ("EXCL", True, C.MQOO_INPUT_EXCLUSIVE), ("SHARED", False, C.MQOO_INPUT_SHARED)),
    _flag("TRIGGER", C.MQIA_TRIGGER_CONTROL, "trigger_control", _LM,
          ("TRIGGER", C.MQTC_ON, C.MQTC_ON), ("NOTRIGGER", C.MQTC_OFF, C.MQTC_OFF)),
    _enum("TRIGTYPE", C.MQIA_TRIGGER_TYPE, "trigger_type", _LM,
          ("FIRST", C.MQTT_FIRST, C.MQTT_FIRST), ("EVERY", C.MQTT_EVERY, C.MQTT_EVERY),
          ("DEPTH", C.MQTT_DEPTH, C.MQTT_DEPTH), ("NONE", C.MQTT_NONE, C.MQTT_NONE)),
    _int("TRIGDPTH", C.MQIA_TRIGGER_DEPTH, "trigger_depth", _LM, 1),
    _int("TRIGMPRI", C.MQIA_TRIGGER_MSG_PRIORITY, "trigger_msg_priority", _LM, 0, 9),
    _str("TRIGDATA", C.MQCA_TRIGGER_DATA, "trigger_data", _LM, length=C.MQ_TRIGGER_DATA_LENGTH),
    _str("PROCESS", C.MQCA_PROCESS_NAME, "process_name", _LM),
    _str("INITQ", C.MQCA_INITIATION_Q_NAME, "initiation_q_name", _LM),
    _enum("DISTL", C.MQIA_DIST_LISTS, "dist_lists", _LM,
          ("NO", C.MQDL_NOT_SUPPORTED, C.MQDL_NOT_SUPPORTED),
          ("YES", C.MQDL_SUPPORTED, C.MQDL_SUPPORTED)),
    # MONQ: queue monitoring (DISPLAY QSTATUS's times and ages, adapter/core/qstats.py);
    # QMGR defers to the queue manager's MONQ.
    _enum("MONQ", C.MQIA_MONITORING_Q, "monitoring_q", _LM,
          ("QMGR", C.MQMON_Q_MGR, C.MQMON_Q_MGR), ("OFF", C.MQMON_OFF, C.MQMON_OFF),
          ("LOW", C.MQMON_LOW, C.MQMON_LOW), ("MEDIUM", C.MQMON_MEDIUM, C.MQMON_MEDIUM),
          ("HIGH", C.MQMON_HIGH, C.MQMON_HIGH)),
    # DEFTYPE: given on DEFINE QMODEL only; DISPLAY shows it for local queues as well.
    _enum("DEFTYPE", C.MQIA_DEFINITION_TYPE, "definition_type", _LM,
          ("PREDEFINED", C.MQQDT_PREDEFINED, C.MQQDT_PREDEFINED),
          ("PERMDYN", C.MQQDT_PERMANENT_DYNAMIC, C.MQQDT_PERMANENT_DYNAMIC),
          ("TEMPDYN", C.MQQDT_TEMPORARY_DYNAMIC, C.MQQDT_TEMPORARY_DYNAMIC),
          settable_types=frozenset({MODEL}), shown_only=("PREDEFINED",)),
    _enum("USAGE", C.MQIA_USAGE, "usage", _LM, ("NORMAL", C.MQUS_NORMAL, C.MQUS_NORMAL),
          ("XMITQ", C.MQUS_TRANSMISSION, C.MQUS_TRANSMISSION)),
    # Alias queues.
    _str("TARGET", C.MQCA_BASE_OBJECT_NAME, "target", {ALIAS}, synonyms=("TARGQ",)),
    # Local definitions of remote queues (and queue-manager aliases: RNAME blank).
    _str("RNAME", C.MQCA_REMOTE_Q_NAME, "remote_q_name", {REMOTE}),
    _str("RQMNAME", C.MQCA_REMOTE_Q_MGR_NAME, "remote_q_mgr_name", {REMOTE},
         length=C.MQ_Q_MGR_NAME_LENGTH),
    _str("XMITQ", C.MQCA_XMIT_Q_NAME, "xmit_q_name", {REMOTE}),
    # Fixed: accepted with the one value mqk has, displayed, not stored (see above).
    _enum("DEFBIND", C.MQIA_DEF_BIND, None, {LOCAL, ALIAS, REMOTE},
          ("OPEN", None, C.MQBND_BIND_ON_OPEN), fixed=True),
    _enum("TARGTYPE", C.MQIA_BASE_TYPE, None, {ALIAS}, ("QUEUE", None, C.MQOT_Q), fixed=True),
    _flag("HARDENBO", C.MQIA_HARDEN_GET_BACKOUT, None, _LM,
          ("HARDENBO", None, C.MQQA_BACKOUT_HARDENED),
          ("NOHARDENBO", None, C.MQQA_BACKOUT_NOT_HARDENED), fixed=True),
)  # fmt: skip

UNSUPPORTED = frozenset({
    "ACCTQ", "CAPEXPRY", "CFSTRUCT", "CLCHNAME", "CLUSNL", "CLUSTER", "CLWLPRTY", "CLWLRANK",
    "CLWLUSEQ", "CUSTOM", "IMGRCOVQ", "INDXTYPE", "MAXFSIZE", "NPMCLASS", "QDEPTHHI",
    "QDEPTHLO", "QDPHIEV", "QDPLOEV", "QDPMAXEV", "QSGDISP", "QSVCIEV", "QSVCINT", "RETINTVL",
    "SCOPE", "STATQ", "STGCLASS", "STREAMQ", "STRMQOS",
})  # fmt: skip
"""Queue keywords of MQSC that mqk does not implement: a command naming one fails."""

BY_KEYWORD: dict[str, QueueAttr] = {}
for _a in ATTRIBUTES:
    for _k in (_a.keyword, *_a.synonyms, *(w for w, _, _ in _a.words if _a.kind == "flag")):
        BY_KEYWORD[_k] = _a
BY_SELECTOR: dict[int, QueueAttr] = {a.selector: a for a in ATTRIBUTES}
BY_FIELD: dict[str, QueueAttr] = {a.field: a for a in ATTRIBUTES if a.field}


def by_keyword(keyword: str) -> QueueAttr | None:
    """The attribute an MQSC keyword names (any case, synonyms and NO-forms too)."""
    return BY_KEYWORD.get(keyword.upper())


def by_selector(selector: int) -> QueueAttr | None:
    """The attribute of a PCF parameter / MQINQ selector."""
    return BY_SELECTOR.get(selector)


# DISPLAY's order, as runmqsc lists a local queue's attributes (ALTDATE, CLUSTER and the
# other attributes mqk lacks left out): roughly alphabetical, flags (NOTRIGGER,
# NOHARDENBO, NOSHARE) where their positive keyword sorts, DEFPRTY before DEFPSIST and
# DEFPRESP, PUT before PROPCTL.
_DISPLAY_ORDER = (
    "TYPE", "BOQNAME", "BOTHRESH", "CURDEPTH", "DEFBIND", "DEFPRTY", "DEFPSIST", "DEFPRESP",
    "DEFREADA", "DEFSOPT", "DEFTYPE", "DESCR", "DISTL", "GET", "HARDENBO", "INITQ",
    "IPPROCS", "MAXDEPTH", "MAXMSGL", "MONQ", "MSGDLVSQ", "TRIGGER", "OPPROCS", "PROCESS",
    "PUT", "PROPCTL", "RQMNAME", "RNAME", "SHARE", "TARGET", "TARGTYPE", "TRIGDATA",
    "TRIGDPTH", "TRIGMPRI", "TRIGTYPE", "USAGE", "XMITQ",
)  # fmt: skip


def display_order(qtype: int) -> list[QueueAttr]:
    """DISPLAY ... ALL's attributes of a queue type, in runmqsc's order."""
    return [BY_KEYWORD[k] for k in _DISPLAY_ORDER if qtype in BY_KEYWORD[k].types]


def fields_from_mqsc(qtype: int, params: Iterable[tuple[str, str | None]]) -> dict[str, Any]:
    """QueueDef fields (for define_queue / alter_queue) from MQSC (keyword, value)
    pairs of a DEFINE or ALTER of queue type `qtype`. ValueError naming the first
    keyword that is not supported, does not belong to the type, or has a bad value."""
    out: dict[str, Any] = {}
    for keyword, text in params:
        kw = keyword.upper()
        attr = by_keyword(kw)
        if attr is None:
            if kw in UNSUPPORTED:
                raise ValueError(f"{kw} is not supported by mqk")
            raise ValueError(f"{kw} is not a queue attribute")
        if not attr.settable_on(qtype):
            raise ValueError(f"{kw} is not an attribute of DEFINE / ALTER {TYPE_NAMES[qtype]}")
        value = attr.parse(text, kw)
        if attr.field is not None:
            out[attr.field] = value
    return out


def render_value(attr: QueueAttr, fields: dict[str, Any], status: dict[str, int]) -> str:
    """DISPLAY's text of `attr` for a queue: its QueueDef `fields` (as to_json gives
    them), or its `status` figure (CURDEPTH, IPPROCS, OPPROCS), or its fixed value."""
    if attr.keyword in status:
        return f"{attr.keyword}({status[attr.keyword]})"
    if attr.fixed:
        word = attr.words[0][0]  # HARDENBO, USAGE(NORMAL), ...
        return word if attr.kind == "flag" else f"{attr.keyword}({word})"
    return attr.render(fields.get(attr.field))  # type: ignore[arg-type]


# -- PCF (CREATE_Q / CHANGE_Q / INQUIRE_Q): the same table by selector --------------------
def fields_from_pcf(qtype: int, params: dict[int, int | str]) -> dict[str, Any]:
    """QueueDef fields from PCF parameters (selector -> MQCFIN integer or MQCFST string,
    blank padding removed) of a CREATE_Q / CHANGE_Q of queue type `qtype`: the same
    domains as MQSC. ValueError naming the attribute for anything else."""
    out: dict[str, Any] = {}
    for selector, raw in params.items():
        attr = by_selector(selector)
        if attr is None or not attr.settable_on(qtype):
            raise ValueError(f"selector {selector} is not a queue attribute mqk sets here")
        if attr.kind in ("enum", "flag"):
            value = attr.from_pcf(raw)  # ValueError for a value not in the domain
            if attr.fixed:
                continue
        elif attr.kind == "int":
            value = attr.parse(str(raw))
        else:
            value = attr.parse(str(raw).rstrip(" "))
        out[attr.field] = value  # type: ignore[index]
    return out


def pcf_values(
    fields: dict[str, Any], status: dict[str, int], selectors: list[int]
) -> dict[int, int | str]:
    """INQUIRE_Q's answer for one queue: selector -> PCF value, for the `selectors` that
    belong to its type (its QueueDef `fields`; CURDEPTH, IPPROCS, OPPROCS from
    `status`; the fixed ones at their value)."""
    qtype = fields.get("queue_type", LOCAL)
    out: dict[int, int | str] = {}
    for selector in selectors:
        attr = by_selector(selector)
        if attr is None or qtype not in attr.types:
            continue
        if attr.keyword in status:
            out[selector] = status[attr.keyword]
        elif attr.fixed:
            out[selector] = attr.words[0][2]
        else:
            out[selector] = attr.to_pcf(fields.get(attr.field))  # type: ignore[arg-type]
    return out
