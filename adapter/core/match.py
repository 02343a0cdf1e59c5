"""MQGET match options (MQMO_*): does a message satisfy the MQMD selectors?

MQMI_NONE, MQCI_NONE and MQGI_NONE are special values that match any identifier, so
MATCH_MSG_ID with MQMI_NONE is the same as not matching on MsgId (likewise CorrelId
and GroupId). MsgSeqNumber and Offset have no wildcard.
"""

from __future__ import annotations

from adapter.core import cmqc as C  # noqa: N812 (the project-wide alias)
from adapter.core.model import Item, id24

ID_MATCH_OPTIONS = C.MQMO_MATCH_MSG_ID | C.MQMO_MATCH_CORREL_ID | C.MQMO_MATCH_GROUP_ID
ALL_MATCH_OPTIONS = (
    ID_MATCH_OPTIONS | C.MQMO_MATCH_MSG_SEQ_NUMBER | C.MQMO_MATCH_OFFSET | C.MQMO_MATCH_MSG_TOKEN
)


def matches(
    item: Item,
    match_options: int,
    msg_id: bytes = C.MQMI_NONE,
    correl_id: bytes = C.MQCI_NONE,
    group_id: bytes = C.MQGI_NONE,
    seq: int = 1,
    offset: int = 0,
) -> bool:
    """True when `item` satisfies every selector named in `match_options`.

    MQMO_MATCH_MSG_TOKEN is not evaluated here: items carry no message token (the
    shell resolves a token to a key itself).
    """
    if match_options & C.MQMO_MATCH_MSG_ID:
        wanted = id24(msg_id)
        if wanted != C.MQMI_NONE and id24(item.msg_id) != wanted:
            return False
    if match_options & C.MQMO_MATCH_CORREL_ID:
        wanted = id24(correl_id)
        if wanted != C.MQCI_NONE and id24(item.correl_id) != wanted:
            return False
    if match_options & C.MQMO_MATCH_GROUP_ID:
        wanted = id24(group_id)
        if wanted != C.MQGI_NONE and id24(item.group_id) != wanted:
            return False
    if match_options & C.MQMO_MATCH_MSG_SEQ_NUMBER and item.seq != seq:
        return False
    return not (match_options & C.MQMO_MATCH_OFFSET and item.offset != offset)
