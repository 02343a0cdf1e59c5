"""The command server's subscription and topic-status commands (adapter/pymqi/pcfserver.py
hands them here): MQCMD_CREATE_SUBSCRIPTION, MQCMD_CHANGE_SUBSCRIPTION,
MQCMD_COPY_SUBSCRIPTION, MQCMD_DELETE_SUBSCRIPTION,
MQCMD_INQUIRE_SUBSCRIPTION, MQCMD_INQUIRE_SUB_STATUS and MQCMD_INQUIRE_TOPIC_STATUS, on
adapter/shim/subadmin.py (what MQSC's DEFINE / DELETE / DISPLAY SUB, DISPLAY SBSTATUS
and DISPLAY TPSTATUS use).

IBM: "Inquire Subscription" <https://setgetweb.com/p/MQ90/ref.adm/q088040_.htm>,
"Inquire Subscription Status" <https://setgetweb.com/p/MQ90/ref.adm/q088060_.htm>,
"Delete Subscription" <https://setgetweb.com/p/MQ92/ref.adm/q087210_.htm>, "Create
Subscription" and "Inquire Topic Status" in the same reference. SubName is taken (SubId,
MQBACF_SUB_ID, also selects); MQCA_TOPIC_STRING for the topic status, whose
MQIACF_TOPIC_STATUS_TYPE is MQIACF_TOPIC_STATUS (the default), MQIACF_TOPIC_SUB or
MQIACF_TOPIC_PUB. Failures: 2085 (none), 4001 (CREATE of an existing one without
MQIACF_REPLACE), 2429 (DELETE of one a handle has open), 3019 (a required parameter
missing), 4005 (a value outside its domain), 3014 / 3015 (a parameter not taken).
"""

from __future__ import annotations

from collections.abc import Callable
from time import localtime, strftime
from typing import Any

from adapter.core import cmqc as C  # noqa: N812
from adapter.core import cmqcfc as F  # noqa: N812
from adapter.core import topicattrs as TA  # noqa: N812
from adapter.core.pcfcommand import CommandError, Request, Values, filtered, padded
from adapter.core.topicstring import Wildcard
from adapter.shim.subadmin import SubAdmin, SubChange, SubStatus
from adapter.shim.subscriptions import SubDef

_NAME = 10240  # MQ_SUB_NAME_LENGTH: not padded (an MQCHARV's length)
_Q = C.MQ_Q_NAME_LENGTH


def _stamp(ms: int) -> tuple[bytes, bytes]:
    if not ms:
        return b" " * C.MQ_DATE_LENGTH, b" " * C.MQ_TIME_LENGTH
    t = localtime(ms / 1000)
    return (padded(strftime("%Y-%m-%d", t), C.MQ_DATE_LENGTH),
            padded(strftime("%H.%M.%S", t), C.MQ_TIME_LENGTH))  # fmt: skip


def _conn(active: str) -> bytes:
    return active.encode()[:24].ljust(24, b"\0") if active else b"\0" * 24


def _sub_values(sd: SubDef) -> Values:
    created, altered = _stamp(sd.created_ms), _stamp(sd.altered_ms or sd.created_ms)
    return {
        F.MQCACF_SUB_NAME: sd.name.encode(),
        F.MQBACF_SUB_ID: bytes.fromhex(sd.subscription_id),
        C.MQCA_TOPIC_STRING: sd.topic.encode(),
        C.MQCA_TOPIC_NAME: padded(sd.topic_object, C.MQ_TOPIC_NAME_LENGTH),
        F.MQCACF_DESTINATION: padded(sd.queue, _Q),
        F.MQCACF_DESTINATION_Q_MGR: padded("", C.MQ_Q_MGR_NAME_LENGTH),
        F.MQBACF_DESTINATION_CORREL_ID: sd.correl_bytes,
        F.MQIACF_DESTINATION_CLASS: C.MQDC_MANAGED if sd.managed else C.MQDC_PROVIDED,
        F.MQIACF_DURABLE_SUBSCRIPTION: C.MQSUB_DURABLE_YES if sd.durable else C.MQSUB_DURABLE_NO,
        F.MQCACF_SUB_SELECTOR: sd.selection.encode(),
        F.MQCACF_SUB_USER_DATA: sd.user_data.encode(),
        F.MQIACF_PUB_PRIORITY: sd.pub_priority,
        F.MQIACF_REQUEST_ONLY: C.MQRU_PUBLISH_ON_REQUEST if sd.on_request else C.MQRU_PUBLISH_ALL,
        F.MQIACF_WILDCARD_SCHEMA: C.MQWS_CHAR if sd.wildcard == "char" else C.MQWS_TOPIC,
        F.MQIACF_SUB_TYPE: sd.sub_type,
        C.MQCA_CREATION_DATE: created[0],
        C.MQCA_CREATION_TIME: created[1],
        C.MQCA_ALTERATION_DATE: altered[0],
        C.MQCA_ALTERATION_TIME: altered[1],
    }


def _status_values(st: SubStatus) -> Values:
    resumed, last = _stamp(st.sd.created_ms), _stamp(st.last_ms)
    return {
        F.MQCACF_SUB_NAME: st.sd.name.encode(),
        F.MQBACF_SUB_ID: bytes.fromhex(st.sd.subscription_id),
        F.MQIACF_DURABLE_SUBSCRIPTION: C.MQSUB_DURABLE_YES if st.sd.durable else C.MQSUB_DURABLE_NO,
        F.MQIACF_SUB_TYPE: st.sd.sub_type,
        F.MQIACF_MESSAGE_COUNT: st.messages,
        F.MQCACF_LAST_MSG_DATE: last[0],
        F.MQCACF_LAST_MSG_TIME: last[1],
        C.MQCA_RESUME_DATE: resumed[0],
        C.MQCA_RESUME_TIME: resumed[1],
        F.MQBACF_CONNECTION_ID: _conn(st.active),
    }


class SubServer:
    def __init__(self, qm: Any) -> None:
        self.qm = qm

    def commands(self) -> dict[int, Callable[[Request], list[Values]]]:
        return {
            F.MQCMD_CREATE_SUBSCRIPTION: self.create_subscription,
            F.MQCMD_CHANGE_SUBSCRIPTION: self.change_subscription,
            F.MQCMD_COPY_SUBSCRIPTION: self.copy_subscription,
            F.MQCMD_DELETE_SUBSCRIPTION: self.delete_subscription,
            F.MQCMD_INQUIRE_SUBSCRIPTION: self.inquire_subscription,
            F.MQCMD_INQUIRE_SUB_STATUS: self.inquire_sub_status,
            F.MQCMD_INQUIRE_TOPIC_STATUS: self.inquire_topic_status,
        }

    def _admin(self) -> SubAdmin:
        return self.qm.get_handle().subadmin

    @staticmethod
    def _sub_id(req: Request) -> bytes | None:
        """SubId: an MQCFBS, as IBM's reference has it (the faces send MQBACF_*
        parameters so: adapter/pymqi/pcf.py). An MQCFST is refused (3015): read as text
        it would not be the identifier's bytes."""
        return req.take(F.MQBACF_SUB_ID, kind=F.MQCFT_BYTE_STRING)

    @classmethod
    def _selected(cls, req: Request) -> tuple[str, bytes | None]:
        sub_id = cls._sub_id(req)
        name = req.take(F.MQCACF_SUB_NAME, required=sub_id is None)
        return name or "*", sub_id

    def create_subscription(self, req: Request) -> list[Values]:
        name = req.take(F.MQCACF_SUB_NAME, required=True)
        topic_string = req.take(C.MQCA_TOPIC_STRING, "")
        topic_object = req.take(C.MQCA_TOPIC_NAME, "")
        if not topic_string and not topic_object:
            raise CommandError(F.MQRCCF_PARM_COUNT_TOO_SMALL, C.MQCA_TOPIC_STRING)
        dest_class = req.take(F.MQIACF_DESTINATION_CLASS, C.MQDC_PROVIDED)
        schema = req.take(F.MQIACF_WILDCARD_SCHEMA, C.MQWS_TOPIC)
        request_only = req.take(F.MQIACF_REQUEST_ONLY, C.MQRU_PUBLISH_ALL)
        priority = req.take(F.MQIACF_PUB_PRIORITY, C.MQPRI_PRIORITY_AS_PUBLISHED)
        replace = req.take(F.MQIACF_REPLACE, 0)
        checks = {
            F.MQIACF_DESTINATION_CLASS: dest_class in (C.MQDC_MANAGED, C.MQDC_PROVIDED),
            F.MQIACF_WILDCARD_SCHEMA: schema in (C.MQWS_TOPIC, C.MQWS_CHAR, C.MQWS_DEFAULT),
            F.MQIACF_REQUEST_ONLY: request_only in (C.MQRU_PUBLISH_ALL, C.MQRU_PUBLISH_ON_REQUEST),
            F.MQIACF_PUB_PRIORITY: priority in _PRIORITIES,
            F.MQIACF_REPLACE: replace in (0, 1),
        }
        for parameter, ok in checks.items():
            if not ok:
                raise CommandError(F.MQRCCF_ATTR_VALUE_ERROR, parameter)
        dest = req.take(F.MQCACF_DESTINATION, "")
        qmgr = req.take(F.MQCACF_DESTINATION_Q_MGR, "")
        if qmgr and qmgr != self.qm.get_handle().qmgr:
            raise CommandError(F.MQRCCF_ATTR_VALUE_ERROR, F.MQCACF_DESTINATION_Q_MGR)
        correl = req.take(F.MQBACF_DESTINATION_CORREL_ID, kind=F.MQCFT_BYTE_STRING)
        selector = req.take(F.MQCACF_SUB_SELECTOR, "")
        user_data = req.take(F.MQCACF_SUB_USER_DATA, "")
        req.check_used()
        if dest_class == C.MQDC_PROVIDED and not dest:
            raise CommandError(F.MQRCCF_PARM_COUNT_TOO_SMALL, F.MQCACF_DESTINATION)
        self._admin().define(
            name,
            topic_object=topic_object,
            topic_string=topic_string,
            dest=dest,
            managed=dest_class == C.MQDC_MANAGED,
            selector=selector,
            user_data=user_data,
            pub_priority=priority,
            dest_correl=correl,
            wildcard=Wildcard.CHAR if schema == C.MQWS_CHAR else Wildcard.TOPIC,
            request_only=request_only == C.MQRU_PUBLISH_ON_REQUEST,
            replace=replace == 1,
        )
        return []

    def _change(self, req: Request) -> SubChange:
        """The optional attributes of Change and Copy Subscription (None: not given),
        their values checked as Create Subscription checks them (4005)."""
        dest_class = req.take(F.MQIACF_DESTINATION_CLASS)
        schema = req.take(F.MQIACF_WILDCARD_SCHEMA)
        request_only = req.take(F.MQIACF_REQUEST_ONLY)
        priority = req.take(F.MQIACF_PUB_PRIORITY)
        checks = {
            F.MQIACF_DESTINATION_CLASS: dest_class in (None, C.MQDC_MANAGED, C.MQDC_PROVIDED),
            F.MQIACF_WILDCARD_SCHEMA: schema in (None, C.MQWS_TOPIC, C.MQWS_CHAR, C.MQWS_DEFAULT),
            F.MQIACF_REQUEST_ONLY: request_only
            in (None, C.MQRU_PUBLISH_ALL, C.MQRU_PUBLISH_ON_REQUEST),
            F.MQIACF_PUB_PRIORITY: priority is None or priority in _PRIORITIES,
        }
        for parameter, ok in checks.items():
            if not ok:
                raise CommandError(F.MQRCCF_ATTR_VALUE_ERROR, parameter)
        qmgr = req.take(F.MQCACF_DESTINATION_Q_MGR, "")
        if qmgr and qmgr != self.qm.get_handle().qmgr:
            raise CommandError(F.MQRCCF_ATTR_VALUE_ERROR, F.MQCACF_DESTINATION_Q_MGR)
        correl = req.take(F.MQBACF_DESTINATION_CORREL_ID, kind=F.MQCFT_BYTE_STRING)
        return SubChange(
            dest=req.take(F.MQCACF_DESTINATION),
            dest_correl=correl,
            user_data=req.take(F.MQCACF_SUB_USER_DATA),
            pub_priority=priority,
            request_only=None
            if request_only is None
            else request_only == C.MQRU_PUBLISH_ON_REQUEST,
            topic_object=req.take(C.MQCA_TOPIC_NAME),
            topic_string=req.take(C.MQCA_TOPIC_STRING),
            selector=req.take(F.MQCACF_SUB_SELECTOR),
            wildcard=None
            if schema is None
            else (Wildcard.CHAR if schema == C.MQWS_CHAR else Wildcard.TOPIC),
            managed=None if dest_class is None else dest_class == C.MQDC_MANAGED,
        )

    def change_subscription(self, req: Request) -> list[Values]:
        """Change Subscription (MQCMD_CHANGE_SUBSCRIPTION): SubName or SubId, then the
        attributes to change (shim/subadmin.py SubAdmin.alter: what may change, and the
        reasons when a fixed one differs)."""
        name, sub_id = self._selected(req)
        change = self._change(req)
        req.check_used()
        admin = self._admin()
        admin.alter(admin.find("" if name == "*" else name, sub_id), change)
        return []

    def copy_subscription(self, req: Request) -> list[Values]:
        """Copy Subscription (MQCMD_COPY_SUBSCRIPTION): ToSubscriptionName, the one to
        copy by FromSubscriptionName or SubId, MQIACF_REPLACE, and attributes that
        differ from it ("Change, Copy, and Create Subscription",
        <https://www.ibm.com/docs/en/SSFKSJ_9.4.0/refadmin/q087050_.html>)."""
        to_name = req.take(F.MQCACF_TO_SUB_NAME, required=True)
        sub_id = self._sub_id(req)
        from_name = req.take(F.MQCACF_FROM_SUB_NAME, required=sub_id is None)
        replace = req.take(F.MQIACF_REPLACE, 0)
        if replace not in (0, 1):
            raise CommandError(F.MQRCCF_ATTR_VALUE_ERROR, F.MQIACF_REPLACE)
        change = self._change(req)
        req.check_used()
        admin = self._admin()
        source = admin.find(from_name or "", sub_id)
        admin.copy(source, to_name, change, replace_it=replace == 1)
        return []

    def delete_subscription(self, req: Request) -> list[Values]:
        name, sub_id = self._selected(req)
        req.check_used()
        for sd in self._admin().listing(name):
            if sub_id is None or bytes.fromhex(sd.subscription_id) == sub_id:
                self._admin().delete(sd.name)
                return []
        raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME)

    def inquire_subscription(self, req: Request) -> list[Values]:
        name, sub_id = self._selected(req)
        durable = req.take(F.MQIACF_DURABLE_SUBSCRIPTION, C.MQSUB_DURABLE_ALL)
        kind = req.take(F.MQIACF_SUB_TYPE, C.MQSUBTYPE_USER)
        asked = list(req.take(F.MQIACF_SUB_ATTRS, (F.MQIACF_ALL,), kind=F.MQCFT_INTEGER_LIST))
        req.check_used()
        found = [sd for sd in self._admin().listing(name) if _kept(sd, sub_id, durable, kind)]
        if not found:
            raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME)
        out = []
        for sd in found:
            every = _sub_values(sd)
            unknown = [s for s in asked if s != F.MQIACF_ALL and s not in every]
            if unknown:
                raise CommandError(F.MQRCCF_CFIL_PARM_ID_ERROR, unknown[0])
            wanted = list(every) if F.MQIACF_ALL in asked else asked
            values = {
                F.MQCACF_SUB_NAME: every[F.MQCACF_SUB_NAME],
                F.MQBACF_SUB_ID: every[F.MQBACF_SUB_ID],
            }
            values.update({s: every[s] for s in wanted})
            out.append(filtered(values, req.filters))
        return [v for v in out if v is not None]

    def inquire_sub_status(self, req: Request) -> list[Values]:
        name, sub_id = self._selected(req)
        durable = req.take(F.MQIACF_DURABLE_SUBSCRIPTION, C.MQSUB_DURABLE_ALL)
        kind = req.take(F.MQIACF_SUB_TYPE, C.MQSUBTYPE_USER)
        req.take(F.MQIACF_SUB_STATUS_ATTRS, (F.MQIACF_ALL,), kind=F.MQCFT_INTEGER_LIST)
        req.check_used()
        found = [st for st in self._admin().status(name) if _kept(st.sd, sub_id, durable, kind)]
        if not found:
            raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME)
        out = [filtered(_status_values(st), req.filters) for st in found]
        return [v for v in out if v is not None]

    def inquire_topic_status(self, req: Request) -> list[Values]:
        topic = req.take(C.MQCA_TOPIC_STRING, required=True)
        kind = req.take(F.MQIACF_TOPIC_STATUS_TYPE, F.MQIACF_TOPIC_STATUS)
        req.take(F.MQIACF_TOPIC_STATUS_ATTRS, (F.MQIACF_ALL,), kind=F.MQCFT_INTEGER_LIST)
        req.check_used()
        if kind not in (F.MQIACF_TOPIC_STATUS, F.MQIACF_TOPIC_SUB, F.MQIACF_TOPIC_PUB):
            raise CommandError(F.MQRCCF_ATTR_VALUE_ERROR, F.MQIACF_TOPIC_STATUS_TYPE)
        admin = self._admin()
        statuses = admin.topic_status(topic)
        out: list[Values] = []
        if kind == F.MQIACF_TOPIC_STATUS:
            for ts in statuses:
                values: Values = {
                    C.MQCA_TOPIC_STRING: ts.topic.encode(),
                    C.MQCA_ADMIN_TOPIC_NAME: padded(ts.admin, C.MQ_TOPIC_NAME_LENGTH),
                }
                for attr in TA.INHERITED:
                    value = ts.attributes[attr.field]
                    values[attr.selector] = padded(str(value), _Q) if attr.length else value
                values[F.MQIACF_RETAINED_PUBLICATION] = F.MQQSO_YES if ts.retained else 0
                values[C.MQIA_SUB_COUNT] = len(ts.subs)
                values[C.MQIA_PUB_COUNT] = len(ts.publishers)
                out.append(values)
        elif kind == F.MQIACF_TOPIC_SUB:
            by_key = {st.sd.key: st for st in admin.status("*")}
            for ts in statuses:
                for sd in ts.subs:
                    if sd.key not in by_key:  # deleted meanwhile
                        continue
                    values = {C.MQCA_TOPIC_STRING: ts.topic.encode()}
                    values.update(_status_values(by_key[sd.key]))
                    out.append(values)
        else:
            for ts in statuses:
                for pub in ts.publishers:
                    date, clock = _stamp(pub.last_ms)
                    out.append({
                        C.MQCA_TOPIC_STRING: ts.topic.encode(),
                        F.MQCACF_LAST_PUB_DATE: date,
                        F.MQCACF_LAST_PUB_TIME: clock,
                        F.MQIACF_PUBLISH_COUNT: pub.publications,
                        F.MQBACF_CONNECTION_ID: _conn(pub.conn_id),
                    })  # fmt: skip
        filtered_out = [filtered(v, req.filters) for v in out]
        return [v for v in filtered_out if v is not None]


_WILDCARD = {C.MQWS_CHAR: Wildcard.CHAR}
_PRIORITIES = (C.MQPRI_PRIORITY_AS_PUBLISHED, C.MQPRI_PRIORITY_AS_Q_DEF, *range(10))


def _kept(sd: SubDef, sub_id: bytes | None, durable: int, kind: int) -> bool:
    if sub_id is not None and bytes.fromhex(sd.subscription_id) != sub_id:
        return False
    if durable != C.MQSUB_DURABLE_ALL and (durable == C.MQSUB_DURABLE_YES) != sd.durable:
        return False
    return kind in (C.MQSUBTYPE_USER, C.MQSUBTYPE_ALL, sd.sub_type)
