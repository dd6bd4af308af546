"""The Gemini app's Takeout "My Activity" (``convo.importers.apps.gemini_activity``,
issue 36 §7).

The fixture follows the entries of a real ``My Activity.json`` filtered to Gemini Apps as
users' analyses of their exports describe them: newest first, ``header``/``title``/
``time``/``products``/``activityControls``, ``Prompted ...`` titles, answers as
``safeHtmlItem`` HTML (two for a regenerated answer), a Gem and an attached image in
``subtitles``/``imageFile``, and a ``Gave feedback`` entry without an answer.
"""

from __future__ import annotations

import orjson
from formats_helpers import FIXTURES, run
from hypothesis import given
from hypothesis import strategies as st

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.apps import gemini_activity
from convo.importers.registry import registry

PATH = FIXTURES / "gemini_activity" / "Takeout" / "My Activity" / "Gemini Apps" / "MyActivity.json"


def test_golden_and_mapping():
    recs, rejects, warnings = run(gemini_activity.read, PATH)
    assert not rejects and not warnings
    assert_golden("formats/gemini_activity/MyActivity.jsonl", recs)
    said = [(r["metadata"]["speaker"], r["textChunks"][0][:20], r["tags"]) for r in recs]
    assert said == [
        ("user", "What is a monad?", []),
        ("Gemini", "A monad is a design ", []),
        ("Gemini", "Think of it as a pro", []),
        ("user", "Explain this chart", []),
        ("Gemini", "The chart shows disk", []),
        ("user", "Gave feedback: Good ", ["system"]),
    ]
    prompt, first, again = recs[:3]
    assert first["replyTo"] == again["replyTo"] == prompt["id"]
    assert prompt["id"].startswith("gemini-apps:2025-05-02T14:30:05.123Z:")
    assert again["extra"] == {"regenerated": True}
    assert prompt["thread"] == first["thread"] == "gemini-apps:2025-05-02T14:30:05.123Z"
    assert recs[3]["textChunks"][1] == "[image image_89b1bd-1e9873211d1a6157.png]"
    assert prompt["metadata"]["listeners"] == ["Gemini"]


def test_detected_and_other_activity_is_not(tmp_path):
    assert registry.detect(Source(PATH)).name == "gemini-activity"
    search = tmp_path / "MyActivity.json"
    search.write_text(
        '[{"header": "Search", "title": "Searched for tea", "time": "2025-05-02T14:30:05Z",'
        ' "products": ["Search"]}]'
    )
    assert gemini_activity.sniff(Source(search)) == 0


def test_a_localised_title_with_an_answer_is_the_prompt(tmp_path):
    path = tmp_path / "Meine Aktivitäten.json"
    path.write_bytes(
        orjson.dumps(
            [
                {
                    "header": "Gemini-Apps",
                    "title": "Was ist eine Monade?",
                    "time": "2025-05-02T14:30:05Z",
                    "products": ["Gemini Apps"],
                    "safeHtmlItem": [{"html": "<p>Ein Entwurfsmuster.</p>"}],
                }
            ]
        )
    )
    recs, _, _ = run(gemini_activity.read, path)
    assert [r["textChunks"][0] for r in recs] == ["Was ist eine Monade?", "Ein Entwurfsmuster."]
    assert recs[0]["tags"] == []


_ENTRY = st.one_of(
    st.fixed_dictionaries(
        {
            "title": st.text(max_size=12),
            "time": st.text(max_size=8),
            "safeHtmlItem": st.lists(
                st.fixed_dictionaries({"html": st.text(max_size=12)}), max_size=3
            ),
        },
        optional={
            "imageFile": st.text(max_size=5),
            "subtitles": st.lists(st.fixed_dictionaries({"name": st.text(max_size=5)}), max_size=2),
        },
    ),
    st.integers(-3, 3),
    st.none(),
)


@given(st.lists(_ENTRY, max_size=6))
def test_any_entries_never_crash(tmp_path_factory, entries):
    path = tmp_path_factory.mktemp("g") / "a.json"
    path.write_bytes(orjson.dumps(entries))
    recs, rejects, _ = run(gemini_activity.read, path)
    titled = [e for e in entries if isinstance(e, dict) and e["title"].strip()]
    assert len(rejects) == len(entries) - len(titled)
    assert len({r["id"] for r in recs}) == len(recs)
