"""People: the alias file, `convo people`, and aliases in filters, stats and knowledge."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from convo.analysis.people import identities, merges
from convo.cli.app import app
from convo.core.errors import InputError
from convo.core.people import People

PEOPLE = """
[people.alice]
name = "Alice Smith"
names = ["Alice Smith", "Alice", "alice_dev"]
addresses = ["alice@example.org"]
"""


def _rec(i: int, speaker: str, listeners=(), fmt="slack", ts="2024-03-06T10:00:00Z") -> dict:
    return {"id": f"m{i}", "format": fmt, "source_id": f"s#{i}", "timestamp": ts,
            "textChunks": [f"message {i}"],
            "metadata": {"speaker": speaker, "listeners": list(listeners)}}  # fmt: skip


RECS = [
    _rec(1, "Alice Smith", ["Bob"]),
    _rec(2, "alice_dev", fmt="github", ts="2024-05-01T00:00:00Z"),
    _rec(3, "Alice Smith <alice@example.org>", ["Bob Jones <bob@x.org>"], fmt="mbox"),
    _rec(4, "Bob Jones <bob@x.org>", ["Alice"], fmt="mbox"),
    _rec(5, "Bob", fmt="vtt"),
]


@pytest.fixture
def files(tmp_path: Path):
    store = tmp_path / "s.jsonl"
    store.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in RECS))
    people = tmp_path / "people.toml"
    people.write_text(PEOPLE)
    return store, people


def _run(*args: str, env=None):
    r = CliRunner().invoke(app, list(args), env=env)
    assert r.exit_code == 0, r.stderr
    return r.stdout


def test_an_alias_names_the_person():
    people = People.of(
        {
            "people": {
                "alice": {"names": ["Alice Smith", "alice_dev"], "addresses": ["alice@example.org"]}
            }
        }
    )
    assert people.canonical("alice_dev") == "Alice Smith"
    assert people.canonical("Someone <alice@example.org>") == "Alice Smith"
    assert people.canonical("Alice Jones") == "Alice Jones"
    assert set(people.aliases_for("alice")) >= {"alice_dev", "alice@example.org", "Alice Smith"}
    assert people.aliases_for("bob") == []


def test_bad_people_files_are_one_clear_error(tmp_path):
    with pytest.raises(InputError, match="names must be a list"):
        People.of({"people": {"x": {"names": "Al"}}}, "p.toml")
    bad = tmp_path / "p.toml"
    bad.write_text("[people.x\n")
    r = CliRunner().invoke(app, ["--people", str(bad), "list", str(bad)])
    assert r.exit_code == 2 and "not a TOML file" in r.stderr and "Traceback" not in r.stderr


def test_speaker_filters_find_every_alias(files):
    store, people = files
    ids = lambda *a: [orjson.loads(x)["id"] for x in _run(*a).splitlines()]  # noqa: E731
    with_people = ["--people", str(people), "--store", str(store)]
    assert ids(*with_people, "list", "-f", "jsonl", "-s", "alice") == ["m1", "m2", "m3"]
    assert ids("--store", str(store), "list", "-f", "jsonl", "-s", "alice") == ["m1", "m3"]
    assert ids(*with_people, "query", "-f", "jsonl", "from:alice@example.org") == ["m1", "m2", "m3"]
    env = {"CONVO_PEOPLE": str(people)}
    assert [
        orjson.loads(x)["id"]
        for x in _run(
            "--store", str(store), "list", "-f", "jsonl", "-r", "alice", env=env
        ).splitlines()
    ] == ["m4"]


def test_stats_and_knowledge_count_one_person_once(files):
    store, people = files
    stats = orjson.loads(
        _run("--people", str(people), "--store", str(store), "stats", "-f", "json")
    )
    speakers = {s["name"]: s["messages"] for s in stats["speakers"]}
    assert speakers["Alice Smith"] == 3 and "alice_dev" not in speakers
    know = orjson.loads(
        _run("--people", str(people), "--store", str(store), "knowledge", "-f", "json")
    )
    assert "alice_dev" not in orjson.dumps(know).decode()


def test_people_lists_identities_and_likely_merges(files):
    store, people = files
    found = identities(RECS)
    by = {i.name: i for i in found}
    assert by["Alice Smith"].spoke == 1 and by["Bob"].heard == 1 and by["Bob"].spoke == 1
    assert by["Bob"].formats == {"slack", "vtt"}
    assert by["alice_dev"].first == by["alice_dev"].last == "2024-05-01T00:00:00Z"
    reasons = {tuple(m.names): m.reason for m in merges(found)}
    assert reasons[("Alice Smith", "Alice Smith <alice@example.org>")] == "same display name"
    assert ("Bob", "Bob Jones <bob@x.org>") in reasons
    assert ("Alice", "Alice Smith") in reasons
    assert (
        "Alice",
        "Alice Smith <alice@example.org>",
    ) not in reasons  # the display-name merge has it
    data = orjson.loads(_run("--store", str(store), "people"))
    assert {"identities", "merges"} <= data.keys()
    settled = orjson.loads(
        _run("--people", str(people), "--store", str(store), "people", "-f", "json")
    )
    assert not any("Alice Smith" in m["names"] for m in settled["merges"])
    table = _run("--store", str(store), "people", "-f", "table")
    assert "Likely the same person" in table and "messages" in table


def test_dir_convo_lists_the_public_api():
    import convo

    names = dir(convo)
    assert {"read_messages", "Filters", "Store", "__version__"} <= set(names)
    assert "TYPE_CHECKING" not in names and "annotations" not in names
