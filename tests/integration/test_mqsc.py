"""`mqk mqsc QMGR FILE` as a person runs it, a separate process on the real Kafka and
Redis: a team's MQSC file applied (exit status 0), applied again without REPLACE (10,
AMQ8150E for each DEFINE), displayed back, and the queues it made used by MQPUT."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import adapter.pymqi as pymqi
from adapter import cli, config
from adapter.tools import mqsc as runmqsc

pytestmark = pytest.mark.integration
C = pymqi.CMQC
ROOT = Path(__file__).parents[2]
TEAM = ROOT / "tests" / "mqsc" / "team.mqsc"


def mqsc(servers: config.Endpoints, qmgr: str, *args: str, stdin: str | None = None):
    path = [str(ROOT)] + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else [])
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join(path),
        **{
            config.KAFKA_BOOTSTRAP_ENV: servers.kafka_bootstrap,
            config.REDIS_URL_ENV: servers.redis_url,
        },
    )
    return subprocess.run(
        [sys.executable, "-m", "adapter.cli", "mqsc", qmgr, *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


def test_mqk_mqsc_applies_a_team_file_on_the_real_stack(mqk_servers, mqk_qmgr_name) -> None:
    first = mqsc(mqk_servers, mqk_qmgr_name, str(TEAM))
    assert first.returncode == 0, first.stdout + first.stderr
    out = first.stdout.splitlines()
    assert out[0] == f"Starting MQSC for queue manager {mqk_qmgr_name}."
    assert out.count("AMQ8006I: IBM MQ queue created.") == 20
    assert out[-3:] == [
        "21 MQSC commands read.",
        "No commands have a syntax error.",
        "All valid MQSC commands were processed.",
    ]
    assert "Traceback" not in first.stderr

    again = mqsc(mqk_servers, mqk_qmgr_name, str(TEAM))
    assert again.returncode == 10
    assert again.stdout.count("AMQ8150E: IBM MQ object already exists.") == 20
    assert again.stdout.splitlines()[-1] == "20 valid MQSC commands could not be processed."

    shown = mqsc(
        mqk_servers,
        mqk_qmgr_name,
        stdin="DISPLAY QLOCAL(APP.ORDERS.*) DESCR MAXDEPTH\nDIS QA(APP.ORDERS)\n",
    )
    assert shown.returncode == 0, shown.stdout
    lines = shown.stdout.splitlines()
    i = lines.index("   QUEUE(APP.ORDERS.IN)                    TYPE(QLOCAL)")
    assert lines[i + 1 : i + 3] == [
        "   DESCR(Inbound orders from the web shop)",
        "   MAXDEPTH(50000)",
    ]
    assert "   GET(ENABLED)                            PUT(ENABLED)" in lines
    assert "TARGET(APP.ORDERS.IN)" in shown.stdout

    # the definitions are the queues applications use
    qm = pymqi.connect(
        mqk_qmgr_name, kafka_bootstrap=mqk_servers.kafka_bootstrap, redis_url=mqk_servers.redis_url
    )
    try:
        pymqi.Queue(qm, "APP.ORDERS", C.MQOO_OUTPUT).put(b"order 1")
        assert qm.queue_status("APP.ORDERS.IN")["current_depth"] == 1
    finally:
        qm.disconnect()
    cleared = mqsc(
        mqk_servers, mqk_qmgr_name, stdin="CLEAR QLOCAL(APP.ORDERS.IN)\nDIS QS(APP.ORDERS.IN)\n"
    )
    assert cleared.returncode == 0, cleared.stdout
    assert "AMQ8022I: IBM MQ queue cleared." in cleared.stdout
    assert "CURDEPTH(0)" in cleared.stdout


def test_mqk_mqsc_exit_status_for_unsupported_attributes(mqk_servers, mqk_qmgr_name) -> None:
    done = mqsc(mqk_servers, mqk_qmgr_name, stdin="DEFINE QLOCAL(Q.CL) CLUSTER(C1)\n")
    assert done.returncode == 10
    assert "mqk: CLUSTER is not supported by mqk." in done.stdout


def test_verify_mode_and_mqk_define_attr_on_the_real_stack(qmgr, qmgr_name, capsys) -> None:
    out: list[str] = []
    text = ["DEFINE QLOCAL(VER.ONE) MAXDEPTH(5)\n", "DEFINE QLOCL(VER.TWO)\n"]
    assert runmqsc.run(qmgr, qmgr_name, text, out.append, verify=True) == 10
    assert out[-2:] == [
        "One command has a syntax error.",
        "All valid MQSC commands were processed.",
    ]
    with pytest.raises(pymqi.MQMIError):
        qmgr.queue_status("VER.ONE")  # verified, not performed
    argv = ["define", qmgr_name, "VER.ONE", "--attr", "MAXDEPTH(5)", "--attr", "TRIGDPTH(3)"]
    assert cli.main(argv) == 0
    assert cli.main(["alter", qmgr_name, "VER.ONE", "--attr", "MAXDEPTH(6)"]) == 0
    capsys.readouterr()
    assert cli.main(["status", qmgr_name, "VER.ONE"]) == 0
    shown = set(capsys.readouterr().out.split())
    assert {"QUEUE(VER.ONE)", "CURDEPTH(0)", "MAXDEPTH(6)", "TRIGDPTH(3)"} <= shown
