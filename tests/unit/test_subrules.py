"""core/subrules.py: MQSD option combinations, SubName and Hobj rules, CREATE / RESUME /
ALTER outcomes, and MQCLOSE of a subscription handle."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adapter.core import cmqc as C
from adapter.core.subrules import (
    KNOWN,
    Access,
    access,
    removes_subscription,
    sub_close_options_error,
    sub_options_error,
)

CM = C.MQSO_CREATE | C.MQSO_MANAGED


@pytest.mark.parametrize(
    ("options", "name", "has_queue", "reason"),
    [
        (C.MQSO_MANAGED, "", False, C.MQRC_OPTIONS_ERROR),  # no access option
        (CM | 0x40000000, "", False, C.MQRC_OPTIONS_ERROR),  # not an MQSO bit
        (CM | C.MQSO_WILDCARD_CHAR | C.MQSO_WILDCARD_TOPIC, "", False, C.MQRC_OPTIONS_ERROR),
        (CM | C.MQSO_FIXED_USERID | C.MQSO_ANY_USERID, "", False, C.MQRC_OPTIONS_ERROR),
        (CM | C.MQSO_GROUP_SUB | C.MQSO_SET_CORREL_ID, "", False, C.MQRC_OPTIONS_ERROR),
        (C.MQSO_CREATE | C.MQSO_GROUP_SUB, "n", True, C.MQRC_OPTIONS_ERROR),  # needs SET_CORREL_ID
        (
            CM | C.MQSO_NEW_PUBLICATIONS_ONLY | C.MQSO_PUBLICATIONS_ON_REQUEST,
            "",
            False,
            C.MQRC_OPTIONS_ERROR,
        ),
        (C.MQSO_RESUME | C.MQSO_NEW_PUBLICATIONS_ONLY, "n", False, C.MQRC_OPTIONS_ERROR),
        (CM | C.MQSO_DURABLE, "", False, C.MQRC_SUB_NAME_ERROR),
        (CM | C.MQSO_DURABLE, "   ", False, C.MQRC_SUB_NAME_ERROR),
        (C.MQSO_RESUME, "", False, C.MQRC_SUB_NAME_ERROR),
        (CM, "", True, C.MQRC_HOBJ_ERROR),  # managed: no queue may be given
        (C.MQSO_CREATE, "", False, C.MQRC_HOBJ_ERROR),  # unmanaged: a queue is needed
        (CM, "", False, None),
        (CM | C.MQSO_DURABLE, "n", False, None),
        (C.MQSO_CREATE, "", True, None),
        (C.MQSO_RESUME, "n", False, None),
        (C.MQSO_CREATE | C.MQSO_RESUME, "n", False, None),
    ],
)
def test_sub_options(options, name, has_queue, reason):
    assert sub_options_error(options, name, has_queue=has_queue) == reason


@pytest.mark.parametrize(
    ("options", "exists", "in_use", "outcome"),
    [
        (C.MQSO_CREATE, False, False, Access.CREATED),
        (C.MQSO_CREATE, True, False, C.MQRC_SUB_ALREADY_EXISTS),
        (C.MQSO_RESUME, False, False, C.MQRC_NO_SUBSCRIPTION),
        (C.MQSO_ALTER, False, False, C.MQRC_NO_SUBSCRIPTION),
        (C.MQSO_RESUME, True, False, Access.RESUMED),
        (C.MQSO_RESUME, True, True, C.MQRC_SUBSCRIPTION_IN_USE),
        (C.MQSO_CREATE | C.MQSO_RESUME, False, False, Access.CREATED),
        (C.MQSO_CREATE | C.MQSO_RESUME, True, False, Access.RESUMED),
        (C.MQSO_CREATE | C.MQSO_ALTER, True, False, Access.ALTERED),
    ],
)
def test_access(options, exists, in_use, outcome):
    assert access(options, exists=exists, in_use=in_use) == outcome


@given(st.integers(min_value=0, max_value=0x7FFFFFFF))
def test_unknown_bits_are_always_refused(options):
    if options & ~KNOWN:
        assert sub_options_error(options, "n", has_queue=False) == C.MQRC_OPTIONS_ERROR


@pytest.mark.parametrize(
    ("options", "durable", "reason", "removes"),
    [
        (C.MQCO_NONE, False, None, True),
        (C.MQCO_NONE, True, None, False),
        (C.MQCO_REMOVE_SUB, True, None, True),
        (C.MQCO_REMOVE_SUB, False, None, True),
        (C.MQCO_KEEP_SUB, True, None, False),
        (C.MQCO_KEEP_SUB, False, C.MQRC_OPTION_NOT_VALID_FOR_TYPE, None),
        (C.MQCO_KEEP_SUB | C.MQCO_REMOVE_SUB, True, C.MQRC_OPTIONS_ERROR, None),
        (C.MQCO_DELETE, True, C.MQRC_OPTION_NOT_VALID_FOR_TYPE, None),
        (0x1000, True, C.MQRC_OPTIONS_ERROR, None),
    ],
)
def test_close_of_a_subscription(options, durable, reason, removes):
    assert sub_close_options_error(options, durable=durable) == reason
    if reason is None:
        assert removes_subscription(options, durable=durable) is removes
