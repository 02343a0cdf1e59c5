"""docs/mqi-reason-codes.md: its summary table is the count of its own rows
(ops/reason_codes.py), so a row changed without the table fails here."""

from __future__ import annotations

from ops import reason_codes as R


def test_the_summary_table_counts_the_rows() -> None:
    text = R.DOC.read_text()
    assert R.documented(text) == R.summary(text)


def test_the_count_follows_a_changed_row() -> None:
    text = R.DOC.read_text()
    row = next(line for line in text.splitlines() if line.startswith("| 2035 | MQRC_NOT_AUTH"))
    cells = row.split(" | ")
    cells[3] = "never on Kafka"
    changed = text.replace(row, " | ".join(cells), 1)
    assert R.summary(changed) != R.summary(text)
