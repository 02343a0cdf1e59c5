"""MQSC input as runmqsc reads it: lines joined into commands, commands into a verb, an
object type, a name and parameters. Pure: no I/O; what each command means is the
processor's (adapter/tools/mqscrun.py).

IBM's rules followed ("Rules for using MQSC commands",
https://www.ibm.com/docs/SSFKSJ_7.5.0/com.ibm.mq.adm.doc/q020630_.html, and
http://setgetweb.com/p/MQ92/adm/q020620_.htm for 9.2; "Running MQSC commands
interactively", https://www.ibm.com/support/knowledgecenter/SSFKSJ_9.1.0/com.ibm.mq.adm.doc/q020660_.html):

- a line ending in `-` continues "from the start of the following line", one ending in
  `+` "from the first nonblank character on the following line"; a command ends with
  the last character of a line that is not a continuation character, or with `;`;
- a line whose first character is `*` is a comment; blank lines are ignored;
- keywords, parentheses and values are separated by any number of blanks and commas;
  keywords are not case sensitive; a value in single quotes keeps its case and blanks
  ('' is a quote), an unquoted one is upper-cased and may not contain blanks;
- "Repeated parameters are not allowed. Repeating a parameter with its "NO" version,
  as in REPLACE NOREPLACE, is also not allowed."
- a generic name (ending with `*`) is for DISPLAY;
- a subscription may be named by its identifier instead of its name: "ALT SUB(xyz),
  ALT SUB SUBID(123), ALT SUB(xyz) SUBID(123)" are the valid forms of ALTER SUB
  (https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.ref.adm.doc/q085420_.html, usage
  note 1), the same three of DELETE SUB
  (https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.ref.adm.doc/q085950_.html), and
  DISPLAY SUB / DISPLAY SBSTATUS take "(generic name)" or "SUBID(id)"
  (https://www.ibm.com/docs/SSFKSJ_9.2.0/refadmin/q086340_.html; DEFINE SUB needs its
  name).

Verbs and object types take runmqsc's short forms (DEF, ALT, DEL, DIS; QL, QA, QM, QR,
Q, QS). A syntax error carries the command text up to the point where it was seen, which
runmqsc prints after "AMQ8405I: Syntax error detected at or near end of command segment
below:-".
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

VERBS = {
    "DEF": "DEFINE",
    "DEFINE": "DEFINE",
    "ALT": "ALTER",
    "ALTER": "ALTER",
    "DEL": "DELETE",
    "DELETE": "DELETE",
    "DIS": "DISPLAY",
    "DISPLAY": "DISPLAY",
    "CLEAR": "CLEAR",
    "RESET": "RESET",
    "END": "END",
    "STA": "START",
    "START": "START",
    "STOP": "STOP",
    "RESOLVE": "RESOLVE",
}
OBJECTS = {
    "QL": "QLOCAL",
    "QLOCAL": "QLOCAL",
    "QA": "QALIAS",
    "QALIAS": "QALIAS",
    "QM": "QMODEL",
    "QMODEL": "QMODEL",
    "QR": "QREMOTE",
    "QREMOTE": "QREMOTE",
    "Q": "QUEUE",
    "QUEUE": "QUEUE",
    "QS": "QSTATUS",
    "QSTATUS": "QSTATUS",
    "QMGR": "QMGR",
    "TOPIC": "TOPIC",
    "QSTATS": "QSTATS",
    "CHL": "CHANNEL",
    "CHANNEL": "CHANNEL",
    "CHS": "CHSTATUS",
    "CHSTATUS": "CHSTATUS",
    "SUB": "SUB",
    "SBSTATUS": "SBSTATUS",
    "TPSTATUS": "TPSTATUS",
    "TPS": "TPSTATUS",
}
# Verbs that take a generic name (RESET QSTATS(generic-qname) as DISPLAY does).
_GENERIC_VERBS = ("DISPLAY", "RESET")
# Commands whose object may be named by this keyword's value instead of a name.
_NAMED_BY = {
    ("ALTER", "SUB"): "SUBID",
    ("DELETE", "SUB"): "SUBID",
    ("DISPLAY", "SUB"): "SUBID",
    ("DISPLAY", "SBSTATUS"): "SUBID",
}
# A parameter and its "NO" version are one parameter (given once).
_NEGATIVES = {
    "NOREPLACE": "REPLACE",
    "NOPURGE": "PURGE",
    "NOSHARE": "SHARE",
    "NOTRIGGER": "TRIGGER",
    "NOHARDENBO": "HARDENBO",
    "TARGQ": "TARGET",
}
_SEPARATORS = " ,\t"


class MQSCSyntaxError(ValueError):
    """A command runmqsc would not run: `segment` is its text up to the error."""

    def __init__(self, segment: str, reason: str) -> None:
        super().__init__(reason)
        self.segment = segment
        self.reason = reason


@dataclass
class Param:
    keyword: str  # upper case
    value: str | None  # None: a bare keyword (REPLACE, SHARE, ALL)
    end: int  # where it ends in the command text (for the error segment)


@dataclass
class Command:
    """One command: `lines` as read (runmqsc echoes them), `text` as joined."""

    number: int
    lines: list[str]
    text: str
    verb: str = ""
    objtype: str = ""
    name: str | None = None
    params: list[Param] = field(default_factory=list)

    def keywords(self) -> set[str]:
        return {p.keyword for p in self.params}

    def value(self, keyword: str) -> str | None:
        return next((p.value for p in self.params if p.keyword == keyword), None)

    def segment(self, param: Param) -> str:
        """The command up to the end of `param` (where runmqsc reports an error)."""
        return self.text[: param.end].strip()


@dataclass
class Comment:
    """A comment or blank line: echoed, never counted as a command."""

    line: str


def read(lines: Iterable[str]) -> Iterator[Command | Comment]:
    """The commands (unparsed: number, lines, text) and comments of MQSC input."""
    number = 0
    pending: list[str] = []
    text = ""
    strip_next = False
    for raw in lines:
        line = raw.rstrip("\r\n")
        if not pending and (not line.strip() or line.startswith("*")):
            yield Comment(line)
            continue
        if pending and line.startswith("*"):
            pending.append(line)  # a comment inside a continued command: echoed only
            continue
        pending.append(line)
        part = line.lstrip() if strip_next else line
        body = part.rstrip()
        if body.endswith(("+", "-")):
            strip_next = body.endswith("+")
            text += body[:-1]
            continue
        text += body[:-1] if body.endswith(";") else body
        number += 1
        yield Command(number, pending, text)
        pending, text, strip_next = [], "", False
    if pending:  # the input ended in a continuation: the command ends there
        number += 1
        yield Command(number, pending, text)


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in _SEPARATORS:
        i += 1
    return i


def _value(text: str, i: int, blanks: bool = False) -> tuple[str, int]:
    """The value of the parentheses opening at text[i]; the index after ')'. An
    unquoted value may hold blanks only with `blanks` (WHERE's filter)."""
    i = _skip(text, i + 1)
    if i < len(text) and text[i] == "'":
        out, i = [], i + 1
        while True:
            if i >= len(text):
                raise MQSCSyntaxError(text, "a quoted string does not end")
            if text[i] == "'":
                if text[i + 1 : i + 2] == "'":
                    out.append("'")
                    i += 2
                    continue
                break
            out.append(text[i])
            i += 1
        value, i = "".join(out), _skip(text, i + 1)
    else:
        close = text.find(")", i)
        if close < 0:
            raise MQSCSyntaxError(text, "a parenthesis does not close")
        value, i = text[i:close].strip(" \t"), close
        refused = "('" if blanks else " \t,('"
        if not value or any(c in value for c in refused):
            raise MQSCSyntaxError(text[: close + 1], "not a valid value")
        value = value.upper()
    if i >= len(text) or text[i] != ")":
        raise MQSCSyntaxError(text[: i + 1], "a parenthesis does not close")
    return value, i + 1


def tokens(text: str) -> list[Param]:
    """The keywords of a command, each with its value in parentheses (if any)."""
    out: list[Param] = []
    i = _skip(text, 0)
    while i < len(text):
        start = i
        while i < len(text) and text[i] not in _SEPARATORS + "()'":
            i += 1
        if i == start:
            raise MQSCSyntaxError(text[: i + 1], "a keyword is expected")
        word = text[start:i].upper()
        j = _skip(text, i)
        value = None
        if j < len(text) and text[j] == "(":
            value, i = _value(text, j, blanks=word == "WHERE")
        out.append(Param(word, value, i))
        i = _skip(text, i)
    return out


def parse(cmd: Command) -> Command:
    """Fill in the verb, object type, name and parameters of `cmd`. MQSCSyntaxError for
    input runmqsc rejects before running anything (see the rules above); a verb that is
    not one runmqsc has leaves `verb` as typed, with no object."""
    params = tokens(cmd.text)
    if not params:
        raise MQSCSyntaxError(cmd.text, "empty command")
    verb = VERBS.get(params[0].keyword)
    if verb is None or params[0].value is not None:
        raise MQSCSyntaxError(cmd.segment(params[0]), "unknown verb")
    cmd.verb = verb
    if verb == "END":
        return cmd
    if len(params) < 2 or params[1].keyword not in OBJECTS:
        raise MQSCSyntaxError(cmd.segment(params[min(1, len(params) - 1)]), "object type expected")
    cmd.objtype = OBJECTS[params[1].keyword]
    cmd.name = params[1].value
    if cmd.objtype == "QMGR":
        if cmd.name is not None:
            raise MQSCSyntaxError(cmd.segment(params[1]), "QMGR takes no name")
    elif not cmd.name:
        other = _NAMED_BY.get((verb, cmd.objtype))
        if other is None or not any(p.keyword == other and p.value for p in params[2:]):
            raise MQSCSyntaxError(cmd.segment(params[1]), "a name is required")
    elif "*" in cmd.name and (
        verb not in _GENERIC_VERBS or cmd.name.index("*") != len(cmd.name) - 1
    ):
        raise MQSCSyntaxError(cmd.segment(params[1]), "a generic name is for DISPLAY only")
    seen: set[str] = set()
    for p in params[2:]:
        key = _NEGATIVES.get(p.keyword, p.keyword)
        if key in seen:
            raise MQSCSyntaxError(cmd.segment(p), f"{p.keyword} is repeated")
        seen.add(key)
    cmd.params = params[2:]
    return cmd


def is_generic(name: str) -> bool:
    return name.endswith("*")


def matches(pattern: str, name: str) -> bool:
    """Whether `name` matches a DISPLAY name: exactly, or by prefix for a generic one."""
    return name.startswith(pattern[:-1]) if is_generic(pattern) else name == pattern
