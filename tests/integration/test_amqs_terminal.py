"""`mqk put`, `mqk browse` and `mqk get` typed at a terminal (a pseudo-terminal), on the
real Kafka and Redis: what a person sees is what IBM's amqsput, amqsbcg and amqsget
print."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

import adapter.pymqi as pymqi

pytestmark = pytest.mark.integration
C = pymqi.CMQC
QUEUE = "AMQS.TERMINAL"
LINES = [b"first message", b"second \xe2\x82\xac line", b"third"]


class Terminal:
    """`mqk ARGS` with a pseudo-terminal for its standard input, output and error."""

    def __init__(self, *argv: str) -> None:
        root = str(Path(__file__).parents[2])
        path = [root] + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else [])
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(path))
        self.master, slave = pty.openpty()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "adapter.cli", *argv],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            close_fds=True,
        )
        os.close(slave)
        self.seen = b""

    def _read(self, deadline: float) -> bool:
        """One read of what the terminal shows; False once the program closed it."""
        ready, _, _ = select.select([self.master], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            return True
        try:
            chunk = os.read(self.master, 65536)
        except OSError:  # EIO: every writer of the terminal has gone
            return False
        self.seen += chunk
        return bool(chunk)

    def wait_for(self, text: bytes, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.seen:
            assert time.monotonic() < deadline, f"no {text!r} in {self.seen!r}"
            if not self._read(deadline):
                raise AssertionError(f"ended without {text!r}: {self.seen!r}")

    def type(self, text: bytes) -> None:
        os.write(self.master, text)

    def finish(self, timeout: float = 90) -> tuple[int, list[str]]:
        """The exit status and the screen's lines (the terminal's CR LF as new-lines)."""
        deadline = time.monotonic() + timeout
        while self._read(deadline):
            assert time.monotonic() < deadline, f"still running: {self.seen!r}"
        status = self.proc.wait(timeout=30)
        os.close(self.master)
        return status, self.seen.replace(b"\r\n", b"\n").decode().split("\n")


def test_put_three_lines_browse_them_then_get_them_in_order(qmgr, qmgr_name) -> None:
    qmgr.define_queue(QUEUE)

    put = Terminal("put", qmgr_name, QUEUE, "--priority", "3")
    put.wait_for(b"target queue is " + QUEUE.encode())
    for line in LINES:
        put.type(line + b"\n")
    put.type(b"\n")  # the empty line ends it
    status, screen = put.finish()
    assert status == 0, screen
    typed = [line.decode() for line in LINES]
    assert screen == ["Sample AMQSPUT0 start", f"target queue is {QUEUE}", *typed, ""] + [
        "Sample AMQSPUT0 end",
        "",
    ]
    assert qmgr.queue_status(QUEUE)["current_depth"] == 3

    status, screen = Terminal("browse", qmgr_name, QUEUE).finish()
    assert status == 0, screen
    assert screen[:5] == ["", "AMQSBCG0 - starts here", "**********************", " "] + [
        f" MQOPEN - '{QUEUE}'"
    ]
    gets = [i for i, line in enumerate(screen) if line.startswith(" MQGET of message number")]
    assert [screen[i] for i in gets] == [
        f" MQGET of message number {n}, CompCode:0 Reason:0" for n in (1, 2, 3)
    ]
    for i, body in zip(gets, LINES, strict=True):
        block = screen[i + 1 : i + 40]
        assert block[0] == "****Message descriptor****"
        assert block[2] == "  StrucId  : 'MD  '  Version : 2"
        assert block[5] == "  Encoding : 546  CodedCharSetId : 1208"
        assert block[6] == "  Format : 'MQSTR   '"
        assert block[7] == "  Priority : 3  Persistence : 0"
        assert f" length - {len(body)} of {len(body)} bytes" in block
    # the MQMD block's 29 lines and the message header's five, then the dump
    assert screen[gets[0] + 35] == (
        "00000000:  6669 7273 7420 6D65 7373 6167 65       " + " " * 10 + " 'first message   '"
    )
    assert screen[gets[1] + 35] == (
        "00000000:  7365 636F 6E64 20E2 82AC 206C 696E 65  " + " " * 10 + " 'second € line '"
    )
    assert screen[-14:] == [
        " ",
        " ",
        " ",
        " No more messages ",
        "",
        "****   Summary      ****",
        " 3 messages browsed.",
        " Smallest message 5 bytes.",
        " Largest message 15 bytes.",
        " Average message 11 bytes.",
        "",
        " MQCLOSE",
        " MQDISC",
        "",
    ]
    assert qmgr.queue_status(QUEUE)["current_depth"] == 3  # browsing took none

    status, screen = Terminal("get", qmgr_name, QUEUE, "--wait", "2").finish()
    assert status == 0, screen
    assert screen == [
        "Sample AMQSGET0 start",
        "message <first message>",
        "message <second € line>",
        "message <third>",
        "no more messages",
        "Sample AMQSGET0 end",
        "",
    ]
    assert qmgr.queue_status(QUEUE)["current_depth"] == 0


def test_a_queue_that_is_not_there_in_a_terminal(qmgr_name) -> None:
    status, screen = Terminal("get", qmgr_name, "NO.SUCH.QUEUE", "--wait", "0").finish()
    assert status == C.MQCC_FAILED
    assert screen == [
        "Sample AMQSGET0 start",
        "MQOPEN ended with reason code 2085",
        "unable to open queue for input",
        "Sample AMQSGET0 end",
        "",
    ]
