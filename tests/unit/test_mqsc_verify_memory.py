"""`mqk mqsc -v` (runmqsc -v: verify, perform nothing) and `-e` (no echo) on the
in-memory backends."""

from __future__ import annotations

from pathlib import Path

import adapter.pymqi as pymqi
from adapter.tools import mqsc

C = pymqi.CMQC
TEAM = Path(__file__).parents[1] / "mqsc" / "team.mqsc"


def run(qm, name: str, text: str, **kw) -> tuple[int, list[str]]:
    out: list[str] = []
    return mqsc.run(qm, name, text.splitlines(True), out.append, **kw), out


SYNTAX = "AMQ8405I: Syntax error detected at or near end of command segment below:-"


def test_verify_performs_nothing(qmgr, qmgr_name) -> None:
    before = sorted(qmgr.get_handle().catalog.names())
    rc, out = run(qmgr, qmgr_name, TEAM.read_text(), verify=True)
    assert rc == 0, "\n".join(out)
    assert not any(line.startswith("AMQ8006I") for line in out)
    assert out[-2:] == [
        "No commands have a syntax error.",
        "All valid MQSC commands were processed.",
    ]
    assert sorted(qmgr.get_handle().catalog.names()) == before
    # the same file, run for real, defines what -v did not
    rc, out = run(qmgr, qmgr_name, TEAM.read_text())
    assert rc == 0 and out.count("AMQ8006I: IBM MQ queue created.") == 20


def test_verify_reports_syntax_errors_in_runmqscs_words(qmgr, qmgr_name) -> None:
    text = "DEFINE QLOCAL(V.ONE)\nDEFINE QLOCL(V.TWO)\nDEFINE QLOCAL(V.THREE) DEFPSIST(MAYBE)\n"
    text += "DELETE QLOCAL(NOT.THERE)\nDEFNE QLOCAL(V.FOUR)\n"
    rc, out = run(qmgr, qmgr_name, text, verify=True)
    assert rc == 10
    assert out.count(SYNTAX) == 3
    assert "AMQ8426I: Valid MQSC commands are:" in out
    assert out[-3:] == [
        "5 MQSC commands read.",
        "3 commands have a syntax error.",
        "All valid MQSC commands were processed.",  # DELETE of a missing queue: not run
    ]
    for name in ("V.ONE", "V.THREE"):
        try:
            qmgr.queue_status(name)
            raise AssertionError(f"{name} was defined by -v")
        except pymqi.MQMIError as err:
            assert err.reason == C.MQRC_UNKNOWN_OBJECT_NAME


def test_no_echo(qmgr, qmgr_name) -> None:
    text = "* a comment\nDEFINE QLOCAL(E.ONE)\nDISPLAY QLOCAL(E.ONE) MAXDEPTH\n"
    rc, out = run(qmgr, qmgr_name, text, echo=False)
    assert rc == 0
    assert not any(" : " in line for line in out)  # neither commands nor comments echoed
    assert "AMQ8006I: IBM MQ queue created." in out
    assert "AMQ8409I: Display Queue details." in out
    rc, echoed = run(qmgr, qmgr_name, text.replace("E.ONE", "E.TWO"))
    assert rc == 0
    assert "       : * a comment" in echoed and "     1 : DEFINE QLOCAL(E.TWO)" in echoed
    same = [x.replace("E.TWO", "E.ONE") for x in echoed if " : " not in x]
    assert same == out  # -e: the same report, without the echo
