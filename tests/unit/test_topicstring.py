"""core/topicstring.py: combining, validation, both wildcard schemes, and the index
against a naive reference matcher (hypothesis)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adapter.core import cmqc as C
from adapter.core.topicstring import (
    SubscriptionIndex,
    Wildcard,
    combine,
    combine_error,
    matches,
    pattern_error,
)


@pytest.mark.parametrize(
    ("topicstr", "objstr", "full"),
    [  # IBM's "Topic string concatenation examples"
        ("Football/Scores", "", "Football/Scores"),
        ("", "Football/Scores", "Football/Scores"),
        ("Football", "Scores", "Football/Scores"),
        ("Football", "/Scores", "Football//Scores"),
        ("/Football", "Scores", "/Football/Scores"),
        (None, "a/b", "a/b"),
        ("Base", " x", "Base"),  # a part starting with a blank is absent
    ],
)
def test_combine(topicstr, objstr, full):
    assert combine(topicstr, objstr) == full


def test_combine_errors():
    assert combine_error(None, "") == C.MQRC_UNKNOWN_OBJECT_NAME
    assert combine_error("", "") == C.MQRC_TOPIC_STRING_ERROR  # SYSTEM.BASE.TOPIC alone
    assert combine_error("", "x") is None
    assert combine_error("a", "") is None
    assert combine_error(None, "x" * (C.MQ_TOPIC_STR_LENGTH + 1)) == C.MQRC_OBJECT_STRING_ERROR


@pytest.mark.parametrize(
    ("pattern", "topic", "hit"),
    [
        ("USA/Alaska/#", "USA/Alaska", True),
        ("USA/Alaska/#", "USA/Alaska/Juneau", True),
        ("USA/#", "USA", True),
        ("#", "a/b/c", True),
        ("#/Results", "IBM/Software/Results", True),
        ("#/Results", "Results", True),
        ("IBM/+/Results", "IBM/Software/Results", True),
        ("IBM/+/Results", "IBM/Results", False),
        ("IBM/+/Results", "IBM/a/b/Results", False),
        ("a/#/b", "a/b", True),
        ("a/#/b", "a/x/y/b", True),
        ("a/#/b", "a/x/y/c", False),
        ("a/b#", "a/bc", False),  # '#' in a level with other characters is a literal
        ("a/b#", "a/b#", True),
        ("+", "", True),  # one empty level
        ("+", "a/b", False),
        ("a", "a/", False),  # a trailing '/' is an empty level
    ],
)
def test_topic_wildcards(pattern, topic, hit):
    assert matches(pattern, topic) is hit
    idx = SubscriptionIndex()
    idx.add("k", pattern)
    assert (idx.match(topic) == {"k"}) is hit


@pytest.mark.parametrize(
    ("pattern", "topic", "hit"),
    [
        ("IBM/*ware/Results", "IBM/Software/Results", True),
        ("IBM/*ware/Results", "IBM/Hard/ware/Results", True),  # '*' crosses levels
        ("IBM/*", "IBM/a/b", True),
        ("a?c", "abc", True),
        ("a?c", "ac", False),
        ("a%*c", "a*c", True),
        ("a%*c", "abc", False),
        ("a/+", "a/b", False),  # '+' is a literal in the character scheme
    ],
)
def test_char_wildcards(pattern, topic, hit):
    assert matches(pattern, topic, Wildcard.CHAR) is hit
    idx = SubscriptionIndex()
    idx.add("k", pattern, Wildcard.CHAR)
    assert (idx.match(topic) == {"k"}) is hit


def test_char_escape_errors():
    assert pattern_error("a%b", Wildcard.CHAR) == C.MQRC_TOPIC_STRING_ERROR
    assert pattern_error("a%", Wildcard.CHAR) == C.MQRC_TOPIC_STRING_ERROR
    assert pattern_error("a%%", Wildcard.CHAR) is None
    assert pattern_error("a%b", Wildcard.TOPIC) is None


def test_index_remove_prunes_and_keeps_others():
    idx = SubscriptionIndex()
    idx.add("1", "a/+/c")
    idx.add("2", "a/#")
    idx.add("3", "a/b/c")
    idx.add("4", "a/*", Wildcard.CHAR)
    assert idx.match("a/b/c") == {"1", "2", "3", "4"}
    idx.remove("2")
    idx.remove("4")
    idx.remove("missing")
    assert idx.match("a/b/c") == {"1", "3"}
    idx.remove("1")
    idx.remove("3")
    assert len(idx) == 0 and idx.match("a/b/c") == set()
    assert idx._root.children == {}


# -- reference matcher ------------------------------------------------------------------
def _reference_topic(pattern: str, topic: str) -> bool:
    """Dynamic programming over levels, written independently of the module:
    ok[i][j] = the first i pattern levels match the first j topic levels."""
    pat, top = pattern.split("/"), topic.split("/")
    ok = [[False] * (len(top) + 1) for _ in range(len(pat) + 1)]
    ok[0][0] = True
    for i, level in enumerate(pat):
        for j in range(len(top) + 1):
            if level == "#":
                ok[i + 1][j] = any(ok[i][k] for k in range(j + 1))
            elif j < len(top):
                ok[i + 1][j + 1] = ok[i][j] and level in ("+", top[j])
    return ok[len(pat)][len(top)]


_level = st.sampled_from(["a", "b", "", "ab", "#", "+", "a#"])
_pat_levels = st.lists(_level, min_size=1, max_size=5)
_topic_levels = st.lists(st.sampled_from(["a", "b", "", "ab", "a#", "c"]), min_size=1, max_size=6)


@settings(max_examples=400)
@given(_pat_levels, _topic_levels)
def test_levels_against_reference(pat, top):
    pattern, topic = "/".join(pat), "/".join(top)
    assert matches(pattern, topic) == _reference_topic(pattern, topic), (pattern, topic)


@settings(max_examples=200)
@given(
    st.lists(st.tuples(_pat_levels, st.booleans()), min_size=0, max_size=12),
    st.lists(_topic_levels, min_size=1, max_size=5),
)
def test_index_equals_naive_scan(subs, topics):
    idx = SubscriptionIndex()
    table = {}
    for n, (levels, char) in enumerate(subs):
        pattern = "/".join(levels).replace("+", "?") if char else "/".join(levels)
        wc = Wildcard.CHAR if char else Wildcard.TOPIC
        if pattern_error(pattern, wc) is not None:
            continue
        idx.add(str(n), pattern, wc)
        table[str(n)] = (pattern, wc)
    for levels in topics:
        topic = "/".join(levels)
        naive = {k for k, (p, wc) in table.items() if matches(p, topic, wc)}
        assert idx.match(topic) == naive
    for k in list(table)[::2]:
        idx.remove(k)
        del table[k]
    for levels in topics:
        topic = "/".join(levels)
        assert idx.match(topic) == {k for k, (p, wc) in table.items() if matches(p, topic, wc)}
