"""Match options and the NONE wildcards."""

from __future__ import annotations

import pytest

from adapter.core import cmqc as C  # noqa: N812
from adapter.core.match import matches
from adapter.core.model import Item, id24

MSG, CORREL, GROUP = id24(b"msg"), id24(b"correl"), id24(b"group")
ITEM = Item(
    key=1,
    pos=(1,),
    priority=0,
    msg_id=MSG,
    correl_id=CORREL,
    group_id=GROUP,
    seq=2,
    offset=16,
    flags=C.MQMF_MSG_IN_GROUP | C.MQMF_SEGMENT,
    length=8,
    persistence=0,
    put_ms=0,
    expiry=-1,
)


@pytest.mark.parametrize(
    "options,kw,expected",
    [
        (C.MQMO_NONE, {"msg_id": b"other", "seq": 9, "offset": 9}, True),
        (C.MQMO_MATCH_MSG_ID, {"msg_id": MSG}, True),
        (C.MQMO_MATCH_MSG_ID, {"msg_id": b"msg"}, True),  # short value: NUL padded like pymqi
        (C.MQMO_MATCH_MSG_ID, {"msg_id": b"other"}, False),
        (C.MQMO_MATCH_MSG_ID, {"msg_id": C.MQMI_NONE}, True),  # wildcard
        (C.MQMO_MATCH_MSG_ID, {"msg_id": b""}, True),
        (C.MQMO_MATCH_CORREL_ID, {"correl_id": CORREL}, True),
        (C.MQMO_MATCH_CORREL_ID, {"correl_id": b"other"}, False),
        (C.MQMO_MATCH_CORREL_ID, {"correl_id": C.MQCI_NONE}, True),  # wildcard
        (C.MQMO_MATCH_GROUP_ID, {"group_id": GROUP}, True),
        (C.MQMO_MATCH_GROUP_ID, {"group_id": b"other"}, False),
        (C.MQMO_MATCH_GROUP_ID, {"group_id": C.MQGI_NONE}, True),  # wildcard
        (C.MQMO_MATCH_MSG_SEQ_NUMBER, {"seq": 2}, True),
        (C.MQMO_MATCH_MSG_SEQ_NUMBER, {"seq": 1}, False),  # no wildcard
        (C.MQMO_MATCH_OFFSET, {"offset": 16}, True),
        (C.MQMO_MATCH_OFFSET, {"offset": 0}, False),  # no wildcard
        (C.MQMO_MATCH_MSG_ID | C.MQMO_MATCH_CORREL_ID, {"msg_id": MSG, "correl_id": b"x"}, False),
        (C.MQMO_MATCH_MSG_ID | C.MQMO_MATCH_CORREL_ID, {"correl_id": CORREL}, True),
        (
            C.MQMO_MATCH_GROUP_ID | C.MQMO_MATCH_MSG_SEQ_NUMBER | C.MQMO_MATCH_OFFSET,
            {"group_id": GROUP, "seq": 2, "offset": 16},
            True,
        ),
        (
            C.MQMO_MATCH_GROUP_ID | C.MQMO_MATCH_MSG_SEQ_NUMBER | C.MQMO_MATCH_OFFSET,
            {"group_id": GROUP, "seq": 2, "offset": 0},
            False,
        ),
    ],
)
def test_matches(options, kw, expected):
    assert matches(ITEM, options, **kw) is expected


def test_ids_are_compared_whole():
    # A selector that is a prefix of the item's id (beyond NUL padding) does not match.
    item = Item(1, (1,), 0, id24(b"abcdef"), C.MQCI_NONE, C.MQGI_NONE, 1, 0, 0, 0, 0, 0, -1)
    assert not matches(item, C.MQMO_MATCH_MSG_ID, msg_id=b"abc")
    assert matches(item, C.MQMO_MATCH_MSG_ID, msg_id=b"abcdef")
