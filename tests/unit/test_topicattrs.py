"""core/topicattrs.py: ASPARENT resolution through the topic tree, WILDCARD(BLOCK),
and the MQSC values of each attribute."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adapter.core import cmqc as C
from adapter.core import topicattrs as TA  # noqa: N812
from adapter.core.topicstring import Wildcard, matches


def test_base_values_are_ibms():
    eff = TA.resolve([], TA.BASE_VALUES)
    assert eff["def_priority"] == 0 and eff["def_persistence"] == C.MQPER_NOT_PERSISTENT
    assert eff["def_put_response"] == C.MQPRT_SYNC_RESPONSE
    assert eff.durable_allowed and not eff.pub_inhibited and not eff.sub_inhibited
    assert eff["model_durable_q"] == "SYSTEM.DURABLE.MODEL.QUEUE"
    assert eff["model_non_durable_q"] == "SYSTEM.NDURABLE.MODEL.QUEUE"
    assert eff["npm_delivery"] == C.MQDLV_ALL_AVAIL and eff["pm_delivery"] == C.MQDLV_ALL_DUR
    # A base altered to ASPARENT everywhere falls back to the same defaults.
    assert TA.resolve([], dict(TA.NEW_OBJECT)).values == eff.values


def test_ancestors():
    assert TA.ancestors("a/b/c") == ["a/b/c", "a/b", "a"]
    assert TA.ancestors("a//b") == ["a//b", "a/", "a"]


_VALUE = {a.field: st.sampled_from([a.as_parent, a.default]) for a in TA.INHERITED}


@given(st.lists(st.fixed_dictionaries(_VALUE), max_size=4), st.fixed_dictionaries(_VALUE))
def test_closest_explicit_value_wins(chain, base):
    """Each attribute is the first node's (closest first, base last) that is not
    ASPARENT; IBM's default when all are."""
    nodes = [{**n, "wildcard_operation": C.MQTA_PASSTHRU} for n in chain]
    eff = TA.resolve(nodes, {**base, "wildcard_operation": C.MQTA_PASSTHRU})
    for attr in TA.INHERITED:
        explicit = [n[attr.field] for n in [*chain, base] if n[attr.field] != attr.as_parent]
        assert eff[attr.field] == (explicit[0] if explicit else attr.default)


@pytest.mark.parametrize(
    ("pattern", "wildcard", "is_blocked"),
    [
        ("#", Wildcard.TOPIC, True),
        ("a/#", Wildcard.TOPIC, True),
        ("a/+/c", Wildcard.TOPIC, True),
        ("a/b/#", Wildcard.TOPIC, False),  # below the node: not less specific
        ("a/b/+", Wildcard.TOPIC, False),
        ("a/b/c", Wildcard.TOPIC, False),  # no wildcard
        ("a/b#", Wildcard.TOPIC, False),  # '#' inside a level is a literal
        ("a*", Wildcard.CHAR, True),
        ("a/b*", Wildcard.CHAR, True),
        ("a/b/*", Wildcard.CHAR, False),
        ("a/b/%*", Wildcard.CHAR, False),  # an escaped '*' is a literal
    ],
)
def test_blocked_by_a_block_node(pattern, wildcard, is_blocked):
    assert TA.blocked(pattern, wildcard, ("a/b",)) is is_blocked
    assert TA.blocked(pattern, wildcard, ()) is False


_LEVEL = st.sampled_from(["a", "b", "c"])


@given(st.lists(_LEVEL, min_size=1, max_size=3), st.lists(_LEVEL, min_size=0, max_size=2),
       st.lists(st.sampled_from(["a", "b", "+", "#"]), min_size=1, max_size=4))  # fmt: skip
def test_block_keeps_out_exactly_the_broader_wildcards(node, rest, pattern_levels):
    """Reference: a topic-wildcard subscription matching a publication at or below a
    BLOCK node is kept out iff some topic string it matches is outside the node's
    subtree while the node's own level prefix is not entirely literal in it."""
    node_s = "/".join(node)
    topic = "/".join(node + rest)
    pattern = "/".join(pattern_levels)
    if not matches(pattern, topic):
        return
    literal = []
    for lv in pattern_levels:
        if lv in ("+", "#"):
            break
        literal.append(lv)
    has_wild = len(literal) < len(pattern_levels)
    expected = has_wild and len(literal) < len(node)
    assert TA.blocked(pattern, Wildcard.TOPIC, (node_s,)) is expected


@pytest.mark.parametrize("attr", TA.ATTRIBUTES, ids=lambda a: a.keyword)
def test_mqsc_values_round_trip(attr):
    values = list(attr.words.values()) if attr.words else [attr.as_parent, attr.default]
    for value in values:
        shown = attr.mqsc(value)
        assert attr.parse(shown.strip() if attr.length else shown) == value
    with pytest.raises(ValueError):
        attr.parse("NOT.A.VALUE.AT.ALL" * (4 if attr.length else 1))
