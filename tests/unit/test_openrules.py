"""MQOPEN option rules and the MQPUT context rules (IBM: Rules for validating MQI
options; MQOPEN Options; reason codes 2093-2097), checked over random combinations."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from adapter.core import cmqc as C
from adapter.core import openrules as R

OPEN_BITS = [
    C.MQOO_INPUT_AS_Q_DEF, C.MQOO_INPUT_SHARED, C.MQOO_INPUT_EXCLUSIVE, C.MQOO_BROWSE,
    C.MQOO_OUTPUT, C.MQOO_INQUIRE, C.MQOO_SET, C.MQOO_SAVE_ALL_CONTEXT,
    C.MQOO_PASS_IDENTITY_CONTEXT, C.MQOO_PASS_ALL_CONTEXT, C.MQOO_SET_IDENTITY_CONTEXT,
    C.MQOO_SET_ALL_CONTEXT, C.MQOO_FAIL_IF_QUIESCING, C.MQOO_READ_AHEAD, C.MQOO_NO_READ_AHEAD,
    C.MQOO_BIND_ON_OPEN, C.MQOO_BIND_NOT_FIXED,
]  # fmt: skip
PUT_CONTEXT_BITS = [
    C.MQPMO_NO_CONTEXT, C.MQPMO_PASS_IDENTITY_CONTEXT, C.MQPMO_PASS_ALL_CONTEXT,
    C.MQPMO_SET_IDENTITY_CONTEXT, C.MQPMO_SET_ALL_CONTEXT,
]  # fmt: skip


def combine(bits: list[int]) -> int:
    out = 0
    for b in bits:
        out |= b
    return out


options = st.lists(st.sampled_from(OPEN_BITS), max_size=6).map(combine)
put_options = st.lists(st.sampled_from(PUT_CONTEXT_BITS), max_size=3).map(combine)


@given(options)
def test_open_answers_only_options_error_and_follows_each_rule(opts: int) -> None:
    reason = R.open_options_error(opts)
    inputs = bin(opts & R.INPUT).count("1")
    access = opts & (R.INPUT | C.MQOO_BROWSE | C.MQOO_OUTPUT | C.MQOO_INQUIRE | C.MQOO_SET)
    bind = opts & (C.MQOO_BIND_ON_OPEN | C.MQOO_BIND_NOT_FIXED)
    broken = (
        not (access or bind)
        or inputs > 1
        or bin(bind).count("1") > 1
        or (opts & C.MQOO_READ_AHEAD and opts & C.MQOO_NO_READ_AHEAD)
        or (opts & C.MQOO_SAVE_ALL_CONTEXT and not inputs)
        or (R.needs_context_authority(opts) and not opts & C.MQOO_OUTPUT)
    )
    assert reason == (C.MQRC_OPTIONS_ERROR if broken else None)


@given(put_options, options)
def test_put_context_needs_one_option_and_the_matching_open_option(put: int, opened: int) -> None:
    reason = R.put_context_error(put, opened)
    if bin(put).count("1") > 1:
        assert reason == C.MQRC_OPTIONS_ERROR
        return
    granted = R.effective_context_options(opened)
    need = {
        C.MQPMO_SET_ALL_CONTEXT: (C.MQOO_SET_ALL_CONTEXT, C.MQRC_NOT_OPEN_FOR_SET_ALL),
        C.MQPMO_SET_IDENTITY_CONTEXT: (
            C.MQOO_SET_IDENTITY_CONTEXT,
            C.MQRC_NOT_OPEN_FOR_SET_IDENT,
        ),
        C.MQPMO_PASS_ALL_CONTEXT: (C.MQOO_PASS_ALL_CONTEXT, C.MQRC_NOT_OPEN_FOR_PASS_ALL),
        C.MQPMO_PASS_IDENTITY_CONTEXT: (
            C.MQOO_PASS_IDENTITY_CONTEXT,
            C.MQRC_NOT_OPEN_FOR_PASS_IDENT,
        ),
    }.get(put)
    expected = None if need is None or granted & need[0] else need[1]
    assert reason == expected
    # MQPUT1 opens with what the put needs: only the combination can be wrong.
    assert R.put_context_error(put, 0, put1=True) is None


def test_context_options_imply_the_weaker_ones() -> None:
    granted = R.effective_context_options(C.MQOO_SET_ALL_CONTEXT)
    for option in (
        C.MQOO_SET_IDENTITY_CONTEXT,
        C.MQOO_PASS_ALL_CONTEXT,
        C.MQOO_PASS_IDENTITY_CONTEXT,
    ):
        assert granted & option
    assert not R.effective_context_options(C.MQOO_SET_IDENTITY_CONTEXT) & C.MQOO_SET_ALL_CONTEXT
    assert R.put_context_error(C.MQPMO_PASS_ALL_CONTEXT, C.MQOO_SET_IDENTITY_CONTEXT) == (
        C.MQRC_NOT_OPEN_FOR_PASS_ALL
    )
    assert R.put1_open_options(C.MQPMO_SET_ALL_CONTEXT) == C.MQOO_OUTPUT | C.MQOO_SET_ALL_CONTEXT


def test_input_exclusivity_follows_options_share_and_defsopt() -> None:
    ex, sh, qdef = C.MQOO_INPUT_EXCLUSIVE, C.MQOO_INPUT_SHARED, C.MQOO_INPUT_AS_Q_DEF
    assert R.input_exclusive(C.MQOO_OUTPUT, True, True) is None
    assert R.input_exclusive(ex, True, False) is True
    assert R.input_exclusive(sh, True, True) is False
    assert R.input_exclusive(sh, False, False) is True  # NOSHARE: every input is exclusive
    assert R.input_exclusive(qdef, True, True) is True  # DEFSOPT(EXCL)
    assert R.input_exclusive(qdef, True, False) is False  # DEFSOPT(SHARED)
