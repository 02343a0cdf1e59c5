"""The PCF channel commands on the real stack, as a pymqi script sends them: through
SYSTEM.ADMIN.COMMAND.QUEUE to a running command server (run_command_server in a thread):
CREATE_CHANNEL, START_CHANNEL (which launches the agent), INQUIRE_CHANNEL_STATUS while it
moves 120 messages, STOP_CHANNEL, RESET_CHANNEL, DELETE_CHANNEL."""

from __future__ import annotations

import contextlib
import threading
import time

import pytest

import adapter.pymqi as pymqi
from adapter import config
from adapter.channel.agent import channels
from adapter.core import cmqxc as X
from adapter.shim.channeldef import RCVR, ChannelDef
from adapter.testing.servers import purge_queue_manager
from adapter.tools import cmdserver
from tests.channelkit import CHANNEL, put_remote, read_all

pytestmark = pytest.mark.integration
C, F = pymqi.CMQC, pymqi.CMQCFC


def until(check, timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.2)


def test_a_pymqi_script_drives_a_channel_through_the_command_server(
    qmgr, qmgr_name, kafka_bootstrap, redis_url
) -> None:
    qmb = qmgr_name + "B"
    b = pymqi.connect(qmb, kafka_bootstrap=kafka_bootstrap, redis_url=redis_url)
    stop = threading.Event()
    server = threading.Thread(
        target=cmdserver.run_command_server, args=(qmgr_name, stop), daemon=True
    )
    server.start()
    try:
        b.define_queue("ORDERS", max_depth=10_000)
        channels(b).define(ChannelDef(CHANNEL, channel_type=RCVR))
        until(lambda: cmdserver.is_running(qmgr))
        pcf = pymqi.PCFExecute(qmgr, response_wait_interval=30_000)
        pcf.MQCMD_CREATE_Q({C.MQCA_Q_NAME: qmb, C.MQIA_Q_TYPE: C.MQQT_LOCAL,
                            C.MQIA_USAGE: C.MQUS_TRANSMISSION})  # fmt: skip
        pcf.MQCMD_CREATE_Q({C.MQCA_Q_NAME: "R.ORDERS", C.MQIA_Q_TYPE: C.MQQT_REMOTE,
                            C.MQCA_REMOTE_Q_NAME: "ORDERS", C.MQCA_REMOTE_Q_MGR_NAME: qmb,
                            C.MQCA_XMIT_Q_NAME: qmb})  # fmt: skip
        pcf.MQCMD_CREATE_CHANNEL({
            F.MQCACH_CHANNEL_NAME: CHANNEL, F.MQIACH_CHANNEL_TYPE: X.MQCHT_SENDER,
            F.MQCACH_XMIT_Q_NAME: qmb, F.MQIACH_BATCH_SIZE: 50,
        })  # fmt: skip
        name = {F.MQCACH_CHANNEL_NAME: CHANNEL}
        with pytest.raises(pymqi.MQMIError) as info:
            pcf.MQCMD_INQUIRE_CHANNEL_STATUS(name)
        assert info.value.reason == F.MQRCCF_CHL_STATUS_NOT_FOUND
        put_remote(qmgr, [b"p%03d" % i for i in range(120)])
        pcf.MQCMD_START_CHANNEL(name)
        try:
            until(lambda: b.queue_status("ORDERS")["current_depth"] == 120, 90)
            [st] = pcf.MQCMD_INQUIRE_CHANNEL_STATUS(name)
            assert st[F.MQIACH_CHANNEL_STATUS] == F.MQCHS_RUNNING
            assert (st[F.MQIACH_BATCHES], st[F.MQIACH_MSGS]) == (3, 120)
            assert st[F.MQIACH_LAST_SEQ_NUMBER] == 120
            assert st[F.MQCACH_XMIT_Q_NAME].rstrip() == qmb.encode()
            assert st[C.MQCA_REMOTE_Q_MGR_NAME].rstrip() == qmb.encode()
            with pytest.raises(pymqi.MQMIError) as info:
                pcf.MQCMD_RESET_CHANNEL(name)
            assert info.value.reason == F.MQRCCF_CHANNEL_IN_USE
        finally:
            pcf.MQCMD_STOP_CHANNEL(name)
        [st] = pcf.MQCMD_INQUIRE_CHANNEL_STATUS(name)
        assert st[F.MQIACH_CHANNEL_STATUS] == F.MQCHS_STOPPED
        pcf.MQCMD_RESET_CHANNEL({**name, F.MQIACH_MSG_SEQUENCE_NUMBER: 500})
        [st] = pcf.MQCMD_INQUIRE_CHANNEL_STATUS(name)
        assert st[F.MQIACH_LAST_SEQ_NUMBER] == 499
        [defn] = pcf.MQCMD_INQUIRE_CHANNEL(name)
        assert defn[F.MQIACH_BATCH_SIZE] == 50 and defn[F.MQCACH_XMIT_Q_NAME].rstrip() == (
            qmb.encode()
        )
        pcf.MQCMD_DELETE_CHANNEL(name)
        with pytest.raises(pymqi.MQMIError) as info:
            pcf.MQCMD_INQUIRE_CHANNEL(name)
        assert info.value.reason == F.MQRCCF_CHANNEL_NOT_FOUND
        pcf.disconnect()
        got = [d for d, _ in read_all(b, "ORDERS")]
        assert got == [b"p%03d" % i for i in range(120)]
    finally:
        stop.set()
        server.join(30)
        with contextlib.suppress(pymqi.Error):
            b.disconnect()
        purge_queue_manager(config.Endpoints(kafka_bootstrap, redis_url), qmb)
