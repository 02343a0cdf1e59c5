"""`python3 -m ops.bench.corecosts`: CPU time per call of the pure work a compiler could
take over (the rules core's part of one MQGET and one MQPUT, the envelope codec), with no
servers.

Run it once against the checkout and once with compiled modules earlier on PYTHONPATH
(docs/compiled-hotpath.md says how they were built) to see what compiling buys before
asking what it costs. CPU time (``time.process_time``), best of several runs: the figures
are meant for A/B comparisons on a shared machine, where wall time wanders.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from mqk_avro import codec

from adapter.core import cmqc as C  # noqa: N812 (the project-wide alias)
from adapter.core import expiry
from adapter.core import getrules as gr
from adapter.core import putrules as pr
from adapter.core.model import Item
from adapter.core.view import QueueView

DEPTH = 5_000  # the MQGET measurement's queue depth (docs/benchmarks.md's get rows)
_NOW_MS = 1_764_000_000_000


def per_call_us(fn: Callable[[], object], n: int, repeats: int = 7) -> float:
    """Best over `repeats` of the CPU time of n calls, in microseconds per call."""
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        for _ in range(n):
            fn()
        best = min(best, (time.process_time() - start) / n * 1e6)
    return best


def _item(i: int) -> Item:
    return Item(
        key=("p0", 0, i),
        pos=(0, 0, i),
        priority=0,
        msg_id=i.to_bytes(24, "big"),
        correl_id=C.MQCI_NONE,
        group_id=C.MQGI_NONE,
        seq=1,
        offset=0,
        flags=0,
        length=1024,
        persistence=C.MQPER_PERSISTENT,
        put_ms=_NOW_MS,
        expiry=C.MQEI_UNLIMITED,
    )


class _GetCore:
    """The core calls of one destructive MQGET outside syncpoint, no match options, in
    the order `shim/get.py` makes them; the reader's next record keeps the view full."""

    def __init__(self) -> None:
        self.view = QueueView()
        for i in range(DEPTH):
            self.view.add(_item(i))
        self.next = DEPTH
        self.cursor = gr.GetCursor()
        self.req = gr.GetRequest(
            options=C.MQGMO_NO_SYNCPOINT | C.MQGMO_NO_WAIT, match_options=C.MQMO_NONE
        )

    def __call__(self) -> None:
        cursor, req = self.cursor, self.req
        if gr.check_request(cursor, req) is not None:
            raise AssertionError("the request is valid")
        chosen = None
        for item in gr.candidates(self.view, cursor, req):
            if expiry.is_expired(item.put_ms, item.expiry, _NOW_MS + 500):
                continue
            if gr.check_item(item, cursor, req) is not None:
                raise AssertionError("the first candidate fits")
            chosen = item
            break
        if chosen is None:
            raise AssertionError("the view is never empty")
        self.cursor = gr.advance(cursor, chosen, req)
        gr.gmo_status(chosen, req)
        self.view.discard(chosen.key)
        self.view.add(_item(self.next))
        self.next += 1


def _put_core() -> None:
    """The core calls of one MQPUT outside syncpoint of a message in no group."""
    if pr.put_options_error(C.MQPMO_NO_SYNCPOINT | C.MQPMO_ASYNC_RESPONSE) is not None:
        raise AssertionError("the options are valid")
    pr.plan_put(
        pr.PutCursor(),
        msg_flags=0,
        group_id=C.MQGI_NONE,
        seq=1,
        offset=0,
        persistence=C.MQPER_PERSISTENT,
        length=1024,
        md_version=C.MQMD_VERSION_2,
        logical_order=False,
        in_uow=False,
        new_group_id=C.MQGI_NONE,
    )


def measure(n: int) -> dict[str, float]:
    """{what: us per call}."""
    value = codec.encode(
        codec.new_envelope(
            Payload=bytes(1024),
            Persistence=C.MQPER_PERSISTENT,
            PutApplName="amqsput",
            UserIdentifier="root",
            PutTimestamp=_NOW_MS,
            Format=C.MQFMT_STRING.decode(),
            MsgId=b"A" * 24,
        )
    )
    env = codec.decode(value)
    return {
        f"MQGET's core (candidates in a view {DEPTH:,} deep, cursor, view update)": per_call_us(
            _GetCore(), n
        ),
        "MQPUT's core (option check, plan_put)": per_call_us(_put_core, n),
        "envelope encode (1 KiB)": per_call_us(lambda: codec.encode(env), n),
        "envelope decode (1 KiB)": per_call_us(lambda: codec.decode(value), n),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m ops.bench.corecosts")
    parser.add_argument("-n", type=int, default=20_000, help="calls per run")
    args = parser.parse_args(argv)
    print(f"codec: {codec.__file__}; core: {gr.__file__}")
    for label, us in measure(args.n).items():
        print(f"{us:8.2f} us  {label}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
