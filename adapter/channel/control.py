"""The operator's channel commands on a queue manager (what runmqsc's START / STOP /
RESET / RESOLVE CHANNEL do; tools/mqscchannel.py prints their messages).

- START CHANNEL on the local stack launches `mqk channel run QMGR CHANNEL` as a
  background process (its pid in the channel status); any other supervisor may run that
  command instead.
- STOP CHANNEL sets the channel's stop flag (polled by the agent between batches) and
  waits for the agent to leave the status STOPPED.
- RESET CHANNEL SEQNUM(n) "resets the message sequence number ... to be used the next
  time that the channel is started"; on a sender, "the value at the other (receiver)
  end is also reset to the same value the next time this channel is initiated"; on a
  receiver, only that end (https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.ref.adm.doc/q086510_.html).
  mqk counts like MQ: SEQNUM(n) makes n the number of the next message sent.
- RESOLVE CHANNEL ACTION(COMMIT|BACKOUT) for a sender whose batch is in doubt and whose
  partner cannot be reached: COMMIT discards the batch's messages from the transmission
  queue, BACKOUT leaves them there to be sent again; "if the resolution specified is
  not the same as the resolution at the receiving end, messages can be lost or
  duplicated" (https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.ref.adm.doc/q086570_.html).
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import time
from dataclasses import replace

import adapter.pymqi as pymqi
from adapter import config
from adapter.channel import status as S
from adapter.channel.agent import channels, remove_batch
from adapter.channel.syncq import (
    RECEIVER,
    SENDER,
    SyncQueue,
    SyncRecord,
    SyncRecordUnavailableError,
)
from adapter.shim.channeldef import ChannelDef

log = logging.getLogger("mqk.channel.control")
C = pymqi.CMQC


class ControlError(Exception):
    """A command refused: `message` is what runmqsc prints."""


def _channel(qm: pymqi.QueueManager, name: str) -> ChannelDef:
    cdef = channels(qm).lookup(name)
    if cdef is None:
        raise ControlError(f"AMQ8147E: IBM MQ object {name} not found.")
    return cdef


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def is_running(st: S.ChannelStatus | None) -> bool:
    return st is not None and st.status != S.STOPPED and st.pid > 0 and _alive(st.pid)


def start_channel(qm: pymqi.QueueManager, qmgr: str, name: str) -> int | None:
    """START CHANNEL: the agent's pid (None for a receiver: it runs when its sender
    does, as MQ's receivers are started by the partner's MCA)."""
    cdef = _channel(qm, name)
    store = qm.get_handle().store
    store.request_channel_stop(name, False)
    if not cdef.is_sender:
        return None
    current = S.read(store, name)
    if is_running(current):
        assert current is not None
        return current.pid  # already running: START is accepted, nothing more to do
    logs = config.mqk_home() / "log"
    logs.mkdir(parents=True, exist_ok=True)
    out = open(logs / f"channel-{qmgr}-{name}.log", "ab")  # noqa: SIM115 - the child owns it
    try:
        child = subprocess.Popen(  # noqa: S603 - our own interpreter and module
            [sys.executable, "-m", "adapter.cli", "channel", "run", qmgr, name],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    finally:
        out.close()
    base = current or S.ChannelStatus(name)
    S.write(store, replace(base, status=S.STARTING, pid=child.pid, message=""))
    return child.pid


def stop_channel(qm: pymqi.QueueManager, name: str, wait_s: float = 30.0) -> bool:
    """STOP CHANNEL: ask the agent to stop and wait for it (True: it stopped)."""
    _channel(qm, name)
    store = qm.get_handle().store
    st = S.read(store, name)
    if st is None or not is_running(st):
        raise ControlError(f"AMQ9533E: Channel '{name}' is not currently active.")
    store.request_channel_stop(name, True)
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        st = S.read(store, name)
        if st is None or st.status == S.STOPPED or not _alive(st.pid):
            return True
        time.sleep(0.1)
    log.warning("channel %s did not stop within %.0f s", name, wait_s)
    return False


def _read(sync: SyncQueue, name: str) -> SyncRecord:
    """The channel's record; a dead agent's lock that keeps hiding it means the channel
    is still held: AMQ9514E, as while it runs."""
    try:
        return sync.read()
    except SyncRecordUnavailableError as err:
        raise ControlError(f"AMQ9514E: Channel '{name}' is in use.") from err


def reset_channel(qm: pymqi.QueueManager, name: str, seqnum: int = 1) -> None:
    """RESET CHANNEL SEQNUM(n): refused while the channel runs."""
    if not 1 <= seqnum <= 999_999_999:
        raise ValueError("SEQNUM must be 1-999999999")
    cdef = _channel(qm, name)
    st = S.read(qm.get_handle().store, name)
    if is_running(st):
        raise ControlError(f"AMQ9514E: Channel '{name}' is in use.")
    end = SENDER if cdef.is_sender else RECEIVER
    sync = SyncQueue(qm, end, name)
    try:
        old = _read(sync, name)
        sync.write(SyncRecord(seq=seqnum - 1, luwid=old.luwid, reset=cdef.is_sender))
    finally:
        sync.close()
    if st is not None:
        S.write(qm.get_handle().store, replace(st, cur_seq=seqnum - 1, last_seq=seqnum - 1))


def resolve_channel(qm: pymqi.QueueManager, name: str, commit: bool) -> None:
    """RESOLVE CHANNEL ACTION(COMMIT / BACKOUT) of a stopped sender in doubt."""
    cdef = _channel(qm, name)
    if not cdef.is_sender:
        raise ControlError("AMQ8101S: IBM MQ error (BDA) has occurred.")  # 3034: not a sender
    store = qm.get_handle().store
    st = S.read(store, name)
    if is_running(st):
        raise ControlError(f"AMQ9514E: Channel '{name}' is in use.")
    if st is None or not st.indoubt:
        return  # nothing in doubt: MQ accepts the command and does nothing
    sync = SyncQueue(qm, SENDER, name)
    try:
        mine = _read(sync, name)
        batch = SyncRecord(
            seq=st.cur_seq, luwid=st.cur_luwid, prev_seq=mine.seq, prev_luwid=mine.luwid,
            msgids=st.indoubt_msgids,
        )  # fmt: skip
        if commit:
            xmitq = pymqi.Queue(qm, cdef.xmit_q_name, C.MQOO_INPUT_EXCLUSIVE)
            try:
                remove_batch(qm, xmitq, cdef.xmit_q_name, batch.msgids)
                sync.replace(batch, current=mine)
                qm.commit()
            finally:
                xmitq.close()
            st = replace(st, last_seq=batch.seq, last_luwid=batch.luwid)
        else:
            sync.write(replace(mine, backout_luwid=batch.luwid))
            st = replace(st, cur_seq=mine.seq, cur_luwid=mine.luwid)
    finally:
        sync.close()
    S.write(store, replace(st, indoubt=False, indoubt_msgids=[]))
