"""The bottleneck of every pair that misses its target, worked out from the run's figures.

Every sentence takes its numbers from the rows of this run: the pair's own figures and
the per-call costs (ops/bench/costs.py). The text explains those numbers. It is not a
stored result.
"""

from __future__ import annotations

from ops.bench import costs
from ops.bench.model import Row


def _us(rate: float | None) -> float:
    return 1e6 / rate if rate else float("nan")


def _find(rows: list[Row], section: str, *words: str) -> Row | None:
    for r in rows:
        if r.section == section and r.available and all(w in r.pair for w in words):
            return r
    return None


def explain(rows: list[Row]) -> list[str]:
    """One bullet per missed pair: what its time goes to, and the bound that follows."""
    cost = costs.lookup(rows)
    shape, enc, dec = cost.get(costs.SHAPE), cost.get(costs.ENCODE), cost.get(costs.DECODE)
    lua = cost.get(costs.REDIS)
    ping = next((r.raw for r in rows if r.pair == costs.REDIS), None)
    out: list[str] = []
    for r in rows:
        if r.met is not False:
            continue
        text = _one(r, rows, shape, enc, dec, lua, ping)
        floor = _floor(r, cost)
        if floor:
            text += " " + floor
        out.append(f"- **{r.pair}** (ratio {r.ratio:.2g}): {text}")
    return out


def floor_parts(r: Row, cost: dict[str, float]) -> list[tuple[str, float]] | None:
    """The per-message work no implementation of this pair can skip while applications
    call pymqi's shape and the guarantees hold, each measured in this run: building the
    MQMD and options structures (the application's part of every call), the envelope
    that carries every MQMD field, the record's own produce or consume (the raw side's
    cost per record), and for a destructive get outside read-ahead the consumption
    marker written to Redis before MQGET returns (the crash guarantee). None: no floor
    is worked out for this pair."""
    shape = cost.get(costs.SHAPE)
    enc, dec, marker = cost.get(costs.ENCODE), cost.get(costs.DECODE), cost.get(costs.MARKER)
    if r.value is None or r.raw is None or r.unit not in ("msg/s", "copies/s"):
        return None
    raw = _us(r.raw)
    if r.section == "1 put" and "1 KiB" in r.pair and "async" in r.pair:
        parts = [("MD + PMO", shape), ("envelope encode", enc), ("produce()", raw)]
    elif r.section == "2 get" and "1 KiB" in r.pair:
        parts = [("MD + GMO", shape), ("envelope decode", dec), ("consume", raw)]
        if "read-ahead" not in r.pair:
            parts.append(("marker write", marker))
    elif r.section == "10 pubsub":
        subs = r.extra.get("subscriptions", 1)
        # Per copy: its own envelope and MQGET; the publication's MQMD + PMO and put
        # call are shared by the copies; the raw side's per-copy consume.
        parts = [
            ("the publication's MD + PMO, shared", shape / subs if shape is not None else None),
            ("the copy's envelope encode", enc),
            ("the subscriber's MD + GMO", shape),
            ("envelope decode", dec),
            ("marker write", marker),
            ("consume", raw),
        ]
    elif r.section == "4 uow" and "100 messages" in r.pair:
        parts = [
            ("two MQMDs and options", 2 * shape if shape is not None else None),
            ("decode + encode", (dec or 0) + (enc or 0) or None),
            ("the raw loop's own work", raw),
        ]
        if not r.extra.get("read_ahead"):
            parts.append(("marker write", marker))
    else:
        return None
    if any(v is None for _, v in parts):
        return None
    return [(name, float(v)) for name, v in parts]


def _floor(r: Row, cost: dict[str, float]) -> str:
    """The best ratio the pair could reach with nothing beyond its floor (floor_parts)
    against its target, and what the face as built costs of a call."""
    parts = floor_parts(r, cost)
    if parts is None or r.target is None or r.target.on != "ratio":
        return ""
    total = sum(v for _, v in parts)
    best = _us(r.raw) / total
    spelled = " + ".join(f"{name} {v:,.1f}" for name, v in parts)
    verdict = (
        "below the target: the target cannot be met in this call shape"
        if best < r.target.bound
        else "above the target: the rest is this library's own work, left to remove"
    )
    face = cost.get(costs.FACE_GET if r.section == "2 get" else costs.FACE_PUT)
    face_text = (
        f" The pymqi face as built (its checks, the request, the MQMD written back, over "
        f"an engine that does nothing) costs {face:,.1f} us of a call."
        if face is not None and r.section != "4 uow"
        else ""
    )
    return (
        f"Floor: {spelled} = {total:,.1f} us per message, so at best a ratio of "
        f"{best:.2f}, {verdict}.{face_text}"
    )


def _one(r: Row, rows, shape, enc, dec, lua, ping) -> str:
    mq_us, raw_us = _us(r.value), _us(r.raw)
    if r.section == "1 put" and "async" in r.pair:
        if shape is None or enc is None:
            return "per-call costs not measured in this run (run the `costs` section)."
        best = raw_us / (raw_us + shape + enc)
        return (
            f"{mq_us:,.1f} us per MQPUT against {raw_us:,.1f} us per produce(). Two costs "
            f"of the MQ API come before any Kafka work: building the caller's MD and PMO "
            f"({shape:,.1f} us) and the envelope that carries every MQMD field "
            f"({enc:,.1f} us). A shim doing nothing else would still reach only "
            f"{best:.2f}. The remainder is the MQPUT rules (Table 1/2, MAXDEPTH, context) "
            "and writing the output MQMD fields, all in Python. Wall: per-call Python "
            "work against a C produce() call. Kafka is not the limit. The 64 KiB case, "
            "where the broker dominates, is at or near the target."
        )
    if r.section == "1 put":
        return (
            f"{mq_us:,.0f} us per sync MQPUT against {raw_us:,.0f} us per produce()+flush(). "
            "Both sides wait for the broker's acks=all round trip. MQPUT then sends the "
            "depth update to Redis write-behind (no wait: every later state call of the "
            "process reads after it, so its own MAXDEPTH checks and MQINQ are exact) and "
            "pays the Python call cost above (MQMD rules, the envelope, the definition "
            "checks). Wall: per-call Python on each put."
        )
    if r.section == "2 get" and "read-ahead" not in r.pair:
        bound = 1e6 / lua if lua else float("nan")
        return (
            f"{mq_us:,.0f} us per MQGET against {raw_us:,.1f} us per consumed record. "
            "Gets in a burst lock a run of messages in one Redis call (a get lease) and "
            "send each one's consumption write-behind, so that exactly one getter in any "
            "process takes it and a getter killed after MQGET returned never sees it again "
            "(a raw consumer coordinates with nobody). One unwaited script call per get "
            f"remains (a waited one costs {lua or float('nan'):,.0f} us; the bare round trip "
            f"is {ping or float('nan'):,.0f} us; one per get would cap gets at "
            f"{bound:,.0f}/s), plus the MQMD, the envelope decode and the selection in "
            "Python. Wall: per-call Python and one socket write per get."
        )
    if r.section == "2 get":
        need = 2 * raw_us
        return (
            f"{mq_us:,.1f} us per MQGET against {raw_us:,.1f} us per consumed record. "
            "Claims are batched here, so the remaining cost is per-call Python: decoding "
            f"the envelope ({dec or float('nan'):,.1f} us), building the MD and GMO "
            f"({shape or float('nan'):,.1f} us for an MD and options structure), selection "
            "in the rules core, and about twenty MQMD output fields. The 0.5 target allows "
            f"{need:,.1f} us per get. Wall: per-call Python against librdkafka's C batch "
            "consume. At 64 KiB the copy of the payload dominates both sides and the "
            "target holds."
        )
    if r.section == "3 logical":
        return (
            f"{r.value:,.0f} against {r.raw:,.0f} {r.unit} for physical order on the same "
            "data. A logical-order get pays the same Redis claim per message as a physical "
            "one, plus the group bookkeeping: the handle's group cursor, GroupStatus, and "
            "finding the next member in the rules core's group index. Both sides share the "
            "claim wall of (2), so this ratio measures that bookkeeping."
        )
    if r.section == "3 big" and r.unit == "x msg size":
        size = r.extra.get("size", 0)
        return (
            f"peak resident memory {r.value:.2f}x the message size against "
            f"{r.raw:.2f}x for raw Kafka. MQGMO_COMPLETE_MSG returns one buffer, so "
            "the segments are held until the last one arrives, and librdkafka's producer "
            "and fetch buffers count on both sides. Those buffers have a fixed size, so "
            f"the smaller the message ({size / 2**20:,.0f} MiB here), the larger their "
            "share."
        )
    if r.section == "3 big":
        return (
            f"{r.value:,.0f} against {r.raw:,.0f} MB/s. The big message is put with sync "
            "response in segments of the queue's segment size, each an envelope with its "
            "own MQMD fields, and read back whole with MQGMO_COMPLETE_MSG. The join and "
            "the per-segment claim are the extra work."
        )
    if r.section == "4 uow" and r.extra.get("read_ahead"):
        put = _find(rows, costs.SECTION, "MQPUT call")
        put_us = f" (an async MQPUT call alone is {put.value:,.0f} us)" if put else ""
        return (
            f"{mq_us:,.0f} us per get+put against {raw_us:,.0f} us. The locks are taken in "
            "batches here, so Redis is no longer paid per message. What remains is the "
            f"per-call Python of an MQGET and an MQPUT under syncpoint{put_us}, and an "
            "MQCMIT per batch that flushes the transaction, verifies the locks in Redis, "
            "commits, and waits until the outputs are visible. Wall: per-call Python "
            "against a raw loop that handles a batch of records in C."
        )
    if r.section == "4 uow":
        ahead = _find(rows, "4 uow", "READ_AHEAD")
        extra = (
            f" With MQOO_READ_AHEAD the locks are taken in batches: {ahead.value:,.0f} "
            f"msg/s, ratio {ahead.ratio:.2f}."
            if ahead is not None and ahead is not r
            else ""
        )
        return (
            f"{mq_us:,.0f} us per get+put against {raw_us:,.0f} us. The raw loop consumes "
            "a batch of records and commits once. MQGETs under syncpoint in a burst lease a "
            "run of messages in one Redis call and hand each one's lock to the unit of work "
            "write-behind (a waited Lua call costs "
            f"{lua or float('nan'):,.0f} us), so another process can neither take the "
            "message nor lose it if this one dies. MQCMIT then flushes the transaction, "
            "verifies the locks and commits. Wall: per-call Python of the MQGET and MQPUT "
            f"and one socket write per message.{extra}"
        )
    if r.section == "5 latency":
        p50 = _find(rows, "5 latency", "p50", f"at {r.extra.get('rate')} ")
        base = (
            f" At p50 the gap is {p50.value - p50.raw:,.1f} ms (a claim and the MQMD)."
            if p50 is not None
            else ""
        )
        return (
            f"p99 {r.value:,.1f} ms against {r.raw:,.1f} ms. The getter wakes from Kafka's "
            "fetch like the raw consumer, then claims in Redis. Its view is refreshed "
            "(ListOffsets) whenever it is more than 100 ms old, so a higher-priority message "
            "is never overtaken. The putter, the getter and both connections' pump threads "
            "share one interpreter lock, so a tail sample often waits behind another "
            f"thread's Python slice.{base} Wall: GIL hand-offs and one extra round trip; "
            "this pair is also the most sensitive to other load on 2 cores."
        )
    if r.section == "6 spark" and r.unit == "ms":
        res = r.extra.get("result", {})
        batch = res.get("latency_phase_batch_ms_avg") or {}
        sink = res.get("latency_phase_sink_ms_avg") or {}
        collect = next((v for k, v in sink.items() if k.startswith("collect")), None)
        return (
            f"p99 {r.value:,.0f} ms (p50 {res.get('latency_ms_p50', float('nan')):,.0f} ms) "
            f"at {res.get('latency_offered_segments_per_s', float('nan')):,.0f} segments/s "
            f"offered, against {r.raw or float('nan'):,.0f} ms for the single process. A "
            "segment that arrives while a micro-batch runs waits for that batch to end, then "
            "for its own: up to two batch durations. The latency phase's micro-batches took "
            f"{batch.get('triggerExecution', float('nan')):,.0f} ms on average (query "
            f"planning {batch.get('queryPlanning', float('nan')):,.0f} ms, the stateful "
            f"stage's collect {collect if collect is not None else float('nan'):,.0f} ms) "
            f"with a {res.get('trigger_ms', float('nan')):,.0f} ms trigger. Wall: Spark's "
            "fixed cost per micro-batch (planning, the stateful stage's Python workers, the "
            "state store's commit), paid however few segments a batch holds."
        )
    if r.section == "6 spark":
        res = r.extra.get("result", {})
        floor = res.get("spark_framework_floor_segments_per_s")
        rules = res.get("rules_core_segments_per_s_one_core")
        return (
            f"{r.value:,.0f} segments/s. The same Spark pipeline with a processor that only "
            f"joins values reaches {floor or float('nan'):,.0f} segments/s on this machine, "
            "and "
            f"the rules core alone {rules or float('nan'):,.0f}/s on one core. local[2] "
            "shares the 2 cores with the broker and Redis, so Spark's own per-batch cost "
            "(Kafka source, the rows packed per bucket in Python, state store, Arrow to "
            "Python and back) sets the ceiling before any MQ rule runs. "
            + (
                f"Wall: cores. The framework alone stays below {r.target.bound:,.0f}/s here."
                if floor is not None and r.target is not None and floor < r.target.bound
                else "Wall: the Python processor's per-batch work on top of the framework."
            )
        )
    if r.section == "11 pairs":
        return (
            f"{r.value:,.0f} pairs/s against {r.raw:,.0f} for the raw pair, and a target "
            f"of {r.target.bound if r.target else float('nan'):,.0f} (IBM MQ's persistent "
            "round trips per core, times 2). A sync MQPUT waits for Kafka's acks=all round "
            "trip as the raw producer does, so one putter cannot exceed the raw side's "
            "rate, itself below the target here. Wall: the acknowledged produce round trip "
            "per sync put (IBM MQ's log write is the same kind of floor, on its disk); "
            "async-response puts or more putters lift it."
        )
    if r.section == "8 properties":
        extra = mq_us - raw_us
        if "selector" in r.pair:
            return (
                f"{mq_us:,.0f} us per selected MQGET against {raw_us:,.0f} us per plain one. "
                "Every selected message sits behind about 9 that the selector rejects; each "
                "of those is read from Kafka into the handle's view and has its properties "
                f"decoded and the selector evaluated, about {extra / 9:,.0f} us apiece here. "
                "Wall: the rejected messages are still read and looked at in Python; the "
                "selector does not reach the broker."
            )
        if r.pair.startswith("MQPUT"):
            return (
                f"{mq_us:,.1f} us per call with 5 properties against {raw_us:,.1f} us "
                f"without: {extra:,.1f} us for packing them (adapter/core/propwire.py) and "
                "writing them again as Kafka record headers with the MQMD's JMS names, 10 "
                "headers here (adapter/core/kafkaheaders.py; rendered once per distinct set "
                "of properties, then cached), which librdkafka copies into every record "
                "(measured alone, CPU time: about 3.5 us for the 10 in produce(), 5 us to "
                "render the descriptor's). Wall: per-property Python work."
            )
        return (
            f"{mq_us:,.1f} us per call with 5 properties against {raw_us:,.1f} us without: "
            f"{extra:,.1f} us for unpacking them (adapter/core/propwire.py) and building "
            "the handle's MessageProperties. Wall: per-property Python work."
        )
    if r.section == "9 channel":
        batch = r.extra.get("batch", 50)
        mq_ms, raw_ms = batch * mq_us / 1000, batch * raw_us / 1000
        commits = r.extra.get("commit_ms_per_batch")
        text = (
            f"{mq_us:,.0f} us per message moved against {raw_us:,.0f} us for the raw copy: "
            f"{mq_ms:,.1f} ms per batch of {batch} against {raw_ms:,.1f} ms. The agent gets "
            "a batch with one state call (get_run) and puts it with one (put_run), but MQ's "
            "protocol commits twice per batch, one after the other: the receiving end's "
            "transaction (the messages and its sync record), then the sending end's (the "
            "gets and its sync record); the raw copy commits one transaction and an offset "
            "commit."
        )
        if commits is not None:
            bound = raw_ms / commits if commits else float("nan")
            rest = mq_ms - commits
            wall = (
                "the protocol's two sequential transactions"
                if commits >= rest
                else "the agent's own work around the two commits, then the commits"
            )
            text += (
                f" The two commits took {commits:,.1f} ms of each batch in this run, so "
                f"with no other work at all the ratio would be {bound:.2f}. The other "
                f"{rest:,.1f} ms are the agent's: gathering the batch, unwrapping each "
                "MQXQH, putting the batch at the far end, both ends' sync records replaced "
                f"(a get and a put each), the channel status written. Wall: {wall}. IBM MQ "
                "overlaps a batch's confirmation with the next batch's transfer only with "
                "pipelining (PipeLineLength=2), not done here."
            )
        return text
    if r.section == "10 pubsub":
        subs = r.extra.get("subscriptions", 1)
        return (
            f"{mq_us:,.1f} us per copy delivered against {raw_us:,.1f} us per record a raw "
            f"consumer reads, with {subs} subscription(s). The subscriptions are "
            "non-durable, so under the default PMSGDLV(ALLDUR) / NPMSGDLV(ALLAVAIL) a "
            "publication outside syncpoint needs no transaction: its _pub record and one "
            "copy per subscription go on the idempotent producer, and with "
            "MQPMO_ASYNC_RESPONSE (as the raw producer, which never waits per record) the "
            "MQPUT does not wait for them. Each copy is then one MQGET (a Python call, the "
            "envelope decode and a consumption marker per message), where every raw "
            "consumer reads in batches. Wall: the per-copy MQGET."
        )
    return "no analysis for this pair."
