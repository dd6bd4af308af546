"""Content knowledge on the fixtures in tests/fixtures/knowledge, against golden files."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from conftest import assert_golden
from convo.analysis.knowledge.extract import extract_all
from convo.analysis.knowledge.summary import aggregate

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "knowledge"
NAMES = ["transcript", "email", "chat"]


def load(name: str) -> list[dict]:
    return [orjson.loads(x) for x in (FIXTURES / f"{name}.jsonl").read_bytes().splitlines()]


@pytest.mark.parametrize("name", NAMES)
def test_per_message_knowledge(name):
    out = [{"id": r["id"], "knowledge": k.to_dict()} for r, k in extract_all(load(name))]
    assert_golden(f"knowledge/{name}.jsonl", out)


@pytest.mark.parametrize("name", NAMES)
def test_metadata_only_knowledge(name):
    out = [
        {"id": r["id"], "knowledge": k.to_dict()}
        for r, k in extract_all(load(name), metadata_only=True)
    ]
    assert_golden(f"knowledge/{name}.metadata.jsonl", out)


@pytest.mark.parametrize("name", NAMES)
def test_aggregate(name):
    assert_golden(f"knowledge/{name}.aggregate.jsonl", [aggregate(load(name)).to_dict()])


def _topics(name: str) -> dict[str, int]:
    return {t["topic"]: t["messages"] for t in aggregate(load(name)).to_dict()["topics"]}


def test_a_reader_would_name_these():
    """The people, addresses, links and main topics of each fixture."""
    assert {"database migration", "maintenance window", "release schedule"} <= set(
        t for t, n in _topics("transcript").items() if n >= 2
    )
    mail = aggregate(load("email")).to_dict()
    names = {e["name"] for e in mail["entities"]}
    assert {"Alice Smith", "Bob Jones", "Carol White", "security@example.org",
            "https://git.example.org/auth/pull/42"} <= names  # fmt: skip
    assert {"Auth refactor", "security audit", "jwt tokens", "token expiry policy"} <= set(
        _topics("email")
    )
    chat = aggregate(load("chat")).to_dict()
    assert {"dave", "erin", "frank", "https://ci.example.com/build/981"} <= {
        e["name"] for e in chat["entities"]
    }
    assert {"deploy pipeline", "ci", "staging database"} <= set(_topics("chat"))
