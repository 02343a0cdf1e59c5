"""Queue definitions against open handles, across connections, on the in-memory backends:
DELETE QLOCAL refused while the queue is open (2042) and atomic against a racing MQOPEN
(2085), handles of a queue deleted anyway (2052), ALTER QLOCAL seen at once by every open
handle (GET(DISABLED) 2016, PUT(DISABLED) 2051), and `mqk alter` / `mqk delete`."""

from __future__ import annotations

import pytest

import adapter.pymqi as pymqi
from adapter import cli, config
from adapter.shim.catalog import Catalog
from adapter.shim.store import DELETED
from tests.integration.conftest import drain, mqerror

C = pymqi.CMQC
IN, OUT = C.MQOO_INPUT_SHARED, C.MQOO_OUTPUT


def fails(call, reason: int, comp: int = C.MQCC_FAILED) -> None:
    with pytest.raises(pymqi.MQMIError) as exc:
        call()
    assert mqerror(exc) == (comp, reason)


def put(q, body: bytes, options: int = C.MQPMO_NO_SYNCPOINT) -> None:
    q.put(body, pymqi.MD(), pymqi.PMO(Options=options))


def get(q, options: int = C.MQGMO_NO_SYNCPOINT) -> bytes:
    return q.get(None, pymqi.MD(), pymqi.GMO(Options=options))


# -- DELETE QLOCAL -------------------------------------------------------------------


@pytest.mark.parametrize(
    "options", [IN, OUT, C.MQOO_BROWSE, C.MQOO_INQUIRE, C.MQOO_INPUT_EXCLUSIVE | C.MQOO_SET]
)
def test_delete_is_refused_while_another_connection_has_the_queue_open(
    qmgr, other, options: int
) -> None:
    qmgr.define_queue("Q.DEL")
    held = pymqi.Queue(other, "Q.DEL", options)
    fails(lambda: qmgr.delete_queue("Q.DEL"), C.MQRC_OBJECT_IN_USE)
    fails(lambda: qmgr.delete_queue("Q.DEL", purge=True), C.MQRC_OBJECT_IN_USE)
    held.close()
    qmgr.delete_queue("Q.DEL")
    fails(lambda: pymqi.Queue(other, "Q.DEL", OUT), C.MQRC_UNKNOWN_OBJECT_NAME)


def test_delete_is_refused_while_this_connection_has_it_open(qmgr) -> None:
    qmgr.define_queue("Q.SELF")
    q = pymqi.Queue(qmgr, "Q.SELF", OUT)
    fails(lambda: qmgr.delete_queue("Q.SELF"), C.MQRC_OBJECT_IN_USE)
    q.close()
    qmgr.delete_queue("Q.SELF")


def test_a_delete_refused_for_messages_lets_opens_in_again(qmgr, other) -> None:
    qmgr.define_queue("Q.FULL")
    q = pymqi.Queue(other, "Q.FULL", OUT)
    put(q, b"x")
    q.close()
    fails(lambda: qmgr.delete_queue("Q.FULL"), C.MQRC_Q_NOT_EMPTY)
    reader = pymqi.Queue(other, "Q.FULL", IN)  # the delete's mark is gone with it
    assert get(reader) == b"x"
    reader.close()
    qmgr.delete_queue("Q.FULL")


def test_an_open_racing_the_delete_is_refused_with_2085(qmgr, other, monkeypatch) -> None:
    """The delete marks the queue atomically with its check for opens; an MQOPEN that
    comes after the check (here: while the catalog tombstone is written) is refused."""
    qmgr.define_queue("Q.RACE")
    pymqi.Queue(other, "Q.RACE", C.MQOO_INQUIRE).close()  # `other` has it cached
    raced: list[int] = []
    write = Catalog._write

    def write_then_open(self, name, value):
        with pytest.raises(pymqi.MQMIError) as exc:
            pymqi.Queue(other, "Q.RACE", OUT)
        raced.append(exc.value.reason)
        write(self, name, value)

    monkeypatch.setattr(Catalog, "_write", write_then_open)
    qmgr.delete_queue("Q.RACE")
    assert raced == [C.MQRC_UNKNOWN_OBJECT_NAME]
    assert qmgr.get_handle().state("Q.RACE").open_counts() == {
        "input": 0,
        "output": 0,
        "browse": 0,
        "handles": 0,
    }


def test_handles_of_a_stopped_process_keep_the_delete_out_until_their_lease_runs_out(
    world, qmgr, other
) -> None:
    qmgr.define_queue("Q.CRASH")
    q = pymqi.Queue(other, "Q.CRASH", OUT | IN)
    put(q, b"before")
    other.get_handle().pump.stop()  # the process stops: nothing renews its handle
    world.clock.advance(config.OPEN_LEASE_MS / 2000)
    fails(lambda: qmgr.delete_queue("Q.CRASH", purge=True), C.MQRC_OBJECT_IN_USE)
    world.clock.advance(config.OPEN_LEASE_MS / 1000)
    qmgr.delete_queue("Q.CRASH", purge=True)
    # The process comes back: its handle learns that its queue is gone, at once.
    fails(lambda: put(q, b"after"), C.MQRC_Q_DELETED)
    fails(lambda: put(q, b"after", C.MQPMO_ASYNC_RESPONSE), C.MQRC_Q_DELETED)
    fails(lambda: get(q), C.MQRC_Q_DELETED)
    q.close()  # MQCLOSE succeeds on it (IBM's 2052 page)
    assert qmgr.get_handle().state("Q.CRASH").definition() == DELETED


def test_a_queue_deleted_and_defined_again_is_another_queue_to_old_handles(qmgr, other) -> None:
    qmgr.define_queue("Q.AGAIN")
    old = pymqi.Queue(other, "Q.AGAIN", OUT | IN | C.MQOO_INQUIRE)
    put(old, b"old")
    # A forced delete (a temporary dynamic queue closed by its creator), then a new queue
    qmgr.get_handle().catalog.delete("Q.AGAIN", purge=True, force=True)
    qmgr.define_queue("Q.AGAIN")
    fails(lambda: put(old, b"x"), C.MQRC_Q_DELETED)
    fails(lambda: get(old), C.MQRC_Q_DELETED)
    fails(lambda: old.inquire(C.MQIA_MAX_Q_DEPTH), C.MQRC_Q_DELETED)
    old.close()
    new = pymqi.Queue(other, "Q.AGAIN", OUT | IN)
    put(new, b"new")
    assert [d for d, _ in drain(new)] == [b"new"]


def test_handles_survive_a_state_server_that_lost_everything(world, qmgr, other) -> None:
    """No mark at all (Redis restarted empty) is not a deleted queue: the catalog says
    the queue exists, and the mark is written again."""
    qmgr.define_queue("Q.LOSTMARK")
    q = pymqi.Queue(other, "Q.LOSTMARK", OUT | IN)
    put(q, b"a")
    other.get_handle().barrier()
    world.server.flushall()
    put(q, b"b")
    assert [d for d, _ in drain(q)] == [b"a", b"b"]
    assert other.get_handle().state("Q.LOSTMARK").definition() is not None


# -- ALTER QLOCAL --------------------------------------------------------------------


def test_get_disabled_reaches_every_open_handle_at_once(qmgr, other) -> None:
    """InhibitGet: every MQGET fails with 2016, browse included
    (https://www.ibm.com/support/knowledgecenter/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q103250_.html)."""
    qmgr.define_queue("Q.GETOFF")
    writer = pymqi.Queue(qmgr, "Q.GETOFF", OUT)
    put(writer, b"m1")
    reader = pymqi.Queue(other, "Q.GETOFF", IN | C.MQOO_BROWSE)
    assert get(reader, C.MQGMO_BROWSE_FIRST) == b"m1"  # `other` has the definition cached
    qmgr.alter_queue("Q.GETOFF", get_inhibited=True)
    fails(lambda: get(reader), C.MQRC_GET_INHIBITED)
    fails(lambda: get(reader, C.MQGMO_BROWSE_NEXT), C.MQRC_GET_INHIBITED)
    fails(lambda: get(pymqi.Queue(other, "Q.GETOFF", IN)), C.MQRC_GET_INHIBITED)
    put(writer, b"m2")  # puts are still allowed
    qmgr.alter_queue("Q.GETOFF", get_inhibited=False)
    assert [d for d, _ in drain(reader)] == [b"m1", b"m2"]


def test_get_disabled_reaches_a_handle_with_read_ahead(qmgr, other) -> None:
    """Messages already sent ahead to a handle are not given out once gets are
    inhibited either (the check comes before the read-ahead buffer)."""
    qmgr.define_queue("Q.AHEAD", def_read_ahead=True)
    writer = pymqi.Queue(qmgr, "Q.AHEAD", OUT)
    for i in range(5):
        put(writer, f"m{i}".encode())
    qmgr.get_handle().barrier()
    reader = pymqi.Queue(other, "Q.AHEAD", IN)
    assert get(reader) == b"m0"
    qmgr.alter_queue("Q.AHEAD", get_inhibited=True)
    fails(lambda: get(reader), C.MQRC_GET_INHIBITED)
    qmgr.alter_queue("Q.AHEAD", get_inhibited=False)
    assert [d for d, _ in drain(reader)] == [b"m1", b"m2", b"m3", b"m4"]


def test_put_disabled_reaches_open_handles_put1_and_cached_definitions(qmgr, other) -> None:
    qmgr.define_queue("Q.PUTOFF")
    out = pymqi.Queue(other, "Q.PUTOFF", OUT)
    put(out, b"ok")
    qmgr.alter_queue("Q.PUTOFF", put_inhibited=True)
    for options in (C.MQPMO_NO_SYNCPOINT, C.MQPMO_SYNCPOINT):
        fails(lambda o=options: put(out, b"x", o), C.MQRC_PUT_INHIBITED)
    # An asynchronous put completes, as an MQ client's does; MQSTAT reports the failure.
    put(out, b"x", C.MQPMO_ASYNC_RESPONSE)
    status = other.stat(C.MQSTAT_TYPE_ASYNC_ERROR)
    assert (status.PutFailureCount, status.Reason) == (1, C.MQRC_PUT_INHIBITED)
    fails(lambda: other.put1("Q.PUTOFF", b"x"), C.MQRC_PUT_INHIBITED)
    fails(lambda: put(pymqi.Queue(other, "Q.PUTOFF", OUT), b"x"), C.MQRC_PUT_INHIBITED)
    other.backout()
    qmgr.alter_queue("Q.PUTOFF", put_inhibited=False)
    put(out, b"again")
    other.put1("Q.PUTOFF", b"put1")
    reader = pymqi.Queue(qmgr, "Q.PUTOFF", IN)
    assert [d for d, _ in drain(reader)] == [b"ok", b"again", b"put1"]


def test_altered_attributes_reach_open_handles(qmgr, other) -> None:
    qmgr.define_queue("Q.ALTER", max_depth=5)
    q = pymqi.Queue(other, "Q.ALTER", OUT | C.MQOO_INQUIRE)
    assert q.inquire(C.MQIA_MAX_Q_DEPTH) == 5
    qmgr.alter_queue("Q.ALTER", max_depth=1, max_msg_length=4)
    assert q.inquire(C.MQIA_MAX_Q_DEPTH) == 1
    fails(lambda: put(q, b"too long"), C.MQRC_MSG_TOO_BIG_FOR_Q)
    put(q, b"1234")
    fails(lambda: put(q, b"1"), C.MQRC_Q_FULL)


def test_alter_refuses_what_it_cannot_change_and_unknown_queues(qmgr) -> None:
    qmgr.define_queue("Q.FIXED")
    with pytest.raises(ValueError):
        qmgr.alter_queue("Q.FIXED", partitions=3)
    with pytest.raises(ValueError):
        qmgr.alter_queue("Q.FIXED", no_such_attribute=1)
    fails(lambda: qmgr.alter_queue("NO.SUCH.Q", put_inhibited=True), 2085)


# -- mqk alter / mqk delete ----------------------------------------------------------


def test_mqk_alter_and_delete_speak_mqsc(qmgr, other, qmgr_name, capsys) -> None:
    qmgr.define_queue("Q.CLI")
    out = pymqi.Queue(other, "Q.CLI", OUT)
    assert cli.main(["alter", qmgr_name, "Q.CLI", "--put", "DISABLED"]) == 0
    assert "AMQ8008I: IBM MQ queue changed." in capsys.readouterr().out
    fails(lambda: put(out, b"x"), C.MQRC_PUT_INHIBITED)
    assert cli.main(["status", qmgr_name, "Q.CLI"]) == 0
    shown = capsys.readouterr().out.split()
    assert {"GET(ENABLED)", "PUT(DISABLED)", "CURDEPTH(0)", "OPPROCS(1)"} <= set(shown)
    assert {"MONQ(OFF)", "LPUTDATE(", "MSGAGE("} <= set(shown)  # DISPLAY QSTATUS's figures
    assert cli.main(["delete", qmgr_name, "Q.CLI"]) == 1
    err = capsys.readouterr().err
    assert "AMQ8148E: IBM MQ object in use." in err  # 2042 MQRC_OBJECT_IN_USE
    assert cli.main(["alter", qmgr_name, "Q.CLI", "--put", "enabled"]) == 0
    put(out, b"x")
    out.close()
    assert cli.main(["delete", qmgr_name, "Q.CLI", "--purge"]) == 0
    with pytest.raises(SystemExit):
        cli.main(["alter", qmgr_name, "Q.CLI", "--get", "maybe"])


@pytest.mark.parametrize("purge", [False, True])
def test_delete_is_refused_while_another_connection_has_uncommitted_puts(
    qmgr, other, purge: bool
) -> None:
    """Rule 40: a queue with uncommitted messages is not deleted, PURGE or not (2055),
    though the putter closed its handle: its unit of work is still open."""
    qmgr.define_queue("Q.UNCOMMITTED")
    q = pymqi.Queue(other, "Q.UNCOMMITTED", C.MQOO_OUTPUT)
    put(q, b"pending", C.MQPMO_SYNCPOINT)
    q.close()
    fails(lambda: qmgr.delete_queue("Q.UNCOMMITTED", purge=purge), C.MQRC_Q_NOT_EMPTY)
    other.backout()
    qmgr.delete_queue("Q.UNCOMMITTED", purge=purge)  # nothing uncommitted, nothing on it


def test_delete_is_refused_while_another_connection_has_uncommitted_gets(qmgr, other) -> None:
    qmgr.define_queue("Q.UNCOMMITTED.GET")
    q = pymqi.Queue(qmgr, "Q.UNCOMMITTED.GET", C.MQOO_OUTPUT)
    put(q, b"taken")
    q.close()
    g = pymqi.Queue(other, "Q.UNCOMMITTED.GET", C.MQOO_INPUT_SHARED | C.MQOO_BROWSE)
    assert get(g, C.MQGMO_SYNCPOINT) == b"taken"
    g.close()  # the get's unit of work outlives the handle
    fails(lambda: qmgr.delete_queue("Q.UNCOMMITTED.GET", purge=True), C.MQRC_Q_NOT_EMPTY)
    other.commit()
    qmgr.delete_queue("Q.UNCOMMITTED.GET")


def test_a_browse_lock_is_not_uncommitted_work(qmgr, other) -> None:
    qmgr.define_queue("Q.BROWSE.LOCK")
    q = pymqi.Queue(qmgr, "Q.BROWSE.LOCK", C.MQOO_OUTPUT)
    put(q, b"browsed")
    q.close()
    b = pymqi.Queue(other, "Q.BROWSE.LOCK", C.MQOO_BROWSE)
    gmo = pymqi.GMO(Options=C.MQGMO_BROWSE_FIRST | C.MQGMO_LOCK | C.MQGMO_NO_WAIT)
    assert b.get(None, pymqi.MD(), gmo) == b"browsed"
    assert not qmgr.get_handle().catalog.has_uncommitted(
        qmgr.get_handle().lookup_queue("Q.BROWSE.LOCK")
    )
    b.close()
    qmgr.delete_queue("Q.BROWSE.LOCK", purge=True)


@pytest.mark.parametrize("change", ["get_inhibited", "deleted"])
def test_a_waiting_get_is_cancelled_when_the_queue_changes_under_it(
    qmgr, other, change: str
) -> None:
    """MQGMO_WAIT: "If MQGET requests become inhibited while waiting, the wait is
    canceled" (2016, MQGMO Options page); a queue deleted under a waiting get ends the
    wait with 2052. The change is made by another connection after the wait began."""
    qmgr.define_queue("Q.WAITING")
    reader = pymqi.Queue(other, "Q.WAITING", IN)
    getter = reader.get_handle().getter
    real, waits = getter.refresh_definition, []

    def during_the_wait():
        waits.append(1)
        if len(waits) == 3:  # the get has been waiting for a while
            if change == "deleted":
                qmgr.get_handle().catalog.delete("Q.WAITING", force=True)
            else:
                qmgr.alter_queue("Q.WAITING", get_inhibited=True)
        return real()

    getter.refresh_definition = during_the_wait
    gmo = pymqi.GMO(Options=C.MQGMO_WAIT, WaitInterval=60_000)
    expected = C.MQRC_Q_DELETED if change == "deleted" else C.MQRC_GET_INHIBITED
    fails(lambda: reader.get(None, pymqi.MD(), gmo), expected)
    assert len(waits) == 3  # ended at the change, not at the end of the interval
