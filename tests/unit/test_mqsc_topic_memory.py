"""DEFINE / DISPLAY / DELETE TOPIC through `mqk mqsc` on the in-memory backends, and a
publication through the defined topic object."""

from __future__ import annotations

import adapter.pymqi as pymqi
from adapter.tools import mqsc

C = pymqi.CMQC


def run(qm, name: str, text: str) -> tuple[int, list[str]]:
    out: list[str] = []
    return mqsc.run(qm, name, text.splitlines(True), out.append), out


def test_define_display_delete_topic(qmgr, qmgr_name) -> None:
    rc, out = run(qmgr, qmgr_name, "DEFINE TOPIC(SPORTS) TOPICSTR('sports') DESCR('all sport')\n")
    assert rc == 0 and "AMQ8690I: IBM MQ topic created." in out
    rc, out = run(qmgr, qmgr_name, "DEFINE TOPIC(SPORTS) TOPICSTR('sports')\n")
    assert rc == 10 and "AMQ8150E: IBM MQ object already exists." in out
    rc, out = run(qmgr, qmgr_name, "DEF TOPIC(SPORTS) TOPICSTR('sport') REPLACE\n")
    assert rc == 0
    rc, out = run(qmgr, qmgr_name, "DISPLAY TOPIC(SPORTS)\n")
    assert rc == 0
    shown = " ".join(out)
    assert "AMQ8633I: Display topic details." in out
    assert "TOPIC(SPORTS)" in shown and "TYPE(LOCAL)" in shown and "TOPICSTR(sport)" in shown
    rc, out = run(qmgr, qmgr_name, "DIS TOPIC(S*) TOPICSTR\n")
    shown = " ".join(out)
    assert rc == 0 and "TOPIC(SYSTEM.BASE.TOPIC)" in shown and "TOPIC(SPORTS)" in shown
    assert "DESCR(" not in shown
    rc, out = run(qmgr, qmgr_name, "DEFINE TOPIC(T2) TOPICSTR('x') CLUSTER(C1)\n")
    assert rc == 10 and "mqk: CLUSTER is not supported by mqk." in out

    sub = pymqi.Subscription(qmgr)
    sub.sub(topic_name="SPORTS", topic_string="#")
    pymqi.Topic(qmgr, topic_name="SPORTS", topic_string="golf").pub(b"fore")
    assert sub.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_NO_WAIT)) == b"fore"
    sub.close(close_sub_queue=True)

    rc, out = run(qmgr, qmgr_name, "DELETE TOPIC(SPORTS)\n")
    assert rc == 0 and "AMQ8692I: IBM MQ topic deleted." in out
    rc, out = run(qmgr, qmgr_name, "DISPLAY TOPIC(SPORTS)\n")
    assert rc == 10 and "AMQ8147E: IBM MQ object SPORTS not found." in out
