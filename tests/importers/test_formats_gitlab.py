"""GitLab notes and discussions (``convo.importers.forums.gitlab``).

Fixtures follow the REST API reference: docs.gitlab.com/api/notes (issue notes with
``author``, ``system``, ``noteable_type``/``noteable_iid``/``project_id``,
``confidential``/``internal``) and docs.gitlab.com/api/discussions (merge request
discussions: ``individual_note``, ``notes`` with ``DiffNote`` ``position`` and
``resolvable``/``resolved``).
"""

from __future__ import annotations

import pytest
from formats_helpers import FIXTURES, detect_name, fresh_registry, run

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.forums import gitlab
from convo.importers.registry import registry

DIR = FIXTURES / "gitlab"


@pytest.mark.parametrize("name", ["issue_notes.json", "mr_discussions.json", "issues_list.json"])
def test_golden(name):
    recs, _, _ = run(gitlab.read, DIR / name)
    assert_golden(f"formats/gitlab/{name.removesuffix('.json')}.jsonl", recs)


def test_issue_notes():
    recs, rejects, _ = run(gitlab.read, DIR / "issue_notes.json")
    assert [r.where for r in rejects] == ["issue_notes.json#item-3"]
    note, system = recs
    assert note["metadata"] == {"speaker": "alice", "listeners": ["hatter"]}
    # the author's web_url names the instance; the next note, without one, shares it
    assert note["thread"] == "gitlab:gitlab.example:5/issues/7"
    assert note["id"] == "gitlab:gitlab.example:note/302"
    assert system["id"] == "gitlab:gitlab.example:note/305"
    assert note["extra"]["author_name"] == "Alice Liddell"
    assert system["tags"] == ["system"]


def test_merge_request_discussions():
    recs, rejects, _ = run(gitlab.read, DIR / "mr_discussions.json")
    assert [r.where for r in rejects] == ["mr_discussions.json#item-2.note-2"]
    review, fix, lgtm = recs
    assert review["extra"]["position"]["new_line"] == 18 and review["extra"]["resolved"] is False
    assert fix["replyTo"] == review["id"] and fix["metadata"]["listeners"] == ["hatter"]
    assert fix["extra"]["resolved"] is True
    assert (
        "replyTo" not in lgtm and lgtm["thread"] == "gitlab:gitlab:5/merge_requests/11"
    )  # the folder


def test_detect_among_builtins():
    reg = fresh_registry(gitlab)
    assert detect_name(reg, DIR / "issue_notes.json") == "gitlab"
    assert detect_name(reg, DIR / "mr_discussions.json") == "gitlab"


def test_global_registry_detects():
    assert registry.detect(Source(DIR / "issue_notes.json")).name == "gitlab"


def test_issues_list():
    """Issue 36 §7: the API's list of issues (and merge requests), not only notes."""
    recs, rejects, _ = run(gitlab.read, DIR / "issues_list.json")
    assert not rejects
    issue, closed, mr = recs
    assert issue["metadata"] == {"speaker": "alice", "listeners": ["hatter"]}
    assert issue["thread"] == "gitlab:gitlab.example.com:8/issues/6"  # the notes' thread
    assert issue["id"] == "gitlab:gitlab.example.com:issue/76"  # scoped by the instance
    assert issue["tags"] == ["foo", "bar"] and issue["subject"].startswith("Consequatur")
    assert issue["textChunks"][0].endswith("@hatter please look")
    assert issue["extra"]["assignees"] == ["hatter"] and issue["extra"]["milestone"] == "v2.0"
    assert closed["textChunks"] == ["Tea is cold"] and closed["extra"]["confidential"] is True
    assert mr["thread"] == "gitlab:gitlab.example.com:8/merge_requests/1"
    assert mr["id"] == "gitlab:gitlab.example.com:merge_request/1"


def test_issues_list_detected_and_one_issue_too(tmp_path):
    import orjson

    assert registry.detect(Source(DIR / "issues_list.json")).name == "gitlab"
    one = tmp_path / "issue.json"
    one.write_bytes(orjson.dumps(orjson.loads((DIR / "issues_list.json").read_bytes())[0]))
    assert registry.detect(Source(one)).name == "gitlab"
    recs, _, _ = run(gitlab.read, one)
    assert [r["id"] for r in recs] == ["gitlab:gitlab.example.com:issue/76"]


def test_crlf_of_a_browser_becomes_lf(tmp_path):
    """Text typed in GitLab's web editor keeps its CRLF in the API's JSON, as GitHub's
    does: the line ends become ``\\n`` (``forums.common.body_text``), as for GitHub."""
    p = tmp_path / "notes.json"
    p.write_text(
        '[{"id": 305, "body": "first line\\r\\n@pipin what do you think?\\r\\n", '
        '"author": {"username": "jdoe"}, "created_at": "2013-10-02T09:56:03Z", '
        '"system": false, "noteable_type": "Issue", "noteable_iid": 3, "project_id": 5}]',
        encoding="utf-8",
    )
    recs, _, _ = run(gitlab.read, p)
    assert recs[0]["textChunks"] == ["first line\n@pipin what do you think?\n"]
    assert recs[0]["metadata"]["listeners"] == ["pipin"]
