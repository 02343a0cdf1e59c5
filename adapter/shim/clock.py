"""Time as the engine reads it: injected, so expiry and lease tests need not sleep."""

from __future__ import annotations

import threading
import time
from typing import Protocol


class Clock(Protocol):
    def now_ms(self) -> int:
        """Wall-clock milliseconds since the epoch (put times, expiry, leases)."""
        ...

    def monotonic(self) -> float:
        """Seconds for intervals (timeouts, refresh periods)."""
        ...

    def sleep(self, seconds: float) -> None: ...


class SystemClock:
    def now_ms(self) -> int:
        return int(time.time() * 1000)

    def monotonic(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


class ManualClock:
    """A clock that moves only when told: `advance(seconds)`; sleep() advances it."""

    def __init__(self, start_ms: int = 1_700_000_000_000) -> None:
        self._ms = float(start_ms)
        self._start = float(start_ms)
        self._lock = threading.Lock()

    def now_ms(self) -> int:
        return int(self._ms)

    def monotonic(self) -> float:
        # From the clock's start: small numbers keep sub-millisecond steps exact.
        return (self._ms - self._start) / 1000.0

    def advance(self, seconds: float) -> None:
        with self._lock:
            self._ms += seconds * 1000.0

    def sleep(self, seconds: float) -> None:
        self.advance(seconds)


SYSTEM = SystemClock()
