"""Property tests: random and mutated forum inputs give messages or clean ConvoErrors only."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import SAMPLE_DATA
from convo.core.errors import ConvoError
from convo.pipeline.ingest import Ingest

JSON_FORMATS = ["reddit", "discourse", "hackernews", "github"]
KEYS = [
    "kind", "data", "children", "replies", "body", "body_html", "author", "id", "name",
    "created_utc", "parent_id", "link_id", "title", "selftext", "post_stream", "posts",
    "post_number", "reply_to_post_number", "cooked", "raw", "username", "created_at",
    "topic_id", "topic_list", "topics", "users", "posters", "created_at_i", "story_id",
    "by", "kids", "time", "type", "text", "parent", "number", "user", "login", "labels",
    "issue_url", "html_url", "repository_url", "actions_summary", "stream",
]  # fmt: skip
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False),
    st.text(max_size=12),
    st.sampled_from(["Listing", "t1", "t3", "more", "story", "comment", "", "[deleted]",
                     "https://api.github.com/repos/a/b/issues/1", "2024-01-01T00:00:00Z"]),
)  # fmt: skip
JSON = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.sampled_from(KEYS), inner, max_size=6),
    ),
    max_leaves=30,
)


def _run(data: bytes, fmt: str, suffix: str = ".json") -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"input{suffix}"
        path.write_bytes(data)
        try:
            for msg in Ingest(format_name=fmt).messages([path]):
                record = msg.serialize()
                assert isinstance(record["textChunks"][0], str)
        except ConvoError:
            pass


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(value=JSON, fmt=st.sampled_from(JSON_FORMATS), lines=st.booleans())
def test_property_random_json(value, fmt, lines):
    if lines and isinstance(value, list):
        data = b"\n".join(json.dumps(v).encode() for v in value) + b"\n"
    else:
        data = json.dumps(value).encode()
    _run(data, fmt)


@given(data=st.binary(max_size=200), fmt=st.sampled_from(JSON_FORMATS))
def test_property_random_bytes(data, fmt):
    _run(data, fmt)


XML_SAMPLES = [
    (SAMPLE_DATA / "forum/stackexchange/Posts.xml", "stackexchange"),
    (SAMPLE_DATA / "forum/stackexchange/Comments.xml", "stackexchange"),
    (Path(__file__).resolve().parent.parent / "fixtures/forum/phpbb-posts.xml", "phpbb"),
]


@given(
    sample=st.sampled_from(XML_SAMPLES),
    cuts=st.lists(st.tuples(st.integers(0, 4000), st.binary(max_size=8)), max_size=4),
)
def test_property_mutated_xml(sample, cuts):
    path, fmt = sample
    data = bytearray(path.read_bytes())
    for pos, junk in cuts:
        pos = pos % (len(data) + 1)
        data[pos : pos + len(junk)] = junk
    _run(bytes(data), fmt, ".xml")
