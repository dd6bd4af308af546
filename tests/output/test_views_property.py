"""Issue 20: arbitrary JSON values in any field never make a writer or view raise."""

from __future__ import annotations

import io

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console

from convo.analysis.stats import compute
from convo.output.env import Environment
from convo.output.exporters.registry import registry
from convo.output.views import stats as stats_view
from convo.output.views.show import ConversationView
from convo.output.writers import WriteOptions, make_writer
from convo.query.scan import Match

KEYS = ["id", "timestamp", "textChunks", "text_chunks", "tags", "metadata", "extra",
        "subject", "format", "replyTo", "thread", "role", "source_id"]  # fmt: skip
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
meta = st.fixed_dictionaries({}, optional={"speaker": json_values, "listeners": json_values})
records = st.lists(
    st.dictionaries(st.sampled_from(KEYS), json_values, max_size=8).flatmap(
        lambda d: meta.map(lambda m: {**d, "metadata": m} if "metadata" not in d else d)
    ),
    max_size=5,
)


class _Out(io.StringIO):
    buffer: io.BytesIO

    def __init__(self) -> None:
        super().__init__()
        self.buffer = io.BytesIO()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records)
def test_every_writer_and_view_takes_any_record(recs):
    matches = [Match(orjson.dumps(r), r, "x.jsonl", i) for i, r in enumerate(recs, 1)]
    options = WriteOptions(utc=False)
    for name in registry.shown_names():
        env = Environment(stdin=io.StringIO(), stdout=_Out(), stderr=io.StringIO())
        writer = make_writer(name, env, options)
        writer.write_many(matches)
        writer.close()
    console = Console(file=io.StringIO(), width=80)
    view = ConversationView(console, options)
    view.write_many(matches)
    view.close()
    stats_view.render(compute(recs), console, options)
