"""`mqk put` / `get` / `browse` (adapter/tools/amqs.py) on the in-memory backends: the
samples' texts, their MQI options, and the options beyond them."""

from __future__ import annotations

import io
import types

import pytest

import adapter.pymqi as pymqi
from adapter import cli
from adapter.tools import amqs

C = pymqi.CMQC


@pytest.fixture
def queue(qmgr) -> str:
    qmgr.define_queue("Q1")
    return "Q1"


def _stdin(monkeypatch, data: bytes) -> None:
    monkeypatch.setattr(amqs.sys, "stdin", types.SimpleNamespace(buffer=io.BytesIO(data)))


def _run(capsysbinary, *argv: str) -> tuple[int, list[str]]:
    status = cli.main(list(argv))
    return status, capsysbinary.readouterr().out.decode().split("\n")


def _depth(qmgr, queue: str) -> int:
    return qmgr.queue_status(queue)["current_depth"]


def _drain(qmgr, queue: str) -> list[tuple[bytes, pymqi.MD]]:
    q = pymqi.Queue(qmgr, queue, C.MQOO_INPUT_SHARED)
    got = []
    while True:
        md = pymqi.MD()
        try:
            got.append((q.get(None, md), md))
        except pymqi.MQMIError as err:
            assert err.reason == C.MQRC_NO_MSG_AVAILABLE
            q.close()
            return got


def test_put_takes_each_line_until_an_empty_one(
    qmgr, qmgr_name, queue, monkeypatch, capsysbinary
) -> None:
    _stdin(monkeypatch, b"first\nsecond line\n\xc3\xa9t\xc3\xa9\n\nnot put\n")
    status, out = _run(capsysbinary, "put", qmgr_name, queue)
    assert status == 0
    assert out == ["Sample AMQSPUT0 start", "target queue is Q1", "Sample AMQSPUT0 end", ""]
    got = _drain(qmgr, queue)
    assert [data for data, _ in got] == [b"first", b"second line", "été".encode()]
    md = got[0][1]
    assert md.Format == C.MQFMT_STRING
    assert md.CodedCharSetId == 1208
    assert md.Persistence == C.MQPER_NOT_PERSISTENT  # the queue's default
    assert md.CorrelId == C.MQCI_NONE


def test_put_reads_a_file_to_its_end_and_cuts_long_lines(
    qmgr, qmgr_name, queue, tmp_path, capsysbinary
) -> None:
    path = tmp_path / "lines.txt"
    path.write_bytes(b"a" * (amqs.PUT_LINE_MAX + 10) + b"\nlast")  # no final new-line
    status, _ = _run(capsysbinary, "put", qmgr_name, queue, "--file", str(path))
    assert status == 0
    assert [len(data) for data, _ in _drain(qmgr, queue)] == [amqs.PUT_LINE_MAX, 10, 4]


def test_put_options_set_the_mqmd_and_the_properties(
    qmgr, qmgr_name, queue, monkeypatch, capsysbinary
) -> None:
    _stdin(monkeypatch, b"one\n")
    argv = ["put", qmgr_name, queue, "--priority", "7", "--persistent", "--correl-id", "C0FFEE"]
    argv += ["--property", "color=red", "--property", "size:int32=5"]
    assert _run(capsysbinary, *argv)[0] == 0
    _stdin(monkeypatch, b"two\n")
    assert _run(capsysbinary, "put", qmgr_name, queue, "--correl-id", "order-17")[0] == 0
    status, out = _run(capsysbinary, "browse", qmgr_name, queue, "--properties")
    assert status == 0
    assert "  Priority : 7  Persistence : 1" in out
    assert "  CorrelId : X'C0FFEE" + "00" * 21 + "'" in out
    assert "  CorrelId : X'" + b"order-17".hex().upper() + "00" * 16 + "'" in out
    props = out.index("****Message properties****")
    assert out[props + 2 : props + 4] == ["  color : 'red'", "  size : 5"]
    assert out.count("  None") == 1  # the second message has none


def test_put_without_a_queue_prints_the_mqopen_reason(qmgr_name, world, capsysbinary) -> None:
    status, out = _run(capsysbinary, "put", qmgr_name, "NO.SUCH.Q")
    assert status == C.MQCC_FAILED
    assert out[1:5] == [
        "target queue is NO.SUCH.Q",
        "MQOPEN ended with reason code 2085",
        "unable to open queue for output",
        "Sample AMQSPUT0 end",
    ]


@pytest.mark.parametrize("syncpoint", [False, True])
def test_a_failed_put_stops_and_syncpoint_backs_all_out(
    qmgr, qmgr_name, monkeypatch, capsysbinary, syncpoint
) -> None:
    qmgr.define_queue("SMALL", max_msg_length=5)
    _stdin(monkeypatch, b"ok\ntoo long\nnever\n")
    argv = ["put", qmgr_name, "SMALL"] + (["--syncpoint"] if syncpoint else [])
    status, out = _run(capsysbinary, *argv)
    assert status == C.MQCC_FAILED
    assert f"MQPUT ended with reason code {C.MQRC_MSG_TOO_BIG_FOR_Q}" in out
    assert [data for data, _ in _drain(qmgr, "SMALL")] == ([] if syncpoint else [b"ok"])


def test_put_in_syncpoint_commits_at_the_end(
    qmgr, qmgr_name, queue, monkeypatch, capsysbinary
) -> None:
    _stdin(monkeypatch, b"a\nb\n")
    assert _run(capsysbinary, "put", qmgr_name, queue, "--syncpoint")[0] == 0
    assert [data for data, _ in _drain(qmgr, queue)] == [b"a", b"b"]


def _put(qmgr, queue: str, *bodies: bytes, **md) -> None:
    q = pymqi.Queue(qmgr, queue, C.MQOO_OUTPUT)
    for body in bodies:
        q.put(body, pymqi.MD(**md))
    q.close()


def test_get_prints_each_message_in_order_then_no_more(
    qmgr, qmgr_name, queue, capsysbinary
) -> None:
    _put(qmgr, queue, b"one", b"two\0hidden", b"three")
    status, out = _run(capsysbinary, "get", qmgr_name, queue, "--wait", "1")
    assert status == 0
    assert out == [
        "Sample AMQSGET0 start",
        "message <one>",
        "message <two>",  # C's %s ends at the NUL
        "message <three>",
        "no more messages",
        "Sample AMQSGET0 end",
        "",
    ]
    assert _depth(qmgr, queue) == 0


def test_get_count_leaves_the_rest_and_properties_are_shown(
    qmgr, qmgr_name, queue, capsysbinary
) -> None:
    handle = pymqi.MessageHandle(qmgr)
    handle.properties.set("flag", 1, C.MQTYPE_BOOLEAN)
    q = pymqi.Queue(qmgr, queue, C.MQOO_OUTPUT)
    q.put(b"one", pymqi.MD(), pymqi.PMO(OriginalMsgHandle=handle.msg_handle))
    q.put(b"two")
    q.close()
    status, out = _run(capsysbinary, "get", qmgr_name, queue, "--count", "1", "--properties")
    assert status == 0
    assert out[1:4] == ["message <one>", "  flag : TRUE", "Sample AMQSGET0 end"]
    assert _depth(qmgr, queue) == 1
    status, out = _run(capsysbinary, "get", qmgr_name, queue, "--wait", "0", "--properties")
    assert out[1:3] == ["message <two>", "no more messages"]  # no property, no line


def test_get_of_a_message_too_long_for_its_buffer_fails_with_2080(
    qmgr, qmgr_name, queue, capsysbinary
) -> None:
    _put(qmgr, queue, b"x" * (amqs.GET_BUFFER + 1))
    status, out = _run(capsysbinary, "get", qmgr_name, queue, "--wait", "0")
    assert status == C.MQCC_FAILED
    assert out[1] == f"MQGET ended with reason code {C.MQRC_TRUNCATED_MSG_FAILED}"
    assert _depth(qmgr, queue) == 1  # it stays, as MQ leaves it


def test_browse_prints_every_message_and_removes_none(qmgr, qmgr_name, queue, capsysbinary) -> None:
    _put(qmgr, queue, b"Hello", b"second", b"third", Format=C.MQFMT_STRING, Priority=0)
    status, out = _run(capsysbinary, "browse", qmgr_name, queue)
    assert status == 0
    assert out[:5] == [
        "",
        "AMQSBCG0 - starts here",
        "**********************",
        " ",
        " MQOPEN - 'Q1'",
    ]
    starts = [i for i, line in enumerate(out) if line.startswith(" MQGET of message number")]
    assert [out[i] for i in starts] == [
        f" MQGET of message number {n}, CompCode:0 Reason:0" for n in (1, 2, 3)
    ]
    assert out[5:7] == [" ", " "]
    assert out[starts[0] + 1] == "****Message descriptor****"
    assert "00000000:  4865 6C6C 6F" + " " * 27 + " " * 10 + " 'Hello           '" in out
    assert out.count("  Format : 'MQSTR   '") == 3
    assert out[-14:] == [
        " ",
        " ",
        " ",
        " No more messages ",
        "",
        "****   Summary      ****",
        " 3 messages browsed.",
        " Smallest message 5 bytes.",
        " Largest message 6 bytes.",
        " Average message 5 bytes.",  # 16 // 3
        "",
        " MQCLOSE",
        " MQDISC",
        "",
    ]
    assert _depth(qmgr, queue) == 3


def test_browse_count_and_an_empty_queue(qmgr, qmgr_name, queue, capsysbinary) -> None:
    status, out = _run(capsysbinary, "browse", qmgr_name, queue)
    assert status == 0
    assert out[4:] == [
        " MQOPEN - 'Q1'",
        " ",
        " ",
        " ",
        " No more messages ",
        " MQCLOSE",  # no summary when nothing was browsed
        " MQDISC",
        "",
    ]
    _put(qmgr, queue, b"a", b"b", b"c")
    status, out = _run(capsysbinary, "browse", qmgr_name, queue, "--count", "2")
    assert sum(line.startswith(" MQGET of message") for line in out) == 2
    assert " No more messages " not in out
    assert " 2 messages browsed." in out


def test_browse_of_a_long_message_shows_its_first_64_kib(
    qmgr, qmgr_name, queue, capsysbinary
) -> None:
    _put(qmgr, queue, b"y" * 70_000)
    status, out = _run(capsysbinary, "browse", qmgr_name, queue)
    assert status == 0
    assert " length - 65536 of 70000 bytes" in out
    assert out[-8] == " 1 messages browsed."
    assert " Largest message 70000 bytes." in out
    assert _depth(qmgr, queue) == 1


def test_browse_of_a_long_message_is_truncated_accepted(
    qmgr, qmgr_name, queue, capsysbinary
) -> None:
    _put(qmgr, queue, b"y" * 70_000)
    _, out = _run(capsysbinary, "browse", qmgr_name, queue)
    assert " MQGET of message number 1, CompCode:1 Reason:2079" in out


def test_browse_failures_print_as_amqsbcg(qmgr_name, world, monkeypatch, capsysbinary) -> None:
    status, out = _run(capsysbinary, "browse", qmgr_name, "NO.SUCH.Q")
    assert status == C.MQCC_FAILED
    assert out[4:] == [
        " MQOPEN - 'NO.SUCH.Q'",
        " MQOPEN failed with CompCode:2, Reason:2085",
        " MQDISC",
        "",
    ]

    def refused(name, *args, **kwargs):
        raise pymqi.MQMIError(C.MQCC_FAILED, C.MQRC_HOST_NOT_AVAILABLE)

    monkeypatch.setattr(pymqi, "connect", refused)
    status, out = _run(capsysbinary, "browse", qmgr_name, "Q1")
    assert status == C.MQCC_FAILED
    assert out[3:] == [" ", " MQCONNX failed with CompCode:2, Reason:2538", ""]
    status, out = _run(capsysbinary, "get", qmgr_name, "Q1")
    assert (status, out[1]) == (C.MQCC_FAILED, "MQCONNX ended with reason code 2538")


def test_argument_forms() -> None:
    assert amqs.correl_id("0A0b") == b"\x0a\x0b" + bytes(22)
    assert amqs.correl_id("abc") == b"abc" + bytes(21)  # odd length: text
    assert amqs.correl_id("AB" * 24) == b"\xab" * 24
    with pytest.raises(Exception, match="24 bytes"):
        amqs.correl_id("x" * 25)
    assert amqs.message_property("a.b=1=2") == ("a.b", C.MQTYPE_STRING, "1=2")
    assert amqs.message_property("n:INT64=-3") == ("n", C.MQTYPE_INT64, -3)
    assert amqs.message_property("raw:bytes=00ff") == ("raw", C.MQTYPE_BYTE_STRING, b"\0\xff")
    assert amqs.message_property("b:boolean=true") == ("b", C.MQTYPE_BOOLEAN, True)
    for bad in ("novalue", "n:int32=x", "n:complex=1"):
        with pytest.raises(Exception):  # noqa: B017 - argparse's ArgumentTypeError
            amqs.message_property(bad)


def test_ctrl_c_while_waiting_ends_get_without_a_traceback(
    qmgr, qmgr_name, queue, monkeypatch, capsysbinary
) -> None:
    waits = []

    def interrupted(self, max_length, md, gmo):
        waits.append(gmo.WaitInterval)
        raise KeyboardInterrupt

    monkeypatch.setattr(pymqi.Queue, "get", interrupted)
    status, out = _run(capsysbinary, "get", qmgr_name, queue, "--wait", "-1")
    assert status == 130
    assert waits == [C.MQWI_UNLIMITED]
    assert out == ["Sample AMQSGET0 start", ""]


def test_a_reader_that_went_away_ends_browse_quietly(qmgr, qmgr_name, queue) -> None:
    class Closed(io.BytesIO):
        def write(self, data):
            raise BrokenPipeError

    _put(qmgr, queue, b"a")
    args = cli.build_parser().parse_args(["browse", qmgr_name, queue])
    args.out = Closed()
    assert args.func(args) == 141
