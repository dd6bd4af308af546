"""The record's classes are plain dataclasses validated through ``core/record_model.py``:
the same fields as the pydantic declarations there, and the same results and errors as
validating with those declarations (the plain path: pydantic dataclasses)."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, TypeAdapter, ValidationError

from convo.core import record, record_model
from convo.core.record import ConversationMessage, ConversationMessageMeta


def test_the_declarations_have_the_plain_classes_fields():
    for declared, plain in record_model.PLAIN.items():
        names = [f.name for f in dataclasses.fields(plain)]
        assert [f.name for f in dataclasses.fields(declared)] == names
        assert declared.__annotations__ == plain.__annotations__ or all(
            str(declared.__annotations__[n]) == str(plain.__annotations__[n]) for n in names
        )
        declared_fields = declared.__pydantic_fields__
        for f in dataclasses.fields(plain):
            if f.default is not dataclasses.MISSING:
                assert declared_fields[f.name].default == f.default, f.name
            if f.default_factory is not dataclasses.MISSING:
                made = declared_fields[f.name].default_factory()
                assert made == f.default_factory() and type(made) is type(f.default_factory())


def test_importing_the_record_imports_no_pydantic():
    src = str(Path(__file__).resolve().parents[2] / "src")
    code = (
        "import sys; import convo.core.record as r; "
        "m = r.unchecked_message(['a'], 'x', [], {'tags': []}); r.check_message(m); "
        "print(sorted(k for k in sys.modules if k.startswith('pydantic')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
        env={"PYTHONPATH": src}, check=True,
    ).stdout  # fmt: skip
    assert out.strip() == "[]"


def test_validation_makes_the_plain_classes():
    msg = ConversationMessage(["a"], {"speaker": "s", "listeners": ["b"]}, replyTo="r")
    assert type(msg) is ConversationMessage and type(msg.metadata) is ConversationMessageMeta
    assert msg.reply_to == "r" and msg.metadata.recipients == ["b"]
    assert type(ConversationMessage(["a"]).metadata) is ConversationMessageMeta
    parsed = record.parse_record({"textChunks": ["a"]})
    assert type(parsed) is ConversationMessage and type(parsed.metadata) is ConversationMessageMeta
    with pytest.raises(ValidationError):
        ConversationMessage("not a list")
    with pytest.raises(ValidationError):
        ConversationMessageMeta(speaker=3)


def test_a_subclass_validates_into_itself():
    class Mine(ConversationMessage):
        pass

    mine = Mine(["a"], tags=["t"])
    assert type(mine) is Mine and mine.tags == ["t"]


def test_a_pydantic_model_holds_a_record():
    class Holder(BaseModel):
        msg: ConversationMessage

    held = Holder.model_validate({"msg": {"textChunks": ["a"], "metadata": {"listeners": ["x"]}}})
    assert type(held.msg) is ConversationMessage and held.msg.metadata.recipients == ["x"]
    dumped = TypeAdapter(ConversationMessage).dump_python(held.msg, by_alias=True)
    assert dumped["textChunks"] == ["a"] and dumped["metadata"]["listeners"] == ["x"]


_values = st.one_of(
    st.none(), st.booleans(), st.integers(), st.text(max_size=3),
    st.lists(st.one_of(st.text(max_size=3), st.integers(), st.none()), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)  # fmt: skip
_KEYS = [
    "textChunks", "text_chunks", "tags", "timestamp", "source_id", "id", "format", "thread",
    "replyTo", "reply_to", "role", "subject", "extra", "other",
]  # fmt: skip
_meta = st.one_of(
    _values,
    st.dictionaries(st.sampled_from(["speaker", "listeners", "recipients", "x"]), _values),
)
_records = st.one_of(
    _values,
    st.fixed_dictionaries(
        {"textChunks": st.lists(st.text(max_size=4), max_size=3)},
        optional={**{k: _values for k in _KEYS[1:]}, "metadata": _meta},
    ),
)


def _outcome(validate, data):
    try:
        value = validate(data)
    except ValidationError as e:
        return "error", [(x["loc"], x["msg"], x["type"]) for x in e.errors()]
    meta = value.metadata
    return "ok", dataclasses.asdict(value), type(meta).__name__, vars(meta)


@settings(max_examples=300, deadline=None)
@given(_records)
def test_validation_equals_the_declared_pydantic_dataclass(data):
    """The plain twin: the same dict validated by the pydantic dataclass declared in
    ``record_model`` (what the record class was) gives the same values or errors."""
    declared = TypeAdapter(record_model.ConversationMessage).validate_python
    assert _outcome(record_model.validate, data) == _outcome(declared, data)
    if isinstance(data, dict):
        kwargs = {k: v for k, v in data.items() if k != "other"}
        assert _outcome(lambda d: ConversationMessage(**d), kwargs) == _outcome(
            lambda d: record_model.ConversationMessage(**d), kwargs
        )
