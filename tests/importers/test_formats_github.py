"""GitHub pull request reviews, review comments and the GitHub CLI's ``--json`` objects
(fixtures written for these tests, in the shapes the REST API and ``gh`` write)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from convo.core.io import Source
from convo.importers.registry import registry
from convo.pipeline.ingest import Ingest

DIR = Path(__file__).resolve().parent.parent / "fixtures" / "formats" / "github"
PR = "github:acme/widgets#42"


def run(name: str) -> tuple[list[dict], list, list]:
    rejects: list = []
    warnings: list = []
    ingest = Ingest(on_reject=rejects.append, on_warning=warnings.append)
    return [m.serialize() for m in ingest.messages([DIR / name])], rejects, warnings


def test_each_file_is_github():
    for path in sorted(DIR.iterdir()):
        assert registry.detect(Source(path)).name == "github", path.name


def test_review_comment_replies_to_the_one_it_answers():
    recs, rejects, _ = run("pr-review-comments.json")
    assert not rejects
    first, answer = recs
    assert first["id"] == f"{PR}/comment/501" and first["replyTo"] == PR
    assert answer["replyTo"] == f"{PR}/comment/501"
    assert answer["metadata"] == {"speaker": "jonas", "listeners": ["mira"]}
    assert first["extra"]["path"] == "widgets/size.py" and first["extra"]["review"] == 9001


def test_reviews_have_their_time_state_and_own_ids():
    recs, _, warnings = run("pr-reviews.json")
    assert [r["timestamp"] for r in recs] == ["2024-05-02T09:01:00Z", "2024-05-03T08:00:00Z"]
    assert [r["id"] for r in recs] == [f"{PR}/review/9001", f"{PR}/review/9003"]
    assert recs[1]["textChunks"] == ["[review APPROVED]"]
    assert recs[0]["extra"]["state"] == "CHANGES_REQUESTED"
    assert not any("time" in str(w) for w in warnings)


def test_gh_pr_view_json():
    recs, rejects, _ = run("gh-pr-view.json")
    assert not rejects
    pr, comment, review, approval = recs
    assert pr["id"] == PR and pr["subject"] == "Widget size is 2" and pr["tags"] == ["bug"]
    assert pr["textChunks"] == ["Sizes are now 2, as the spec says.\n\nCloses #41."]
    assert pr["metadata"]["speaker"] == "jonas" and pr["timestamp"] == "2024-05-01T17:20:00Z"
    # The comment's number is in its URL: the REST API's record of it has this id.
    assert comment["id"] == f"{PR}/comment/2093" and comment["replyTo"] == PR
    assert review["id"] == f"{PR}/review/PRR_kwDOAAAB"
    assert review["timestamp"] == "2024-05-02T09:01:00Z"
    assert approval["textChunks"] == ["[review APPROVED]"]
    assert {r["thread"] for r in recs} == {PR}


def test_gh_comments_without_url_or_id_get_content_ids_not_positions(tmp_path):
    """Without a URL or node id, a comment's id is its content's hash: the position would
    go to another comment once one before it is deleted upstream."""
    issue = {"number": 7, "url": "https://github.com/o/r/issues/7", "title": "T", "body": "b",
             "author": {"login": "ann"}, "createdAt": "2024-01-01T00:00:00Z",
             "comments": [{"author": {"login": "bob"}, "body": "first", "createdAt": "2024-01-02T00:00:00Z"},
                          {"author": {"login": "cy"}, "body": "second", "createdAt": "2024-01-03T00:00:00Z"}]}  # fmt: skip
    path = tmp_path / "gh.json"
    path.write_bytes(orjson.dumps(issue))
    ids = [m.serialize()["id"] for m in Ingest(on_reject=pytest.fail).messages([path])]
    assert ids[0] == "github:o/r#7" and len(set(ids)) == 3
    assert not any(i.endswith(("/comment/1", "/comment/2")) for i in ids)


@pytest.mark.parametrize("number", ["9" * 5000, "\u00b2", "\u0663"])
def test_a_number_int_refuses_is_no_error(tmp_path, number):
    """``forums.common.as_int`` of a 5,000-digit string was ``int``'s ValueError (an
    internal error; ``isdecimal`` lets it through); a number that is no ASCII number is
    none."""
    from convo.importers.forums.common import as_int

    assert as_int(number) is None
    doc = orjson.loads((DIR / "gh-pr-view.json").read_bytes())
    doc["number"] = number
    path = tmp_path / "gh-pr-view.json"
    path.write_bytes(orjson.dumps(doc))
    rejects: list = []
    recs = [m.serialize() for m in Ingest(on_reject=rejects.append).messages([path])]
    assert recs or rejects


def test_pull_requests_of_pulls_are_issues_not_comments():
    """``GET /repos/O/R/pulls`` (and ``pulls/N``, as PyGithub's recorded
    ``PullRequest.setUp.txt`` has it) gives each pull request an ``issue_url``: it was read
    as a comment on itself (``#42/comment/<id>``, its title and labels lost)."""
    recs, rejects, _ = run("pulls.json")
    assert not rejects
    first, draft = recs
    assert first["id"] == first["thread"] == PR and "replyTo" not in first
    assert first["subject"] == "Widgets: measure in mm" and first["tags"] == ["size"]
    assert first["textChunks"] == ["Sizes were in inches.\n\ncc @jonas"]
    assert first["metadata"] == {"speaker": "mira", "listeners": ["jonas"]}
    assert first["extra"]["pull_request"] is True
    assert first["extra"]["merged_at"] == "2012-05-27T10:29:07Z"
    assert draft["id"] == "github:acme/widgets#43" and draft["textChunks"] == ["Draft: colours"]


def test_an_issue_timeline_keeps_its_events():
    """``issues/N/timeline`` (as PyGithub's recorded ``Issue.testGetTimeline.txt`` has
    it): every item but the comments was rejected ("neither a GitHub issue nor a
    comment"). Events are now messages tagged ``system`` in the issue's thread (the one
    its comments name: events name none), a commit under its author's name."""
    recs, rejects, _ = run("issue-timeline.json")
    assert not rejects
    assert [r["textChunks"][0] for r in recs] == [
        "[subscribed]",
        "[assigned jonas]",
        "On it.\n",
        "[labeled size]",
        "[cross-referenced from https://github.com/acme/widgets/pull/57]",
        "[committed 1a2b3c4] Measure widgets in mm",
        "[closed 1a2b3c4]",
    ]
    assert {r["thread"] for r in recs} == {PR}
    assert recs[0]["id"] == "github:event/15819975" and recs[0]["tags"] == ["system"]
    assert recs[1]["metadata"]["speaker"] is None  # the ghost user: a deleted account
    assert recs[5]["metadata"]["speaker"] == "Jonas Berg"
    assert recs[5]["timestamp"] == "2018-08-25T09:00:00Z"
    assert len({r["id"] for r in recs}) == 7


def test_activity_events_give_their_messages():
    """The Events API and GH Archive's dumps (``{"type": "IssueCommentEvent", "payload":
    ...}``, PyGithub's recorded ``Event.setUp.txt`` and ``Github.testGetEvents.txt``):
    every event was rejected. The issue opened, the comment (a 2012 event's names no
    ``issue_url``: its issue's) and the review are read; a push, a star and an issue closed
    hold no new message: one warning counts them."""
    recs, rejects, warnings = run("events.jsonl")
    assert not rejects
    issue, comment, review = recs
    assert issue["id"] == "github:acme/widgets#29" and issue["metadata"]["speaker"] == "jonas"
    assert issue["subject"] == "Publish version 0.7" and issue["tags"] == ["release"]
    assert issue["textChunks"] == ["Tag and upload."]  # as opened, not as closed
    assert comment["id"] == "github:acme/widgets#29/comment/5820199"
    assert comment["replyTo"] == issue["id"]
    assert review["id"] == f"{PR}/review/1100000001"
    assert review["textChunks"] == ["[review approved]"]
    assert any(
        "3 activity events" in w and "PushEvent 1" in w and "IssuesEvent closed 1" in w
        for w in warnings
    )


def test_a_graphql_discussion_is_a_thread_of_comments_and_replies():
    """``gh api graphql``'s discussion (``data.repository.discussion``): comments and
    replies are connections (``nodes``), ids in ``#discussioncomment-ID``."""
    recs, rejects, warnings = run("discussion-graphql.json")
    assert not rejects
    d = "github:acme/widgets#4521"
    assert [(r["id"], r.get("replyTo"), r["metadata"]["speaker"]) for r in recs] == [
        (d, None, "alice"),
        (f"{d}/comment/8765431", d, "bob"),
        (f"{d}/comment/8765500", f"{d}/comment/8765431", "alice"),
        (f"{d}/comment/8765602", d, None),
    ]
    assert {r["thread"] for r in recs} == {d}
    assert recs[0]["subject"] == "How do I stream responses?" and recs[0]["tags"] == ["Q&A"]
    assert recs[0]["metadata"]["listeners"] == ["maintainer"]
    assert recs[0]["textChunks"][0].endswith("\n\n@maintainer any idea?")  # CRLF made LF
    assert recs[3]["tags"] == ["answer"] and recs[1]["timestamp"] == "2024-03-05T11:00:00Z"
    assert any("deleted or unknown authors" in str(w) for w in warnings)


def test_a_page_of_discussions_with_edges(tmp_path):
    node = {
        "number": 7, "title": "Idea", "body": "What if?", "createdAt": "2024-01-01T00:00:00Z",
        "url": "https://github.com/acme/widgets/discussions/7", "author": {"login": "carol"},
        "comments": {"edges": [{"node": {
            "id": "DC_x", "body": "Yes", "createdAt": "2024-01-02T00:00:00Z",
            "author": {"login": "dan"}, "url": "https://github.com/acme/widgets/discussions/7"}}]},
    }  # fmt: skip
    path = tmp_path / "page.json"
    page = {"data": {"repository": {"discussions": {"edges": [{"node": node}]}}}}
    path.write_bytes(orjson.dumps(page))
    assert registry.detect(Source(path)).name == "github"
    rejects: list = []
    recs = [m.serialize() for m in Ingest(on_reject=rejects.append).messages([path])]
    assert not rejects
    assert [r["id"] for r in recs] == [
        "github:acme/widgets#7",
        "github:acme/widgets#7/comment/DC_x",
    ]


def test_the_migration_archive_reads_as_the_rest_api_does():
    """GitHub's migration archive ("Export account data", ``ghe-migrator``): objects
    tagged with ``type``, everything named by URL (``user`` a profile URL or, in archives
    made by migration tools, a bare name)."""
    issues, rejects, _ = run("archive-issues_000001.json")
    comments, rejects2, _ = run("archive-issue_comments_000001.json")
    assert not rejects and not rejects2
    issue = "github:sagemath/sagetest#8497"
    assert issues[0]["id"] == issue and issues[0]["metadata"]["speaker"] == "zimmermann6"
    assert issues[0]["tags"] == ["component: symbolics", "minor"]
    assert [(c["id"], c["replyTo"], c["metadata"]["speaker"]) for c in comments] == [
        (f"{issue}/comment/76556", issue, "zimmermann6"), (f"{issue}/comment/76557", issue, "burcin")
    ]  # fmt: skip
    prs, rejects3, warnings = run("archive-pull_requests_000001.json")
    assert not rejects3
    assert [r["id"] for r in prs] == [
        PR,
        f"{PR}/comment/501",
        f"{PR}/comment/502",
        f"{PR}/review/9001",
    ]
    assert prs[2]["replyTo"] == f"{PR}/comment/501" and prs[3]["textChunks"] == [
        "[review APPROVED]"
    ]
    assert warnings and "repository 1" in str(warnings[-1])


def test_graphql_issues_keep_their_comments_and_labels(tmp_path):
    """``gh api graphql``'s issues (comments and labels as connections, ``{nodes}``): the
    answer was rejected whole, and its nodes saved alone lost every comment and label."""
    recs, rejects, _ = run("graphql-issues.json")
    assert not rejects
    issue = "github:acme/widgets#12"
    assert [(r["id"], r.get("replyTo")) for r in recs] == [
        (issue, None), (f"{issue}/comment/1001", issue), (f"{issue}/comment/1002", issue)
    ]  # fmt: skip
    assert recs[0]["tags"] == ["bug"] and recs[1]["metadata"]["speaker"] == "bob"
    nodes = tmp_path / "nodes.json"
    nodes.write_bytes(orjson.dumps(orjson.loads((DIR / "graphql-issues.json").read_bytes())
                                   ["data"]["repository"]["issues"]["nodes"]))  # fmt: skip
    rejects2: list = []
    again = [m.serialize() for m in Ingest(on_reject=rejects2.append).messages([nodes])]
    assert [r["id"] for r in again] == [r["id"] for r in recs] and not rejects2
