"""A pymqi program as MQ shops write them; only the import line differs from the original
(`import pymqi`). Run as: python pymqi_app.py QMGR REQUEST.Q REPLY.Q"""

import sys
import threading

import adapter.pymqi as pymqi

queue_manager, request_q, reply_q = sys.argv[1:4]
qmgr = pymqi.connect(queue_manager, "DEV.APP.SVRCONN", "localhost(1414)")


def responder() -> None:
    """Serves one request: replies to ReplyToQ with CorrelId = the request's MsgId. Its
    own connection: a pymqi connection (MQCONN) belongs to the thread that made it."""
    own = pymqi.connect(queue_manager, "DEV.APP.SVRCONN", "localhost(1414)")
    requests = pymqi.Queue(own, request_q)
    md = pymqi.MD()
    gmo = pymqi.GMO()
    gmo.Options = pymqi.CMQC.MQGMO_WAIT | pymqi.CMQC.MQGMO_FAIL_IF_QUIESCING
    gmo.WaitInterval = 10000
    body = requests.get(None, md, gmo)
    reply_md = pymqi.MD()
    reply_md.CorrelId = md.MsgId
    reply_md.MsgType = pymqi.CMQC.MQMT_REPLY
    own.put1(md.ReplyToQ.strip(), b"reply to " + body, reply_md)
    requests.close()
    own.disconnect()


server = threading.Thread(target=responder)
server.start()

# Request/reply by CorrelId.
request = pymqi.Queue(qmgr, request_q)
md = pymqi.MD()
md.ReplyToQ = reply_q
md.MsgType = pymqi.CMQC.MQMT_REQUEST
request.put(b"ping", md)
request.close()

replies = pymqi.Queue(qmgr, reply_q)
reply_md = pymqi.MD()
reply_md.CorrelId = md.MsgId
gmo = pymqi.GMO()
gmo.Options = pymqi.CMQC.MQGMO_WAIT
gmo.WaitInterval = 10000
gmo.MatchOptions = pymqi.CMQC.MQMO_MATCH_CORREL_ID
print("reply:", replies.get(None, reply_md, gmo).decode())
server.join()

# Browse without removing, then a destructive get with WAIT.
feeder = pymqi.Queue(qmgr, reply_q)
for text in ("one", "two"):
    feeder.put(text)
feeder.close()
browse = pymqi.Queue(qmgr, reply_q, pymqi.CMQC.MQOO_BROWSE)
gmo = pymqi.GMO()
gmo.Options = pymqi.CMQC.MQGMO_BROWSE_FIRST
seen = []
while True:
    try:
        md = pymqi.MD()
        seen.append(browse.get(None, md, gmo).decode())
        gmo.Options = pymqi.CMQC.MQGMO_BROWSE_NEXT
    except pymqi.MQMIError as e:
        if e.comp == pymqi.CMQC.MQCC_FAILED and e.reason == pymqi.CMQC.MQRC_NO_MSG_AVAILABLE:
            break
        raise
print("browsed:", seen)
gmo = pymqi.GMO()
gmo.Options = pymqi.CMQC.MQGMO_WAIT
gmo.WaitInterval = 1000
got = []
while True:
    try:
        md = pymqi.MD()
        got.append(replies.get(None, md, gmo).decode())
    except pymqi.MQMIError as e:
        if e.reason == pymqi.CMQC.MQRC_NO_MSG_AVAILABLE:
            break
        raise
print("got:", got)
browse.close()
replies.close()
qmgr.disconnect()
