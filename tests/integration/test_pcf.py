"""PCF administration on the real Kafka and Redis (issue 15's check): queues created by
PCF, messages put on two of them, and MQCMD_INQUIRE_Q with a generic name answering the
matching queues only, with their depths and attributes, as a monitoring script reads
them with pymqi's PCFExecute."""

from __future__ import annotations

import pytest

import adapter.pymqi as pymqi

pytestmark = pytest.mark.integration
C, F = pymqi.CMQC, pymqi.CMQCFC


def test_inquire_q_with_a_generic_name_on_the_real_stack(qmgr) -> None:
    pcf = pymqi.PCFExecute(qmgr)
    for name, depth in (("MON.ORDERS", 3), ("MON.PAYMENTS", 1), ("OTHER.AUDIT", 2)):
        pcf.MQCMD_CREATE_Q(
            {C.MQCA_Q_NAME: name, C.MQIA_Q_TYPE: C.MQQT_LOCAL, C.MQIA_MAX_Q_DEPTH: 1000}
        )
        queue = pymqi.Queue(qmgr, name, C.MQOO_OUTPUT)
        for i in range(depth):
            queue.put(b"message %d" % i)
        queue.close()

    found = pcf.MQCMD_INQUIRE_Q(
        {
            C.MQCA_Q_NAME: b"MON.*",
            C.MQIA_Q_TYPE: C.MQQT_LOCAL,
            F.MQIACF_Q_ATTRS: [C.MQCA_Q_NAME, C.MQIA_CURRENT_Q_DEPTH, C.MQIA_MAX_Q_DEPTH],
        }
    )
    assert [(q[C.MQCA_Q_NAME].strip(), q[C.MQIA_CURRENT_Q_DEPTH]) for q in found] == [
        (b"MON.ORDERS", 3),
        (b"MON.PAYMENTS", 1),
    ]
    assert all(q[C.MQIA_MAX_Q_DEPTH] == 1000 for q in found)
    with pytest.raises(pymqi.MQMIError) as info:
        pcf.MQCMD_INQUIRE_Q({C.MQCA_Q_NAME: b"NONE.*"})
    assert (info.value.comp, info.value.reason) == (C.MQCC_FAILED, C.MQRC_UNKNOWN_OBJECT_NAME)
    pcf.disconnect()
