"""The ALTER SUB / Change / Copy Subscription scenarios of
tests/integration/test_pubsub_subalter.py on the in-memory backends
(tests/unit/conftest.py), and a property of ALTER on them."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import adapter.pymqi as pymqi
from adapter.shim.subadmin import SubChange
from tests.integration.test_pubsub_subalter import *  # noqa: F403

C = pymqi.CMQC


_PRIORITIES = st.sampled_from(
    [C.MQPRI_PRIORITY_AS_PUBLISHED, C.MQPRI_PRIORITY_AS_Q_DEF, *range(10)]
)
_CHANGE = st.fixed_dictionaries(
    {},
    optional={
        "user_data": st.text(alphabet="abcXYZ09 ._", max_size=12),
        "pub_priority": _PRIORITIES,
        "request_only": st.booleans(),
        "dest": st.sampled_from(["PROP.Q1", "PROP.Q2"]),
        "dest_correl": st.binary(min_size=24, max_size=24),
    },
)


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(changes=st.lists(_CHANGE, min_size=1, max_size=4))
def test_alter_keeps_what_is_not_given_property(qmgr, changes):
    """Any run of ALTERs: each attribute is the last value given to it (else the
    definition's), the topic, selector, destination class and SUBID never move."""
    for q in ("PROP.Q1", "PROP.Q2"):
        if qmgr.get_handle().catalog.lookup(q) is None:
            qmgr.define_queue(q)
    admin = qmgr.get_handle().subadmin
    first = admin.define("PROP.S", topic_string="prop/#", dest="PROP.Q1", selector="n > 1",
                         user_data="u0", replace=True)  # fmt: skip
    expected = {"user_data": "u0", "pub_priority": first.pub_priority, "request_only": False,
                "queue": "PROP.Q1", "correl_id": first.correl_id}  # fmt: skip
    for change in changes:
        sd = admin.alter(admin.find("PROP.S"), SubChange(**change))
        for key, value in change.items():
            field = {"dest": "queue", "dest_correl": "correl_id"}.get(key, key)
            expected[field] = value.hex() if key == "dest_correl" else value
        got = {
            "user_data": sd.user_data,
            "pub_priority": sd.pub_priority,
            "request_only": sd.on_request,
            "queue": sd.queue,
            "correl_id": sd.correl_id,
        }
        assert got == expected
        stored = admin.find("PROP.S")
        assert stored == sd
        assert (stored.topic, stored.selection, stored.managed) == ("prop/#", "n > 1", False)
        assert stored.subscription_id == first.subscription_id
