"""runmqsc's input rules (adapter/core/mqscparse.py): continuation, comments, quoting,
short forms, and the syntax errors runmqsc reports before running anything."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adapter.core import mqscparse as P
from adapter.core.mqscparse import Command, Comment, MQSCSyntaxError


def one(text: str) -> Command:
    items = [i for i in P.read(text.splitlines(True)) if isinstance(i, Command)]
    assert len(items) == 1, items
    return P.parse(items[0])


def params(cmd: Command) -> list[tuple[str, str | None]]:
    return [(p.keyword, p.value) for p in cmd.params]


def test_continuation_plus_drops_the_next_lines_leading_blanks_minus_keeps_them() -> None:
    plus = list(P.read(["DEFINE QLOCAL(A) +\n", "      DESCR('x +\n", "    y')\n"]))
    assert [c.text for c in plus] == ["DEFINE QLOCAL(A) DESCR('x y')"]
    minus = list(P.read(["DEFINE QLOCAL(A) DESCR('x -\n", "   y')\n"]))
    assert minus[0].text == "DEFINE QLOCAL(A) DESCR('x    y')"
    assert minus[0].lines == ["DEFINE QLOCAL(A) DESCR('x -", "   y')"]


def test_comments_blank_lines_semicolons_and_numbering() -> None:
    items = list(P.read(["* a comment\n", "\n", "DEF QL(A);\n", "*\n", "DIS QL(A)\n"]))
    assert [type(i) for i in items] == [Comment, Comment, Command, Comment, Command]
    assert [(i.number, i.text) for i in items if isinstance(i, Command)] == [
        (1, "DEF QL(A)"),
        (2, "DIS QL(A)"),
    ]


def test_a_comment_inside_a_continued_command_is_echoed_not_joined() -> None:
    (cmd,) = list(P.read(["DEFINE QLOCAL(A) +\n", "* MAXDEPTH(5) +\n", "  PUT(DISABLED)\n"]))
    assert cmd.text == "DEFINE QLOCAL(A) PUT(DISABLED)" and len(cmd.lines) == 3


def test_input_ending_in_a_continuation_ends_the_command() -> None:
    (cmd,) = list(P.read(["DEFINE QLOCAL(A) +\n"]))
    assert P.parse(cmd).name == "A"


def test_short_forms_case_and_quoting() -> None:
    cmd = one("def ql('app.in') descr('It''s here') maxdepth( 10 ),defpsist(yes) noshare")
    assert (cmd.verb, cmd.objtype, cmd.name) == ("DEFINE", "QLOCAL", "app.in")
    assert params(cmd) == [
        ("DESCR", "It's here"),
        ("MAXDEPTH", "10"),
        ("DEFPSIST", "YES"),
        ("NOSHARE", None),
    ]
    assert one("DIS Q(app.*) ALL").name == "APP.*"  # unquoted: upper-cased
    for short, long in [("ALT", "ALTER"), ("DEL", "DELETE"), ("DIS", "DISPLAY")]:
        assert one(f"{short} QA(X)").verb == long
    for short, long in [("QA", "QALIAS"), ("QM", "QMODEL"), ("QS", "QSTATUS"), ("Q", "QUEUE")]:
        assert one(f"DISPLAY {short}(X)").objtype == long
    assert one("DISPLAY QMGR DEADQ").objtype == "QMGR"
    assert one("ALTER QLOCAL ('Account'  )   TRIGDPTH  (  1)").name == "Account"


@pytest.mark.parametrize(
    ("text", "segment"),
    [
        ("FROB QL(A)", "FROB"),
        ("DEFINE QL(A) REPLACE NOREPLACE", "DEFINE QL(A) REPLACE NOREPLACE"),
        ("DEF QL(A) MAXDEPTH(1) MAXDEPTH(2) PUT(ENABLED)", "DEF QL(A) MAXDEPTH(1) MAXDEPTH(2)"),
        ("DEFINE QL(A) TARGQ(B) TARGET(C)", "DEFINE QL(A) TARGQ(B) TARGET(C)"),
        ("DEFINE QL(A*)", "DEFINE QL(A*)"),
        ("DEFINE QL", "DEFINE QL"),
        ("DEFINE QMGR(X)", "DEFINE QMGR(X)"),
        ("DEFINE QL(A) DESCR(two words)", "DEFINE QL(A) DESCR(two words)"),
        ("DEFINE QL(A) DESCR()", "DEFINE QL(A) DESCR()"),
        ("DEFINE FOO(A)", "DEFINE FOO(A)"),
    ],
)
def test_syntax_errors_carry_the_segment_up_to_the_error(text: str, segment: str) -> None:
    with pytest.raises(MQSCSyntaxError) as err:
        one(text)
    assert err.value.segment == segment


def test_a_subscription_is_named_by_its_name_its_subid_or_both() -> None:
    """ALTER / DELETE SUB and DISPLAY SUB / SBSTATUS take SUB(name), SUB SUBID(id) or
    both (IBM's usage notes); DEFINE SUB and the other objects need their name."""
    subid = "AB" * 24
    for verb in ("ALTER", "ALT", "DELETE", "DEL", "DISPLAY", "DIS"):
        cmd = one(f"{verb} SUB SUBID({subid})")
        assert (cmd.objtype, cmd.name, params(cmd)) == ("SUB", None, [("SUBID", subid)])
        assert one(f"{verb} SUB(X) SUBID({subid})").name == "X"
    assert one(f"DIS SBSTATUS SUBID({subid})").name is None
    for text in ("DEFINE SUB SUBID(AB)", "ALTER SUB USERDATA(X)", "DELETE SUB SUBID",
                 "ALTER QL SUBID(AB)", "DIS TPSTATUS SUBID(AB)", "ALTER SUB"):  # fmt: skip
        with pytest.raises(MQSCSyntaxError, match="a name is required"):
            one(text)


def test_an_unclosed_quote_is_a_syntax_error() -> None:
    with pytest.raises(MQSCSyntaxError):
        one("DEFINE QL(A) DESCR('open")


def test_generic_names_match_by_prefix() -> None:
    assert P.matches("APP.*", "APP.IN") and P.matches("*", "X")
    assert not P.matches("APP.*", "AP") and P.matches("A", "A") and not P.matches("A", "AB")


# -- property: any rendering of a command parses to the same command -----------------

_NAME = st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._", min_size=1, max_size=20)
_QUOTED = st.text(st.sampled_from("abcXYZ 09.'()+-,*"), min_size=1, max_size=16)
_PARAMS = {
    "DESCR": _QUOTED,
    "MAXDEPTH": st.integers(0, 999_999_999).map(str),
    "DEFPSIST": st.sampled_from(["YES", "NO"]),
    "PUT": st.sampled_from(["ENABLED", "DISABLED"]),
    "BOQNAME": _NAME,
    "NOSHARE": st.none(),
    "TRIGGER": st.none(),
}


@st.composite
def commands(draw) -> tuple[tuple, str]:
    verb = draw(st.sampled_from([("DEFINE", "DEF"), ("ALTER", "ALT")]))
    obj = draw(st.sampled_from([("QLOCAL", "QL"), ("QMODEL", "QM"), ("QALIAS", "QA")]))
    name = draw(_NAME)
    keys = draw(st.lists(st.sampled_from(sorted(_PARAMS)), unique=True, max_size=6))
    values = [(k, draw(_PARAMS[k])) for k in keys]
    expected = (verb[0], obj[0], name, values)

    def case(word: str) -> str:
        flips = draw(st.lists(st.booleans(), min_size=len(word), max_size=len(word)))
        return "".join(c.lower() if f else c for c, f in zip(word, flips, strict=True))

    def sep() -> str:
        return draw(st.sampled_from([" ", "  ", ", ", " ,", "\t"]))

    def quoted(value: str) -> str:
        return "'" + value.replace("'", "''") + "'"

    tokens = [case(draw(st.sampled_from(verb))), case(draw(st.sampled_from(obj))) + f"({name})"]
    for key, value in values:
        if value is None:
            tokens.append(case(key))
        elif key == "DESCR":
            tokens.append(case(key) + draw(st.sampled_from(["", " "])) + f"({quoted(value)})")
        else:
            tokens.append(case(key) + f"({case(value)})")
    # Lines: every gap between tokens is a blank, or the end of a line continued with
    # '+' (any indentation after) or '-' (the blank kept before it).
    text = tokens[0]
    for token in tokens[1:]:
        how = draw(st.sampled_from(["same", "plus", "minus"]))
        if how == "same":
            text += sep() + token
        elif how == "plus":
            text += sep() + "+\n" + " " * draw(st.integers(0, 8)) + token
        else:
            text += sep() + "-\n" + token
    return expected, text + draw(st.sampled_from(["", ";", "  "])) + "\n"


@settings(max_examples=300, deadline=None)
@given(commands())
def test_any_rendering_parses_to_the_same_command(case) -> None:
    (verb, objtype, name, values), text = case
    cmd = one(text)
    assert (cmd.verb, cmd.objtype, cmd.name) == (verb, objtype, name)
    assert params(cmd) == values
