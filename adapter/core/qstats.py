"""Queue statistics as IBM MQ keeps them: the queue monitoring switch (MONQ on the queue
and on the queue manager), the figures of DISPLAY QSTATUS / MQCMD_INQUIRE_Q_STATUS
(last put / get date and time, oldest message age, uncommitted changes) and the
performance counters RESET QSTATS / MQCMD_RESET_Q_STATS report and zero. Pure: the
engine (adapter/shim/qstats.py) gathers the raw figures, this module says what MQ shows.

IBM's pages:
- DISPLAY QSTATUS (LGETDATE, LGETTIME, LPUTDATE, LPUTTIME, MSGAGE, QTIME: "A value is
  only displayed for this parameter if MONQ is set to a value other than OFF for this
  queue"; blank when none; MSGAGE at most 999999999; UNCOM: NO, or on Multiplatforms
  the number of uncommitted changes):
  https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.ref.adm.doc/q086260_.html
- MQCMD_INQUIRE_Q_STATUS's response (LastGetDate yyyy-mm-dd, LastGetTime hh.mm.ss,
  OldestMsgAge, OnQTime, QueueMonitoring, UncommittedMsgs):
  https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_7.5.0/com.ibm.mq.ref.adm.doc/q087890_.htm
- MONQ of a queue (QMGR, OFF, LOW, MEDIUM, HIGH) and of the queue manager (OFF, NONE,
  LOW, MEDIUM, HIGH; NONE switches monitoring off for every queue whatever its MONQ):
  https://www.ibm.com/docs/en/ibm-mq/9.4.x?topic=reference-alter-qmgr
- MQCMD_RESET_Q_STATS's response (HighQDepth, MsgEnqCount, MsgDeqCount,
  TimeSinceReset; one response per queue a generic name matches):
  https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.ref.adm.doc/q088310_.html
- MQRCCF_EVENTS_DISABLED (3224), "The command required performance or configuration
  events to be enabled": https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q047400_.html
- RESET QSTATS (MQSC; IBM documents it for z/OS, where the keywords are HIQDEPTH,
  MSGSIN, MSGSOUT, RESETINT):
  https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.ref.adm.doc/q086540_.html

Statistics are kept "since the queue manager started": strmqm starts every queue's again
(StateStore.restart_stats); a new connection, or a restarted application, keeps them
(they live in the state store).

LOW, MEDIUM and HIGH differ in MQ only in how often QTIME is sampled; mqk measures every
destructive get while monitoring is on, so every level other than OFF is the same here.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from adapter.core import cmqc as C  # noqa: N812
from adapter.core import cmqcfc as F  # noqa: N812

MAX_SHOWN = 999_999_999
"""DISPLAY QSTATUS / PCF: an age or count beyond it is shown as it."""

# MQSC words <-> MQMON_* values of MONQ on the queue manager (ALTER QMGR MONQ).
QMGR_MONQ_WORDS = {
    "OFF": C.MQMON_OFF,
    "NONE": C.MQMON_NONE,
    "LOW": C.MQMON_LOW,
    "MEDIUM": C.MQMON_MEDIUM,
    "HIGH": C.MQMON_HIGH,
}
# The effective level's word (DISPLAY QSTATUS MONQ).
LEVEL_WORDS = {C.MQMON_OFF: "OFF", C.MQMON_LOW: "LOW", C.MQMON_MEDIUM: "MEDIUM",
               C.MQMON_HIGH: "HIGH"}  # fmt: skip
# ALTER QMGR PERFMEV: MQEVR_DISABLED (0) / MQEVR_ENABLED (1).
PERFMEV_WORDS = {"DISABLED": 0, "ENABLED": 1}

QTIME_UNAVAILABLE = (C.MQMON_NOT_AVAILABLE, C.MQMON_NOT_AVAILABLE)
"""OnQTime before any message was got while monitored (or with monitoring off): PCF
answers MQMON_NOT_AVAILABLE, MQSC blanks. Measured, it is two exponentially weighted
means in microseconds (short and long term; adapter/shim/store.py's QTIME_WEIGHTS, as
IBM publishes no formula) of the time from a message's put (its MQMD put time, in
milliseconds) to its destructive get."""


def effective_monitoring(queue_monq: int, qmgr_monq: int) -> int:
    """The queue's monitoring level (DISPLAY QSTATUS MONQ, PCF QueueMonitoring): the
    queue manager's NONE switches it off whatever the queue says; a queue's QMGR takes
    the queue manager's level (OFF by default); else the queue's own."""
    if qmgr_monq == C.MQMON_NONE:
        return C.MQMON_OFF
    if queue_monq == C.MQMON_Q_MGR:
        return qmgr_monq
    return queue_monq


def date_time(ms: int | None) -> tuple[str, str]:
    """MQ's (yyyy-mm-dd, hh.mm.ss) of a time in epoch milliseconds, in the queue
    manager's local time as MQ shows them; blanks for none."""
    if not ms:
        return "", ""
    t = time.localtime(ms / 1000)
    return time.strftime("%Y-%m-%d", t), time.strftime("%H.%M.%S", t)


@dataclass(frozen=True)
class QueueFigures:
    """What the engine gathered for one local queue (times in epoch ms; None: none)."""

    depth: int
    open_input: int
    open_output: int
    monitoring: int  # the effective level (effective_monitoring)
    last_put_ms: int | None
    last_get_ms: int | None
    oldest_put_ms: int | None  # the oldest message still on the queue
    uncommitted: int  # uncommitted puts and gets on the queue
    now_ms: int
    qtime_us: tuple[int, int] | None = None  # QTIME's (short, long); None: none measured


def message_age(fig: QueueFigures) -> int:
    """OldestMsgAge in seconds: 0 for an empty queue, at most MAX_SHOWN."""
    if fig.oldest_put_ms is None:
        return 0
    return min(MAX_SHOWN, max(0, (fig.now_ms - fig.oldest_put_ms) // 1000))


def qtime(fig: QueueFigures) -> tuple[int, int]:
    """OnQTime's two values (MQMON_NOT_AVAILABLE before any measure), at most MAX_SHOWN."""
    if fig.qtime_us is None:
        return QTIME_UNAVAILABLE
    return (min(fig.qtime_us[0], MAX_SHOWN), min(fig.qtime_us[1], MAX_SHOWN))


def _qtime_item(fig: QueueFigures) -> str:
    if fig.qtime_us is None:
        return "QTIME( , )"
    short, long = qtime(fig)
    return f"QTIME({short},{long})"


def mqsc_items(fig: QueueFigures) -> dict[str, str]:
    """DISPLAY QSTATUS TYPE(QUEUE)'s figures, keyword -> runmqsc's item. The times and
    the age are blank while monitoring is off for the queue."""
    on = fig.monitoring != C.MQMON_OFF
    get_date, get_time = date_time(fig.last_get_ms) if on else ("", "")
    put_date, put_time = date_time(fig.last_put_ms) if on else ("", "")
    age = str(message_age(fig)) if on and fig.oldest_put_ms is not None else " "

    def item(keyword: str, text: str) -> str:
        return f"{keyword}({text or ' '})"

    return {
        "CURDEPTH": item("CURDEPTH", str(fig.depth)),
        "IPPROCS": item("IPPROCS", str(fig.open_input)),
        "LGETDATE": item("LGETDATE", get_date),
        "LGETTIME": item("LGETTIME", get_time),
        "LPUTDATE": item("LPUTDATE", put_date),
        "LPUTTIME": item("LPUTTIME", put_time),
        "MEDIALOG": "MEDIALOG( )",  # no media recovery log: blank, as with circular logging
        "MONQ": item("MONQ", LEVEL_WORDS.get(fig.monitoring, "OFF")),
        "MSGAGE": item("MSGAGE", age),
        "OPPROCS": item("OPPROCS", str(fig.open_output)),
        "QTIME": _qtime_item(fig) if on else "QTIME( , )",
        "UNCOM": item("UNCOM", str(fig.uncommitted) if fig.uncommitted else "NO"),
    }


QSTATUS_KEYWORDS = ("CURDEPTH", "IPPROCS", "LGETDATE", "LGETTIME", "LPUTDATE", "LPUTTIME",
                    "MEDIALOG", "MONQ", "MSGAGE", "OPPROCS", "QTIME", "UNCOM")  # fmt: skip
"""DISPLAY QSTATUS TYPE(QUEUE)'s queue-status keywords, in runmqsc's order (MEDIALOG,
the log extent linear logging needs for media recovery, is always blank here)."""
MONITOR_KEYWORDS = ("LGETDATE", "LGETTIME", "LPUTDATE", "LPUTTIME", "MONQ", "MSGAGE", "QTIME")
"""What DISPLAY QSTATUS MONITOR adds ("Also displayed by selection of the MONITOR
parameter")."""


def pcf_values(fig: QueueFigures) -> dict[int, int | str | list[int]]:
    """INQUIRE_Q_STATUS's MQIACF_Q_STATUS figures, selector -> value (strings unpadded).
    While monitoring is off the dates and times are blank and OldestMsgAge is
    MQMON_NOT_AVAILABLE."""
    on = fig.monitoring != C.MQMON_OFF
    get_date, get_time = date_time(fig.last_get_ms) if on else ("", "")
    put_date, put_time = date_time(fig.last_put_ms) if on else ("", "")
    return {
        C.MQIA_CURRENT_Q_DEPTH: fig.depth,
        C.MQIA_OPEN_INPUT_COUNT: fig.open_input,
        C.MQIA_OPEN_OUTPUT_COUNT: fig.open_output,
        F.MQCACF_LAST_GET_DATE: get_date,
        F.MQCACF_LAST_GET_TIME: get_time,
        F.MQCACF_LAST_PUT_DATE: put_date,
        F.MQCACF_LAST_PUT_TIME: put_time,
        F.MQIACF_OLDEST_MSG_AGE: message_age(fig) if on else C.MQMON_NOT_AVAILABLE,
        F.MQIACF_Q_TIME_INDICATOR: list(qtime(fig) if on else QTIME_UNAVAILABLE),
        C.MQIA_MONITORING_Q: fig.monitoring,
        F.MQIACF_UNCOMMITTED_MSGS: fig.uncommitted if fig.uncommitted else F.MQQSUM_NO,
    }


@dataclass(frozen=True)
class ResetFigures:
    """What RESET QSTATS read (and zeroed) for one queue."""

    queue: str
    high_depth: int
    enqueued: int
    dequeued: int
    since_reset_s: int

    def pcf_values(self) -> dict[int, int]:
        return {
            C.MQIA_HIGH_Q_DEPTH: min(self.high_depth, MAX_SHOWN),
            C.MQIA_MSG_ENQ_COUNT: min(self.enqueued, MAX_SHOWN),
            C.MQIA_MSG_DEQ_COUNT: min(self.dequeued, MAX_SHOWN),
            C.MQIA_TIME_SINCE_RESET: min(self.since_reset_s, MAX_SHOWN),
        }

    def mqsc_items(self) -> list[str]:
        """RESET QSTATS's items, in the z/OS command's keywords (the only MQSC form IBM
        documents)."""
        return [
            f"QSTATS({self.queue})",
            f"RESETINT({min(self.since_reset_s, MAX_SHOWN)})",
            f"HIQDEPTH({min(self.high_depth, MAX_SHOWN)})",
            f"MSGSIN({min(self.enqueued, MAX_SHOWN)})",
            f"MSGSOUT({min(self.dequeued, MAX_SHOWN)})",
        ]
