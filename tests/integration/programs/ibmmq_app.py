"""A program written for IBM's ibmmq 2.x package; only the import line differs from the
original (`import ibmmq`). Run as: python ibmmq_app.py QMGR REQUEST.Q MODEL.Q

Request/reply through a temporary dynamic reply queue with CorrelId matching and a WAIT
loop, the requests served by a callback consumer (MQCB / MQCTL), an MQINQ/MQSET pair
(PUT(DISABLED) set by MQSET, seen by an open handle), MQSTAT after asynchronous puts,
and a truncated get's extra data."""

import sys
import threading

import adapter.ibmmq as ibmmq

CMQC = ibmmq.CMQC

queue_manager, request_q, model_q = sys.argv[1:4]
qmgr = ibmmq.connect(queue_manager, "DEV.APP.SVRCONN", "localhost(1414)", "app", "passw0rd")
print("versions:", sorted(ibmmq.get_versions()))
info = qmgr.inquire([CMQC.MQCA_Q_MGR_NAME, CMQC.MQIA_COMMAND_LEVEL, CMQC.MQIA_PLATFORM])
print("qmgr:", ibmmq.to_string(info[CMQC.MQCA_Q_MGR_NAME]) == qmgr.get_name())
print("level:", info[CMQC.MQIA_COMMAND_LEVEL] >= CMQC.MQCMDL_LEVEL_940)
N = 3


# The responder: a callback consumer (MQCB / MQCTL) on a connection of its own; each
# reply goes to the request's ReplyToQ with CorrelId = its MsgId, as MQ's request/reply
# convention says. It runs on the connection's own thread while the main thread goes on.
served = threading.Event()
seen = []


def serve(**kwargs) -> None:
    cbc, md, msg = kwargs["cbc"], kwargs["md"], kwargs["msg"]
    if cbc.CallType != CMQC.MQCBCT_MSG_REMOVED:
        return  # an event (2033 while idle, a quiesce): nothing to answer
    reply_md = ibmmq.MD(CorrelId=md.MsgId, MsgType=CMQC.MQMT_REPLY)
    own = kwargs["queue_manager"]
    own.put1(ibmmq.to_string(md.ReplyToQ), b"reply to " + msg[: cbc.DataLength], reply_md)
    seen.append(md.MsgId)
    if len(seen) == N:
        served.set()


own = ibmmq.connect(queue_manager, "DEV.APP.SVRCONN", "localhost(1414)", "app", "passw0rd")
requests = ibmmq.Queue(own, request_q, CMQC.MQOO_INPUT_SHARED)
cbd = ibmmq.CBD(CallbackFunction=serve, CallbackType=CMQC.MQCBT_MESSAGE_CONSUMER)
consume_gmo = ibmmq.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_FAIL_IF_QUIESCING)
requests.cb(operation=CMQC.MQOP_REGISTER, cbd=cbd, md=ibmmq.MD(), gmo=consume_gmo)
own.ctl(CMQC.MQOP_START, ibmmq.CTLO())

# The reply queue: a temporary dynamic queue made from the model.
od = ibmmq.OD(ObjectName=model_q, DynamicQName="APP.REPLY.*")
replies = ibmmq.Queue(qmgr, od, CMQC.MQOO_INPUT_EXCLUSIVE)
reply_q = ibmmq.to_string(od.ObjectName)
print("dynamic:", reply_q.startswith("APP.REPLY."))

sender = ibmmq.Queue(qmgr, request_q, CMQC.MQOO_OUTPUT)
sent = []
for i in range(N):
    md = ibmmq.MD(ReplyToQ=reply_q, MsgType=CMQC.MQMT_REQUEST)
    sender.put(f"ping {i}".encode(), md)
    sent.append(md.MsgId)

answers = []
for msg_id in reversed(sent):  # out of order on purpose: CorrelId picks each one
    while True:  # the WAIT loop MQ programs write: wait, give up after a while
        md = ibmmq.MD(CorrelId=msg_id)
        gmo = ibmmq.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=2000)
        gmo.MatchOptions = CMQC.MQMO_MATCH_CORREL_ID
        try:
            answers.append(replies.get(None, md, gmo).decode())
            break
        except ibmmq.MQMIError as e:
            if e.reason != CMQC.MQRC_NO_MSG_AVAILABLE:
                raise
print("served:", served.wait(30))
own.ctl(CMQC.MQOP_STOP, ibmmq.CTLO())
requests.cb(operation=CMQC.MQOP_DEREGISTER)
requests.close()
own.disconnect()
print("replies:", answers)
replies.close()

# MQINQ / MQSET.
admin = ibmmq.Queue(qmgr, request_q, CMQC.MQOO_INQUIRE | CMQC.MQOO_SET)
attrs = admin.inq([CMQC.MQIA_CURRENT_Q_DEPTH, CMQC.MQIA_INHIBIT_PUT, CMQC.MQCA_Q_NAME])
print("inq:", attrs[CMQC.MQIA_CURRENT_Q_DEPTH], attrs[CMQC.MQIA_INHIBIT_PUT])
admin.set({CMQC.MQIA_INHIBIT_PUT: CMQC.MQQA_PUT_INHIBITED, CMQC.MQCA_TRIGGER_DATA: "app"})
after = admin.inq([CMQC.MQIA_INHIBIT_PUT, CMQC.MQCA_TRIGGER_DATA])
print("set:", after[CMQC.MQIA_INHIBIT_PUT], ibmmq.to_string(after[CMQC.MQCA_TRIGGER_DATA]))
try:
    sender.put(b"refused")
except ibmmq.MQMIError as e:
    print("put:", ibmmq.CMQSTRC.MQRC_DICT[e.reason])

# MQSTAT after asynchronous puts: two refused (PUT(DISABLED)), then two accepted.
async_pmo = ibmmq.PMO(Options=CMQC.MQPMO_ASYNC_RESPONSE)
for _ in range(2):
    sender.put(b"async", ibmmq.MD(), async_pmo)
sts = qmgr.stat(CMQC.MQSTAT_TYPE_ASYNC_ERROR)
print(
    "stat:",
    sts.PutSuccessCount,
    sts.PutFailureCount,
    ibmmq.CMQSTRC.MQRC_DICT[sts.Reason],
    ibmmq.to_string(sts.ObjectName),
)
admin.set(CMQC.MQIA_INHIBIT_PUT, CMQC.MQQA_PUT_ALLOWED)
for _ in range(2):
    sender.put(b"async", ibmmq.MD(), async_pmo)
sts = qmgr.stat(CMQC.MQSTAT_TYPE_ASYNC_ERROR)
print("stat:", sts.PutSuccessCount, sts.PutFailureCount, ibmmq.CMQSTRC.MQCC_DICT[sts.CompCode])

# A get into too small a buffer: the error carries the message's length.
getter = ibmmq.Queue(qmgr, request_q, CMQC.MQOO_INPUT_SHARED)
try:
    getter.get(2)
except ibmmq.MQMIError as e:
    print("truncated:", e.reason == CMQC.MQRC_TRUNCATED_MSG_FAILED, e.get("original_length"))
for q in (admin, sender, getter):
    q.close()
qmgr.disconnect()
