"""Units that complete inside one chunk of records, found and joined without a Python
step per record: the common case of the reassembly job.

Over the fields `streaming.envscan` read, one sort by (unit key, MsgSeqNumber, Offset)
puts each unit's records side by side; per unit, numpy reductions decide whether it is
one of the two shapes taken here:

* a plain message: one record, neither in a group nor a segment, MsgSeqNumber 1;
* a segmented message outside any group: MsgSeqNumber 1, segments whose Offsets run
  from 0 without gap or overlap (each starting where the previous one ended, none
  empty), the last and only the last flagged MQMF_LAST_SEGMENT.

Such a unit needs nothing from the state and nothing of `streaming.assembly.advance`'s
general search: it is complete, and its logical message is the first segment's bytes
with MsgFlags and Payload replaced (`message_bytes`), the same bytes
`codec.encode(advance(...).messages[0].env)` gives. Everything else (groups,
duplicates, gaps, expired pieces, records `envscan` did not vouch for, units the
state holds pieces of) is left to the processor's record-by-record path, which
decides as before. tests/spark/test_fastunits.py checks the two against each other.

No I/O: numpy, the rules core and the shim's record-key rule.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from mqk_avro import codec

from adapter.core import cmqc as C  # noqa: N812 (the project-wide alias)
from adapter.core import expiry as exp
from adapter.core import recordrules
from adapter.core.model import GROUP_FLAGS, SEGMENT_FLAGS
from adapter.core.reassembly import reassembled_flags
from adapter.shim import records
from streaming import envscan
from streaming.assembly import Piece
from streaming.envscan import ID, Scan
from streaming.packing import Chunk

_LAST = C.MQMF_LAST_SEGMENT


@dataclass
class Complete:
    """The units of a chunk that completed in the simple shapes, and the rest."""

    order: np.ndarray  # record indices, each unit's records together in Offset order
    starts: np.ndarray  # per unit: where its records begin in `order`
    counts: np.ndarray  # per unit: how many records
    segmented: np.ndarray  # per unit: a segmented message (else a plain one)
    last_ts: np.ndarray  # per unit: newest Kafka timestamp of its records
    slow: np.ndarray  # per record: left to the record-by-record path

    def __len__(self) -> int:
        return len(self.starts)


def _unit_words(keys: np.ndarray) -> list[np.ndarray]:
    """A (n, 24) uint8 key array as three uint64 columns (equal keys, equal words)."""
    words = np.ascontiguousarray(keys).view(np.uint64)
    return [words[:, i] for i in range(ID // 8)]


def complete_units(
    keys: np.ndarray, key_ok: np.ndarray, scan: Scan, ts: np.ndarray, now_ms: int
) -> Complete:
    """`keys`: (n, 24) uint8 Kafka keys (rows where `key_ok` is False are ignored:
    another length, or not the record key of the envelope). `ts`: Kafka timestamps."""
    n = len(key_ok)
    usable = scan.ok & key_ok
    # Expired (adapter.core.expiry.is_expired at `now_ms`): the unit is dropped and the
    # piece discarded, which only the general path does.
    expires = scan.put_ms + scan.expiry * exp.MS_PER_TENTH
    usable &= (scan.expiry < 0) | (now_ms < expires)
    w0, w1, w2 = _unit_words(keys)
    # Records with other keys sort apart as their own (never usable) units.
    rank = np.where(key_ok, 0, 1 + np.arange(n))
    order = np.lexsort((scan.offset, scan.seq, w2, w1, w0, rank))
    k0, k1, k2, kr = w0[order], w1[order], w2[order], rank[order]
    new_unit = np.ones(n, dtype=bool)
    if n > 1:
        new_unit[1:] = (
            (k0[1:] != k0[:-1]) | (k1[1:] != k1[:-1]) | (k2[1:] != k2[:-1]) | (kr[1:] != kr[:-1])
        )
    starts = np.flatnonzero(new_unit)
    counts = np.diff(np.append(starts, n))
    unit_of = np.cumsum(new_unit) - 1  # per sorted record: its unit
    last_in_unit = np.zeros(n, dtype=bool)
    last_in_unit[starts + counts - 1] = True

    flags = scan.flags[order]
    seq = scan.seq[order]
    off = scan.offset[order]
    plen = scan.payload_len[order]
    grouped = (flags & GROUP_FLAGS) != 0
    segment = (flags & SEGMENT_FLAGS) != 0
    last = (flags & _LAST) != 0
    # Per record, does it fit its unit's shape where it stands?
    nxt_off = np.append(off[1:], 0)
    link = np.where(
        last_in_unit,
        last,  # the last record closes the message
        ~last & (plen > 0) & (nxt_off == off + plen),  # the next one starts where it ends
    )
    fits = usable[order] & ~grouped & (seq == 1)
    seg_fits = fits & segment & link
    plain_fits = fits & ~segment
    all_seg = np.logical_and.reduceat(seg_fits, starts) & (off[starts] == 0)
    plain = np.logical_and.reduceat(plain_fits, starts) & (counts == 1)
    take = all_seg | plain
    slow_sorted = ~take[unit_of]
    slow = np.empty(n, dtype=bool)
    slow[order] = slow_sorted
    last_ts = np.maximum.reduceat(ts[order], starts)
    return Complete(
        order=order,
        starts=starts[take],
        counts=counts[take],
        segmented=all_seg[take],
        last_ts=last_ts[take],
        slow=slow,
    )


_VARINT_CACHE: dict[int, bytes] = {}


def zigzag(value: int) -> bytes:
    """Avro's zigzag varint of `value` (what codec.encode writes for an int or long)."""
    cached = _VARINT_CACHE.get(value)
    if cached is not None:
        return cached
    n = (value << 1) ^ (value >> 63)
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    if -64 <= value < 4096:
        _VARINT_CACHE[value] = bytes(out)
    return bytes(out)


def messages(data: memoryview, scan: Scan, ends: np.ndarray, done: Complete, units) -> list[bytes]:
    """The logical messages of units `complete_units` took (indices into `done`): a
    plain message is its record as it is; a segmented one, the first segment's bytes
    with MsgFlags and Payload replaced (and so the same bytes codec.encode writes)."""
    units = np.asarray(units, dtype=np.int64)
    firsts = done.order[done.starts[units]]
    ordered_at = scan.payload_at[done.order].tolist()
    ordered_len = scan.payload_len[done.order].tolist()
    sums = np.concatenate([[0], np.cumsum(scan.payload_len[done.order])])
    first_at, past = done.starts[units], done.starts[units] + done.counts[units]
    totals = (sums[past] - sums[first_at]).tolist()
    starts = scan.start[firsts].tolist()
    record_ends = ends[firsts].tolist()
    flags_at = scan.flags_at[firsts].tolist()
    flags_end = scan.flags_end[firsts].tolist()
    len_at = scan.payload_len_at[firsts].tolist()
    flags = scan.flags[firsts].tolist()
    new_flags = {f: zigzag(reassembled_flags(f)) for f in set(flags)}
    begin = done.starts[units].tolist()
    count = done.counts[units].tolist()
    segmented = done.segmented[units].tolist()
    out = []
    for i in range(len(units)):
        start, end = starts[i], record_ends[i]
        if not segmented[i]:
            out.append(bytes(data[start:end]))
            continue
        b = begin[i]
        parts = [
            data[start : flags_at[i]],
            new_flags[flags[i]],
            data[flags_end[i] : len_at[i]],
            zigzag(totals[i]),
        ]
        parts += [
            data[a : a + n]
            for a, n in zip(
                ordered_at[b : b + count[i]], ordered_len[b : b + count[i]], strict=True
            )
        ]
        # Properties: the first segment's (its length and bytes, to the record's end).
        parts.append(data[ordered_at[b] + ordered_len[b] : end])
        out.append(b"".join(parts))
    return out


@dataclass
class Split:
    """A bucket's chunk of records: the units taken whole (`Complete`) and, per unit key,
    the pieces of every other record that is an envelope any MQPUT could have written."""

    chunk: Chunk
    scan: Scan
    done: Complete
    keys: np.ndarray  # (n, 24) uint8 unit keys (zeros where not 24 bytes)
    by_unit: dict[bytes, list[Piece]]
    native: int  # records of Kafka producers: nothing to reassemble
    corrupt: int  # records no MQPUT wrote (left out; the getters dead-letter them)

    def __post_init__(self) -> None:
        self._data = memoryview(self.chunk.value)
        self._ends = self.chunk.value_offsets[1:]

    def units(self) -> tuple[list[bytes], np.ndarray]:
        """The unit keys of the units taken whole, and their indices into `done`, in the
        order of their first records."""
        done = self.done
        firsts = done.order[done.starts]
        units = np.argsort(firsts, kind="stable")
        flat = self.keys[firsts[units]].tobytes()
        return [flat[i : i + ID] for i in range(0, len(flat), ID)], units

    def messages(self, units) -> list[bytes]:
        """The logical messages of units taken whole (indices into `done`)."""
        return messages(self._data, self.scan, self._ends, self.done, units)

    def records_of(self, unit: int) -> np.ndarray:
        """A unit's record indices, in Offset order."""
        start = int(self.done.starts[unit])
        return self.done.order[start : start + int(self.done.counts[unit])]

    def pieces(self, records: np.ndarray) -> list[Piece]:
        """The records of a unit taken whole as the general path's pieces (for a unit
        the state holds pieces of after all)."""
        uo, vo = self.chunk.unit_offsets, self.chunk.value_offsets
        out = []
        for i in sorted(records.tolist()):
            _unit, prio, part, off, ts, value = self.chunk.record(i, uo, vo)
            out.append(Piece(prio, part, off, ts, value, codec.decode(value)))
        return out


def split(chunk: Chunk, now_ms: int) -> Split:
    """Take the units of `chunk` that complete in the simple shapes; decode the rest
    record by record, as the processor always did (records.envelope_of, then
    recordrules.impossible_field)."""
    scan = envscan.scan(chunk.value_offsets, np.frombuffer(chunk.value, dtype=np.uint8))
    keys, good = envscan.key_rows(chunk.unit_offsets, np.frombuffer(chunk.unit, dtype=np.uint8))
    key_ok = envscan.keys_match(scan, keys, good) & (chunk.value_len >= 0)
    done = complete_units(keys, key_ok, scan, chunk.ts, now_ms)
    by_unit: dict[bytes, list[Piece]] = {}
    native = corrupt = 0
    uo, vo = chunk.unit_offsets, chunk.value_offsets
    for i in np.flatnonzero(done.slow).tolist():
        unit, prio, part, off, ts, value = chunk.record(i, uo, vo)
        env = records.envelope_of(unit, value)
        if env is None:
            if records.unreadable(unit, value) is None:
                # A Kafka producer's native record: never a segment or a group member,
                # so nothing to reassemble; MQGET serves it as it is.
                native += 1
            else:
                corrupt += 1  # an envelope that does not decode (truncated, ...)
            continue
        if recordrules.impossible_field(env) is not None:
            # No MQPUT wrote it (Persistence 7, Priority -5, ...): never a piece of a
            # logical message. Getters move it to the dead-letter queue
            # (shim/corrupt.py); the job leaves it out and counts it.
            corrupt += 1
            continue
        by_unit.setdefault(unit, []).append(Piece(prio, part, off, ts, value, env))
    return Split(chunk, scan, done, keys, by_unit, native, corrupt)
