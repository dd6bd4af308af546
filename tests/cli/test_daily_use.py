"""Issue 35 ("Daily use"): each item reproduced on the command line."""

from __future__ import annotations

from pathlib import Path

import orjson
from typer.testing import CliRunner

from convo.cli.app import app

MBOX = """\
From alice@example.org Wed Mar  6 10:00:00 2024
From: Alice Smith <alice@example.org>
To: Bob Jones <bob@example.org>, Carol Diaz <carol@example.org>
Subject: Auth refactor
Date: Wed, 06 Mar 2024 10:00:00 +0000
Message-ID: <a1@example.org>

Shall we switch to tokens?

From bob@example.org Wed Mar  6 10:05:00 2024
From: Bob Jones <bob@example.org>
To: Alice Smith <alice@example.org>
Subject: Re: Auth refactor
Date: Wed, 06 Mar 2024 10:05:00 +0000
Message-ID: <b1@example.org>
In-Reply-To: <a1@example.org>

Yes, tokens.

From alice@example.org Wed Mar  6 10:09:00 2024
From: alice@example.org
To: Bob Jones <bob@example.org>
Subject: Re: Auth refactor
Date: Wed, 06 Mar 2024 10:09:00 +0000
Message-ID: <a2@example.org>
In-Reply-To: <b1@example.org>

Done.
"""

PEOPLE = """\
[people.alice]
name = "Alice Smith"
names = ["Alice Smith", "Alice"]
addresses = ["alice@example.org"]
"""

CHAT = {"textChunks": ["hi from chat"], "metadata": {"speaker": "Alice", "listeners": ["Bob Jones"]},
        "tags": [], "timestamp": "2024-03-07T10:00:00Z", "source_id": "c#1", "id": "c1",
        "format": "slack"}  # fmt: skip


def _invoke(*args: str, input: str | None = None, env: dict | None = None):
    return CliRunner().invoke(app, list(args), input=input, env=env)


def _lines(text: str) -> list[dict]:
    return [orjson.loads(x) for x in text.splitlines() if x.strip()]


def _mail_and_people(tmp_path: Path) -> tuple[Path, dict]:
    box = tmp_path / "team.mbox"
    box.write_text(MBOX)
    people = tmp_path / "people.toml"
    people.write_text(PEOPLE)
    store = tmp_path / "all.jsonl"
    r = _invoke("ingest", str(box), "-o", str(store))
    assert r.exit_code == 0, r.output
    with store.open("ab") as f:
        f.write(orjson.dumps(CHAT) + b"\n")
    return store, {"CONVO_PEOPLE": str(people)}


# -- 2: a people file and knowledge of mail ------------------------------------------------


def test_a_people_file_keeps_the_mail_sender_a_person(tmp_path):
    store, env = _mail_and_people(tmp_path)
    r = _invoke("knowledge", str(store), "-f", "jsonl", env=env)
    assert r.exit_code == 0, r.output
    first = _lines(r.stdout)[0]["knowledge"]
    entities = {e["name"]: e["type"] for e in first["entities"]}
    assert entities["Alice Smith"] == ["person"]
    assert "Alice" not in entities and "Bob" not in entities  # not parsed as addresses
    assert entities["Bob Jones"] == ["person"]
    sent = [(a["subjectEntityName"], a["indirectObjectEntityName"])
            for a in first["actions"] if a["verbs"] == ["sent"]]  # fmt: skip
    assert sent == [("Alice Smith", "Bob Jones"), ("Alice Smith", "Carol Diaz")]  # once each


def test_sent_and_received_are_listed_once_without_a_people_file(tmp_path):
    store, _ = _mail_and_people(tmp_path)
    r = _invoke("knowledge", str(store), "-f", "jsonl")
    first = _lines(r.stdout)[0]["knowledge"]
    verbs = [a["verbs"][0] for a in first["actions"] if a["verbs"][0] in ("sent", "received")]
    assert verbs == ["sent", "received", "sent", "received"]  # one pair per To recipient


def test_one_person_is_counted_once_in_stats_people_and_knowledge(tmp_path):
    store, env = _mail_and_people(tmp_path)
    k = orjson.loads(_invoke("knowledge", str(store), "-f", "json", env=env).stdout)
    assert {s["name"]: s["messages"] for s in k["speakers"]} == {"Alice Smith": 3, "Bob Jones": 1}
    named = {e["name"] for e in k["entities"]}
    assert "Alice" not in named
    s = orjson.loads(_invoke("stats", str(store), "-f", "json", env=env).stdout)
    speakers = {x["name"]: x["messages"] for x in s["speakers"]}
    assert speakers["Alice Smith"] == 3 and "Alice" not in speakers
    p = orjson.loads(_invoke("people", str(store), "-f", "json", env=env).stdout)
    persons = {x["name"]: (x["messages"], x["heard"]) for x in p["persons"]}
    assert persons == {"Alice Smith": (3, 1)}
    r = _invoke("people", str(store), env={**env, "CONVO_FORCE_TTY": "1", "COLUMNS": "120"})
    assert "Alice Smith" in r.stdout.split("name")[0]  # the persons table comes first
