"""`mqk define / alter / status` on the one queue-definition model: the flags become the
MQSC command `mqk mqsc` runs, with its responses and DISPLAY layout; `--attr` gives any
attribute the model knows."""

from __future__ import annotations

import argparse

from adapter import cli
from adapter.tools import mqsc, queuecli


def test_attr_flags_and_mqk_fields(qmgr, qmgr_name, capsys) -> None:
    argv = ["define", qmgr_name, "QC.ONE", "--max-depth", "9", "--partitions", "3",
            "--attr", "TRIGDPTH(5)", "--attr", "DESCR('two words')", "--noshare"]  # fmt: skip
    assert cli.main(argv) == 0
    assert capsys.readouterr().out == "AMQ8006I: IBM MQ queue created.\n"
    a = qmgr.queue_status("QC.ONE")["attributes"]
    assert (a["max_depth"], a["partitions"], a["trigger_depth"]) == (9, 3, 5)
    assert (a["description"], a["shareable"]) == ("two words", False)
    assert cli.main(["alter", qmgr_name, "QC.ONE", "--attr", "MAXDEPTH(11)"]) == 0
    assert qmgr.queue_status("QC.ONE")["attributes"]["max_depth"] == 11


def test_invalid_commands_exit_2_refusals_exit_1(qmgr, qmgr_name, capsys) -> None:
    assert cli.main(["define", qmgr_name, "QC.X", "--attr", "STATQ(ON)"]) == 2
    assert "STATQ is not supported by mqk" in capsys.readouterr().err
    assert cli.main(["define", qmgr_name, "QC.X", "--attr", "MAXDEPTH(lots)"]) == 2
    assert cli.main(["define", qmgr_name, "QC.X", "--attr", "NOTAKEYWORD(1)"]) == 2
    assert "AMQ8405I" in capsys.readouterr().err
    assert cli.main(["define", qmgr_name, "QC.X"]) == 0
    assert cli.main(["define", qmgr_name, "QC.X"]) == 1
    assert "AMQ8150E: IBM MQ object already exists." in capsys.readouterr().err
    assert cli.main(["alter", qmgr_name, "QC.NONE", "--put", "DISABLED"]) == 1
    assert "AMQ8147E: IBM MQ object QC.NONE not found." in capsys.readouterr().err


def test_status_is_display_qstatus_and_display_queue(qmgr, qmgr_name, capsys) -> None:
    qmgr.define_queue("QC.S", max_depth=4)
    assert cli.main(["status", qmgr_name, "QC.S"]) == 0
    shown = capsys.readouterr().out.splitlines()
    lines: list[str] = []
    mqsc.run(qmgr, qmgr_name, ["DISPLAY QSTATUS(QC.S) ALL\n", "DISPLAY QUEUE(QC.S) ALL\n"],
             lines.append, echo=False)  # fmt: skip
    assert shown == lines[3:-3]  # the same lines as runmqsc's, without header and summary


def test_the_commands_built_from_flags() -> None:
    args = argparse.Namespace(command="define", queue="it's", alias=False, model=True,
                              deftype=None, replace=True, def_persistence=1,
                              attr=["TRIGGER"], description="x")  # fmt: skip
    assert queuecli.commands(None, args) == [  # type: ignore[arg-type]
        "DEFINE QMODEL('it''s') DEFTYPE(TEMPDYN) DEFPSIST(YES) DESCR('x') TRIGGER REPLACE"
    ]
