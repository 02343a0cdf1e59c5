"""What a message selector reads from a message on the queue (MQOD SelectionString).

The message descriptor's fields are properties named `Root.MQMD.<Field>`, with the C
declaration's spelling; StrucId and Version are not among them:
https://www.ibm.com/docs/en/ibm-mq/9.4.x?topic=names-message-descriptor-fields-as-properties
The JMS names derived from the descriptor (JMSPriority, JMSCorrelationID, ...) are
adapter/core/properties.py:descriptor_properties. A name the message does not have
reads as NULL (adapter/core/selector.py).
"""

from __future__ import annotations

from typing import Any

from adapter.core import cmqc as C
from adapter.core import propwire
from adapter.core.properties import MQMD_FIELD_TYPES, MessageProperties, descriptor_properties
from adapter.core.selector import Lookup
from adapter.shim.context import put_date_time

MQMD_PREFIX = "Root.MQMD."


def _mqmd_field(env: dict[str, Any], field: str) -> Any:
    """One descriptor field as its property: MQCHAR without its blank padding, MQBYTE
    as bytes, MQLONG as int (the types of MQMD_FIELD_TYPES)."""
    if field not in MQMD_FIELD_TYPES:
        return None
    if field in ("PutDate", "PutTime"):
        date, time_ = put_date_time(env["PutTimestamp"])
        return (date if field == "PutDate" else time_).decode()
    value = env.get(field)
    return value.rstrip(" ") if isinstance(value, str) else value


def _descriptor(env: dict[str, Any]) -> dict[str, Any]:
    md = {field: env[field] for field in MQMD_FIELD_TYPES if field in env}
    md["PutDate"], md["PutTime"] = put_date_time(env["PutTimestamp"])
    return md


def selector_value(ptype: int, value: Any) -> Any:
    """A property's value as a selector compares it: booleans as bool (the property
    store hands them out as 1/0, as MQINQMP does)."""
    return bool(value) if ptype == C.MQTYPE_BOOLEAN else value


def message_lookup(env: dict[str, Any]) -> Lookup:
    """The selector's view of one message (its envelope). The JMS view is built only
    when a selector asks for a JMS name, once per message."""
    jms: dict[str, Any] | None = None
    props: MessageProperties | None = None

    def lookup(name: str) -> Any:
        nonlocal jms, props
        if name.startswith(MQMD_PREFIX):
            return _mqmd_field(env, name[len(MQMD_PREFIX) :])
        if name.startswith("JMS"):
            if jms is None:
                jms = {
                    n: selector_value(p.type, p.value)
                    for n, p in descriptor_properties(_descriptor(env)).items()
                }
            if name in jms:
                return jms[name]
            # JMSType, JMSXGroupID, ... set as properties (mcd.Type, jms.Gxid): below
        if props is None:
            try:
                props = propwire.unpack(env.get("Properties", b""))
            except propwire.PropertiesWireError:
                props = MessageProperties()  # unreadable: none (the get reports it)
        try:
            prop = props.get(name)
        except ValueError:  # not a property name at all (e.g. undecodable)
            return None
        return None if prop is None else selector_value(prop.type, prop.value)

    return lookup
