"""The queue manager object's attributes (ALTER QMGR / DISPLAY QMGR): the dead-letter
queue, the default transmission queue, the limits MQ enforces per connection and per
unit of work, and the description.

Durable in the queue manager's compacted catalog topic under the key ``QMGR_KEY`` (a
``*`` no queue name may hold, so it can never clash with a queue definition) and cached
in the state store's catalog like the queue definitions; the catalog (catalog.py) writes
and reads it, this module only says what it holds and what values are allowed.

IBM's pages: ALTER QMGR (MQSC), the attributes DEADQ, DEFXMITQ, DESCR, MAXHANDS (0 to
999 999 999, default 256), MAXUMSGS (1 to 999 999 999, default 10 000) and MAXMSGL
(32 768 to 104 857 600, default 4 194 304):
https://www.ibm.com/docs/en/ibm-mq/9.4.x?topic=reference-alter-qmgr; CRTMQM gives the
same ranges and defaults (MAXHDL, MAXUMSG):
https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.ref.adm.doc/q084150_.html; the
dead-letter queue "must be a local queue" and is named by DEADQ (blank: none):
https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.adm.doc/q020730_.html. MONQ (OFF,
NONE, LOW, MEDIUM, HIGH; default OFF) and PERFMEV (default DISABLED) are ALTER QMGR's too.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields

from adapter.core import cmqc as C

QMGR_KEY = "*QMGR"
"""The catalog key of the queue manager object (no queue name holds a '*')."""

_MAX_LIMIT = 999_999_999
_QMGR_MONQ = (C.MQMON_OFF, C.MQMON_NONE, C.MQMON_LOW, C.MQMON_MEDIUM, C.MQMON_HIGH)


def is_queue_key(key: str) -> bool:
    """Whether a catalog key names a queue (not the queue manager object)."""
    return not key.startswith("*")


@dataclass
class QMgrDef:
    """The queue manager's attributes, with MQSC's names in the comments and MQ's
    defaults (a queue manager never altered has exactly these)."""

    description: str = ""  # DESCR
    dead_letter_q: str = ""  # DEADQ: blank, no dead-letter queue (crtmqm without -u)
    def_xmit_q: str = ""  # DEFXMITQ
    max_handles: int = 256  # MAXHANDS: open handles per connection
    max_uncommitted_msgs: int = 10_000  # MAXUMSGS: messages put and got in one UOW
    max_msg_length: int = 4 * 1024 * 1024  # MAXMSGL: the largest message of the QM
    # MONQ: queue monitoring for queues with MONQ(QMGR): MQMON_OFF (MQ's default), or
    # LOW / MEDIUM / HIGH; MQMON_NONE switches it off for every queue.
    monitoring_q: int = C.MQMON_OFF
    # PERFMEV: performance events; MQCMD_RESET_Q_STATS needs them ENABLED (3224
    # MQRCCF_EVENTS_DISABLED otherwise). 0 = DISABLED (MQ's default), 1 = ENABLED.
    perf_events: int = 0

    def to_json(self) -> bytes:
        return json.dumps(asdict(self), sort_keys=True).encode()

    @classmethod
    def from_json(cls, data: bytes) -> QMgrDef:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in json.loads(data).items() if k in known})

    def validate(self) -> None:
        """ValueError, in MQSC's terms, for a value ALTER QMGR refuses."""
        for attr, mqsc in (("dead_letter_q", "DEADQ"), ("def_xmit_q", "DEFXMITQ")):
            if len(getattr(self, attr)) > C.MQ_Q_NAME_LENGTH:
                raise ValueError(f"{mqsc} is at most {C.MQ_Q_NAME_LENGTH} characters")
        if len(self.description) > 64:
            raise ValueError("DESCR is at most 64 characters")
        if not 0 <= self.max_handles <= _MAX_LIMIT:
            raise ValueError(f"MAXHANDS must be 0-{_MAX_LIMIT}")
        if not 1 <= self.max_uncommitted_msgs <= _MAX_LIMIT:
            raise ValueError(f"MAXUMSGS must be 1-{_MAX_LIMIT}")
        if not 32_768 <= self.max_msg_length <= 104_857_600:
            raise ValueError("MAXMSGL must be 32768-104857600")
        if self.monitoring_q not in _QMGR_MONQ:
            raise ValueError("MONQ must be OFF, NONE, LOW, MEDIUM or HIGH")
        if self.perf_events not in (0, 1):
            raise ValueError("PERFMEV must be ENABLED or DISABLED")


# ALTER QMGR's attributes here (every field: none shapes storage).
ALTERABLE = frozenset(f.name for f in fields(QMgrDef))
