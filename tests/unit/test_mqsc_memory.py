"""`mqk mqsc` on the in-memory backends: a team's MQSC file of 20 definitions (local,
alias and model queues, comments, + and - continuations, LIKE) applied, applied again
(AMQ8150E without REPLACE, clean with it) and displayed back in runmqsc's words."""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

import pytest

import adapter.pymqi as pymqi
from adapter import cli
from adapter.tools import mqsc

C = pymqi.CMQC
TEAM = Path(__file__).parents[1] / "mqsc" / "team.mqsc"
LOCALS = 13


def run(qm, name: str, text: str) -> tuple[int, list[str]]:
    out: list[str] = []
    return mqsc.run(qm, name, text.splitlines(True), out.append), out


def with_replace(text: str) -> str:
    return re.sub(r"^(DEFINE|def|DEF) (\S+\([^)]*\))", r"\1 \2 REPLACE", text, flags=re.M)


def test_a_team_file_applies_then_fails_without_replace_then_applies_with_it(
    qmgr, qmgr_name
) -> None:
    team = TEAM.read_text()
    rc, out = run(qmgr, qmgr_name, team)
    assert rc == 0, "\n".join(out)
    assert out[:3] == [f"Starting MQSC for queue manager {qmgr_name}.", "", ""]
    assert out.count("AMQ8006I: IBM MQ queue created.") == 20
    assert "AMQ8005I: IBM MQ queue manager changed." in out
    assert out[-3:] == [
        "21 MQSC commands read.",
        "No commands have a syntax error.",
        "All valid MQSC commands were processed.",
    ]
    # the echo: numbered first lines, continuation and comment lines under them
    first = out.index("     1 : DEFINE QLOCAL(APP.ORDERS.IN) +")
    assert out[first + 1] == "       :        DESCR('Inbound orders from the web shop') +"
    assert "       : * Alias queues for the applications" in out

    rc, out = run(qmgr, qmgr_name, team)
    assert rc == 10
    assert out.count("AMQ8150E: IBM MQ object already exists.") == 20
    assert out[-1] == "20 valid MQSC commands could not be processed."

    rc, out = run(qmgr, qmgr_name, with_replace(team))
    assert rc == 0 and out.count("AMQ8006I: IBM MQ queue created.") == 20


def test_what_the_file_defines_is_what_the_api_sees(qmgr, qmgr_name) -> None:
    assert run(qmgr, qmgr_name, TEAM.read_text())[0] == 0
    attrs = {n: qmgr.queue_status(n)["attributes"] for n in ("APP.ORDERS.IN", "APP.ORDERS.DLQ")}
    orders = attrs["APP.ORDERS.IN"]
    assert (orders["max_depth"], orders["max_msg_length"], orders["def_priority"]) == (
        50000,
        1048576,
        5,
    )
    assert orders["def_input_exclusive"] is False and orders["backout_threshold"] == 3
    dlq = attrs["APP.ORDERS.DLQ"]  # LIKE(APP.ORDERS.BACKOUT) with its own DESCR
    assert dlq["def_persistence"] == 1 and dlq["description"] == "Dead letters of the order service"
    audit = qmgr.queue_status("APP.AUDIT")["attributes"]
    assert audit["description"] == "Audit trail, lower case kept" and audit["max_depth"] == 999999
    work = qmgr.queue_status("APP.WORK.MODEL")["attributes"]
    assert work["queue_type"] == C.MQQT_MODEL and work["max_depth"] == 1000
    assert work["definition_type"] == C.MQQDT_TEMPORARY_DYNAMIC
    assert qmgr.get_handle().qmgr_def().dead_letter_q == "APP.ORDERS.DLQ"
    # the alias resolves to its target
    pymqi.Queue(qmgr, "APP.ORDERS", C.MQOO_OUTPUT).put(b"order 1")
    assert qmgr.queue_status("APP.ORDERS.IN")["current_depth"] == 1


def test_display_qlocal_all_shows_the_definitions_back(qmgr, qmgr_name) -> None:
    assert run(qmgr, qmgr_name, TEAM.read_text())[0] == 0
    rc, out = run(qmgr, qmgr_name, "DISPLAY QLOCAL(APP.*) ALL\n")
    assert rc == 0 and out.count("AMQ8409I: Display Queue details.") == LOCALS
    start = out.index("   QUEUE(APP.ORDERS.IN)                    TYPE(QLOCAL)")
    assert out[start : start + 17] == [
        "   QUEUE(APP.ORDERS.IN)                    TYPE(QLOCAL)",
        "   BOQNAME(APP.ORDERS.BACKOUT)             BOTHRESH(3)",
        "   CURDEPTH(0)                             DEFBIND(OPEN)",
        "   DEFPRTY(5)                              DEFPSIST(YES)",
        "   DEFPRESP(SYNC)                          DEFREADA(NO)",
        "   DEFSOPT(SHARED)                         DEFTYPE(PREDEFINED)",
        "   DESCR(Inbound orders from the web shop)",
        "   DISTL(NO)                               GET(ENABLED)",
        "   HARDENBO                                INITQ( )",
        "   IPPROCS(0)                              MAXDEPTH(50000)",
        "   MAXMSGL(1048576)                        MONQ(QMGR)",
        "   MSGDLVSQ(PRIORITY)                      NOTRIGGER",
        "   OPPROCS(0)                              PROCESS( )",
        "   PUT(ENABLED)                            PROPCTL(COMPAT)",
        "   SHARE                                   TRIGDATA( )",
        "   TRIGDPTH(1)                             TRIGMPRI(0)",
        "   TRIGTYPE(FIRST)                         USAGE(NORMAL)",
    ]
    trig = "\n".join(out[out.index("   QUEUE(APP.TRIGGERED)                    TYPE(QLOCAL)") :])
    assert "NOTRIGGER" not in trig
    for shown in (" TRIGGER", "TRIGTYPE(DEPTH)", "TRIGDPTH(10)", "TRIGDATA(start worker)"):
        assert shown in trig
    rc, out = run(qmgr, qmgr_name, "DIS Q(APP.*) TYPE(QALIAS)\nDIS QA(APP.PAY)\nDIS QM(*)\n")
    assert rc == 0
    assert "   QUEUE(APP.CONFIRMS)                     TYPE(QALIAS)" in out
    assert "   GET(DISABLED)                           PUT(ENABLED)" in out
    assert out.count("AMQ8409I: Display Queue details.") == 4 + 1 + 3


def test_status_clear_delete_and_their_refusals(qmgr, other, qmgr_name) -> None:
    run(qmgr, qmgr_name, "DEFINE QLOCAL(Q.WORK)\nDEFINE QALIAS(Q.AL) TARGET(Q.WORK)\n")
    q = pymqi.Queue(other, "Q.WORK", C.MQOO_OUTPUT)
    q.put(b"one")
    q.put(b"two")
    rc, out = run(qmgr, qmgr_name, "DIS QS(Q.WORK)\nCLEAR QLOCAL(Q.WORK)\nDELETE QL(Q.WORK)\n")
    assert rc == 10
    start = out.index("AMQ8450I: Display queue status details.")
    assert out[start + 1 : start + 8] == [  # runmqsc's layout, monitoring off (MONQ(OFF))
        "   QUEUE(Q.WORK)                           TYPE(QUEUE)",
        "   CURDEPTH(2)                             IPPROCS(0)",
        "   LGETDATE( )                             LGETTIME( )",
        "   LPUTDATE( )                             LPUTTIME( )",
        "   MEDIALOG( )                             MONQ(OFF)",
        "   MSGAGE( )                               OPPROCS(1)",
        "   QTIME( , )                              UNCOM(NO)",
    ]
    assert out.count("AMQ8148E: IBM MQ object in use.") == 2
    q.close()
    rc, out = run(qmgr, qmgr_name, "DELETE QLOCAL(Q.WORK)\nCLEAR QL(Q.WORK)\nDIS QS(Q.WORK)\n")
    assert "AMQ8143E: IBM MQ queue not empty." in out
    assert "AMQ8022I: IBM MQ queue cleared." in out and "   CURDEPTH(0)" in " ".join(out)
    q = pymqi.Queue(other, "Q.WORK", C.MQOO_OUTPUT)
    q.put(b"uncommitted", pymqi.MD(), pymqi.PMO(Options=C.MQPMO_SYNCPOINT))
    q.close()
    rc, out = run(qmgr, qmgr_name, "CLEAR QLOCAL(Q.WORK)\n")
    assert rc == 10 and "AMQ8148E: IBM MQ object in use." in out
    other.backout()
    rc, out = run(
        qmgr,
        qmgr_name,
        "DELETE QLOCAL(Q.AL)\nDELETE QALIAS(Q.AL)\nDELETE QLOCAL(Q.WORK) PURGE\n"
        "DELETE QLOCAL(Q.WORK)\nDISPLAY QLOCAL(NONE.*)\n",
    )
    assert out[3:5] == [
        "     1 : DELETE QLOCAL(Q.AL)",
        "AMQ8151E: IBM MQ object has different type.",
    ]
    assert out.count("AMQ8007I: IBM MQ queue deleted.") == 2
    assert "AMQ8147E: IBM MQ object Q.WORK not found." in out
    assert "AMQ8147E: IBM MQ object NONE.* not found." in out
    assert out[-1] == "3 valid MQSC commands could not be processed."


def test_unsupported_attributes_fail_by_name_and_syntax_errors_are_counted(qmgr, qmgr_name) -> None:
    rc, out = run(
        qmgr,
        qmgr_name,
        "DEFINE QLOCAL(Q.C) CLUSTER(C1) MAXDEPTH(10)\n"
        "DEFINE QLOCAL(Q.C) STATQ(ON)\n"
        "DEFINE QLOCAL(Q.C) DEFBIND(NOTFIXED)\n"
        "DEFINE QLOCAL(Q.C) FROB(1)\n"
        "DEFINE QLOCAL(Q.C) DEFPSIST(MAYBE)\n"
        "DEFINE QLOCAL(Q.C) DEFPRTY(10)\n"
        "DEFINE QREMOTE(Q.R) RNAME(A) USAGE(XMITQ)\n"
        "DISPLAY QLOCAL(*) WHERE(CURDEPTH GT 0)\n"
        "END\n"
        "DEFINE QLOCAL(NEVER.READ)\n",
    )
    assert rc == 10
    assert "mqk: CLUSTER is not supported by mqk." in out
    assert "mqk: STATQ is not supported by mqk." in out
    assert "mqk: DEFBIND(NOTFIXED) is not supported by mqk: only DEFBIND(OPEN)." in out
    assert "mqk: DEFPRTY(10): the value must be 0-9." in out
    assert "mqk: USAGE is not an attribute of DEFINE / ALTER QREMOTE." in out
    i = out.index("AMQ8405I: Syntax error detected at or near end of command segment below:-")
    assert out[i + 1] == "DEFINE QLOCAL(Q.C) FROB(1)"
    assert out[-3:] == [
        "8 MQSC commands read.",
        "2 commands have a syntax error.",
        "6 valid MQSC commands could not be processed.",
    ]
    with pytest.raises(pymqi.MQMIError):
        qmgr.queue_status("Q.C")  # nothing was half defined


def test_mqk_mqsc_reads_a_file_or_standard_input(
    qmgr, qmgr_name, capsys, monkeypatch, tmp_path
) -> None:
    assert cli.main(["mqsc", qmgr_name, str(TEAM)]) == 0
    assert "All valid MQSC commands were processed." in capsys.readouterr().out
    monkeypatch.setattr(sys, "stdin", io.StringIO("dis ql(APP.ORDERS.IN) maxdepth\n"))
    assert cli.main(["mqsc", "-e", qmgr_name]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[5] == "   MAXDEPTH(50000)" and not any(" : " in line for line in out)
    assert cli.main(["mqsc", qmgr_name, str(tmp_path / "missing.mqsc")]) == 20
    assert "cannot read" in capsys.readouterr().err

    def refused(*_a, **_k):
        raise pymqi.MQMIError(C.MQCC_FAILED, C.MQRC_Q_MGR_NOT_AVAILABLE)

    monkeypatch.setattr(pymqi, "connect", refused)
    assert cli.main(["mqsc", qmgr_name, str(TEAM)]) == 20
    assert capsys.readouterr().out == "AMQ8146E: IBM MQ queue manager not available.\n"
