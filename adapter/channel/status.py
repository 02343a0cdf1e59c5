"""A channel's status as DISPLAY CHSTATUS shows it, written by its agent through the
sending queue manager's state store (`StateStore.set_channel_status`, the `chstatus`
hash of adapter/shim/redis_store.py).

The fields are DISPLAY CHSTATUS's (https://www.ibm.com/docs/en/ibm-mq/9.4.x?topic=reference-display-chstatus-display-channel-status):
STATUS (BINDING, RUNNING, RETRYING, STOPPING, STOPPED), CURLUWID / LSTLUWID (the LUWID
of the batch in flight / of the last batch committed), CURSEQNO / LSTSEQNO (the
sequence number of the last message sent / of the last message of the last committed
batch), INDOUBT (whether a batch was sent and its confirmation is awaited), BATCHES,
MSGS, BATCHSZ (as agreed with the partner), NPMSPEED, and the agent's process id. The
in-doubt batch's transmission-queue MsgIds are kept here too: RESOLVE CHANNEL needs
them when the partner cannot be asked.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, fields

from adapter.shim.store import StateStore

BINDING, RUNNING, RETRYING = "BINDING", "RUNNING", "RETRYING"
STOPPING, STOPPED, STARTING = "STOPPING", "STOPPED", "STARTING"
NO_LUWID = "0000000000000000"


@dataclass
class ChannelStatus:
    """One channel's status (DISPLAY CHSTATUS CURRENT)."""

    channel: str
    status: str = STOPPED
    conn_name: str = ""
    xmit_q: str = ""
    rqmname: str = ""
    batch_size: int = 50
    npm_speed: str = "FAST"
    cur_seq: int = 0
    last_seq: int = 0
    cur_luwid: str = NO_LUWID
    last_luwid: str = NO_LUWID
    indoubt: bool = False
    batches: int = 0
    msgs: int = 0
    cur_msgs: int = 0
    pid: int = field(default_factory=os.getpid)
    message: str = ""  # the last AMQ message the agent gave (why it stopped)
    indoubt_msgids: list[str] = field(default_factory=list)  # hex, of the xmitq

    def to_json(self) -> bytes:
        # Flat fields: read them as they are (asdict copies deep, on every batch).
        return json.dumps({f.name: getattr(self, f.name) for f in _FIELDS}, sort_keys=True).encode()

    @classmethod
    def from_json(cls, raw: bytes) -> ChannelStatus:
        data = json.loads(raw)
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


_FIELDS = fields(ChannelStatus)


def read(store: StateStore, channel: str) -> ChannelStatus | None:
    raw = store.channel_status(channel)
    return None if raw is None else ChannelStatus.from_json(raw)


def write(store: StateStore, status: ChannelStatus, later: bool = False) -> None:
    """`later`: write-behind (StateStore.set_channel_status), for the figures of each
    batch."""
    store.set_channel_status(status.channel, status.to_json(), later)
