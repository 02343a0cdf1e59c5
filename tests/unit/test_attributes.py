"""The MQINQ / MQSET attribute table and its rules (adapter/core/attributes.py), over
generated selector lists and object kinds."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from adapter.core import attributes as A
from adapter.core import cmqc as C

KINDS = [A.QMGR, A.LOCAL, A.MODEL, A.ALIAS, A.REMOTE]
KNOWN = sorted(A.ATTRIBUTES)
# Integers that are no selector of the table (MQIA_* and MQCA_* ranges and beyond).
UNKNOWN = st.integers(-5, 5000).filter(lambda s: s not in A.ATTRIBUTES)


def _queue_object(kind: int) -> bool:
    return kind != A.QMGR


@given(st.sampled_from(KINDS), st.lists(st.sampled_from(KNOWN), max_size=40))
def test_known_selectors_are_answered_marked_or_refused_by_object_type(kind, selectors) -> None:
    plan = A.inquire_plan(kind, selectors)
    other_object = [
        s
        for s in selectors
        if not (
            A.QMGR in A.ATTRIBUTES[s].objects
            if kind == A.QMGR
            else A.ATTRIBUTES[s].objects & A.QUEUE_KINDS
        )
    ]
    if other_object:  # a queue manager selector on a queue, or the reverse: 2067
        assert plan.reason == C.MQRC_SELECTOR_ERROR
        return
    assert plan.reason is None
    assert sorted(plan.applicable + plan.not_applicable) == sorted(selectors)
    assert all(kind in A.ATTRIBUTES[s].objects for s in plan.applicable)
    assert all(kind not in A.ATTRIBUTES[s].objects for s in plan.not_applicable)
    assert plan.warning == (C.MQRC_SELECTOR_NOT_FOR_TYPE if plan.not_applicable else None)
    if kind == A.QMGR:  # 2068 is about queue types only
        assert not plan.not_applicable


@given(st.sampled_from(KINDS), st.lists(st.sampled_from(KNOWN), max_size=10), UNKNOWN)
def test_an_unknown_selector_anywhere_fails_the_call(kind, selectors, unknown) -> None:
    for at in range(len(selectors) + 1):
        listed = selectors[:at] + [unknown] + selectors[at:]
        assert A.inquire_plan(kind, listed).reason == C.MQRC_SELECTOR_ERROR


@given(st.sampled_from(KINDS), st.integers(A.MAX_SELECTORS + 1, A.MAX_SELECTORS + 50))
def test_more_than_256_selectors_is_the_limit_error(kind, n) -> None:
    selectors = [C.MQIA_Q_TYPE if kind != A.QMGR else C.MQIA_PLATFORM] * n
    assert A.inquire_plan(kind, selectors).reason == C.MQRC_SELECTOR_LIMIT_EXCEEDED
    assert A.set_error(kind, C.MQOO_SET, dict.fromkeys(range(n), 0)) == (
        C.MQRC_SELECTOR_LIMIT_EXCEEDED
    )


def test_not_applicable_values_are_mq_s() -> None:
    assert A.not_applicable(C.MQIA_BASE_TYPE) == C.MQIAV_NOT_APPLICABLE
    assert A.not_applicable(C.MQCA_BASE_Q_NAME) == b"*" * C.MQ_Q_NAME_LENGTH
    plan = A.inquire_plan(A.LOCAL, [C.MQCA_BASE_Q_NAME, C.MQIA_CURRENT_Q_DEPTH])
    assert plan.not_applicable == (C.MQCA_BASE_Q_NAME,)


SETTABLE_ON_LOCAL = [s for s, a in A.ATTRIBUTES.items() if A.LOCAL in a.settable_on]


def _valid(selector: int) -> int | bytes:
    return {C.MQCA_TRIGGER_DATA: b"data", C.MQIA_TRIGGER_DEPTH: 3}.get(selector, 1)


@given(st.sets(st.sampled_from(SETTABLE_ON_LOCAL)), st.sampled_from(KINDS))
def test_mqset_needs_mqoo_set_first(selectors, kind) -> None:
    values = {s: _valid(s) for s in selectors}
    assert A.set_error(kind, C.MQOO_INQUIRE | C.MQOO_OUTPUT, values) == C.MQRC_NOT_OPEN_FOR_SET


@given(st.sets(st.sampled_from(SETTABLE_ON_LOCAL)))
def test_the_settable_attributes_of_a_local_queue_take_their_values(selectors) -> None:
    assert A.set_error(A.LOCAL, C.MQOO_SET, {s: _valid(s) for s in selectors}) is None


@given(st.sampled_from([s for s in KNOWN if s not in SETTABLE_ON_LOCAL]))
def test_a_selector_mqset_cannot_set_is_2067(selector) -> None:
    value = b"x" if A.ATTRIBUTES[selector].is_char else 1
    assert A.set_error(A.LOCAL, C.MQOO_SET, {selector: value}) == C.MQRC_SELECTOR_ERROR


def test_inhibit_get_is_not_settable_on_a_remote_queue_nor_anything_on_the_qmgr() -> None:
    assert A.set_error(A.REMOTE, C.MQOO_SET, {C.MQIA_INHIBIT_GET: 1}) == C.MQRC_SELECTOR_ERROR
    assert A.set_error(A.REMOTE, C.MQOO_SET, {C.MQIA_INHIBIT_PUT: 1}) is None
    assert A.set_error(A.QMGR, C.MQOO_SET, {C.MQIA_INHIBIT_PUT: 1}) == C.MQRC_SELECTOR_ERROR


def test_mqset_value_errors_are_ibms_reason_codes() -> None:
    cases = {
        C.MQIA_INHIBIT_GET: (2, C.MQRC_INHIBIT_VALUE_ERROR),
        C.MQIA_INHIBIT_PUT: (-1, C.MQRC_INHIBIT_VALUE_ERROR),
        C.MQIA_TRIGGER_CONTROL: (7, C.MQRC_TRIGGER_CONTROL_ERROR),
        C.MQIA_TRIGGER_TYPE: (4, C.MQRC_TRIGGER_TYPE_ERROR),
        C.MQIA_TRIGGER_DEPTH: (0, C.MQRC_TRIGGER_DEPTH_ERROR),
        C.MQIA_TRIGGER_MSG_PRIORITY: (10, C.MQRC_TRIGGER_MSG_PRIORITY_ERR),
        C.MQCA_TRIGGER_DATA: (b"x" * 65, C.MQRC_CHAR_ATTR_LENGTH_ERROR),
    }
    for selector, (value, reason) in cases.items():
        assert A.set_error(A.LOCAL, C.MQOO_SET, {selector: value}) == reason, selector
        # No partial completion: one bad value refuses the whole call.
        assert A.set_error(A.LOCAL, C.MQOO_SET, {C.MQIA_TRIGGER_DEPTH: 2, selector: value})
    assert A.set_error(A.LOCAL, C.MQOO_SET, {}) is None  # zero selectors is valid


def test_object_kinds_follow_the_queue_type() -> None:
    assert A.object_kind(None) == C.MQOT_Q_MGR
    assert A.object_kind(C.MQQT_LOCAL) == C.MQOT_LOCAL_Q
    assert A.object_kind(C.MQQT_ALIAS) == C.MQOT_ALIAS_Q
    assert all(a.length in (0, 8, 48, 64) for a in A.ATTRIBUTES.values())
