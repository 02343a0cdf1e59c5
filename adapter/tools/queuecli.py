"""`mqk define / alter / delete / status QMGR QUEUE`: MQSC commands built from the
command line's flags and run by `mqk mqsc`'s processor (adapter/tools/mqscrun.py), so
the queue attributes (adapter/core/queueattrs.py), their checks, the AMQ responses and
the DISPLAY layout are the ones runmqsc gives, in one place.

- `define`: DEFINE QLOCAL / QMODEL (--model) / QALIAS (--alias) with the flags as MQSC
  attributes and each `--attr 'KEYWORD(VALUE)'` as written (any attribute the model
  knows). mqk's own fields, which MQSC has no keyword for (--partitions,
  --segment-size), go with the definition to `define_queue`.
- `alter`: ALTER Q<type> of the queue's type, FORCE with --force.
- `delete`: DELETE Q<type> (PURGE with --purge, for a local queue).
- `status`: DISPLAY QSTATUS(Q) ALL (local queues) then DISPLAY QUEUE(Q) ALL.

Exit status: 0 done; 1 the queue manager refused the command (an MQ reason: the AMQ
message on stderr); 2 the command is not valid (a syntax error, a value outside its
domain, an attribute the queue type lacks, contradictory flags).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

import adapter.pymqi as pymqi
from adapter.core import mqscparse
from adapter.tools.mqscrun import Processor

C = pymqi.CMQC
_TYPES = {C.MQQT_LOCAL: "QLOCAL", C.MQQT_MODEL: "QMODEL", C.MQQT_ALIAS: "QALIAS"}
# flag destination -> how its value is written in MQSC
_FLAGS: dict[str, Callable[[Any], str]] = {
    "max_msg_length": lambda v: f"MAXMSGL({v})",
    "max_depth": lambda v: f"MAXDEPTH({v})",
    "def_persistence": lambda v: f"DEFPSIST({'YES' if v else 'NO'})",
    "def_priority": lambda v: f"DEFPRTY({v})",
    "msg_delivery_sequence": lambda v: f"MSGDLVSQ({'FIFO' if v else 'PRIORITY'})",
    "backout_threshold": lambda v: f"BOTHRESH({v})",
    "backout_requeue_q": lambda v: f"BOQNAME({quoted(v)})",
    "shareable": lambda v: "SHARE" if v else "NOSHARE",
    "defsopt": lambda v: f"DEFSOPT({v})",
    "deftype": lambda v: f"DEFTYPE({v})",
    "description": lambda v: f"DESCR({quoted(v)})",
    "get_inhibited": lambda v: f"GET({'DISABLED' if v else 'ENABLED'})",
    "put_inhibited": lambda v: f"PUT({'DISABLED' if v else 'ENABLED'})",
}
_MQK_FIELDS = ("partitions", "segment_size")  # QueueDef fields with no MQSC keyword


class InvalidFlagsError(ValueError):
    """Flags that make no valid command."""


def quoted(text: str) -> str:
    """An MQSC quoted string: case and blanks kept, a quote doubled."""
    return "'" + str(text).replace("'", "''") + "'"


def _attributes(args: argparse.Namespace) -> list[str]:
    """The MQSC attributes the flags give, then the --attr ones as written."""
    out = [render(getattr(args, d)) for d, render in _FLAGS.items()
           if getattr(args, d, None) is not None]  # fmt: skip
    target, targq = getattr(args, "target", None), getattr(args, "targq", None)
    if target is not None and targq is not None:
        raise InvalidFlagsError("TARGQ is the old name of TARGET: give one of them")
    if (target if target is not None else targq) is not None:
        out.append(f"TARGET({quoted(target if target is not None else targq)})")
    return out + list(getattr(args, "attr", None) or [])


class _Admin:
    """The connection as the processor uses it, noting whether the queue manager refused
    a call (exit 1) and adding mqk's own fields to DEFINE."""

    def __init__(self, qm: pymqi.QueueManager, extra: dict[str, Any]) -> None:
        self._qm, self._extra, self.refused = qm, extra, False

    def define_queue(self, name: str, replace: bool = False, **attributes: Any) -> Any:
        return self._call("define_queue", name, replace=replace, **attributes, **self._extra)

    def _call(self, verb: str, *args: Any, **kwargs: Any) -> Any:
        try:
            return getattr(self._qm, verb)(*args, **kwargs)
        except pymqi.MQMIError:
            self.refused = True
            raise

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._qm, name)
        if not callable(attr):
            return attr
        return lambda *a, **kw: self._call(name, *a, **kw)


def run_mqsc(qm: pymqi.QueueManager, texts: list[str], extra: dict[str, Any]) -> int:
    """Runs MQSC commands through the processor, printing its response lines (stderr
    for a command that failed); the exit status."""
    admin = _Admin(qm, extra)
    for text in texts:
        lines: list[str] = []
        processor = Processor(admin, qm.get_name(), lines.append)  # type: ignore[arg-type]
        [cmd] = [c for c in mqscparse.read([text]) if isinstance(c, mqscparse.Command)]
        try:
            ok = processor.run(mqscparse.parse(cmd))
        except mqscparse.MQSCSyntaxError as err:
            print("AMQ8405I: Syntax error detected at or near end of command segment below:-",
                  file=sys.stderr)  # fmt: skip
            print(err.segment, file=sys.stderr)
            return 2
        print("\n".join(lines), file=sys.stdout if ok else sys.stderr)
        if not ok:
            return 1 if admin.refused else 2
    return 0


def _qtype(qm: pymqi.QueueManager, name: str) -> int:
    return qm.queue_status(name)["attributes"].get("queue_type", C.MQQT_LOCAL)


def commands(qm: pymqi.QueueManager, args: argparse.Namespace) -> list[str]:
    """The MQSC commands `mqk <command>` runs."""
    name = quoted(args.queue)
    if args.command == "define":
        if args.alias and args.model:
            raise InvalidFlagsError("--alias and --model are two queue types")
        kind = "QALIAS" if args.alias else "QMODEL" if args.model else "QLOCAL"
        attrs = _attributes(args)
        if args.model and args.deftype is None:
            attrs.insert(0, "DEFTYPE(TEMPDYN)")  # MQ's default for a model
        if args.replace:
            attrs.append("REPLACE")
        return [" ".join([f"DEFINE {kind}({name})", *attrs])]
    kind = _TYPES[_qtype(qm, args.queue)]
    if args.command == "alter":
        attrs = _attributes(args)
        if not attrs:
            raise InvalidFlagsError("nothing to alter: give an attribute to change")
        return [" ".join([f"ALTER {kind}({name})", *attrs, *(["FORCE"] if args.force else [])])]
    if args.command == "delete":
        purge = " PURGE" if args.purge and kind == "QLOCAL" else ""
        return [f"DELETE {kind}({name}){purge}"]
    shown = [f"DISPLAY QUEUE({name}) ALL"]
    return ([f"DISPLAY QSTATUS({name}) ALL"] if kind == "QLOCAL" else []) + shown


def admin_command(args: argparse.Namespace) -> int:
    """`mqk define|alter|delete|status`."""
    extra = {f: getattr(args, f) for f in _MQK_FIELDS if getattr(args, f, None) is not None}
    try:
        qm = pymqi.connect(args.qmgr)
    except pymqi.MQMIError as err:
        print(f"AMQ8146E: IBM MQ queue manager not available. ({err.reason})", file=sys.stderr)
        return 1
    try:
        try:
            texts = commands(qm, args)
        except pymqi.MQMIError as err:  # the queue's type, for alter / delete / status
            print(Processor._reason(err.reason, args.queue), file=sys.stderr)
            return 1
        except InvalidFlagsError as err:
            print(f"mqk: {args.command} {args.queue}: {err}", file=sys.stderr)
            return 2
        return run_mqsc(qm, texts, extra)
    finally:
        qm.disconnect()
