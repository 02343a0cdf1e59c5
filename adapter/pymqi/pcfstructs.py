"""pymqi's and ibmmq's PCF structure classes, as far as PCFExecute's callers use them:
CFH (the header of a response, as `responses=` hands it back), and the parameters a
command may be given as a list instead of a dict — CFIN, CFST, CFBS, CFIL, CFSL, CFIF,
CFSF — with their field names (Parameter, Value, String, Values, Strings, Operator,
FilterValue, CodedCharSetId).

IBM's example (code/examples/def_queue.py of ibm-messaging/mq-mqi-python):

    args = [mq.CFST(Parameter=mq.CMQC.MQCA_Q_NAME, String=queue_name),
            mq.CFIN(Parameter=mq.CMQC.MQIA_Q_TYPE, Value=mq.CMQC.MQQT_LOCAL)]
    pcf.MQCMD_CREATE_Q(args)

Unlike pymqi's, these are not MQOpts structures: `pack()` gives the structure's bytes
(adapter/core/pcf.py's encoder, native encoding) but there is no `unpack`; lengths
(StrucLength, StringLength, Count) are computed, not set.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from adapter.core import cmqc as C  # noqa: N812
from adapter.core import cmqcfc as F  # noqa: N812
from adapter.core import pcf


def _bytes(value: Any) -> bytes:
    return value.encode() if isinstance(value, str) else bytes(value)


class _Structure:
    """Keyword fields over the defaults of the class (`_fields`)."""

    _fields: dict[str, Any] = {}

    def __init__(self, **kw: Any) -> None:
        unknown = set(kw) - set(self._fields)
        if unknown:
            raise TypeError(f"{type(self).__name__}: no field {sorted(unknown)}")
        self.__dict__.update({**self._fields, **kw})

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={getattr(self, k)!r}" for k in self._fields)
        return f"{type(self).__name__}({fields})"


class CFH(_Structure):
    """The MQCFH: a response's header (Type, Command, MsgSeqNumber, Control, CompCode,
    Reason, ParameterCount)."""

    _fields = {
        "Type": F.MQCFT_COMMAND, "StrucLength": F.MQCFH_STRUC_LENGTH,
        "Version": F.MQCFH_VERSION_1, "Command": F.MQCMD_NONE, "MsgSeqNumber": 1,
        "Control": F.MQCFC_LAST, "CompCode": C.MQCC_OK, "Reason": C.MQRC_NONE,
        "ParameterCount": 0,
    }  # fmt: skip

    @classmethod
    def of(cls, header: pcf.Header) -> CFH:
        return cls(
            Type=header.type, Version=header.version, Command=header.command,
            MsgSeqNumber=header.msg_seq_number, Control=header.control,
            CompCode=header.comp_code, Reason=header.reason,
            ParameterCount=header.parameter_count or 0,
        )  # fmt: skip


class _Parameter(_Structure, ABC):
    @abstractmethod
    def param(self) -> pcf.Param:
        """The parameter structure, for the encoder."""

    def pack(self) -> bytes:
        return pcf.encode_param(self.param(), C.MQENC_NATIVE)


class CFIN(_Parameter):
    _fields = {"Parameter": 0, "Value": 0}

    def param(self) -> pcf.Param:
        return pcf.Param(F.MQCFT_INTEGER, self.Parameter, int(self.Value))


class CFST(_Parameter):
    _fields = {"Parameter": 0, "CodedCharSetId": C.MQCCSI_DEFAULT, "String": b""}

    def param(self) -> pcf.Param:
        value = _bytes(self.String)
        return pcf.Param(F.MQCFT_STRING, self.Parameter, value, ccsid=self.CodedCharSetId)


class CFBS(_Parameter):
    """A byte string parameter (MQCFBS: an MQBACF_* identifier such as MQBACF_SUB_ID)."""

    _fields = {"Parameter": 0, "String": b""}

    def param(self) -> pcf.Param:
        return pcf.Param(F.MQCFT_BYTE_STRING, self.Parameter, _bytes(self.String))


class CFIL(_Parameter):
    _fields = {"Parameter": 0, "Values": ()}

    def param(self) -> pcf.Param:
        return pcf.Param(F.MQCFT_INTEGER_LIST, self.Parameter, tuple(map(int, self.Values)))


class CFSL(_Parameter):
    _fields = {"Parameter": 0, "CodedCharSetId": C.MQCCSI_DEFAULT, "Strings": ()}

    def param(self) -> pcf.Param:
        strings = [_bytes(s) for s in self.Strings]
        size = max((len(s) for s in strings), default=0)  # one length for all, blank-padded
        padded = tuple(s.ljust(size) for s in strings)
        return pcf.Param(F.MQCFT_STRING_LIST, self.Parameter, padded, ccsid=self.CodedCharSetId)


class CFIF(_Parameter):
    _fields = {"Parameter": 0, "Operator": 0, "FilterValue": 0}

    def param(self) -> pcf.Param:
        value = int(self.FilterValue)
        return pcf.Param(F.MQCFT_INTEGER_FILTER, self.Parameter, value, operator=self.Operator)


class CFSF(_Parameter):
    _fields = {
        "Parameter": 0, "Operator": 0, "CodedCharSetId": C.MQCCSI_DEFAULT, "FilterValue": b"",
    }  # fmt: skip

    def param(self) -> pcf.Param:
        return pcf.Param(
            F.MQCFT_STRING_FILTER, self.Parameter, _bytes(self.FilterValue),
            ccsid=self.CodedCharSetId, operator=self.Operator,
        )  # fmt: skip


__all__ = ["CFBS", "CFH", "CFIF", "CFIL", "CFIN", "CFSF", "CFSL", "CFST"]
