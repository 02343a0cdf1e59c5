"""In-memory index of the messages on a queue, as one queue handle sees them.

Physical order is kept in sorted lists of (pos, stamp) entries with lazy deletion:
inserts arrive mostly in increasing `pos` (amortised O(1) append), discards only drop
the item from a dict and advance a head pointer past dead entries, and the list is
compacted when dead entries outnumber live ones. Iterators survive concurrent adds and
discards: when the list is rebuilt or shifted they re-find their place by bisection.

A second index holds only first items (MsgSeqNumber 1, Offset 0), which is all a
logical-order MQGET without a current group may return. A group index answers
"which items make up group G / logical message (G, n)" and whether they are complete.
"""

from __future__ import annotations

from bisect import bisect_right, insort
from collections.abc import Hashable, Iterator

from adapter.core import cmqc as C  # noqa: N812 (the project-wide alias)
from adapter.core.model import Item
from adapter.core.reassembly import find_chain

_AFTER_ALL = float("inf")  # stamp larger than any: (pos, inf) sorts after every (pos, n)


class _PosIndex:
    """Sorted (pos, stamp) entries; an entry is live while its stamp is in `live`."""

    __slots__ = ("_entries", "_head", "_version", "_live", "_count")

    def __init__(self, live: dict[int, Item]) -> None:
        self._entries: list[tuple[tuple, int]] = []
        self._head = 0
        self._version = 0
        self._live = live
        self._count = 0

    def add(self, pos: tuple, stamp: int) -> None:
        entry = (pos, stamp)
        entries = self._entries
        if not entries or entries[-1] < entry:
            entries.append(entry)  # the usual case: arrival order
        else:
            insort(entries, entry)
            self._version += 1  # positions shifted: running iterators must re-find theirs
            i = bisect_right(entries, entry) - 1
            if i < self._head:
                self._head = i
        self._count += 1

    def removed(self) -> None:
        """One of this index's entries just died: trim the head, compact if worthwhile."""
        self._count -= 1
        entries, live = self._entries, self._live
        head = self._head
        while head < len(entries) and entries[head][1] not in live:
            head += 1
        self._head = head
        if len(entries) - self._count > max(1024, self._count):
            self._entries = [e for e in entries[head:] if e[1] in live]
            self._head = 0
            self._version += 1

    def __len__(self) -> int:
        return self._count

    def iter_after(self, after: tuple | None = None) -> Iterator[Item]:
        """Live items in pos order, only those with pos > `after` when given."""
        entries, version = self._entries, self._version
        i = self._start(entries, after)
        last: tuple[tuple, int] | None = None
        while True:
            if version != self._version:
                entries, version = self._entries, self._version
                i = self._start(entries, after) if last is None else bisect_right(entries, last)
            if i >= len(entries):
                return
            entry = entries[i]
            i += 1
            item = self._live.get(entry[1])
            if item is not None:
                last = entry
                yield item

    def _start(self, entries: list[tuple[tuple, int]], after: tuple | None) -> int:
        if after is None:
            return self._head
        return max(self._head, bisect_right(entries, (after, _AFTER_ALL)))


class QueueView:
    """The messages currently on a queue, indexed for MQGET selection."""

    def __init__(self) -> None:
        self._live: dict[int, Item] = {}  # stamp -> item
        self._stamp: dict[Hashable, int] = {}  # key -> stamp
        self._next_stamp = 0
        self._all = _PosIndex(self._live)
        self._firsts = _PosIndex(self._live)
        # group id -> seq -> offset -> items at that (group, seq, offset), by pos
        self._groups: dict[bytes, dict[int, dict[int, list[Item]]]] = {}
        self._group_complete: dict[bytes, bool] = {}
        self._msg_complete: dict[tuple[bytes, int], bool] = {}

    # -- contents -----------------------------------------------------------------

    def add(self, item: Item) -> None:
        """Add an item; an item with the same key replaces the old one."""
        if item.key in self._stamp:
            self.discard(item.key)
        stamp = self._next_stamp
        self._next_stamp += 1
        self._stamp[item.key] = stamp
        self._live[stamp] = item
        self._all.add(item.pos, stamp)
        if item.is_first:
            self._firsts.add(item.pos, stamp)
        if item.group_id != C.MQGI_NONE:
            offsets = self._groups.setdefault(item.group_id, {}).setdefault(item.seq, {})
            insort(offsets.setdefault(item.offset, []), item, key=_pos_of)
            self._invalidate(item)

    def discard(self, key: Hashable) -> Item | None:
        """Remove the item with this key (no error if absent); returns it."""
        stamp = self._stamp.pop(key, None)
        if stamp is None:
            return None
        item = self._live.pop(stamp)
        self._all.removed()
        if item.is_first:
            self._firsts.removed()
        if item.group_id != C.MQGI_NONE:
            self._unindex(item)
            self._invalidate(item)
        return item

    def get(self, key: Hashable) -> Item | None:
        stamp = self._stamp.get(key)
        return None if stamp is None else self._live[stamp]

    def __contains__(self, key: Hashable) -> bool:
        return key in self._stamp

    def __len__(self) -> int:
        return len(self._live)

    def __iter__(self) -> Iterator[Item]:
        return self._all.iter_after(None)

    @property
    def order_version(self) -> int:
        """Changes whenever an item lands before others (or the index is compacted): a
        position remembered as "nothing of interest before it" holds while this stays."""
        return self._all._version

    def iter_after(self, pos: tuple | None) -> Iterator[Item]:
        """Items physically after `pos` (all items when None), in physical order."""
        return self._all.iter_after(pos)

    def first_items(self, after: tuple | None = None) -> Iterator[Item]:
        """Items with MsgSeqNumber 1 and Offset 0 in physical order (after `pos` if given)."""
        return self._firsts.iter_after(after)

    # -- groups -------------------------------------------------------------------

    def members(self, group_id: bytes) -> list[Item]:
        """Every item of a group, by (MsgSeqNumber, Offset, pos)."""
        seqs = self._groups.get(group_id, {})
        return [
            item for seq in sorted(seqs) for off in sorted(seqs[seq]) for item in seqs[seq][off]
        ]

    def items_at(self, group_id: bytes, seq: int, offset: int) -> list[Item]:
        """The item(s) with this (GroupId, MsgSeqNumber, Offset), duplicates by pos."""
        items = self._groups.get(group_id, {}).get(seq, {}).get(offset)
        return list(items) if items else []

    def logical_message(self, group_id: bytes, seq: int) -> list[Item]:
        """The segments present of logical message (group, seq): one per Offset (the
        physically earliest of any duplicates), sorted by Offset."""
        offsets = self._groups.get(group_id, {}).get(seq, {})
        return [offsets[off][0] for off in sorted(offsets) if offsets[off]]

    def segment_chain(self, group_id: bytes, seq: int, start: int = 0) -> list[Item] | None:
        """Segments from Offset `start` to the last segment with no gap, or None.

        Follows offset + length only (duplicates with other lengths are tried too), so
        nothing is assumed about how the message was cut. From Offset 0, a message
        that is not a segment is complete by itself.
        """
        offsets = self._groups.get(group_id, {}).get(seq)
        if not offsets:
            return None
        if start == 0:
            for item in offsets.get(0, ()):
                if not item.is_segment:
                    return [item]

        def pieces_at(off: int) -> list[tuple[int, bool, Item]]:
            seen: set[tuple[int, bool]] = set()
            pieces = []
            for item in offsets.get(off, ()):
                shape = (item.length, item.last_segment)
                if item.is_segment and shape not in seen:
                    seen.add(shape)
                    pieces.append((item.length, item.last_segment, item))
            return pieces

        return find_chain(start, pieces_at)

    def message_complete(self, group_id: bytes, seq: int) -> bool:
        """All segments of logical message (group, seq) are present from Offset 0."""
        key = (group_id, seq)
        done = self._msg_complete.get(key)
        if done is None:
            if seq not in self._groups.get(group_id, {}):
                return False  # nothing to cache for an absent message
            done = self.segment_chain(group_id, seq, 0) is not None
            self._msg_complete[key] = done
        return done

    def group_complete(self, group_id: bytes) -> bool:
        """The last message (seq N) is present and logical messages 1..N are complete.

        A GroupId whose members are not in a group (a segmented message on its own) is
        a group of one: complete when its logical message is. MQGI_NONE is never
        indexed; messages without a group are complete groups of one.
        """
        if group_id == C.MQGI_NONE:
            return True
        done = self._group_complete.get(group_id)
        if done is None:
            if group_id not in self._groups:
                return False
            done = self._compute_group_complete(group_id)
            self._group_complete[group_id] = done
        return done

    def _compute_group_complete(self, group_id: bytes) -> bool:
        seqs = self._groups.get(group_id)
        if not seqs:
            return False
        members = [item for offs in seqs.values() for items in offs.values() for item in items]
        if not any(item.in_group for item in members):
            return self.message_complete(group_id, 1)
        last = [item.seq for item in members if item.last_in_group]
        if not last:
            return False
        return all(self.message_complete(group_id, n) for n in range(1, min(last) + 1))

    def _unindex(self, item: Item) -> None:
        seqs = self._groups[item.group_id]
        offsets = seqs[item.seq]
        items = offsets[item.offset]
        for i, other in enumerate(items):
            if other is item:
                del items[i]
                break
        if not items:
            del offsets[item.offset]
            if not offsets:
                del seqs[item.seq]
                if not seqs:
                    del self._groups[item.group_id]

    def _invalidate(self, item: Item) -> None:
        self._group_complete.pop(item.group_id, None)
        self._msg_complete.pop((item.group_id, item.seq), None)


def _pos_of(item: Item) -> tuple:
    return item.pos
