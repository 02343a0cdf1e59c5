"""ops/bench/corecosts.py (no servers): the measured calls do what an MQGET and an MQPUT
do in the core, so an A/B of compiled against pure modules compares the same work."""

from __future__ import annotations

from ops.bench import corecosts


def test_get_core_takes_the_first_message_and_keeps_the_view_full() -> None:
    core = corecosts._GetCore()
    first = core.view.get(("p0", 0, 0))
    assert first is not None
    core()
    core()
    assert core.view.get(("p0", 0, 0)) is None
    assert core.view.get(("p0", 0, 1)) is None
    assert len(core.view) == corecosts.DEPTH
    assert core.next == corecosts.DEPTH + 2


def test_every_figure_is_a_positive_time_per_call() -> None:
    figures = corecosts.measure(n=20)
    assert len(figures) == 4
    assert all(us > 0 for us in figures.values())
