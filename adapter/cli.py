"""`mqk`: queue administration, and the commands other packages contribute.

The library's own verbs are MQSC's: `mqk define` (DEFINE QLOCAL, QMODEL with --model,
QALIAS with --alias --target), `mqk alter` (ALTER QLOCAL / QMODEL / QALIAS), `mqk delete`
(DELETE QLOCAL / QMODEL / QALIAS), `mqk status` (DISPLAY QSTATUS + DISPLAY QUEUE): their
flags become MQSC commands that `mqk mqsc`'s processor runs (adapter/tools/queuecli.py),
so they print runmqsc's responses and display; `mqk qmgr` (ALTER / DISPLAY QMGR), and
the control commands `mqk endmqm [-c|-i]` / `mqk strmqm`. Other packages
add theirs through the entry-point group `mqk.commands`: each entry names a function
called with the subparsers, which adds subcommands whose `func` takes the parsed
arguments and returns the exit status. This repository declares `stack` and `bench`
(ops) and `streaming` (demo, reassemble, expire) in pyproject.toml. A group whose module
is not installed (the wheel has no benchmarks) is left out; the library itself never
imports those packages.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path

import adapter.pymqi as pymqi
from adapter import config
from adapter.core import qstats
from adapter.shim.redis_store import RedisStore
from adapter.shim.runstate import end_queue_manager, start_queue_manager
from adapter.shim.store import StateStore
from adapter.tools.queuecli import admin_command

COMMAND_GROUP = "mqk.commands"


# ALTER QMGR's MQSC names -> QMgrDef attributes.
_QMGR_ATTRS = {
    "deadq": "dead_letter_q",
    "defxmitq": "def_xmit_q",
    "descr": "description",
    "maxhands": "max_handles",
    "maxumsgs": "max_uncommitted_msgs",
    "maxmsgl": "max_msg_length",
    "monq": "monitoring_q",
    "perfmev": "perf_events",
}
# ALTER QMGR's attributes whose values are MQSC words (adapter/core/qstats.py).
_QMGR_WORDS = {"monitoring_q": qstats.QMGR_MONQ_WORDS, "perf_events": qstats.PERFMEV_WORDS}


def _word(words: dict[str, int], value: int) -> str:
    return next(w for w, v in words.items() if v == value)


def _qmgr(args: argparse.Namespace) -> int:
    """ALTER QMGR when attributes are given, then DISPLAY QMGR, in runmqsc's words."""
    changes = {
        attr: getattr(args, mqsc)
        for mqsc, attr in _QMGR_ATTRS.items()
        if getattr(args, mqsc) is not None
    }
    for attr, words in _QMGR_WORDS.items():
        if attr in changes:
            changes[attr] = words[changes[attr]]
    try:
        qm = pymqi.connect(args.qmgr)
        try:
            if changes:
                qm.alter_qmgr(**changes)
                print("AMQ8005I: IBM MQ queue manager changed.")
            d = qm.get_handle().qmgr_def()
        finally:
            qm.disconnect()
    except (pymqi.MQMIError, ValueError) as err:
        print(f"mqk: qmgr {args.qmgr}: {err}", file=sys.stderr)
        return 1 if isinstance(err, pymqi.MQMIError) else 2
    print("AMQ8408I: Display Queue Manager details.")
    print(
        f"   QMNAME({args.qmgr}) DEADQ({d.dead_letter_q}) DEFXMITQ({d.def_xmit_q}) "
        f"DESCR({d.description}) MAXHANDS({d.max_handles}) MAXMSGL({d.max_msg_length}) "
        f"MAXPRTY(9) MAXUMSGS({d.max_uncommitted_msgs}) "
        f"MONQ({_word(qstats.QMGR_MONQ_WORDS, d.monitoring_q)}) "
        f"PERFMEV({_word(qstats.PERFMEV_WORDS, d.perf_events)}) SYNCPT"
    )
    return 0


def _control_store(qmgr: str) -> StateStore:
    """The state store the control commands write the run state to (no MQCONN: a
    quiescing queue manager refuses new connections, strmqm must still work)."""
    return RedisStore(config.endpoints().redis_url, qmgr)


def _endmqm(args: argparse.Namespace) -> int:
    """endmqm -c (quiesce, the default) / -i (immediate), in endmqm's words."""
    store = _control_store(args.qmgr)
    try:
        end_queue_manager(store, immediate=args.immediate)
    finally:
        store.close()
    if args.immediate:
        print(f"IBM MQ queue manager '{args.qmgr}' ending.")
        print(f"IBM MQ queue manager '{args.qmgr}' ended.")
    else:
        print(
            "Quiesce request accepted. The queue manager will stop when all outstanding "
            "work is complete."
        )
    return 0


def _strmqm(args: argparse.Namespace) -> int:
    """strmqm: the queue manager runs again (new connections, no more 2161/2162)."""
    store = _control_store(args.qmgr)
    try:
        start_queue_manager(store)
    finally:
        store.close()
    print(f"IBM MQ queue manager '{args.qmgr}' started.")
    return 0


def _enabled(value: str) -> bool:
    """GET(ENABLED|DISABLED) / PUT(...) -> the *_inhibited attribute."""
    if value.upper() not in ("ENABLED", "DISABLED"):
        raise argparse.ArgumentTypeError(f"ENABLED or DISABLED, not {value!r}")
    return value.upper() == "DISABLED"


def _inhibit_and_alias_arguments(p: argparse.ArgumentParser) -> None:
    """GET / PUT, DESCR and an alias's TARGET (TARGQ, its old name), for define and alter."""
    for flag, dest, mqsc in (("--get", "get_inhibited", "GET"), ("--put", "put_inhibited", "PUT")):
        p.add_argument(
            flag,
            dest=dest,
            type=_enabled,
            metavar="ENABLED|DISABLED",
            help=f"{mqsc}(DISABLED) refuses every MQ{mqsc} on the queue at once, open handles too",
        )
    p.add_argument("--descr", dest="description", help="DESCR: a description (64 at most)")
    p.add_argument("--target", help="TARGET of an alias queue: the queue it resolves to")
    p.add_argument("--targq", help="TARGQ: the old name of --target")
    p.add_argument(
        "--attr",
        action="append",
        metavar="KEYWORD(VALUE)",
        help="any MQSC queue attribute, as written in DEFINE / ALTER (repeatable)",
    )


def command_groups() -> dict[str, str]:
    """Entry points of `mqk.commands` (name -> "module:function"), by name: the installed
    ones, and, when this runs from a source checkout, the checkout's pyproject.toml (which
    wins: an editable install's metadata is as old as its last `pip install`)."""
    groups = {ep.name: ep.value for ep in importlib.metadata.entry_points(group=COMMAND_GROUP)}
    groups.update(_checkout_groups())
    return dict(sorted(groups.items()))


def _checkout_groups() -> dict[str, str]:
    pyproject = Path(__file__).resolve().parent.parent / "pyproject.toml"
    try:
        project = tomllib.loads(pyproject.read_text()).get("project", {})
    except (OSError, tomllib.TOMLDecodeError):
        return {}
    if project.get("name") != "mqk":
        return {}
    return dict(project.get("entry-points", {}).get(COMMAND_GROUP, {}))


def _load_group(name: str, value: str) -> Callable | None:
    """The group's `add(subparsers)`, or None when its module is not installed. A group
    that is installed but broken is reported on stderr and left out: the other commands
    keep working."""
    module_name, _, attr = value.partition(":")
    try:
        module = importlib.import_module(module_name.strip())
        return getattr(module, attr.strip())
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if missing and (module_name == missing or module_name.startswith(missing + ".")):
            return None  # not part of this installation
        print(f"mqk: commands of {name!r} unavailable: {exc}", file=sys.stderr)
    except Exception as exc:  # noqa: BLE001 - one broken group must not break `mqk`
        print(f"mqk: commands of {name!r} unavailable: {exc}", file=sys.stderr)
    return None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mqk", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser(
        "define",
        help="DEFINE QLOCAL (a queue and its priority topics), QMODEL (--model) or "
        "QALIAS (--alias --target Q)",
    )
    p.add_argument("qmgr")
    p.add_argument("queue")
    p.add_argument("--max-msg-length", dest="max_msg_length", type=int)
    p.add_argument("--max-depth", dest="max_depth", type=int)
    p.add_argument("--def-persistence", dest="def_persistence", type=int, choices=[0, 1])
    p.add_argument("--def-priority", dest="def_priority", type=int)
    p.add_argument(
        "--msg-delivery-sequence",
        dest="msg_delivery_sequence",
        type=int,
        choices=[0, 1],
        help="0 PRIORITY (default), 1 FIFO",
    )
    p.add_argument("--partitions", type=int, help="partitions per priority topic")
    p.add_argument("--segment-size", dest="segment_size", type=int)
    p.add_argument("--backout-threshold", dest="backout_threshold", type=int)
    p.add_argument("--backout-requeue-q", dest="backout_requeue_q")
    p.add_argument(
        "--noshare",
        dest="shareable",
        action="store_false",
        default=None,
        help="NOSHARE: one input handle at a time (default SHARE)",
    )
    p.add_argument(
        "--defsopt",
        choices=["EXCL", "SHARED"],
        help="DEFSOPT: what MQOO_INPUT_AS_Q_DEF means (default SHARED; a model's EXCL)",
    )
    p.add_argument(
        "--model",
        action="store_true",
        help="DEFINE QMODEL: a model queue, whose MQOPEN creates a dynamic queue",
    )
    p.add_argument(
        "--deftype",
        choices=["TEMPDYN", "PERMDYN"],
        help="DEFTYPE of a model queue: what its dynamic queues are (default TEMPDYN, as MQ)",
    )
    p.add_argument(
        "--alias",
        action="store_true",
        help="DEFINE QALIAS: an alias queue, whose MQOPEN opens its --target",
    )
    _inhibit_and_alias_arguments(p)
    p.add_argument("--replace", action="store_true")
    p.set_defaults(func=admin_command)
    p = sub.add_parser("alter", help="ALTER QLOCAL / QALIAS: change an existing queue's attributes")
    p.add_argument("qmgr")
    p.add_argument("queue")
    p.add_argument("--def-persistence", dest="def_persistence", type=int, choices=[0, 1])
    p.add_argument("--def-priority", dest="def_priority", type=int)
    _inhibit_and_alias_arguments(p)
    p.add_argument(
        "--force",
        action="store_true",
        help="FORCE: change the TARGET of an alias some application has open",
    )
    p.set_defaults(func=admin_command)
    p = sub.add_parser("delete", help="DELETE QLOCAL / QMODEL (refused while the queue is open)")
    p.add_argument("qmgr")
    p.add_argument("queue")
    p.add_argument("--purge", action="store_true", help="delete even if messages remain")
    p.set_defaults(func=admin_command)
    p = sub.add_parser("status", help="DISPLAY QSTATUS / QLOCAL: depth, open counts, attributes")
    p.add_argument("qmgr")
    p.add_argument("queue")
    p.set_defaults(func=admin_command)

    p = sub.add_parser("qmgr", help="DISPLAY QMGR, or ALTER QMGR when attributes are given")
    p.add_argument("qmgr")
    p.add_argument("--deadq", help="DEADQ: the dead-letter queue (a local queue; '' for none)")
    p.add_argument("--defxmitq", help="DEFXMITQ: the default transmission queue")
    p.add_argument("--descr", help="DESCR")
    p.add_argument("--maxhands", type=int, help="MAXHANDS: open handles per connection")
    p.add_argument("--maxumsgs", type=int, help="MAXUMSGS: messages in one unit of work")
    p.add_argument("--maxmsgl", type=int, help="MAXMSGL: the queue manager's largest message")
    p.add_argument("--monq", choices=list(qstats.QMGR_MONQ_WORDS), help="MONQ: queue monitoring")
    p.add_argument(
        "--perfmev", choices=list(qstats.PERFMEV_WORDS), help="PERFMEV: RESET QSTATS needs ENABLED"
    )
    p.set_defaults(func=_qmgr)

    p = sub.add_parser("endmqm", help="endmqm: quiesce (-c) or end at once (-i) a queue manager")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("-c", dest="immediate", action="store_false", help="controlled (quiesce)")
    mode.add_argument("-i", dest="immediate", action="store_true", help="immediate")
    p.add_argument("qmgr")
    p.set_defaults(func=_endmqm, immediate=False)
    p = sub.add_parser("strmqm", help="strmqm: the queue manager runs again after endmqm")
    p.add_argument("qmgr")
    p.set_defaults(func=_strmqm)

    for name, value in command_groups().items():
        add = _load_group(name, value)
        if add is not None:
            add(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args) or 0


if __name__ == "__main__":
    sys.exit(main())
