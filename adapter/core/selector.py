"""Message selectors (MQOD SelectionString): parsed once at MQOPEN, evaluated per
message. Pure: the caller says how an identifier reads a message (`Lookup`).

The grammar and the rules are IBM's:
- Message selector syntax (a subset of SQL92's conditional expressions; keywords are
  case-insensitive, identifiers are not; string literals in single quotes with '' for a
  quote; byte strings 0x"0AFC23" of whole bytes; hexadecimal 0xAF and octal 0177
  numbers; exact numbers with an optional L; approximate numbers 7E3, 7., 95.7;
  TRUE/FALSE; = <> < > <= >=, + - * /, AND OR NOT, [NOT] BETWEEN, [NOT] IN, [NOT] LIKE
  with ESCAPE, IS [NOT] NULL):
  https://www.ibm.com/docs/en/ibm-mq/9.4.x?topic=selectors-message-selector-syntax
- Selection behavior: a property the message does not have is NULL ("unknown"), and a
  selection string that is FALSE before any property is read fails the call with
  MQRC_SELECTOR_ALWAYS_FALSE:
  https://www.ibm.com/docs/en/ibm-mq/9.4.x?topic=selectors-selection-behavior
- Message descriptor fields as properties (`Root.MQMD.Priority`):
  https://www.ibm.com/docs/en/ibm-mq/9.4.x?topic=names-message-descriptor-fields-as-properties
- SelectionString for MQOD (MQRC_SELECTION_STRING_ERROR past MQ_SELECTOR_LENGTH) and
  2459 MQRC_SELECTOR_SYNTAX_ERROR for MQOPEN, MQPUT1 and MQSUB:
  https://www.ibm.com/docs/en/ibm-mq/9.4.x?topic=mqod-selectionstring-mqcharv
  https://www.ibm.com/docs/en/ibm-mq/9.4.x?topic=codes-2459-099b-rc2459-mqrc-selector-syntax-error

The three-valued logic and the typing are JMS's (which MQ's selectors follow): values
of different types never compare equal (the result is unknown), strings, booleans and
byte strings compare only with = and <>, arithmetic is on numbers only, and a message
is selected only when the whole expression is TRUE.

The grammar is parsed by Lark (LALR): a well-kept parser library rather than a hand-
written parser, so the grammar below is the specification and stays readable.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import LarkError

from adapter.core import cmqc as C
from adapter.core.errors import fail

# How an identifier reads the message being looked at: its value, or None when the
# message has no such property (NULL).
Lookup = Callable[[str], Any]
# A compiled expression: message -> value (None is NULL / unknown).
_Expr = Callable[[Lookup], Any]

_KEYWORD_END = r"(?![\w$.])"  # a keyword is a whole word, never part of an identifier


def _kw(word: str) -> str:
    return f"{word.upper()}.9: /{word}{_KEYWORD_END}/i"


_GRAMMAR = rf"""
?start: or_expr

?or_expr: or_expr OR and_expr        -> or_
        | and_expr
?and_expr: and_expr AND not_expr     -> and_
         | not_expr
?not_expr: NOT not_expr              -> not_
         | predicate
?predicate: sum COMP_OP sum                          -> compare
          | sum BETWEEN sum AND sum                  -> between
          | sum NOT BETWEEN sum AND sum              -> not_between
          | sum IN "(" literal ("," literal)* ")"    -> in_
          | sum NOT IN "(" literal ("," literal)* ")" -> not_in
          | sum LIKE STRING                          -> like
          | sum LIKE STRING ESCAPE STRING            -> like
          | sum NOT LIKE STRING                      -> not_like
          | sum NOT LIKE STRING ESCAPE STRING        -> not_like
          | sum IS NULL                              -> is_null
          | sum IS NOT NULL                          -> is_not_null
          | sum
?sum: sum ADD_OP product             -> arith
    | product
?product: product MUL_OP unary       -> arith
        | unary
?unary: ADD_OP unary                 -> sign
      | atom
?atom: literal
     | IDENT                         -> ident
     | "(" or_expr ")"
?literal: STRING -> string
        | BYTES -> bytestring
        | APPROX -> approx
        | HEX -> hexnum
        | OCTAL -> octal
        | EXACT -> exact
        | TRUE -> true
        | FALSE -> false

{_kw("or")}
{_kw("and")}
{_kw("not")}
{_kw("between")}
{_kw("in")}
{_kw("like")}
{_kw("escape")}
{_kw("is")}
{_kw("null")}
{_kw("true")}
{_kw("false")}
COMP_OP: "<>" | "<=" | ">=" | "=" | "<" | ">"
ADD_OP: "+" | "-"
MUL_OP: "*" | "/"
STRING: /'(?:[^']|'')*'/
BYTES.8: /0[xX]"(?:[0-9A-Fa-f]{{2}})+"/
APPROX.7: /(?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?[fFdD]?|\d+[eE][+-]?\d+[fFdD]?/
HEX.6: /0[xX][0-9A-Fa-f]+[lL]?(?![\w$])/
OCTAL.6: /0[0-7]+[lL]?(?![\w$])/
EXACT.5: /(?:0|[1-9]\d*)[lL]?(?![\w$])/
IDENT: /(?:[^\W\d]|\$)[\w$]*(?:\.(?:[^\W\d]|\$)[\w$]*)*/

%ignore /\s+/
"""

_RESERVED = frozenset(
    {"NULL", "TRUE", "FALSE", "NOT", "AND", "OR", "BETWEEN", "LIKE", "IN", "IS", "ESCAPE"}
)
_PARSER = Lark(_GRAMMAR, parser="lalr", start="start", maybe_placeholders=False)


# -- the values' types -------------------------------------------------------------
def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _same_kind(a: Any, b: Any) -> str | None:
    """'number', 'string', 'bool' or 'bytes' when a and b can be compared; else None."""
    if _is_number(a) and _is_number(b):
        return "number"
    for kind, typ in (("string", str), ("bool", bool), ("bytes", bytes)):
        if isinstance(a, typ) and isinstance(b, typ):
            return kind
    return None


_ORDER_OPS = {"<": operator.lt, ">": operator.gt, "<=": operator.le, ">=": operator.ge}


def _compare(op: str, a: Any, b: Any) -> bool | None:
    if a is None or b is None:
        return None
    kind = _same_kind(a, b)
    if kind is None:
        return None  # different types: unknown, never an error
    if op == "=":
        return a == b
    if op == "<>":
        return a != b
    if kind != "number":
        return None  # strings, booleans and byte strings compare with = and <> only
    return _ORDER_OPS[op](a, b)


def _divide(a: Any, b: Any) -> Any:
    if b == 0:
        return None
    if isinstance(a, int) and isinstance(b, int):
        q = abs(a) // abs(b)  # integer division truncates towards zero, as in Java
        return q if (a >= 0) == (b >= 0) else -q
    return a / b


_ARITH = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": _divide}


def _and(a: Any, b: Any) -> bool | None:
    if a is False or b is False:
        return False
    if a is True and b is True:
        return True
    return None


def _or(a: Any, b: Any) -> bool | None:
    if a is True or b is True:
        return True
    if a is False and b is False:
        return False
    return None


def _not(a: Any) -> bool | None:
    return (not a) if isinstance(a, bool) else None


def _like_regex(pattern: str, escape: str | None) -> re.Pattern[str]:
    out = []
    chars = iter(pattern)
    for ch in chars:
        if escape is not None and ch == escape:
            nxt = next(chars, None)
            if nxt is None:
                raise ValueError("ESCAPE character at the end of a LIKE pattern")
            out.append(re.escape(nxt))
        elif ch == "%":
            out.append(".*")
        elif ch == "_":
            out.append(".")
        else:
            out.append(re.escape(ch))
    return re.compile("".join(out), re.DOTALL)


def _string_value(token: Token) -> str:
    return token[1:-1].replace("''", "'")


def _exact(text: str, base: int) -> int:
    return int(text.rstrip("lL"), base)


@v_args(inline=True)
class _Compiler(Transformer):
    """Turns the parse tree into closures (one Python call per node per message, no
    tree walking), collecting the identifiers the selector reads."""

    def __init__(self) -> None:
        super().__init__()
        self.identifiers: set[str] = set()

    # literals
    def string(self, tok):
        value = _string_value(tok)
        return lambda _m: value

    def bytestring(self, tok):
        value = bytes.fromhex(tok[3:-1])
        return lambda _m: value

    def approx(self, tok):
        value = float(tok.rstrip("fFdD"))
        return lambda _m: value

    def hexnum(self, tok):
        value = _exact(tok[2:], 16)
        return lambda _m: value

    def octal(self, tok):
        value = _exact(tok, 8)
        return lambda _m: value

    def exact(self, tok):
        value = _exact(tok, 10)
        return lambda _m: value

    def true(self, _tok):
        return lambda _m: True

    def false(self, _tok):
        return lambda _m: False

    def ident(self, tok):
        name = str(tok)
        if name.upper() in _RESERVED:  # the contextual lexer lets them through here
            raise ValueError(f"{name} is a reserved word, not an identifier")
        self.identifiers.add(name)
        return lambda m: m(name)

    # arithmetic
    def sign(self, op, operand):
        if op == "+":
            return lambda m: v if _is_number(v := operand(m)) else None
        return lambda m: -v if _is_number(v := operand(m)) else None

    def arith(self, left, op, right):
        fn = _ARITH[str(op)]

        def run(m: Lookup) -> Any:
            a, b = left(m), right(m)
            if not (_is_number(a) and _is_number(b)):
                return None
            return fn(a, b)

        return run

    # predicates
    def compare(self, left, op, right):
        op = str(op)
        return lambda m: _compare(op, left(m), right(m))

    def between(self, value, _between, low, _and_tok, high):
        return lambda m: _and(_compare(">=", v := value(m), low(m)), _compare("<=", v, high(m)))

    def not_between(self, value, _not_tok, _between, low, _and_tok, high):
        return lambda m: _or(_compare("<", v := value(m), low(m)), _compare(">", v, high(m)))

    def in_(self, value, _in, *literals):
        options = [lit(None) for lit in literals]
        return lambda m: self._in(value(m), options)

    def not_in(self, value, _not_tok, _in, *literals):
        options = [lit(None) for lit in literals]
        return lambda m: _not(self._in(value(m), options))

    @staticmethod
    def _in(v: Any, options: list[Any]) -> bool | None:
        if v is None:
            return None
        return any(_compare("=", v, o) is True for o in options)

    def like(self, value, _like, pattern, _escape=None, escape=None):
        regex = self._like_pattern(pattern, escape)
        return lambda m: bool(regex.fullmatch(v)) if isinstance(v := value(m), str) else None

    def not_like(self, value, _not_tok, _like, pattern, _escape=None, escape=None):
        regex = self._like_pattern(pattern, escape)
        return lambda m: not regex.fullmatch(v) if isinstance(v := value(m), str) else None

    @staticmethod
    def _like_pattern(pattern: Token, escape: Token | None) -> re.Pattern[str]:
        esc = None
        if escape is not None:
            esc = _string_value(escape)
            if len(esc) != 1:
                raise ValueError("the ESCAPE string must be one character")
        return _like_regex(_string_value(pattern), esc)

    def is_null(self, value, _is, _null):
        return lambda m: value(m) is None

    def is_not_null(self, value, _is, _not_tok, _null):
        return lambda m: value(m) is not None

    # logic
    def and_(self, left, _tok, right):
        return lambda m: _and(left(m), right(m))

    def or_(self, left, _tok, right):
        return lambda m: _or(left(m), right(m))

    def not_(self, _tok, operand):
        return lambda m: _not(operand(m))


def _no_properties(_name: str) -> None:
    return None


@dataclass(frozen=True)
class Selector:
    """A compiled selection string. `matches(lookup)` is True only when the selector is
    TRUE for the message (FALSE and unknown both leave the message to others)."""

    text: str
    identifiers: frozenset[str]
    _expr: _Expr

    def matches(self, lookup: Lookup) -> bool:
        return self._expr(lookup) is True


def compile_selector(selection_string: str | bytes | None) -> Selector | None:
    """MQOPEN's check of OD.SelectionString: None when there is no selection (a null or
    blank string selects every message, as no selector), else the compiled selector.

    Fails with MQRC_SELECTION_STRING_ERROR (longer than MQ_SELECTOR_LENGTH),
    MQRC_SELECTOR_SYNTAX_ERROR (not the grammar) or MQRC_SELECTOR_ALWAYS_FALSE (FALSE
    before any property is read, so it could never select a message)."""
    if selection_string is None:
        return None
    if isinstance(selection_string, bytes | bytearray):
        try:
            selection_string = bytes(selection_string).decode("utf-8")
        except UnicodeDecodeError:
            raise fail(C.MQRC_SELECTION_STRING_ERROR) from None
    if len(selection_string) > C.MQ_SELECTOR_LENGTH:
        raise fail(C.MQRC_SELECTION_STRING_ERROR)
    text = selection_string.strip(" \0")
    if not text:
        return None
    compiler = _Compiler()
    try:
        expr = compiler.transform(_PARSER.parse(text))
    except (LarkError, ValueError) as exc:
        raise fail(C.MQRC_SELECTOR_SYNTAX_ERROR) from exc
    if not compiler.identifiers and expr(_no_properties) is not True:
        raise fail(C.MQRC_SELECTOR_ALWAYS_FALSE)
    return Selector(text, frozenset(compiler.identifiers), expr)
