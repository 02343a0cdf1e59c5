"""Message selectors (adapter/core/selector.py) against IBM's "Message selector syntax"
and "Selection behavior" pages: literals, operators, three-valued logic, the reason
codes MQOPEN gives, and (property-based) precedence and evaluation against a model."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adapter.core import cmqc as C
from adapter.core.errors import MQMIError
from adapter.core.selector import compile_selector

MSG = {
    "color": "red",
    "size": 10,
    "weight": 2.5,
    "ok": True,
    "off": False,
    "myBytes": bytes.fromhex("0AFC23"),
    "Root.MQMD.Priority": 5,
    "usr.region": "EMEA",
}


def selects(text: str, msg: dict | None = None) -> bool:
    sel = compile_selector(text)
    assert sel is not None
    return sel.matches((MSG if msg is None else msg).get)


def reason(text) -> int:
    with pytest.raises(MQMIError) as err:
        compile_selector(text)
    assert err.value.comp == C.MQCC_FAILED
    return err.value.reason


@pytest.mark.parametrize(
    "text, expected",
    [
        # strings: single quotes, '' is a quote, case-sensitive values
        ("color = 'red'", True),
        ("color = 'RED'", False),
        ("color <> 'blue'", True),
        ("'it''s' = 'it''s' AND color = 'red'", True),
        # numbers: exact, L suffix, hexadecimal, octal, approximate, mixed int/float
        ("size = 10", True),
        ("size = 10L", True),
        ("size = 0xA", True),
        ("size = 0XA", True),
        ("size = 012", True),
        ("size = 1e1", True),
        ("size = 10.0", True),
        ("weight > 2", True),
        ("weight = 2.5", True),
        ("weight < .3e1", True),
        ("size >= 10 AND size <= 10", True),
        ("size > 10", False),
        # arithmetic, with Java's integer division
        ("size * 2 + 1 = 21", True),
        ("size / 3 = 3", True),
        ("-size = -10", True),
        ("size - -2 = 12", True),
        ("size / 0 = 1", False),  # division by zero is unknown
        # identifiers are case-sensitive, keywords are not
        ("Size = 10", False),
        ("size = 10 and color = 'red'", True),
        ("size = 10 AnD NoT color = 'blue'", True),
        # BETWEEN, IN, LIKE with ESCAPE, IS NULL
        ("size BETWEEN 5 AND 10", True),
        ("size NOT BETWEEN 5 AND 10", False),
        ("size BETWEEN 11 AND 20 OR color = 'red'", True),
        ("color IN ('red', 'green')", True),
        ("color NOT IN ('red', 'green')", False),
        ("color LIKE 'r_d'", True),
        ("color LIKE 're%'", True),
        ("color LIKE 'R%'", False),
        ("color NOT LIKE 'b%'", True),
        (r"color LIKE 'r\%' ESCAPE '\'", False),
        ("color IS NOT NULL", True),
        ("missing IS NULL", True),
        ("missing IS NOT NULL", False),
        # booleans: as a predicate and compared with = / <>
        ("ok", True),
        ("off", False),
        ("NOT off", True),
        ("ok = TRUE AND off <> TRUE", True),
        # byte strings: whole bytes, order and zeros significant (IBM's own examples)
        ('myBytes = 0x"0AFC23"', True),
        ('myBytes = 0x"0AFC2300"', False),
        ('myBytes = 0x"000AFC23"', False),
        ('myBytes = 0x"23FC0A"', False),
        # message descriptor fields and folder-qualified names are identifiers
        ("Root.MQMD.Priority >= 5", True),
        ("usr.region = 'EMEA'", True),
        # parentheses change the order
        ("(color = 'blue' OR size = 10) AND ok", True),
        ("color = 'blue' OR size = 10 AND off", False),
        ("(size > 1) = TRUE", True),
    ],
)
def test_selector_evaluates_as_ibm_documents(text, expected):
    assert selects(text) is expected


@pytest.mark.parametrize(
    "text",
    [
        "missing = 1",  # a property the message does not have is NULL: unknown
        "NOT missing = 1",  # NOT unknown is unknown
        "missing = 1 OR missing <> 1",
        "color = 10",  # different types never compare: unknown, not an error
        "size = '10'",
        "ok = 1",
        "color < 'z'",  # strings compare with = and <> only
        "ok > off",
        "color + 1 = 2",  # arithmetic on a string is unknown
        "missing LIKE 'a%'",
        "size LIKE 'a%'",
        "missing IN ('a')",
        "missing BETWEEN 1 AND 2",
        "NOT missing BETWEEN 1 AND 2",
        "size",  # a number is not a predicate
    ],
)
def test_unknown_never_selects(text):
    assert selects(text) is False


def test_unknown_or_true_is_true_and_unknown_and_false_is_false():
    assert selects("missing = 1 OR size = 10") is True
    assert selects("NOT (missing = 1 AND size = 11)") is True


@pytest.mark.parametrize(
    "text",
    [
        "color ==",
        "color = 'red",  # unterminated string
        'color = "red"',  # double quotes do not enclose strings
        "09 = size",  # 9 is not an octal digit
        'myBytes = 0x"AFC23"',  # not a whole number of bytes
        'myBytes = 0x""',
        "size BETWEEN 1",
        "color IN ()",
        "color IN (size)",  # IN takes literals
        "color LIKE size",  # LIKE takes a string literal
        "color LIKE 'a' ESCAPE 'ab'",  # the escape is one character
        "color LIKE 'a\\' ESCAPE '\\'",  # an escape with nothing to escape
        "and = 1",  # reserved words are not identifiers
        "NULL = 1",
        "1size = 1",
        "(size = 1",
        "size = 1)",
        "size = 1 size = 2",
        "size IS 1",
    ],
)
def test_syntax_errors_give_2459(text):
    assert reason(text) == C.MQRC_SELECTOR_SYNTAX_ERROR


@pytest.mark.parametrize("text", ["1 = 2", "FALSE", "'a' = 'b'", "1 = 1 AND FALSE", "1 / 0 = 1"])
def test_false_before_any_property_gives_2504(text):
    assert reason(text) == C.MQRC_SELECTOR_ALWAYS_FALSE


@pytest.mark.parametrize("text", ["TRUE", "1 = 1", "TRUE <> FALSE", "'a' = 'a' OR FALSE"])
def test_true_before_any_property_selects_everything(text):
    sel = compile_selector(text)
    assert sel is not None and not sel.identifiers
    assert sel.matches({}.get)


@pytest.mark.parametrize("text", [None, "", "   ", b"", "\0" * 4])
def test_a_null_or_blank_selection_string_is_no_selection(text):
    assert compile_selector(text) is None


def test_a_selection_string_past_mq_selector_length_gives_2519():
    longest = "size = 1" + " " * (C.MQ_SELECTOR_LENGTH - len("size = 1"))
    assert compile_selector(longest) is not None
    assert reason(longest + " ") == C.MQRC_SELECTION_STRING_ERROR
    assert reason(b"size = '\xff'") == C.MQRC_SELECTION_STRING_ERROR  # not UTF-8


def test_bytes_selection_strings_are_utf8():
    assert compile_selector("color = 'r\u00e9d'").matches({"color": "r\u00e9d"}.get)
    assert compile_selector("color = 'r\u00e9d'".encode()).matches({"color": "r\u00e9d"}.get)


def test_identifiers_lists_what_the_selector_reads():
    sel = compile_selector("color = 'red' AND (Root.MQMD.Priority > 3 OR usr.x IS NULL)")
    assert sel.identifiers == {"color", "Root.MQMD.Priority", "usr.x"}


# -- property-based: precedence and evaluation against an independent model ----------
# An expression is a tuple tree; `model` evaluates it with SQL's three-valued logic
# (None = unknown) written plainly, `render` prints it with only the parentheses that
# the documented precedence (NOT > AND > OR; comparison above them) requires.

NAMES = ["a", "b", "c"]
VALUES = st.one_of(st.none(), st.integers(-3, 3), st.sampled_from(["x", "y"]), st.booleans())


def _pred():
    number = st.integers(-3, 3)
    return st.one_of(
        st.tuples(
            st.just("cmp"), st.sampled_from(NAMES), st.sampled_from(["=", "<>", "<", ">="]), number
        ),
        st.tuples(st.just("eqs"), st.sampled_from(NAMES), st.sampled_from(["x", "y"])),
        st.tuples(st.just("null"), st.sampled_from(NAMES), st.booleans()),
        st.tuples(st.just("between"), st.sampled_from(NAMES), number, number, st.booleans()),
        st.tuples(st.just("bool"), st.sampled_from(NAMES)),
    )


EXPR = st.recursive(
    _pred(),
    lambda inner: st.one_of(
        st.tuples(st.just("not"), inner),
        st.tuples(st.just("and"), inner, inner),
        st.tuples(st.just("or"), inner, inner),
    ),
    max_leaves=8,
)


def _num(v):
    return isinstance(v, int) and not isinstance(v, bool)


def model(e, msg):
    kind = e[0]
    if kind == "cmp":
        v = msg.get(e[1])
        if not _num(v):
            return None
        return {"=": v == e[3], "<>": v != e[3], "<": v < e[3], ">=": v >= e[3]}[e[2]]
    if kind == "eqs":
        v = msg.get(e[1])
        return None if not isinstance(v, str) else v == e[2]
    if kind == "null":
        return (msg.get(e[1]) is None) is e[2]
    if kind == "between":
        v, lo, hi, negated = msg.get(e[1]), e[2], e[3], e[4]
        if not _num(v):
            return None
        inside = lo <= v <= hi
        return (not inside) if negated else inside
    if kind == "bool":
        v = msg.get(e[1])
        return v if isinstance(v, bool) else None
    if kind == "not":
        v = model(e[1], msg)
        return None if v is None else not v
    a, b = model(e[1], msg), model(e[2], msg)
    if kind == "and":
        if a is False or b is False:
            return False
        return True if a is True and b is True else None
    if a is True or b is True:
        return True
    return False if a is False and b is False else None


_LEVEL = {"or": 1, "and": 2, "not": 3}


def render(e, parent: int = 0) -> str:
    kind = e[0]
    if kind == "cmp":
        return f"{e[1]} {e[2]} {e[3]}"
    if kind == "eqs":
        return f"{e[1]} = '{e[2]}'"
    if kind == "null":
        return f"{e[1]} IS {'' if e[2] else 'NOT '}NULL"
    if kind == "between":
        return f"{e[1]} {'NOT ' if e[4] else ''}BETWEEN {e[2]} AND {e[3]}"
    if kind == "bool":
        return e[1]
    level = _LEVEL[kind]
    if kind == "not":
        text = f"NOT {render(e[1], level)}"
    else:
        # left-associative: the right operand of the same operator needs parentheses
        text = f"{render(e[1], level)} {kind.upper()} {render(e[2], level + 0.5)}"
    return f"({text})" if level < parent else text


@settings(max_examples=400, deadline=None)
@given(EXPR, st.fixed_dictionaries({n: VALUES for n in NAMES}))
def test_selection_follows_the_model(expr, msg):
    text = render(expr)
    sel = compile_selector(text)
    assert sel is not None
    assert sel.matches(msg.get) is (model(expr, msg) is True), text


@settings(max_examples=200, deadline=None)
@given(EXPR, st.fixed_dictionaries({n: VALUES for n in NAMES}), st.randoms())
def test_keywords_are_case_insensitive(expr, msg, rnd):
    text = render(expr)
    words = [
        "".join(ch.lower() if rnd.random() < 0.5 else ch for ch in w)
        if w in {"NOT", "AND", "OR", "IS", "NULL", "BETWEEN"}
        else w
        for w in text.split(" ")
    ]
    assert compile_selector(" ".join(words)).matches(msg.get) is compile_selector(text).matches(
        msg.get
    )
