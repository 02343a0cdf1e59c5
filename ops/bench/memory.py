"""Peak resident memory of this process over a stretch of code (Linux /proc)."""

from __future__ import annotations

import threading
from pathlib import Path

_STATUS = Path("/proc/self/status")
_CLEAR_REFS = Path("/proc/self/clear_refs")


def _status_kib(field: str) -> int:
    for line in _STATUS.read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(field)


def rss_bytes() -> int:
    return _status_kib("VmRSS") * 1024


class PeakRSS:
    """`with PeakRSS() as peak:` ... `peak.delta` = highest RSS above the start, in bytes.

    Resets the kernel's high-water mark (VmHWM) at the start, so the peak is exact and
    includes librdkafka's native buffers (tracemalloc would miss those). Where the reset
    is refused, a 2 ms sampling thread is used instead.
    """

    def __init__(self) -> None:
        self.start = 0
        self.peak = 0
        self._exact = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> PeakRSS:
        self.start = rss_bytes()
        try:
            _CLEAR_REFS.write_text("5")  # resets VmHWM to the current RSS
            self._exact = True
        except OSError:
            self._thread = threading.Thread(target=self._sample, daemon=True)
            self._thread.start()
        self.peak = self.start
        return self

    def _sample(self) -> None:
        while not self._stop.wait(0.002):
            self.peak = max(self.peak, rss_bytes())

    def __exit__(self, *exc: object) -> None:
        if self._exact:
            self.peak = max(self.peak, _status_kib("VmHWM") * 1024)
        else:
            self._stop.set()
            assert self._thread is not None
            self._thread.join()
            self.peak = max(self.peak, rss_bytes())

    @property
    def delta(self) -> int:
        return max(0, self.peak - self.start)
