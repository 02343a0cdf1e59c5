"""PCFExecute: PCF administration in pymqi's and ibmmq's shape.

    pcf = pymqi.PCFExecute(qmgr)
    for q in pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: b"APP.*", CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL}):
        print(q[CMQC.MQCA_Q_NAME].strip(), q[CMQC.MQIA_CURRENT_Q_DEPTH])
    pcf.disconnect()

`pcf.MQCMD_xxx(parameters, filters)` builds the command message as pymqi does (a str /
bytes value an MQCFST, an int an MQCFIN, or an MQCFIL for an *_ATTRS selector, a list
of ints an MQCFIL, a list of strings an MQCFSL, `ByteString(value)` an MQCFBS;
`Filter(selector).like(b"X*")` an MQCFSF, an integer filter an MQCFIF), and returns the
responses as pymqi does: a list
of dicts keyed by parameter identifier, ints, lists and blank-padded bytes. One
difference: bytes (or a str) given for a byte-string parameter, an MQBACF_* identifier
such as MQBACF_SUB_ID, travel as the MQCFBS IBM's PCF reference says it is (e.g.
"SubId (MQCFBS)", Delete Subscription:
<https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_9.1.0/com.ibm.mq.ref.adm.doc/q087210_.html>),
not as an MQCFST: a character string is read as text (converted, its trailing blanks
and nulls not part of it), which would damage an identifier's bytes. pymqi sends an
MQCFST there, which a queue manager refuses; `ByteString` works in both. A response
whose MQCFH CompCode is not MQCC_OK raises MQMIError(CompCode, Reason), as pymqi's
`_unpack` does.

Design: MQ puts the command on SYSTEM.ADMIN.COMMAND.QUEUE and a command server answers on
a dynamic reply queue. mqk does so while a command server runs (`mqk strmqcsv`,
adapter/tools/cmdserver.py; the command queue has an input handle open): the request
and responses travel through the queues as pymqi sends them (adapter/pymqi/pcfqueue.py:
`model_queue_name`, `reply_queue_name`, `dynamic_queue_name`, `command_queue_name`,
`command_queue`, `response_wait_interval`, `command_timeout`, `max_length`, `convert`),
with 2033 when nothing answers within `response_wait_interval`. With no command server
running, where MQ would time out with 2033, mqk runs the command in process on the
PCFExecute's own connection (adapter/pymqi/pcfserver.py's `serve`, the same function
the command server calls), the request and each response still passing through
adapter/core/pcf.py's wire form: both paths give the same responses.
`responses=` is ibmmq's: the
list is filled with (parameters, CFH) pairs and the first failure raised after.
Parameters may also be given as a list of CFIN / CFST / CFIL / CFSL structures and
filters as CFIF / CFSF (adapter/pymqi/pcfstructs.py), as IBM's examples do.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from adapter.core import cmqc as C  # noqa: N812
from adapter.core import cmqcfc as F  # noqa: N812
from adapter.core import pcf
from adapter.core.pcfcommand import is_byte_selector
from adapter.pymqi import pcfqueue, pcfserver
from adapter.pymqi.errors import Error, MQMIError, PYIFError
from adapter.pymqi.pcfstructs import CFBS, CFH, CFIF, CFIL, CFIN, CFSF, CFSL, CFST

_ENCODING = C.MQENC_NATIVE
# Selectors pymqi sends as an MQCFIL even when given one int: its *_ATTRS parameters.
_LIST_SELECTORS = frozenset(
    v for k, v in vars(F).items() if k.startswith(("MQIACF_", "MQIACH_")) and k.endswith("_ATTRS")
)
_OPERATORS = {
    "less": F.MQCFOP_LESS, "equal": F.MQCFOP_EQUAL, "greater": F.MQCFOP_GREATER,
    "not_less": F.MQCFOP_NOT_LESS, "not_equal": F.MQCFOP_NOT_EQUAL,
    "not_greater": F.MQCFOP_NOT_GREATER, "like": F.MQCFOP_LIKE, "not_like": F.MQCFOP_NOT_LIKE,
}  # fmt: skip


class ByteString:
    """pymqi's and ibmmq's wrapper of a value that goes as an MQCFBS (a byte string
    parameter): `{CMQCFC.MQBACF_SUB_ID: ByteString(sub_id)}`."""

    def __init__(self, value: bytes | str) -> None:
        self.value = value

    def __len__(self) -> int:
        return len(self.value)


class _Filter:
    """One filter of an inquiry: selector, operator and value (pymqi's _Filter)."""

    def __init__(self, selector: int, value: Any, operator: int) -> None:
        self.selector, self.operator = selector, operator
        self.value = value.encode() if isinstance(value, str) else value

    def param(self) -> pcf.Param:
        kind = F.MQCFT_STRING_FILTER if isinstance(self.value, bytes) else F.MQCFT_INTEGER_FILTER
        return pcf.Param(kind, self.selector, self.value, operator=self.operator)


class Filter:
    """pymqi's `Filter(selector).like(value)`, `.equal(value)`, `.greater(value)`, ..."""

    def __init__(self, selector: int) -> None:
        self.selector = selector

    def __getattr__(self, name: str):
        if name not in _OPERATORS:
            raise Error(f"Operator [{name}] is not supported.")
        return lambda value: _Filter(self.selector, value, _OPERATORS[name])


def _param(key: int, value: Any) -> pcf.Param:
    """A parameter structure for one entry of the caller's dict, as pymqi chooses it
    (and an MQCFBS for an MQBACF_* identifier: see the module's docstring)."""
    if isinstance(value, ByteString):
        raw = value.value
        return pcf.Param(F.MQCFT_BYTE_STRING, key, raw.encode() if isinstance(raw, str) else raw)
    if isinstance(value, str):
        value = value.encode()
    if isinstance(value, (bytes, bytearray)) and is_byte_selector(key):
        return pcf.Param(F.MQCFT_BYTE_STRING, key, bytes(value))
    if isinstance(value, bytes):
        return pcf.Param(F.MQCFT_STRING, key, value)
    if isinstance(value, bool) or not isinstance(value, (int, list, tuple)):
        raise PYIFError(f"parameter {key}: {type(value).__name__} is not a PCF value")
    if isinstance(value, int):
        if key in _LIST_SELECTORS:
            return pcf.Param(F.MQCFT_INTEGER_LIST, key, (value,))
        return pcf.Param(F.MQCFT_INTEGER, key, value)
    items = [v.encode() if isinstance(v, str) else v for v in value]
    if items and all(isinstance(v, bytes) for v in items):
        size = max(len(v) for v in items)  # an MQCFSL's strings are of one length
        return pcf.Param(F.MQCFT_STRING_LIST, key, tuple(v.ljust(size) for v in items))
    if all(isinstance(v, int) and not isinstance(v, bool) for v in items):
        return pcf.Param(F.MQCFT_INTEGER_LIST, key, tuple(items))
    raise PYIFError(f"parameter {key}: a list of ints or of strings")


def _values(message: pcf.Message) -> dict[int, Any]:
    """A response's parameters as pymqi's `_unpack` gives them."""
    out: dict[int, Any] = {}
    for p in message.params:
        value: Any = p.value
        if p.type in (F.MQCFT_INTEGER_LIST, F.MQCFT_INTEGER64_LIST, F.MQCFT_STRING_LIST):
            value = list(value)  # type: ignore[arg-type]
        out[p.parameter] = value
    return out


class _Method:
    """`pcf.MQCMD_INQUIRE_Q(...)`: runs the command named."""

    def __init__(self, owner: PCFExecute, command: int) -> None:
        self.owner, self.command = owner, command

    def __call__(self, *args: Any, **kwargs: Any) -> list[Any]:
        unknown = set(kwargs) - {"responses"}
        if unknown:
            raise PYIFError(f"keyword arguments {sorted(unknown)} are not supported by mqk")
        if len(args) > 2:
            raise PYIFError("MQCMD_*(parameters, filters): at most two arguments")
        params = _command_params(args[0] if args else {})
        for f in list(args[1]) if len(args) > 1 and args[1] else []:
            if isinstance(f, (_Filter, CFIF, CFSF)):
                params.append(f.param())
            else:
                raise PYIFError("a filter is Filter(selector).operator(value), CFIF or CFSF")
        header = pcf.Header(F.MQCFT_COMMAND, F.MQCFH_VERSION_3, self.command)
        request = pcf.encode(header, params, _ENCODING)
        collect = kwargs.get("responses")
        if collect is not None and not isinstance(collect, list):
            raise TypeError("responses must be a list")
        result: list[Any] = collect if collect is not None else []
        del result[:]
        first_error: MQMIError | None = None
        for raw in self.owner._responses(request):
            message = pcf.parse(raw, _ENCODING)
            if isinstance(message, int):  # the server's own encoding: never expected
                raise MQMIError(C.MQCC_FAILED, message)
            head = message.header
            if head.comp_code != C.MQCC_OK:
                error = MQMIError(head.comp_code, head.reason)
                if collect is None:
                    raise error
                first_error = first_error or error
            values = _values(message)
            if values:  # a command's empty "done" response is not an inquiry answer
                # with responses=: (parameters, CFH) pairs, as ibmmq gives them
                result.append(values if collect is None else (values, CFH.of(head)))
        if first_error is not None:  # ibmmq: the list is filled, then the error raised
            raise first_error
        return result


def _text(value: bytes | str) -> str:
    return (value.decode() if isinstance(value, bytes) else value).strip()


def _command_params(given: Any) -> list[pcf.Param]:
    """A dict of selector -> value, or a list of CFIN / CFST / CFBS / CFIL / CFSL
    structures (IBM's examples build those)."""
    if isinstance(given, dict):
        return [_param(k, v) for k, v in given.items()]
    if isinstance(given, (list, tuple)):
        if not all(isinstance(p, (CFIN, CFST, CFBS, CFIL, CFSL)) for p in given):
            raise PYIFError("a parameter list holds CFIN, CFST, CFBS, CFIL and CFSL structures")
        try:
            return [p.param() for p in given]
        except (TypeError, ValueError) as err:  # CFIN(Value="x"), CFST(String=1.5), ...
            raise PYIFError(f"a PCF structure's field: {err}") from None
    raise PYIFError("the parameters are a dict of selector -> value, or a list of CF* structures")


class PCFExecute:
    """PCF commands on a connected QueueManager (or a queue manager name, connected
    here): `pcf.MQCMD_INQUIRE_Q(...)` and the other MQCMD_* names of CMQCFC."""

    # Set by adapter.pymqi when it imports this module (this module cannot import it:
    # the package imports PCFExecute): the QueueManager class, which connects a name.
    connector: Callable[[Any], pcfserver.AdminConnection]
    queue_class: type  # the face's Queue, set by adapter.pymqi as `connector`

    def __init__(
        self,
        name: Any = None,
        model_queue_name: bytes | str = b"SYSTEM.DEFAULT.MODEL.QUEUE",
        reply_queue_name: bytes | str | None = None,
        reply_queue_open_options: int = C.MQOO_INPUT_EXCLUSIVE,
        dynamic_queue_name: bytes | str = b"PYMQPCF.*",
        command_queue_name: bytes | str = b"SYSTEM.ADMIN.COMMAND.QUEUE",
        command_queue: Any = None,
        response_wait_interval: int = 5000,
        command_timeout: int = 0,
        max_length: int | None = None,
        convert: bool = True,
    ) -> None:
        default_model = model_queue_name == b"SYSTEM.DEFAULT.MODEL.QUEUE"
        if model_queue_name and reply_queue_name and not default_model:
            raise PYIFError("Do not specify both a model_queue_name and a reply_queue_name")
        self._own = isinstance(name, (str, bytes))
        if not self._own and not hasattr(name, "get_handle"):
            raise PYIFError("PCFExecute needs a QueueManager or a queue manager name")
        self.qm: pcfserver.AdminConnection = type(self).connector(name) if self._own else name
        self.model_queue_name = model_queue_name
        self.reply_queue_name = reply_queue_name or model_queue_name
        self.dynamic_queue_name = dynamic_queue_name
        self.command_queue_name = command_queue_name
        self.response_wait_interval = response_wait_interval
        self.command_timeout = command_timeout
        self.max_length = max_length
        self.convert = convert
        self.reply_queue_open_options = reply_queue_open_options
        self.command_queue = command_queue
        self._queue_path = pcfqueue.QueuePath(self, type(self).queue_class)

    def _responses(self, request: bytes) -> list[bytes]:
        """Through SYSTEM.ADMIN.COMMAND.QUEUE while a command server runs, else in
        process (see the module's docstring)."""
        name = _text(self.command_queue_name)
        if self.command_queue is not None or pcfqueue.server_running(self.qm, name):
            return self._queue_path.execute(request)
        return pcfserver.serve(self.qm, request, _ENCODING)

    def __getattr__(self, name: str) -> _Method:
        short = name[7:] if name.startswith("CMQCFC.") else name
        command = getattr(F, short, None) if short.startswith("MQCMD_") else None
        if not isinstance(command, int):
            raise AttributeError(name)
        return _Method(self, command)

    @staticmethod
    def stringify_keys(raw: dict[int, Any]) -> dict[str, Any]:
        """The dict with CMQC / CMQCFC names for keys (pymqi's stringifyKeys)."""
        names: dict[int, str] = {}
        for module in (C, F):
            for k, v in vars(module).items():
                if k.startswith(("MQCA", "MQIA")) and isinstance(v, int):
                    names.setdefault(v, k)
        return {names.get(k, k): v for k, v in raw.items()}  # type: ignore[misc]

    stringifyKeys = stringify_keys  # noqa: N815

    def disconnect(self) -> None:
        """Ends the PCF session; the connection too when PCFExecute made it."""
        self._queue_path.close()
        if self._own and self.qm.is_connected:
            self.qm.disconnect()


__all__ = ["ByteString", "Filter", "PCFExecute"]
