"""The pure half of the PCF command server (adapter/pymqi/pcfserver.py): a command's
parameters as the server reads them (`Request`), the failure it answers with
(`CommandError` -> an MQCFH with CompCode MQCC_FAILED, the Reason and
MQIACF_PARAMETER_ID), the inquiry filters (MQCFIF / MQCFSF) and the encoding of the
response messages (MQCFT_RESPONSE, MQCFC_LAST on the last). Pure: imports only
adapter.core.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from adapter.core import cmqc as C  # noqa: N812
from adapter.core import cmqcfc as F  # noqa: N812
from adapter.core import pcf
from adapter.core.mqscparse import matches

PARM_ID_ERROR = {
    F.MQCFT_INTEGER: F.MQRCCF_CFIN_PARM_ID_ERROR,
    F.MQCFT_STRING: F.MQRCCF_CFST_PARM_ID_ERROR,
    F.MQCFT_INTEGER_LIST: F.MQRCCF_CFIL_PARM_ID_ERROR,
}

Values = dict[int, Any]  # one response's parameters: selector -> int, bytes, list


class CommandError(Exception):
    """The command failed with `reason`; `parameter` names the one at fault."""

    def __init__(self, reason: int, parameter: int | None = None) -> None:
        super().__init__(reason)
        self.reason, self.parameter = reason, parameter


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "replace").rstrip(" \0")


class Request:
    """The command's parameters by identifier, strings decoded and unpadded; the
    filters (MQCFIF / MQCFSF) apart. Each `take` marks a parameter as used, so that
    `check_used` can fail one the command does not take."""

    def __init__(self, params: tuple[pcf.Param, ...]) -> None:
        self.values: dict[int, Any] = {}
        self.types: dict[int, int] = {}
        self.filters: list[pcf.Param] = []
        for p in params:
            if p.type in (F.MQCFT_INTEGER_FILTER, F.MQCFT_STRING_FILTER):
                self.filters.append(p)
                continue
            value: Any = p.value
            if p.type == F.MQCFT_STRING:
                value = _text(p.value)  # type: ignore[arg-type]
            elif p.type == F.MQCFT_STRING_LIST:
                value = [_text(s) for s in p.value]  # type: ignore[union-attr]
            self.values[p.parameter], self.types[p.parameter] = value, p.type
        self.used: set[int] = set()

    def take(
        self, parameter: int, default: Any = None, required: bool = False, kind: int | None = None
    ) -> Any:
        """The parameter's value, which must come in the structure of its kind (`kind`,
        else MQCFST for an MQCA_* / MQCACF_* identifier and MQCFIN for the others): an
        MQCA_Q_NAME sent as an MQCFIN is an MQCFIN whose Parameter is not valid (3014)."""
        if parameter not in self.values:
            if required:
                raise CommandError(F.MQRCCF_PARM_COUNT_TOO_SMALL, parameter)
            return default
        if kind is None:
            kind = F.MQCFT_STRING if is_string_selector(parameter) else F.MQCFT_INTEGER
        if self.types[parameter] != kind:
            reason = PARM_ID_ERROR.get(self.types[parameter], F.MQRCCF_CFIN_PARM_ID_ERROR)
            raise CommandError(reason, parameter)
        self.used.add(parameter)
        return self.values[parameter]

    def rest(self) -> dict[int, Any]:
        """The parameters not taken yet (the queue attributes of CREATE / CHANGE)."""
        return {k: v for k, v in self.values.items() if k not in self.used}

    def check_used(self) -> None:
        for parameter in self.values:
            if parameter not in self.used:
                reason = PARM_ID_ERROR.get(self.types[parameter], F.MQRCCF_CFIN_PARM_ID_ERROR)
                raise CommandError(reason, parameter)


def is_string_selector(selector: int) -> bool:
    """MQCA_* (2001-2999) and MQCACF_* (3001-3999): character parameters."""
    return C.MQCA_FIRST <= selector < 4000


def is_byte_selector(selector: int) -> bool:
    """MQBACF_* (7001-8000): byte-string parameters (MQCFBS)."""
    return 7001 <= selector <= 8000


def padded(text: str, length: int) -> bytes:
    """A character attribute as MQ returns it: blank-padded to its length."""
    return text.encode().ljust(length)


def filtered(values: Values, filters: list[pcf.Param]) -> Values | None:
    """`values`, or None when a filter (MQCFIF / MQCFSF) rejects them."""
    for f in filters:
        if f.parameter not in values:  # not an attribute the answer has: MQ's 3243 / 3247
            integer = f.type == F.MQCFT_INTEGER_FILTER
            reason = F.MQRCCF_CFIF_PARM_ID_ERROR if integer else F.MQRCCF_CFSF_PARM_ID_ERROR
            raise CommandError(reason, f.parameter)
        have = values[f.parameter]
        if isinstance(have, bytes):
            if not _string_ok(_text(have), _text(f.value), f.operator):  # type: ignore[arg-type]
                return None
        elif not _compare(have, f.value, f.operator):  # type: ignore[arg-type]
            return None
    return values


def _compare(have: Any, want: Any, op: int) -> bool:
    table: dict[int, Callable[[Any, Any], bool]] = {
        F.MQCFOP_EQUAL: lambda a, b: a == b, F.MQCFOP_NOT_EQUAL: lambda a, b: a != b,
        F.MQCFOP_LESS: lambda a, b: a < b, F.MQCFOP_GREATER: lambda a, b: a > b,
        F.MQCFOP_NOT_LESS: lambda a, b: a >= b, F.MQCFOP_NOT_GREATER: lambda a, b: a <= b,
    }  # fmt: skip
    if op not in table:
        raise CommandError(F.MQRCCF_FILTER_ERROR)
    return table[op](have, want)


def _string_ok(have: str, want: str, op: int) -> bool:
    if op == F.MQCFOP_LIKE:
        return matches(want, have)
    if op == F.MQCFOP_NOT_LIKE:
        return not matches(want, have)
    return _compare(have, want, op)


def responses(command: int, answers: list[Values], encoding: int) -> list[bytes]:
    """The response messages of a command that succeeded: one per answer (an empty
    one for a command that answers nothing), MQCFC_LAST on the last."""
    answers = answers or [{}]
    out = []
    for seq, values in enumerate(answers, 1):
        last = F.MQCFC_LAST if seq == len(answers) else F.MQCFC_NOT_LAST
        header = pcf.Header(F.MQCFT_RESPONSE, F.MQCFH_VERSION_1, command, seq, last)
        out.append(pcf.encode(header, _params(values), encoding))
    return out


def failure(command: int, reason: int, parameter: int | None, encoding: int) -> bytes:
    header = pcf.Header(F.MQCFT_RESPONSE, F.MQCFH_VERSION_1, command, 1, F.MQCFC_LAST,
                        C.MQCC_FAILED, reason)  # fmt: skip
    params = (
        [] if parameter is None else [pcf.Param(F.MQCFT_INTEGER, F.MQIACF_PARAMETER_ID, parameter)]
    )
    return pcf.encode(header, params, encoding)


def _params(values: Values) -> list[pcf.Param]:
    out = []
    for selector, value in values.items():
        if isinstance(value, bytes) and is_byte_selector(selector):
            out.append(pcf.Param(F.MQCFT_BYTE_STRING, selector, value))
        elif isinstance(value, bytes):
            out.append(pcf.Param(F.MQCFT_STRING, selector, value))
        elif isinstance(value, list) and is_string_selector(selector):
            out.append(pcf.Param(F.MQCFT_STRING_LIST, selector, tuple(value)))
        elif isinstance(value, list):
            out.append(pcf.Param(F.MQCFT_INTEGER_LIST, selector, tuple(value)))
        else:
            out.append(pcf.Param(F.MQCFT_INTEGER, selector, value))
    return out
