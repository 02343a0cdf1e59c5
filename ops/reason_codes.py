"""The summary table of docs/mqi-reason-codes.md, counted from its rows.

Each `## MQxxx` section lists reason codes as `| NNNN | name | CC | status | ... |`
rows. MQCONNX's and MQPUT1's sections show only the rows that differ from MQCONN's and
MQPUT's, so those calls count the union (their own rows winning). `python3
ops/reason_codes.py` prints the table; `--check` exits 1 when the document's table is
not the one its rows give (the unit layer runs the same comparison).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

DOC = Path(__file__).resolve().parents[1] / "docs" / "mqi-reason-codes.md"
# A call's count: the sections whose rows it takes, later ones winning.
CALLS = {
    "MQCONN": ("MQCONN",),
    "MQCONNX": ("MQCONN", "MQCONNX"),
    "MQOPEN": ("MQOPEN",),
    "MQPUT": ("MQPUT",),
    "MQPUT1": ("MQPUT", "MQPUT1"),
    "MQGET": ("MQGET",),
    "MQCLOSE": ("MQCLOSE",),
    "MQINQ": ("MQINQ",),
}
_ROW = re.compile(r"^\| (\d{4}) \|")


def section_rows(text: str) -> dict[str, dict[str, str]]:
    """Per `## MQxxx` section: reason code -> status cell."""
    sections: dict[str, dict[str, str]] = {}
    current: dict[str, str] | None = None
    for line in text.splitlines():
        heading = re.match(r"^## (MQ[A-Z0-9]+)\s*$", line)
        if heading:
            current = sections.setdefault(heading.group(1), {})
        elif line.startswith("## "):
            current = None
        elif current is not None and _ROW.match(line):
            cells = [c.strip() for c in line.split("|")]
            current[cells[1]] = cells[4]
    return sections


def summary(text: str) -> list[str]:
    """The summary table's data rows, as the document writes them."""
    sections = section_rows(text)
    lines = []
    for call, names in CALLS.items():
        rows: dict[str, str] = {}
        for name in names:
            rows.update(sections.get(name, {}))
        states = list(rows.values())
        returned = sum(s.startswith("returned") for s in states)
        partly = sum(s.startswith("returned (partly)") for s in states)
        never = sum(s.startswith("never") for s in states)
        not_yet = sum(s.startswith("not yet") for s in states)
        lines.append(
            f"| [{call}](#{call.lower()}) | {len(states)} | {returned} ({partly}) "
            f"| {never} | {not_yet} |"
        )
    return lines


def documented(text: str) -> list[str]:
    """The summary table's data rows as the document has them now."""
    return [line for line in text.splitlines() if re.match(r"^\| \[MQ[A-Z0-9]+\]\(#", line)]


def main(argv: list[str]) -> int:
    text = DOC.read_text()
    counted = summary(text)
    if "--check" in argv:
        if documented(text) != counted:
            print("docs/mqi-reason-codes.md: the summary does not match its rows; it should be:")
            print("\n".join(counted))
            return 1
        return 0
    print("\n".join(counted))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
