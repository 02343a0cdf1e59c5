"""Topic strings: how MQ forms them, which ones it refuses, and which subscriptions a
publication's topic string matches (no I/O).

- Combining a topic object's TOPICSTR with the application's ObjectString ("Combining
  topic strings", <https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.tec.doc/q005040_.html>;
  "Using topic strings", <https://www.ibm.com/docs/SSFKSJ_7.5.0/com.ibm.mq.ref.dev.doc/q100210_.html>):
  a part is present when it is not empty and its first character is neither a blank nor
  a null; one part present is used unchanged; both are joined with one '/' between
  them ('Football' + '/Scores' is 'Football//Scores', an empty node); neither is
  MQRC_UNKNOWN_OBJECT_NAME, and a topic object whose TOPICSTR is empty without an
  ObjectString is MQRC_TOPIC_STRING_ERROR (2425,
  <https://www.ibm.com/support/knowledgecenter/SSFKSJ_8.0.0/com.ibm.mq.ref.doc/q044480_.html>).
  ObjectString is at most MQ_TOPIC_STR_LENGTH (10240) long, else
  MQRC_OBJECT_STRING_ERROR (2441, MQOD ObjectString).
- Topic-based wildcards (MQSO_WILDCARD_TOPIC, the default; "Topic-based wildcard
  scheme", <https://ibm.com/support/knowledgecenter/en/SSFKSJ_7.5.0/com.ibm.mq.pla.doc/q005020_.htm>):
  a level that is exactly '#' matches zero or more levels, a level that is exactly '+'
  matches one level; '#' or '+' mixed with other characters in a level are literals,
  and a publisher's topic string has no wildcards at all.
- Character-based wildcards (MQSO_WILDCARD_CHAR; "Wildcard schemes",
  <https://ibm.com/docs/SSFKSJ_7.5.0/com.ibm.mq.pla.doc/q005010_.html>): '*' matches
  any run of characters ('/' included), '?' one character, '%' escapes '*', '?' or
  '%'; '%' before anything else is MQRC_TOPIC_STRING_ERROR.

`SubscriptionIndex` finds the subscriptions a topic string matches at a cost that grows
with the topic's depth and the matches, not with the number of subscriptions: topic
wildcard patterns live in a trie over levels; character patterns are filed under their
literal prefix (the characters before the first wildcard), so a match looks up the
topic's prefixes (one dict probe per character) and tests only the patterns filed there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum

from adapter.core import cmqc as C

SEPARATOR = "/"
MULTI = "#"
SINGLE = "+"


class Wildcard(Enum):
    TOPIC = "topic"  # MQSO_WILDCARD_TOPIC (the default)
    CHAR = "char"  # MQSO_WILDCARD_CHAR


def wildcard_of(options: int) -> Wildcard:
    return Wildcard.CHAR if options & C.MQSO_WILDCARD_CHAR else Wildcard.TOPIC


def _present(part: str) -> bool:
    return bool(part) and part[0] not in (" ", "\0")


def combine(topic_object_string: str | None, object_string: str) -> str:
    """The full topic string of an MQOPEN / MQSUB: `topic_object_string` is the TOPICSTR
    of the topic object named in ObjectName (None: no ObjectName), `object_string` the
    ObjectString. Raises nothing: `combine_error` says what MQ refuses."""
    base = topic_object_string.rstrip(" ") if topic_object_string else ""
    if _present(base) and _present(object_string):
        return f"{base}{SEPARATOR}{object_string}"
    return base if _present(base) else object_string


def combine_error(topic_object_string: str | None, object_string: str) -> int | None:
    """MQ's reason for a topic string it cannot form (None: it can)."""
    if len(object_string) > C.MQ_TOPIC_STR_LENGTH:
        return C.MQRC_OBJECT_STRING_ERROR
    if _present(object_string):
        return None
    if topic_object_string is None:
        return C.MQRC_UNKNOWN_OBJECT_NAME  # neither field has a value
    if not _present(topic_object_string.rstrip(" ")):
        return C.MQRC_TOPIC_STRING_ERROR  # a topic object with an empty TOPICSTR, alone
    return None


def pattern_error(pattern: str, wildcard: Wildcard) -> int | None:
    """MQRC_TOPIC_STRING_ERROR for a character pattern with a '%' that escapes nothing
    MQ lets it escape; topic wildcard patterns are all valid."""
    if wildcard is Wildcard.CHAR:
        i = 0
        while i < len(pattern):
            if pattern[i] == "%":
                if i + 1 >= len(pattern) or pattern[i + 1] not in "*?%":
                    return C.MQRC_TOPIC_STRING_ERROR
                i += 1
            i += 1
    return None


def _char_regex(pattern: str) -> re.Pattern[str]:
    out = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "%" and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        out.append(".*" if ch == "*" else "." if ch == "?" else re.escape(ch))
        i += 1
    return re.compile("".join(out), re.DOTALL)


def _literal_prefix(pattern: str) -> str:
    """The characters a character pattern's matches all start with."""
    out = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch in "*?":
            break
        if ch == "%" and i + 1 < len(pattern):
            out.append(pattern[i + 1])
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def matches(pattern: str, topic: str, wildcard: Wildcard = Wildcard.TOPIC) -> bool:
    """Whether a subscription's topic string `pattern` matches a publication's `topic`."""
    if wildcard is Wildcard.CHAR:
        return _char_regex(pattern).fullmatch(topic) is not None
    return _levels_match(pattern.split(SEPARATOR), topic.split(SEPARATOR))


def _levels_match(pat: list[str], top: list[str]) -> bool:
    if not pat:
        return not top
    head = pat[0]
    if head == MULTI:
        return any(_levels_match(pat[1:], top[k:]) for k in range(len(top) + 1))
    if not top:
        return False
    return (head == SINGLE or head == top[0]) and _levels_match(pat[1:], top[1:])


@dataclass
class _Node:
    children: dict[str, _Node] = field(default_factory=dict)
    keys: set[str] = field(default_factory=set)


@dataclass
class _CharEntry:
    pattern: str
    regex: re.Pattern[str]
    keys: set[str] = field(default_factory=set)


class SubscriptionIndex:
    """Subscription keys by topic pattern. Not thread-safe: its owner serialises."""

    def __init__(self) -> None:
        self._root = _Node()
        self._chars: dict[str, dict[str, _CharEntry]] = {}  # prefix -> pattern -> entry
        self._of: dict[str, tuple[str, Wildcard]] = {}

    def __len__(self) -> int:
        return len(self._of)

    def add(self, key: str, pattern: str, wildcard: Wildcard = Wildcard.TOPIC) -> None:
        if key in self._of:
            self.remove(key)
        self._of[key] = (pattern, wildcard)
        if wildcard is Wildcard.CHAR:
            by_pattern = self._chars.setdefault(_literal_prefix(pattern), {})
            entry = by_pattern.get(pattern)
            if entry is None:
                entry = by_pattern[pattern] = _CharEntry(pattern, _char_regex(pattern))
            entry.keys.add(key)
            return
        node = self._root
        for level in pattern.split(SEPARATOR):
            node = node.children.setdefault(level, _Node())
        node.keys.add(key)

    def remove(self, key: str) -> None:
        found = self._of.pop(key, None)
        if found is None:
            return
        pattern, wildcard = found
        if wildcard is Wildcard.CHAR:
            prefix = _literal_prefix(pattern)
            by_pattern = self._chars[prefix]
            by_pattern[pattern].keys.discard(key)
            if not by_pattern[pattern].keys:
                del by_pattern[pattern]
                if not by_pattern:
                    del self._chars[prefix]
            return
        path = [self._root]
        levels = pattern.split(SEPARATOR)
        for level in levels:
            path.append(path[-1].children[level])
        path[-1].keys.discard(key)
        for i in range(len(levels), 0, -1):  # prune empty branches
            node = path[i]
            if node.keys or node.children:
                break
            del path[i - 1].children[levels[i - 1]]

    def match(self, topic: str) -> set[str]:
        """The keys whose pattern matches the publication topic string `topic`."""
        out: set[str] = set()
        levels = topic.split(SEPARATOR)
        seen: set[tuple[int, int]] = set()  # (node, level): '#' paths meet again
        stack = [(self._root, 0)]
        while stack:
            node, i = stack.pop()
            mark = (id(node), i)
            if mark in seen:
                continue
            seen.add(mark)
            multi = node.children.get(MULTI)
            if multi is not None:
                # '#' takes zero or more levels: continue after it at every depth.
                stack.extend((multi, j) for j in range(i, len(levels) + 1))
            if i == len(levels):
                out |= node.keys
                continue
            exact = node.children.get(levels[i])
            if exact is not None:
                stack.append((exact, i + 1))
            single = node.children.get(SINGLE)
            if single is not None:
                stack.append((single, i + 1))
        if self._chars:
            for k in range(len(topic) + 1):
                by_pattern = self._chars.get(topic[:k])
                if by_pattern:
                    for entry in by_pattern.values():
                        if entry.regex.fullmatch(topic) is not None:
                            out |= entry.keys
        return out
