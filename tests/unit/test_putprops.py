"""What an MQPUT gives its message as properties (adapter/core/putprops.py): PMO version
3's Action over OriginalMsgHandle / NewMsgHandle, and an application's MQRFH2 chain
read on the put (2334, folders out, headers dropped, Format/Encoding/CCSID fixed up)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adapter.core import cmqc as C  # noqa: N812
from adapter.core.errors import MQMIError
from adapter.core.propctl import insert_properties
from adapter.core.properties import MessageProperties
from adapter.core.putprops import compose, read_rfh2_on_put
from adapter.core.rfh2 import (
    Folder,
    Rfh2,
    decode_chain,
    encode_header,
    folders_from_properties,
    parse_message,
)
from tests.unit.test_properties import NAMES, typed_values

USR = Folder("<usr><a dt='i4'>1</a></usr>")
PSC = Folder("<psc><Command>x</Command></psc>")


def props(**values: str) -> MessageProperties:
    out = MessageProperties()
    for name, value in values.items():
        out.set(name, value)
    return out


def test_compose_by_action() -> None:
    original, new = props(a="o", b="o"), props(b="n")
    assert compose(C.MQACTP_NEW, None, None) is None
    assert compose(C.MQACTP_NEW, original, None) == original
    both = compose(C.MQACTP_NEW, original, new)
    assert [(p.name, p.value) for p in both] == [("usr.a", "o"), ("usr.b", "n")]
    for action in (C.MQACTP_FORWARD, C.MQACTP_REPORT):  # MQCOPY_DEFAULT includes both
        assert compose(action, original, new) == both
    assert compose(C.MQACTP_REPLY, original, new) == new  # and leaves REPLY out
    assert compose(C.MQACTP_REPLY, original, None) == MessageProperties()
    with pytest.raises(MQMIError) as info:
        compose(4, None, None)
    assert info.value.reason == C.MQRC_ACTION_ERROR


def test_property_folders_leave_and_empty_headers_go() -> None:
    first = Rfh2([PSC], C.MQENC_NORMAL, 1208, C.MQFMT_RF_HEADER_2)
    second = Rfh2([USR], 819, 437, C.MQFMT_STRING)  # integers in the first's 273
    data = encode_header(first, 546) + encode_header(second, C.MQENC_NORMAL) + b"body"
    got = read_rfh2_on_put(data, 546, 1208)
    assert got.properties.get("usr.a").value == 1
    assert (got.format, got.encoding, got.ccsid) == (C.MQFMT_RF_HEADER_2, 546, 1208)
    headers, fmt, enc, rest = decode_chain(got.data, got.format, got.encoding)
    # The first header now describes what the dropped second one described.
    assert [h.folders for h in headers] == [[PSC]] and rest == b"body"
    assert (fmt, enc, headers[0].ccsid) == (C.MQFMT_STRING, 819, 437)
    only = read_rfh2_on_put(encode_header(second, 546) + b"body", 546, 1208)
    assert (only.data, only.format, only.encoding, only.ccsid) == (
        b"body",
        C.MQFMT_STRING,
        819,
        437,
    )


def test_headers_without_properties_keep_their_bytes() -> None:
    data = encode_header(Rfh2([PSC], 546, 1208, C.MQFMT_STRING)) + b"x"
    got = read_rfh2_on_put(data, 546, 1208)
    assert got.data == data and len(got.properties) == 0


def test_inherit_becomes_the_ccsid_of_the_structure() -> None:
    data = encode_header(Rfh2([PSC], 546, C.MQCCSI_INHERIT, C.MQFMT_STRING)) + b"x"
    got = read_rfh2_on_put(data, 546, 850)
    assert decode_chain(got.data, got.format, got.encoding)[0][0].ccsid == 850


@pytest.mark.parametrize("ccsid", [0, -1, -3])
def test_a_zero_or_negative_ccsid_is_2334(ccsid: int) -> None:
    data = encode_header(Rfh2([USR], 546, ccsid, C.MQFMT_STRING))
    with pytest.raises(MQMIError) as info:
        read_rfh2_on_put(data, 546, 1208)
    assert info.value.reason == C.MQRC_RFH_ERROR


def test_v6compat_reads_no_folder_but_still_checks() -> None:
    data = encode_header(Rfh2([USR], 546, 1208, C.MQFMT_STRING)) + b"x"
    got = read_rfh2_on_put(data, 546, 1208, props(api="1"), read_folders=False)
    assert got.data == data and got.format == C.MQFMT_RF_HEADER_2
    assert [p.name for p in got.properties] == ["usr.api"]
    with pytest.raises(MQMIError):
        read_rfh2_on_put(data[:30], 546, 1208, read_folders=False)


def test_unreadable_folder_text_stops_the_reading_there() -> None:
    good = encode_header(Rfh2([USR], 546, 1208, C.MQFMT_RF_HEADER_2))
    bad = encode_header(Rfh2([Folder("<usr><b>?</b></usr>")], 546, 1208, C.MQFMT_NONE))
    bad = bad.replace(b"?", b"\xff")  # not UTF-8: folders that cannot be read
    got = read_rfh2_on_put(good + bad + b"z", 546, 1208)
    assert got.properties.get("usr.a").value == 1
    assert got.data == bad + b"z" and got.format == C.MQFMT_RF_HEADER_2


def test_insert_merges_into_the_last_header_unless_told_not_to() -> None:
    data = encode_header(Rfh2([PSC], 546, 1208, C.MQFMT_STRING)) + b"x"
    merged, fmt, enc, ccsid = insert_properties(props(c="1"), data, C.MQFMT_RF_HEADER_2, 546, 0)
    headers, _fmt, _enc, rest = decode_chain(merged, fmt, enc)
    assert [f.name for f in headers[0].folders] == ["psc", "usr"] and rest == b"x"
    assert (fmt, enc, ccsid) == (C.MQFMT_RF_HEADER_2, 546, 0)
    apart, fmt, _enc, _ccsid = insert_properties(
        props(c="1"), data, C.MQFMT_RF_HEADER_2, 546, 0, merge=False
    )
    headers, *_ = decode_chain(apart, fmt, C.MQENC_NATIVE)
    assert [[f.name for f in h.folders] for h in headers] == [["usr"], ["psc"]]


@pytest.mark.parametrize(
    "xml,refused",
    [
        ("<mq><Usr>a</Usr><Seq dt='i4'>1</Seq></mq>", False),
        ("<mq content='properties'><a>1</a></mq>", True),
        ("<mq><g><a>1</a></g></mq>", True),
        ("<mq><a>x &amp; y</a></mq>", True),
        ("<mq><a>x\ty</a></mq>", True),
        ("<mq><a xsi:nil='true'></a></mq>", True),
        ("<mq><é>1</é></mq>", True),
        ("<mq_usr><g><a>1</a></g></mq_usr>", False),  # only the mq folder is restricted
    ],
)
def test_the_mq_folder_has_a_restricted_form(xml: str, refused: bool) -> None:
    data = encode_header(Rfh2([Folder(xml)], 546, 1208, C.MQFMT_STRING)) + b"x"
    if not refused:
        read_rfh2_on_put(data, 546, 1208)
        return
    with pytest.raises(MQMIError) as info:
        read_rfh2_on_put(data, 546, 1208)
    assert info.value.reason == C.MQRC_RFH_RESTRICTED_FORMAT_ERR


# -- any chain: read on the put, merged back on the get ------------------------------------

OTHER = st.sampled_from(
    [Folder("<psc><Command>RegSub</Command></psc>"), Folder("<app><x>y</x></app>")]
)
PROPERTY_FOLDERS = st.dictionaries(NAMES, typed_values(), min_size=1, max_size=3).map(
    lambda d: folders_from_properties(_store(d))
)


def _store(values: dict) -> MessageProperties:
    out = MessageProperties()
    for name, (ptype, value) in values.items():
        out.set(name, value, ptype)
    return out


@st.composite
def chains(draw):
    headers = []
    for _ in range(draw(st.integers(1, 3))):
        folders: list[Folder] = []
        for part in draw(st.lists(st.one_of(OTHER.map(lambda f: [f]), PROPERTY_FOLDERS))):
            folders.extend(part)
        headers.append(folders)
    n = len(headers) + 1
    encodings = draw(st.lists(st.sampled_from([273, 546]), min_size=n, max_size=n))
    return headers, encodings


@settings(max_examples=60, deadline=None)
@given(chains(), st.binary(max_size=8))
def test_any_chain_round_trips_between_put_and_get(chain, body) -> None:
    headers, encodings = chain
    data = b""
    for i, folders in enumerate(headers):  # header i's integers are in encodings[i]
        last = i == len(headers) - 1
        fmt = C.MQFMT_STRING if last else C.MQFMT_RF_HEADER_2
        data += encode_header(Rfh2(folders, encodings[i + 1], 1208, fmt), encodings[i])
    data += body
    as_put = parse_message(data, C.MQFMT_RF_HEADER_2, encodings[0])
    others = [f for h in as_put.headers for f in h.folders]

    stored = read_rfh2_on_put(data, encodings[0], 1208)
    assert stored.properties == as_put.properties
    kept = parse_message(stored.data, stored.format, stored.encoding)
    assert [f for h in kept.headers for f in h.folders] == others
    assert kept.body == body and len(kept.properties) == 0
    assert (kept.format, kept.encoding) == (C.MQFMT_STRING, encodings[-1])

    back, fmt, encoding, _ccsid = insert_properties(
        stored.properties, stored.data, stored.format, stored.encoding, stored.ccsid
    )
    got = parse_message(back, fmt, encoding)
    assert got.properties == as_put.properties and got.body == body
    assert [f for h in got.headers for f in h.folders] == others
