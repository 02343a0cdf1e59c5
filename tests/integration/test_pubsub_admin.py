"""Topic attributes on the real stack (tests/unit/test_pubsub_admin_memory.py runs the
same scenarios on the in-memory backends): DEFPRTY / DEFPSIST as the publication's
defaults, inherited down the topic tree from the closest administrative node and
SYSTEM.BASE.TOPIC; PUB(DISABLED) 2051; SUB(DISABLED) 2503; DURSUB(NO) 2436; MNDURMDL's
model for managed queues; WILDCARD(BLOCK); ALTER TOPIC seen by an open topic handle;
DISPLAY / ALTER TOPIC through `mqk mqsc`."""

from __future__ import annotations

import pytest

import adapter.pymqi as pymqi
from adapter.tools import mqsc
from tests.integration.conftest import mqerror
from tests.integration.test_pubsub import _drain, _sub

C = pymqi.CMQC
AS_TOPIC = dict(
    Priority=C.MQPRI_PRIORITY_AS_TOPIC_DEF, Persistence=C.MQPER_PERSISTENCE_AS_TOPIC_DEF
)


def _fails(call, reason: int) -> None:
    with pytest.raises(pymqi.MQMIError) as exc:
        call()
    assert mqerror(exc) == (C.MQCC_FAILED, reason)


def _as_published(qm, topic: str) -> pymqi.Subscription:
    """A subscription whose copies keep the publication's priority (MQSD's default,
    MQPRI_PRIORITY_AS_Q_DEF, gives the subscription queue's DEFPRTY)."""
    return _sub(qm, topic, PubPriority=C.MQPRI_PRIORITY_AS_PUBLISHED)


def _run(qm, name: str, text: str) -> tuple[int, list[str]]:
    out: list[str] = []
    return mqsc.run(qm, name, text.splitlines(True), out.append), out


def test_defaults_inherited_down_the_topic_tree(qmgr):
    qmgr.define_topic("PX", "px", def_priority=6, def_persistence=C.MQPER_PERSISTENT)
    qmgr.define_topic("PX.EUR", "px/eur", def_priority=2)  # DEFPSIST ASPARENT
    sub = _as_published(qmgr, "px/#")
    for topic in ("px/eur/spot", "px/usd", "other/x"):
        pymqi.Topic(qmgr, topic_string=topic).pub(topic.encode(), pymqi.MD(**AS_TOPIC))
    got = {m: (md.Priority, md.Persistence) for m, md in _drain(sub)}
    assert got == {
        b"px/eur/spot": (2, C.MQPER_PERSISTENT),  # DEFPRTY from PX.EUR, DEFPSIST from PX
        b"px/usd": (6, C.MQPER_PERSISTENT),
    }
    other = _as_published(qmgr, "other/#")
    pymqi.Topic(qmgr, topic_string="other/x").pub(b"base", pymqi.MD(**AS_TOPIC))
    # SYSTEM.BASE.TOPIC's DEFPRTY(0) DEFPSIST(NO), then altered.
    assert [(md.Priority, md.Persistence) for _, md in _drain(other)] == [(0, 0)]
    qmgr.alter_topic("SYSTEM.BASE.TOPIC", def_priority=4)
    pymqi.Topic(qmgr, topic_string="other/x").pub(b"base", pymqi.MD(**AS_TOPIC))
    assert [md.Priority for _, md in _drain(other)] == [4]
    # Explicit values are the publisher's.
    pymqi.Topic(qmgr, topic_string="px/usd").pub(b"x", pymqi.MD(Priority=9))
    assert [md.Priority for _, md in _drain(sub)] == [9]
    qmgr.alter_topic("SYSTEM.BASE.TOPIC", def_priority=0)
    sub.close(close_sub_queue=True)
    other.close(close_sub_queue=True)


def test_pub_disabled_is_put_inhibited_and_alter_reaches_open_handles(qmgr):
    qmgr.define_topic("INH", "inh", inhibit_pub=C.MQTA_PUB_INHIBITED)
    sub = _sub(qmgr, "inh/#")
    below = pymqi.Topic(qmgr, topic_string="inh/a")
    below.open(open_opts=C.MQOO_OUTPUT)  # MQOPEN succeeds; MQPUT is refused
    _fails(lambda: below.pub(b"no"), C.MQRC_PUT_INHIBITED)
    qmgr.define_topic("INH.OPEN", "inh/open", inhibit_pub=C.MQTA_PUB_ALLOWED)
    pymqi.Topic(qmgr, topic_string="inh/open/x").pub(b"allowed below")
    qmgr.alter_topic("INH", inhibit_pub=C.MQTA_PUB_AS_PARENT)
    below.pub(b"yes")
    assert [m for m, _ in _drain(sub)] == [b"allowed below", b"yes"]
    below.close()
    sub.close(close_sub_queue=True)


def test_sub_disabled_and_dursub_no(qmgr):
    qmgr.define_topic("NOSUB", "nosub", inhibit_sub=C.MQTA_SUB_INHIBITED)
    _fails(lambda: _sub(qmgr, "nosub/x"), C.MQRC_SUB_INHIBITED)
    _fails(lambda: _sub(qmgr, "nosub/#"), C.MQRC_SUB_INHIBITED)
    qmgr.define_topic("NODUR", "nodur", durable_sub=C.MQSUB_DURABLE_INHIBITED)
    durable = C.MQSO_CREATE | C.MQSO_DURABLE | C.MQSO_MANAGED
    _fails(lambda: _sub(qmgr, "nodur/x", durable, "NODUR.1"), C.MQRC_DURABILITY_NOT_ALLOWED)
    assert qmgr.get_handle().subs.lookup("NODUR.1") is None  # nothing left behind
    ok = _sub(qmgr, "nodur/x")  # non-durable ones are allowed
    ok.close(close_sub_queue=True)
    qmgr.alter_topic("NODUR", durable_sub=C.MQSUB_DURABLE_ALLOWED)
    made = _sub(qmgr, "nodur/x", durable, "NODUR.1")
    made.close(C.MQCO_REMOVE_SUB, close_sub_queue=True)


def test_managed_queue_from_the_topics_model(qmgr):
    qmgr.define_queue(
        "PX.NDUR.MODEL",
        queue_type=C.MQQT_MODEL,
        definition_type=C.MQQDT_TEMPORARY_DYNAMIC,
        max_depth=77,
    )
    qmgr.define_topic("MODELLED", "modelled", model_non_durable_q="PX.NDUR.MODEL")
    sub = _sub(qmgr, "modelled/a")
    name = sub.get_sub_queue().get_handle().name
    assert name.startswith("SYSTEM.MANAGED.NDURABLE.")
    assert qmgr.get_handle().lookup_queue(name).max_depth == 77
    sub.close(close_sub_queue=True)
    qmgr.alter_topic("MODELLED", model_non_durable_q="NO.SUCH.MODEL")
    _fails(lambda: _sub(qmgr, "modelled/a"), C.MQRC_UNKNOWN_OBJECT_NAME)


def test_wildcard_block(qmgr):
    qmgr.define_topic("SECRET", "wb/secret", wildcard_operation=C.MQTA_BLOCK)
    broad = _sub(qmgr, "wb/#")
    plus = _sub(qmgr, "wb/+/x")
    under = _sub(qmgr, "wb/secret/#")
    exact = _sub(qmgr, "wb/secret/x")
    for topic in ("wb/open/x", "wb/secret/x", "wb/secret"):
        pymqi.Topic(qmgr, topic_string=topic).pub(topic.encode())
    assert [m for m, _ in _drain(broad)] == [b"wb/open/x"]
    assert [m for m, _ in _drain(plus)] == [b"wb/open/x"]
    assert [m for m, _ in _drain(under)] == [b"wb/secret/x", b"wb/secret"]
    assert [m for m, _ in _drain(exact)] == [b"wb/secret/x"]
    for sub in (broad, plus, under, exact):
        sub.close(close_sub_queue=True)


def test_mqsc_define_alter_display_topic(qmgr, qmgr_name):
    rc, out = _run(
        qmgr, qmgr_name, "DEFINE TOPIC(MQ.T) TOPICSTR('mq/t') DEFPRTY(5) PUB(DISABLED)\n"
    )
    assert rc == 0 and "AMQ8690I: IBM MQ topic created." in out
    rc, out = _run(qmgr, qmgr_name, "DISPLAY TOPIC(MQ.T)\n")
    shown = " ".join(out)
    assert rc == 0
    for item in ("DEFPRTY(5)", "PUB(DISABLED)", "SUB(ASPARENT)", "DURSUB(ASPARENT)",
                 "WILDCARD(PASSTHRU)", "MDURMDL( )", "DEFPSIST(ASPARENT)", "ALTDATE("):  # fmt: skip
        assert item in shown, item
    rc, out = _run(qmgr, qmgr_name, "ALTER TOPIC(MQ.T) PUB(ENABLED) DEFPSIST(YES)\n")
    assert rc == 0 and "AMQ8691I: IBM MQ topic changed." in out
    rc, out = _run(qmgr, qmgr_name, "DIS TOPIC(MQ.T) PUB DEFPSIST\n")
    shown = " ".join(out)
    assert "PUB(ENABLED)" in shown and "DEFPSIST(YES)" in shown and "DEFPRTY" not in shown
    rc, out = _run(qmgr, qmgr_name, "DISPLAY TOPIC(SYSTEM.BASE.TOPIC) DURSUB MDURMDL NPMSGDLV\n")
    shown = " ".join(out)
    assert "DURSUB(YES)" in shown and "MDURMDL(SYSTEM.DURABLE.MODEL.QUEUE)" in shown
    assert "NPMSGDLV(ALLAVAIL)" in shown
    rc, out = _run(qmgr, qmgr_name, "ALTER TOPIC(MQ.T) TOPICSTR('elsewhere')\n")
    assert rc != 0
    rc, out = _run(qmgr, qmgr_name, "ALTER TOPIC(MQ.T) DEFPRTY(12)\n")
    assert rc != 0
    rc, out = _run(qmgr, qmgr_name, "ALTER TOPIC(NO.SUCH) PUB(ENABLED)\n")
    assert rc != 0 and "AMQ8147E: IBM MQ object NO.SUCH not found." in out
    pymqi.Topic(qmgr, topic_name="MQ.T").pub(b"ok")
