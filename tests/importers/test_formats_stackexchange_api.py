"""Stack Exchange API answers (``convo.importers.forums.stackexchange_api``): fixtures
written in the shape ``api.stackexchange.com/2.3`` returns (the ``items`` wrapper,
``filter=withbody`` bodies, nested ``answers`` and ``comments``, HTML-escaped titles
and names)."""

from __future__ import annotations

from formats_helpers import FIXTURES

from convo.core.io import Source
from convo.importers.registry import registry
from convo.pipeline.ingest import Ingest

DIR = FIXTURES / "stackexchange_api"
Q = "se:cooking:5401"


def run(name: str) -> tuple[list[dict], list]:
    rejects: list = []
    ingest = Ingest(on_reject=rejects.append)
    return [m.serialize() for m in ingest.messages([DIR / name])], rejects


def test_detected():
    for name in ("questions.json", "comments.json"):
        assert registry.detect(Source(DIR / name)).name == "stackexchange-api"


def test_question_with_answers_and_comments():
    recs, rejects = run("questions.json")
    assert not rejects
    question, comment, answer, thanks = recs
    assert question["id"] == Q and question["thread"] == Q and question["format"] == "stackexchange"
    assert question["subject"] == "Salt before or after searing & resting?"
    assert question["metadata"]["speaker"] == "Mira L'Oie" and question["tags"] == [
        "python",
        "json",
    ]
    assert question["textChunks"] == ["Should I salt steak before searing, or after?"]
    assert question["timestamp"] == "2024-05-02T09:00:00Z"
    assert comment["id"] == "se:cooking:c9001" and comment["replyTo"] == Q
    assert comment["metadata"]["listeners"] == ["Mira L'Oie"]
    assert answer["id"] == "se:cooking:5402" and answer["replyTo"] == Q and answer["thread"] == Q
    assert answer["extra"]["accepted"] is True
    assert thanks["replyTo"] == "se:cooking:5402" and thanks["metadata"]["listeners"] == ["Jonas"]


def test_a_comment_read_alone_keeps_its_post():
    recs, _ = run("comments.json")
    assert recs[0]["id"] == "se:cooking:c9003" and recs[0]["replyTo"] == "se:cooking:5402"
    assert recs[0]["extra"]["post_id"] == 5402 and "thread" not in recs[0]


def test_an_item_without_an_id_is_rejected_at_its_place(tmp_path):
    """The rejection names the element's line, not a fixed ``#item``."""
    path = tmp_path / "api.json"
    path.write_text(
        '{"items": [\n{"question_id": 1, "title": "Q", "link": "https://cooking.stackexchange.com/q/1"},\n'
        '{"answer_id": 7, "link": "https://cooking.stackexchange.com/a/7"}\n], "quota_max": 300}\n'
    )
    rejects: list = []
    recs = [m.serialize() for m in Ingest(on_reject=rejects.append).messages([path])]
    assert [r["id"] for r in recs] == ["se:cooking:1"]
    assert len(rejects) == 1
    assert "#item" not in str(rejects[0].where) and "api.json" in str(rejects[0].where)


def test_tags_that_are_no_list_are_none(tmp_path):
    """``"tags": 5`` (or true, or a number) was iterated: a TypeError, an internal error."""
    path = tmp_path / "api.json"
    path.write_text(
        '{"items": [{"question_id": 1, "title": "Q", "tags": 5, '
        '"link": "https://cooking.stackexchange.com/q/1"}], "quota_max": 300}\n'
    )
    recs = [m.serialize() for m in Ingest().messages([path])]
    assert [(r["id"], r["tags"]) for r in recs] == [("se:cooking:1", [])]
