"""`mqk bench --profile`: pyinstrument profiles of the MQPUT and MQGET hot paths.

Writes docs/profiles/<case>.txt (the call tree) and <case>-self.txt (self time per
function, summed over all call sites).
pyinstrument samples the calling thread only: the connection's pump thread (delivery
reports, depth counters, ack log) is not in the profiles.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import adapter.pymqi as pymqi
from ops.bench import mqside
from ops.bench.settings import KIB, BenchConfig

C = pymqi.CMQC
INTERVAL_S = 0.0005
TOP = 15


def _profile(name: str, fn, out: Path) -> dict:
    from pyinstrument import Profiler

    profiler = Profiler(interval=INTERVAL_S)
    start = time.perf_counter()
    profiler.start()
    count = fn()
    profiler.stop()
    seconds = time.perf_counter() - start
    out.mkdir(parents=True, exist_ok=True)
    tree = profiler.output_text(unicode=False, color=False, show_all=False)
    (out / f"{name}.txt").write_text(tree)
    session = profiler.last_session
    top = self_times(session.root_frame()) if session else []
    total = session.duration if session else seconds
    lines = [f"{t:7.3f} s {100 * t / total:5.1f}%  {where}" for where, t in top[:TOP]]
    (out / f"{name}-self.txt").write_text("\n".join(lines) + "\n")
    return {"case": name, "count": count, "seconds": seconds, "rate": count / seconds, "top": lines}


def self_times(root) -> list[tuple[str, float]]:
    """Self time per function over the whole tree (a function called from several
    places is added up), largest first."""
    totals: dict[str, float] = {}
    stack = [root] if root is not None else []
    while stack:
        frame = stack.pop()
        real = [c for c in frame.children if not c.is_synthetic_leaf]
        # pyinstrument puts a frame's own samples in a synthetic "[self]" child.
        own = frame.time - sum(c.time for c in real)
        if frame.function and not frame.is_synthetic and own > 0:
            where = f"{frame.function}  {frame.file_path_short}:{frame.line_no}"
            totals[where] = totals.get(where, 0.0) + own
        stack.extend(real)
    return sorted(totals.items(), key=lambda kv: -kv[1])


def run(cfg: BenchConfig, out: Path, log=print) -> list[dict]:
    n = cfg.profile_messages
    payload = os.urandom(KIB)
    results = []
    with mqside.mq_session("profile") as mq:
        plain = mq.define("PROF.PLAIN")
        ahead = mq.define("PROF.AHEAD", def_read_ahead=True)
        q = pymqi.Queue(mq.qm, plain, C.MQOO_OUTPUT)
        q.put(b"warm-up")
        q.close()
        mqside.drain_rate(mq.qm, plain, 1)

        def put(async_response: bool, count: int):
            def fn() -> int:
                q = pymqi.Queue(mq.qm, plain, C.MQOO_OUTPUT)
                mqside.put_n(
                    q,
                    payload,
                    count,
                    persistence=C.MQPER_PERSISTENT,
                    async_response=async_response,
                    qm=mq.qm,
                )
                q.close()
                return count

            return fn

        results.append(_profile("mqput-async-1k-persistent", put(True, n), out))
        results.append(_profile("mqput-sync-1k-persistent", put(False, max(20, n // 20)), out))
        mqside.drain_rate(mq.qm, plain, n + max(20, n // 20))  # empty it again
        mqside.fill(mq.qm, plain, payload, n, C.MQPER_PERSISTENT)
        results.append(
            _profile("mqget-1k-persistent", lambda: (mqside.drain_rate(mq.qm, plain, n), n)[1], out)
        )
        mqside.fill(mq.qm, ahead, payload, n, C.MQPER_NOT_PERSISTENT)
        results.append(
            _profile(
                "mqget-1k-nonpersistent-readahead",
                lambda: (mqside.drain_rate(mq.qm, ahead, n), n)[1],
                out,
            )
        )
    for r in results:
        log(f"  {r['case']}: {r['count']} in {r['seconds']:.2f} s = {r['rate']:,.0f}/s (profiled)")
        for line in r["top"][:8]:
            log(f"      {line.strip()}")
    return results
