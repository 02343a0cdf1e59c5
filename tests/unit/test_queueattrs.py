"""The queue attribute table (adapter/core/queueattrs.py): every row names a real
QueueDef field, a selector no other row has, values that convert MQSC <-> Python <->
PCF and back, and the queue types the engine agrees with."""

from __future__ import annotations

from dataclasses import fields

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adapter.core import cmqc as C
from adapter.core import queueattrs as QA
from adapter.shim.catalog import ALIAS_ATTRIBUTES, ALTERABLE, REMOTE_ATTRIBUTES, QueueDef

_FIELDS = {f.name for f in fields(QueueDef)}


def test_every_row_names_a_queuedef_field_and_a_selector_of_its_own() -> None:
    assert len({a.selector for a in QA.ATTRIBUTES}) == len(QA.ATTRIBUTES)
    assert len({a.keyword for a in QA.ATTRIBUTES}) == len(QA.ATTRIBUTES)
    for a in QA.ATTRIBUTES:
        assert a.field is None or a.field in _FIELDS, a
        assert a.field is not None or a.fixed or not a.settable, a
        assert QA.by_selector(a.selector) is a and QA.by_keyword(a.keyword.lower()) is a
    assert not set(QA.BY_KEYWORD) & QA.UNSUPPORTED


def test_the_alias_rows_are_the_engines_alias_attributes() -> None:
    alias = {a.field for a in QA.ATTRIBUTES if a.settable_on(C.MQQT_ALIAS) and a.field}
    assert alias == set(ALIAS_ATTRIBUTES)
    remote = {a.field for a in QA.ATTRIBUTES if a.settable_on(C.MQQT_REMOTE) and a.field}
    assert remote == set(REMOTE_ATTRIBUTES)
    local = {a.field for a in QA.ATTRIBUTES if a.settable_on(C.MQQT_LOCAL) and a.field}
    assert local == set(ALTERABLE)  # every MQSC attribute of a local queue ALTER may change


def test_the_defaults_render_as_mqs_defaults() -> None:
    q = QueueDef(name="Q")
    shown = {a.keyword: a.render(getattr(q, a.field)) for a in QA.ATTRIBUTES if a.field}
    assert shown["DEFPSIST"] == "DEFPSIST(NO)" and shown["DEFSOPT"] == "DEFSOPT(SHARED)"
    model = QueueDef(name="M", queue_type=C.MQQT_MODEL)  # DEFINE QMODEL's is EXCL
    assert QA.BY_KEYWORD["DEFSOPT"].render(model.def_input_exclusive) == "DEFSOPT(EXCL)"
    assert shown["SHARE"] == "SHARE" and shown["TRIGGER"] == "NOTRIGGER"
    assert shown["DESCR"] == "DESCR( )" and shown["MAXDEPTH"] == "MAXDEPTH(5000)"
    assert shown["MSGDLVSQ"] == "MSGDLVSQ(PRIORITY)" and shown["PROPCTL"] == "PROPCTL(COMPAT)"


def _mqsc_values(a: QA.QueueAttr):
    if a.kind == "flag":
        return st.sampled_from([w for w, _, _ in a.words]).map(lambda w: (w, None))
    if a.kind == "enum":
        words = [w for w, _, _ in a.words if w not in a.shown_only]
        return st.sampled_from(words).map(lambda w: (a.keyword, w))
    if a.kind == "int":
        return st.integers(a.low, a.high).map(lambda n: (a.keyword, str(n)))
    return st.text(min_size=0, max_size=a.length).map(lambda s: (a.keyword, s))


_SETTABLE = [a for a in QA.ATTRIBUTES if a.settable and not a.fixed]


@given(st.data())
def test_values_convert_mqsc_python_pcf_and_back(data) -> None:
    a = data.draw(st.sampled_from(_SETTABLE))
    keyword, text = data.draw(_mqsc_values(a))
    value = a.parse(text, keyword)
    assert a.from_pcf(a.to_pcf(value)) == value
    rendered = a.render(value)
    if a.kind == "flag":
        assert rendered == keyword
    elif a.kind == "enum":
        assert rendered == f"{a.keyword}({text.upper()})"
    elif text:
        assert rendered == f"{a.keyword}({text})"
    # what the table gives, the queue definition takes
    qdef = QueueDef(name="Q", queue_type=min(a.types), **{a.field: value})
    if a.keyword != "DEFTYPE" or qdef.is_model:
        qdef.validate()


@pytest.mark.parametrize(
    ("keyword", "text", "message"),
    [
        ("DEFPRTY", "10", "DEFPRTY(10): the value must be 0-9"),
        ("MAXDEPTH", "x", "MAXDEPTH(x): the value must be a number"),
        ("DESCR", "d" * 65, "DESCR: at most 64 characters"),
        ("DEFPSIST", "MAYBE", "DEFPSIST(MAYBE): the value must be NO|YES"),
        ("DEFBIND", "NOTFIXED", "DEFBIND(NOTFIXED) is not supported by mqk: only DEFBIND(OPEN)"),
        ("DEFREADA", "DISABLED", "DEFREADA(DISABLED): the value must be NO|YES"),
        ("CLUSTER", "C", "CLUSTER is not supported by mqk"),
        ("FROB", "1", "FROB is not a queue attribute"),
        ("TARGET", "X", "TARGET is not an attribute of DEFINE / ALTER QLOCAL"),
        ("DEFTYPE", "PERMDYN", "DEFTYPE is not an attribute of DEFINE / ALTER QLOCAL"),
    ],
)
def test_refused_values_name_the_keyword(keyword: str, text: str, message: str) -> None:
    with pytest.raises(ValueError) as err:
        QA.fields_from_mqsc(C.MQQT_LOCAL, [(keyword, text)])
    assert str(err.value) == message


def test_fields_from_mqsc_fixed_values_and_synonyms() -> None:
    got = QA.fields_from_mqsc(
        C.MQQT_LOCAL,
        [("NOHARDENBO", None), ("DEFBIND", "OPEN"), ("NOSHARE", None)],
    )
    assert got == {"shareable": False}  # the fixed ones are accepted, never stored
    assert QA.fields_from_mqsc(C.MQQT_ALIAS, [("TARGQ", "B")]) == {"target": "B"}
    assert QA.fields_from_mqsc(C.MQQT_MODEL, [("DEFTYPE", "PERMDYN")]) == {
        "definition_type": C.MQQDT_PERMANENT_DYNAMIC
    }
    with pytest.raises(ValueError, match="DEFTYPE"):
        QA.fields_from_mqsc(C.MQQT_MODEL, [("DEFTYPE", "PREDEFINED")])


def test_pcf_values_are_mqs_constants() -> None:
    get = QA.by_keyword("GET")
    assert get.to_pcf(True) == C.MQQA_GET_INHIBITED and get.from_pcf(0) is False
    assert QA.by_keyword("DEFSOPT").to_pcf(False) == C.MQOO_INPUT_SHARED
    assert QA.by_keyword("NOSHARE").to_pcf(False) == C.MQQA_NOT_SHAREABLE
    assert QA.by_selector(C.MQCA_BASE_OBJECT_NAME).keyword == "TARGET"
    assert QA.by_keyword("DEFREADA").to_pcf(True) == C.MQREADA_YES
    with pytest.raises(ValueError):
        QA.by_keyword("DEFPSIST").from_pcf(7)


def test_pcf_parameters_map_to_the_same_fields() -> None:
    got = QA.fields_from_pcf(
        C.MQQT_LOCAL,
        {
            C.MQIA_INHIBIT_GET: C.MQQA_GET_INHIBITED,
            C.MQIA_DEF_INPUT_OPEN_OPTION: C.MQOO_INPUT_SHARED,
            C.MQCA_Q_DESC: "Orders" + " " * 58,
            C.MQIA_MAX_Q_DEPTH: 100,
            C.MQIA_USAGE: C.MQUS_NORMAL,
        },
    )
    assert got == {
        "get_inhibited": True,
        "def_input_exclusive": False,
        "description": "Orders",
        "max_depth": 100,
        "usage": C.MQUS_NORMAL,
    }
    for bad in ({C.MQIA_DEF_PRIORITY: 10}, {C.MQIA_USAGE: 7}, {1: 0}):
        with pytest.raises(ValueError):
            QA.fields_from_pcf(C.MQQT_LOCAL, bad)


def test_inquire_answers_by_selector_for_the_queue_type() -> None:
    alias = QueueDef(name="A", queue_type=C.MQQT_ALIAS, target="Q", def_priority=3)
    fields_ = {f.name: getattr(alias, f.name) for f in fields(QueueDef)}
    wanted = [C.MQCA_BASE_OBJECT_NAME, C.MQIA_DEF_PRIORITY, C.MQIA_MAX_Q_DEPTH, C.MQIA_Q_TYPE]
    assert QA.pcf_values(fields_, {}, wanted) == {
        C.MQCA_BASE_OBJECT_NAME: "Q",
        C.MQIA_DEF_PRIORITY: 3,
        C.MQIA_Q_TYPE: C.MQQT_ALIAS,
    }
    local = {f.name: getattr(QueueDef(name="L"), f.name) for f in fields(QueueDef)}
    got = QA.pcf_values(local, {"CURDEPTH": 4}, [C.MQIA_CURRENT_Q_DEPTH, C.MQIA_USAGE])
    assert got == {C.MQIA_CURRENT_Q_DEPTH: 4, C.MQIA_USAGE: C.MQUS_NORMAL}
