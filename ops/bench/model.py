"""A benchmark row: the MQ figure, the raw Kafka figure beside it, and its target."""

from __future__ import annotations

from dataclasses import dataclass, field

NOT_AVAILABLE = "not available"


@dataclass(frozen=True)
class Target:
    """What a row must reach. `on` is "ratio" (value / raw) or "value"; `op` is >= or <=."""

    on: str
    op: str
    bound: float

    def describe(self, unit: str) -> str:
        what = "ratio" if self.on == "ratio" else unit
        return f"{what} {self.op} {self.bound:g}"

    def met(self, value: float | None, ratio: float | None) -> bool | None:
        x = ratio if self.on == "ratio" else value
        if x is None:
            return None
        return x >= self.bound if self.op == ">=" else x <= self.bound


@dataclass
class Row:
    """One pair. `value` is the MQ side (None when it cannot run yet, with `note`)."""

    pair: str
    section: str  # "1 put", "2 get", ... for grouping and plots
    unit: str  # "msg/s", "MB/s", "ms", "x msg size"
    value: float | None
    raw: float | None
    raw_label: str  # what the raw figure is
    target: Target | None = None
    note: str = ""
    extra: dict = field(default_factory=dict)  # sizes, MB/s, ... for the plots

    @property
    def ratio(self) -> float | None:
        if self.value is None or not self.raw:
            return None
        return self.value / self.raw

    @property
    def met(self) -> bool | None:
        return None if self.target is None else self.target.met(self.value, self.ratio)

    @property
    def available(self) -> bool:
        return self.value is not None


def unavailable(pair: str, section: str, unit: str, why: str, **kw) -> Row:
    """A row whose MQ side cannot be measured yet (note "not available ..."); the raw
    side may still be filled."""
    raw, raw_label = kw.pop("raw", None), kw.pop("raw_label", "")
    return Row(pair, section, unit, None, raw, raw_label, note=f"{NOT_AVAILABLE} {why}", **kw)
