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


def _plain(text: str) -> str:
    """Terminal output without its styles (bold stays on under NO_COLOR)."""
    import re

    return re.sub(r"\x1b\[[0-9;]*m", "", text)


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


# -- 3: unknown values -----------------------------------------------------------------------


def _rec(i: int, ts: str, speaker: str | None = "Alice", **kw) -> dict:
    return {"textChunks": [f"message {i}"], "metadata": {"speaker": speaker, "listeners": []},
            "tags": [], "timestamp": ts, "source_id": f"s#{i}", "id": f"m{i}", "format": "jsonl",
            **kw}  # fmt: skip


def test_an_unknown_time_is_null_in_the_parquet_export(tmp_path):
    import duckdb

    src = tmp_path / "in.jsonl"
    recs = [_rec(1, "1970-01-01T00:00:00Z"), _rec(2, "1970-01-01T00:00:07Z"),
            _rec(3, "2024-03-06T10:00:00Z")]  # fmt: skip
    src.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in recs))
    out = tmp_path / "ds"
    r = _invoke("export", str(src), "--to", "parquet", "-o", str(out))
    assert r.exit_code == 0, r.output
    glob = f"{out}/**/*.parquet"
    got = duckdb.sql(f"select min(timestamp)::varchar, count(timestamp), "
                     f"list(undated_offset order by id) from read_parquet('{glob}')").fetchall()[0]  # fmt: skip
    assert got[0].startswith("2024-03-06") and got[1] == 1
    assert got[2] == [None, 7, None]
    r = _invoke("list", str(out), "-f", "jsonl")  # read back: the sentinel and the offset
    assert sorted(x["timestamp"] for x in _lines(r.stdout)) == [
        "1970-01-01T00:00:00Z", "1970-01-01T00:00:07Z", "2024-03-06T10:00:00Z"]  # fmt: skip


def test_a_missing_speaker_reads_the_same_in_list_and_stats(tmp_path):
    src = tmp_path / "in.jsonl"
    src.write_bytes(orjson.dumps(_rec(1, "2024-03-06T10:00:00Z", speaker=None)) + b"\n")
    tty = {"CONVO_FORCE_TTY": "1", "COLUMNS": "120", "NO_COLOR": "1"}
    listed = _invoke("list", str(src), env=tty).stdout
    stats = _invoke("stats", str(src), env=tty).stdout
    shown = _invoke("show", str(src), env=tty).stdout
    assert "(none)" in listed and "(none)" in stats and "(none)" in shown
    assert " ? " not in listed


# -- 8: search results -----------------------------------------------------------------------


def test_search_snippets_keep_the_spaces_around_punctuation(tmp_path):
    store = tmp_path / "s.jsonl"
    recs = [_rec(1, "2024-03-06T10:00:00Z", subject="Auth refactor: JWT vs sessions",
                 textChunks=["Hi both,\n\nI'd like this sprint. Should we? café, naïve, résumé"]),
            _rec(2, "2024-03-06T10:01:00Z", textChunks=["how do I detect alive sessions?"])]  # fmt: skip
    store.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in recs))
    assert _invoke("--store", str(store), "index").exit_code == 0
    tty = {"CONVO_FORCE_TTY": "1", "COLUMNS": "250", "NO_COLOR": "1"}
    out = _plain(_invoke("--store", str(store), "search", "sessions", env=tty).stdout)
    assert "Auth refactor: JWT vs sessions Hi both, I'd like this sprint. Should we?" in out
    assert "café, naïve, résumé" in out
    assert "alive sessions?" in out  # the text after the last word
    assert "100%" in out and "0.00" not in out  # a relevance, not a raw BM25 score


def test_relevance_is_a_percentage_of_the_best_score():
    from convo.output.views.search import relevance

    assert relevance([4e-06, 2e-06, 1e-09]) == [100, 50, 1]
    assert relevance([]) == []
    assert relevance([0.0, 0.0]) == [100, 100]


# -- 9: piped show ---------------------------------------------------------------------------


def test_piped_show_is_plain_text_with_a_heading_per_conversation(tmp_path):
    long = " ".join(["word"] * 40)
    (tmp_path / "a.vtt").write_text(f"WEBVTT\n\n00:00.000 --> 00:02.000\n<v Ann>{long}\n")
    (tmp_path / "b.vtt").write_text("WEBVTT\n\n00:00.000 --> 00:02.000\n<v Bo>hello\n")
    mail = tmp_path / "m.mbox"
    mail.write_text(MBOX)
    r = _invoke("show", str(tmp_path / "a.vtt"), str(tmp_path / "b.vtt"), str(mail))
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert [x for x in lines if x.startswith("===")] == [
        f"=== {tmp_path / 'a.vtt'} · 1 message ===",
        f"=== {tmp_path / 'b.vtt'} · 1 message ===",
        "=== Auth refactor · 3 messages ===",
    ]
    assert f"+00:00:00  Ann: {long}" in lines  # one line, however long
    assert all(x == x.rstrip() for x in lines)  # no padding
    assert "\x1b" not in r.stdout


# -- 10: warnings you can get back -----------------------------------------------------------


def test_warnings_not_shown_can_be_kept_in_a_file(tmp_path):
    src = tmp_path / "many.jsonl"
    bad = b"".join(b'{"not": "a message %d"}\n' % i for i in range(30))
    src.write_bytes(orjson.dumps(_rec(1, "2024-03-06T10:00:00Z")) + b"\n" + bad)
    kept = tmp_path / "w.jsonl"
    r = _invoke("ingest", str(src), "-o", str(tmp_path / "out.jsonl"), "--warnings", str(kept))
    assert r.exit_code == 1, r.output
    assert f"10 of 30 not shown (30 rejected); all are in {kept}" in r.stderr
    lines = _lines(kept.read_text())
    assert len(lines) == 30
    assert lines[0]["kind"] == "rejected" and lines[0]["file"] == str(src)
    assert [x["line"] for x in lines] == list(range(2, 32))
    assert not lines[0]["message"].startswith("rejected")
    r = _invoke("ingest", str(src), "-o", str(tmp_path / "out.jsonl"))
    assert "10 of 30 not shown (30 rejected); --warnings FILE keeps them all" in r.stderr


def test_the_hidden_count_adds_up_to_the_summary(tmp_path):
    """The line of what was not shown names its kinds, whose numbers are the summary's
    (rejected N, N warning(s)): not "85 warnings" beside "66 warning(s)"."""
    (tmp_path / "notes.png").write_bytes(b"\x89PNG")
    bad = b"".join(b'{"not": "a message %d"}\n' % i for i in range(25))
    good = orjson.dumps(_rec(1, "2024-03-06T10:00:00Z")) + b"\n"
    (tmp_path / "bad.jsonl").write_bytes(good + bad)
    for i in range(10):  # a warning each: no time
        (tmp_path / f"c{i}.json").write_text(f'[{{"role": "user", "content": "hi {i}"}}]')
    r = _invoke("ingest", str(tmp_path), "-o", str(tmp_path / "out.jsonl"))
    assert r.exit_code == 1, r.output
    assert "16 of 36 not shown (25 rejected, 1 skipped, 10 warnings)" in r.stderr
    assert "rejected 25 " in r.stderr and "10 warnings, not all shown" in r.stderr


# -- 5: tables -----------------------------------------------------------------------------------


def _wide_store(tmp_path: Path) -> Path:
    long_name = "Maximilian Bartholomew Featherstonehaugh <maximilian@example.org>"
    recs = [_rec(1, "2024-03-06T10:00:00Z", speaker=long_name, textChunks=["x " * 150]),
            _rec(2, "2026-04-07T10:00:01Z", speaker="Bo", format="zoomchat")]  # fmt: skip
    src = tmp_path / "wide.jsonl"
    src.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in recs))
    return src


def test_tables_cut_names_with_an_ellipsis_never_dates_or_counts(tmp_path):
    src = _wide_store(tmp_path)
    tty = {"CONVO_FORCE_TTY": "1", "COLUMNS": "80", "NO_COLOR": "1", "TZ": "UTC"}
    stats = _plain(_invoke("stats", str(src), "--utc", env=tty).stdout)
    assert "2026-04-07" in stats and "Maximilian Bartholomew" in stats and "…" in stats
    people = _plain(_invoke("people", str(src), env=tty).stdout)
    assert "2026-04-07" in people and "formats" in people
    assert all(len(line) <= 80 for line in (stats + people).splitlines())


def test_the_list_text_takes_the_free_width(tmp_path):
    src = tmp_path / "short.jsonl"
    src.write_bytes(
        orjson.dumps(_rec(1, "2024-03-06T10:00:00Z", textChunks=["word " * 60])) + b"\n"
    )
    tty = {"CONVO_FORCE_TTY": "1", "COLUMNS": "200", "NO_COLOR": "1"}
    out = _plain(_invoke("list", str(src), env=tty).stdout)
    row = next(line for line in out.splitlines() if "word" in line)
    assert row.count("word") >= 25  # not cut at ~95 characters with empty columns beside
    assert row.rstrip().endswith("…")
    time = row.split("   ")[0].strip()
    assert len(time) == 19  # the time column is as wide as its times


# -- 17: exports ---------------------------------------------------------------------------------


def _srt_times(text: str) -> list[tuple[str, str]]:
    return [tuple(line.split(" --> ")) for line in text.splitlines() if " --> " in line]


def test_srt_and_vtt_cues_never_go_back_and_undated_ones_last(tmp_path):
    (tmp_path / "a.srt").write_text("1\n00:00:01,000 --> 00:00:04,000\nfirst\n\n"
                                    "2\n00:00:05,000 --> 00:00:09,000\nsecond\n")  # fmt: skip
    (tmp_path / "b.srt").write_text("1\n00:00:00,500 --> 00:00:02,000\nthird\n")
    undated = tmp_path / "u.jsonl"
    undated.write_bytes(b"".join(orjson.dumps(_rec(i, "1970-01-01T00:00:00Z")) + b"\n"
                                 for i in (7, 8)))  # fmt: skip
    for fmt in ("srt", "vtt"):
        r = _invoke("export", "--to", fmt, str(tmp_path / "a.srt"), str(tmp_path / "b.srt"),
                    str(undated))  # fmt: skip
        assert r.exit_code == 0, r.output
        times = [(a.replace(",", "."), b.replace(",", ".")) for a, b in _srt_times(r.stdout)]
        assert times[:3] == [("00:00:01.000", "00:00:04.000"), ("00:00:05.000", "00:00:09.000"),
                             ("00:00:09.000", "00:00:10.500")]  # fmt: skip
        assert all(a < b for a, b in times)  # no cue of zero length
        assert all(times[i][0] >= times[i - 1][1] for i in range(1, len(times)))


def test_srt_and_vtt_of_dated_and_undated_messages_read_back_whole(tmp_path):
    """A store mixing dated messages and undated ones (the 1970 sentinel) in turn: each
    switch to a dated message kept its 54-year "spacing" from the undated one before, so
    the cue times grew by 54 years a switch, past the hours convo reads back: 91 of 144
    messages of a mixed store were rejected as unreadable cue timings."""
    recs = [_rec(i, "2024-03-06T10:00:00Z" if i % 2 else "1970-01-01T00:00:00Z",
                 speaker="Alice" if i % 3 else "Bob") for i in range(1, 15)]  # fmt: skip
    src = tmp_path / "mixed.jsonl"
    src.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in recs))
    for fmt in ("srt", "vtt"):
        out = tmp_path / f"out.{fmt}"
        r = _invoke("export", "--to", fmt, str(src), "-o", str(out))
        assert r.exit_code == 0, r.output
        hours = [int(t.split(":")[0]) for t in _srt_times(out.read_text())[-1]]
        assert max(hours) < 1_000  # 14 messages: nothing like decades of cues
        back = _invoke("query", "--no-merge", str(out), "-f", "jsonl")
        assert back.exit_code == 0, back.output
        got = [orjson.loads(line) for line in back.stdout.splitlines()]
        assert [(g["metadata"]["speaker"], g["textChunks"]) for g in got] == [
            ("Alice" if i % 3 else "Bob", [f"message {i}"]) for i in range(1, 15)
        ]


def test_srt_and_vtt_cues_stay_within_the_hours_convo_reads(tmp_path):
    """Messages 175 years apart (a bad Date header) made a cue at 1534032:00:00 that
    convo's own readers reject; the export clamps at 999999:59:59.999, which they read."""
    recs = [_rec(1, "2024-01-01T00:00:00Z"), _rec(2, "2199-01-01T00:00:00Z")]
    src = tmp_path / "far.jsonl"
    src.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in recs))
    for fmt in ("srt", "vtt"):
        out = tmp_path / f"far.{fmt}"
        assert _invoke("export", "--to", fmt, str(src), "-o", str(out)).exit_code == 0
        assert "999999:59:59" in out.read_text()
        back = _invoke("query", "--no-merge", str(out), "-f", "jsonl")
        assert back.exit_code == 0, back.output
        assert len(back.stdout.splitlines()) == 2


def test_srt_keeps_ampersands_and_angles_as_written(tmp_path):
    src = tmp_path / "x.jsonl"
    src.write_bytes(orjson.dumps(_rec(1, "2024-03-06T10:00:00Z",
                                      textChunks=["Q&A at 3 < 4, <i>not italic</i>"])) + b"\n")  # fmt: skip
    out = _invoke("export", "--to", "srt", str(src)).stdout
    assert "Q&A at 3 < 4, ‹i>not italic‹/i>" in out and "&amp;" not in out


def test_markdown_keeps_a_thread_whose_root_has_no_thread_field(tmp_path):
    src = tmp_path / "team.jsonl"
    recs = [_rec(1, "2024-03-06T10:00:00Z", id="a1", textChunks=["Shall we use JWT?"]),
            _rec(2, "2024-03-06T10:02:30Z", id="b1", replyTo="a1", thread="a1",
                 speaker="Bob", textChunks=["Yes, JWT."])]  # fmt: skip
    src.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in recs))
    md = _invoke("export", "--to", "markdown", str(src)).stdout
    assert "Thread a1" not in md
    assert md.count("\n## ") == 1 and "### **Bob**" in md


# -- 18: formats piped, csv summaries, stats --top -----------------------------------------------


def test_formats_piped_is_jsonl():
    r = _invoke("formats")
    assert r.exit_code == 0, r.output
    assert {"name", "family", "patterns"} <= set(_lines(r.stdout)[0])
    assert _invoke("formats", "-f", "csv").stdout.startswith("name,family,description,")


def test_stats_people_and_knowledge_take_csv(tmp_path):
    store, _ = _mail_and_people(tmp_path)
    stats = _invoke("stats", str(store), "-f", "csv").stdout.splitlines()
    assert stats[0] == "table,name,messages,words,first,last"
    assert stats[1].startswith("total,,4,")
    people = _invoke("people", str(store), "-f", "csv").stdout.splitlines()
    assert people[0] == "name,person,messages,heard,first,last,formats"
    knowledge = _invoke("knowledge", str(store), "-f", "csv").stdout.splitlines()
    assert knowledge[0] == "table,name,with,messages"
    assert "pair,Alice Smith,Bob Jones,2" in knowledge


def test_stats_top_limits_the_rows(tmp_path):
    store, _ = _mail_and_people(tmp_path)
    data = orjson.loads(_invoke("stats", str(store), "-f", "json", "--top", "1").stdout)
    assert len(data["speakers"]) == 1 and data["messages"] == 4
    tty = {"CONVO_FORCE_TTY": "1", "COLUMNS": "100", "NO_COLOR": "1"}
    out = _plain(_invoke("stats", str(store), "--top", "1", env=tty).stdout)
    assert "more speakers (--top N shows more" in out


# -- 12: format names are symmetric ----------------------------------------------------------------


def test_what_export_to_typeagent_writes_ingest_and_validate_read(tmp_path):
    box = tmp_path / "team.mbox"
    box.write_text(MBOX)
    for extra in ([], ["--jsonl"]):
        out = tmp_path / f"ta{len(extra)}.json"
        r = _invoke("export", "--to", "typeagent", *extra, str(box), "-o", str(out))
        assert r.exit_code == 0, r.output
        back = _invoke("ingest", "--from", "typeagent", str(out))
        assert back.exit_code == 0, back.output
        assert _lines(back.stdout)[0]["textChunks"] == ["Shall we switch to tokens?"]
        checked = _invoke("validate", str(out))
        assert checked.exit_code == 0, checked.output
        assert "3 valid, 0 invalid" in checked.stderr
    detected = _invoke("ingest", str(tmp_path / "ta0.json"))  # the array is detected
    assert detected.exit_code == 0 and len(_lines(detected.stdout)) == 3


def test_validate_names_the_format_of_a_file_that_is_not_records(tmp_path):
    box = tmp_path / "team.mbox"
    box.write_text(MBOX)
    r = _invoke("validate", str(box))
    assert r.exit_code == 2
    assert r.stderr.count("\n") == 1
    assert f"{box}: this is mbox (email), not JSONL records; `convo ingest {box}`" in r.stderr


# -- 13: install hints that work from here -----------------------------------------------------------


def test_a_missing_pyarrow_names_an_install_command_that_works(tmp_path, monkeypatch):
    import builtins
    import sys

    real = builtins.__import__

    def no_pyarrow(name, *args, **kwargs):
        if name == "pyarrow" or name.startswith("pyarrow."):
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pyarrow)
    for mod in [m for m in sys.modules if m == "pyarrow" or m.startswith("pyarrow.")]:
        monkeypatch.delitem(sys.modules, mod)
    src = tmp_path / "x.jsonl"
    src.write_bytes(orjson.dumps(_rec(1, "2024-03-06T10:00:00Z")) + b"\n")
    r = _invoke("export", "--to", "parquet", str(src), "-o", str(tmp_path / "ds"))
    assert r.exit_code == 2
    assert "convo-tools[" not in r.stderr  # not published: that command fails
    assert f"{sys.executable} -m pip install" in r.stderr


def test_spark_script_is_a_file_spark_submit_can_run(capsys):
    from convo.spark.__main__ import main

    assert main(["--script"]) == 0
    path = Path(capsys.readouterr().out.strip())
    assert path.is_file() and path.name == "__main__.py"


# -- 14: help -------------------------------------------------------------------------------------


def test_help_keeps_examples_and_summaries_whole_and_has_no_placeholders():
    wide = {"COLUMNS": "80"}
    people = _invoke("people", "--help", env=wide).stdout
    assert '\n      name = "Alice Smith"\n' in people  # the TOML example keeps its lines
    top = _invoke("--help", env=wide).stdout
    assert "...\n" not in top.split("Commands:")[1].replace("...).", "")  # summaries not cut
    assert "replies to whom)." in top
    for args in (["rm"], ["tag", "add"], ["tag", "rm"], ["search"]):
        text = _invoke(*args, "--help", env=wide).stdout
        for bad in ("{", "<str>", "<list[str]>", "[[ID]"):
            assert bad not in text, (args, bad)
    assert "Usage: convo tag [OPTIONS] [QUERY]..." in _invoke("tag", "--help").stdout


def test_search_help_lists_only_options_that_work(tmp_path):
    text = _invoke("search", "--help").stdout
    for gone in (
        "--from",
        "--no-merge",
        "--strip-quotes",
        "--reverse",
        "--pager",
        "markdown",
        "QUERY|FILE",  # search reads the store: no file argument
        "files or folders to read",
    ):
        assert gone not in text, gone
    store = tmp_path / "s.jsonl"
    store.write_bytes(orjson.dumps(_rec(1, "2024-03-06T10:00:00Z")) + b"\n")
    for given in (["--from", "vtt"], ["--reverse"]):
        r = _invoke("--store", str(store), "search", "message", *given)
        assert r.exit_code == 2 and "No such option" in r.stderr  # not options of search


def test_no_error_reads_full_stop_semicolon():
    from convo.core.errors import InputError

    assert str(InputError("not a file.", where="x", hint="name one")) == "x: not a file; name one"
    r = _invoke("list", "--limit", "abc")
    assert ".;" not in r.stderr


# -- 16: tag add +foo ------------------------------------------------------------------------------


def test_a_leading_plus_is_not_stored_in_a_tag(tmp_path):
    store = tmp_path / "s.jsonl"
    store.write_bytes(orjson.dumps(_rec(1, "2024-03-06T10:00:00Z")) + b"\n")
    r = _invoke("--store", str(store), "tag", "add", "+foo", "id:m1")
    assert r.exit_code == 0, r.output
    assert "a leading + is not part of a name; using 'foo'" in r.stderr
    assert _lines(store.read_text())[0]["tags"] == ["foo"]
    r = _invoke("--store", str(store), "tag", "rm", "+foo", "id:m1")
    assert r.exit_code == 0 and _lines(store.read_text())[0]["tags"] == []
    assert _invoke("--store", str(store), "tag", "add", "+", "id:m1").exit_code == 2
    src = tmp_path / "in.jsonl"
    src.write_bytes(orjson.dumps(_rec(2, "2024-03-06T10:00:00Z")) + b"\n")
    r = _invoke("ingest", str(src), "--tag", "+bar", "-o", "-")
    assert "bar" in _lines(r.stdout)[0]["tags"] and "+bar" not in _lines(r.stdout)[0]["tags"]


# -- 4: progress ------------------------------------------------------------------------------------


def test_parallel_ingest_says_how_much_input_is_through(tmp_path):
    """The --jobs parent reads no input: its blocks carry the input bytes through, which
    grow to the inputs' size (the bar's measure, output/progress.py)."""
    from convo.pipeline.parallel import ParallelIngest
    from convo.store.lines import ReadyBlock

    paths = []
    for i in range(4):
        box = tmp_path / f"m{i}.mbox"
        box.write_text(MBOX)
        paths.append(str(box))
    total = sum(Path(p).stat().st_size for p in paths)
    ingest = ParallelIngest(jobs=2, blocks=True)
    done = [b.done for b in ingest.messages(paths) if isinstance(b, ReadyBlock)]
    assert done and done == sorted(done) and 0 < done[0] <= total // 4
    assert ingest.done == total


def test_similar_takes_no_option_that_would_do_nothing(tmp_path):
    """`convo similar ID --reverse` (or --from, --no-merge...) was accepted and did
    nothing: similar reads the store only, as search does, which has none of them."""
    store = tmp_path / "s.jsonl"
    store.write_bytes(orjson.dumps(_rec(1, "2024-03-06T10:00:00Z")) + b"\n")
    for argv in (["--reverse"], ["--from", "mbox"], ["--no-merge"], ["--pager"],
                 ["--strip-quotes"], ["--encoding", "latin-1"]):  # fmt: skip
        for command in ("similar", "search"):
            r = _invoke("--store", str(store), command, "m1", *argv)
            assert r.exit_code == 2 and "No such option" in r.stderr, (command, argv, r.output)
    assert "--tz" in _invoke("similar", "--help").stdout  # it reads --since/--until


def test_an_empty_filter_option_is_a_usage_error_not_every_message(tmp_path):
    """`convo rm -q "$WORD" --yes` with WORD unset removed every message (the empty
    substring is in every text); -s '' matched every message with a speaker, -e '' every
    one, --since '' none were filtered. The query language says `from: needs a value`."""
    store = tmp_path / "s.jsonl"
    store.write_bytes(b"".join(orjson.dumps(_rec(i, "2024-03-06T10:00:00Z")) + b"\n"
                               for i in (1, 2)))  # fmt: skip
    for option in ("-q", "-s", "-r", "-t", "-e", "--thread", "--since", "--until"):
        for value in ("", "  "):
            for command in (["rm", "--yes"], ["query", "--count"]):
                r = _invoke("--store", str(store), *command, option, value)
                assert r.exit_code == 2, (option, value, command, r.output)
                assert "needs a value" in r.stderr, r.stderr
    assert len(store.read_bytes().splitlines()) == 2


def test_a_negated_field_glued_to_a_short_option_is_said(tmp_path):
    """`convo query -speaker:bob` reached convo as --speaker 'peaker:bob' and matched
    nothing, silently (so did -role:, -text:, -thread:, -subject:); only -tag: and -to:
    were told to go after --."""
    store = tmp_path / "s.jsonl"
    store.write_bytes(orjson.dumps(_rec(1, "2024-03-06T10:00:00Z")) + b"\n")
    for word, reads in (("-speaker:bob", "--speaker 'peaker:bob'"),
                        ("-role:tool", "--listener 'ole:tool'"),
                        ("-text:jwt", "--tag 'ext:jwt'"), ("-tag:spam", "--tag 'ag:spam'")):  # fmt: skip
        r = _invoke("--store", str(store), "query", "--count", word)
        assert r.exit_code == 2 and f"reads as {reads}" in r.stderr, r.output
        assert f"convo query -- '{word}'" in r.stderr
    # -from:alice reaches -f (--format) as 'rom:alice': a bad format, said so
    r = _invoke("--store", str(store), "query", "--count", "-from:alice")
    assert r.exit_code == 2 and "convo query -- '-from:alice'" in r.stderr, r.output
    # a value that is no field stays a value
    assert _invoke("--store", str(store), "query", "--count", "-s", "Alice").stdout == "1\n"


def test_threads_and_people_help_says_what_n_and_reverse_do():
    """`convo people --help` and `convo threads --help` said -n was "At most this many
    messages" and --reverse "input order reversed": both take rows (every selected
    message counts), as their own text above says."""
    for command, rows in (("people", "names"), ("threads", "conversations")):
        text = " ".join(_invoke(command, "--help").stdout.split())
        assert "At most this many messages" not in text, command
        assert f"At most this many {rows}" in text, command
        assert "input order reversed" not in text, command


def test_utc_on_the_command_line_beats_the_config_files_zone(tmp_path):
    """With tz = "Asia/Tokyo" in the config file, `convo query --utc` showed Tokyo times
    and read date:2024-03-06T10 in Tokyo: the file's zone took --tz's place and --tz
    wins over --utc. The command line wins over the file; the file's zone still reads
    naive times in source files."""
    config = tmp_path / "config.toml"
    config.write_text('tz = "Asia/Tokyo"\n')
    store = tmp_path / "s.jsonl"
    store.write_bytes(orjson.dumps(_rec(1, "2024-03-06T10:00:00Z")) + b"\n")
    env = {"CONVO_CONFIG": str(config)}
    base = ["--store", str(store), "query"]
    r = _invoke(*base, "--utc", "-f", "text", env=env)
    assert r.stdout.startswith("2024-03-06 10:00:00Z"), r.output
    assert _invoke(*base, "--utc", "--count", "date:2024-03-06T10", env=env).stdout == "1\n"
    assert _invoke(*base, "-f", "text", env=env).stdout.startswith("2024-03-06 19:00:00")
    # the file's zone still reads a source file's naive times (WhatsApp's local times)
    chat = tmp_path / "chat.txt"
    chat.write_text("06/03/2024, 19:00 - Ann: hi\n")
    r = _invoke("query", str(chat), "--utc", "-f", "jsonl", env=env)
    assert orjson.loads(r.stdout)["timestamp"] == "2024-03-06T10:00:00Z", r.output


def test_a_narrow_terminal_leaves_columns_out_rather_than_cut_dates(tmp_path):
    """At 50 columns `convo stats` and `convo people` showed the last day as "2024-0":
    rich shaved every column once the names were as narrow as they go. The rightmost
    columns are now left out, and a line says which."""
    import re

    store = tmp_path / "s.jsonl"
    store.write_bytes(b"".join(orjson.dumps(_rec(i, f"2024-0{i}-13T10:00:00Z",
                                                  speaker="Alice Smith")) + b"\n"
                               for i in (3, 6)))  # fmt: skip
    for width in ("40", "50", "60", "80"):
        tty = {"CONVO_FORCE_TTY": "1", "COLUMNS": width, "NO_COLOR": "1", "TZ": "UTC"}
        for command in ("stats", "people"):
            out = _plain(_invoke("--store", str(store), command, env=tty).stdout)
            cut = re.findall(r"\b2024-\d?\d?(?:-\d?)?(?=\s|$)", out)
            assert cut == [], (command, width, out)
            if width in ("40", "50"):
                assert "left out" in " ".join(out.split()), (command, width, out)


def test_threads_on_a_narrow_terminal_keeps_the_thread_id_readable(tmp_path):
    """At 40 columns `convo threads` folded the thread id (what `show --thread` takes)
    one letter a line, its header too: title and participants took the width."""
    store = tmp_path / "s.jsonl"
    store.write_bytes(orjson.dumps(_rec(1, "2024-03-06T10:00:00Z", thread="auth-42"))
                      + b"\n")  # fmt: skip
    for width in ("40", "50"):
        tty = {"CONVO_FORCE_TTY": "1", "COLUMNS": width, "NO_COLOR": "1"}
        out = _plain(_invoke("--store", str(store), "threads", env=tty).stdout)
        assert "auth-42" in out and " thread" in out, out
        assert "left out" in " ".join(out.split()), out


def test_a_transcripts_overlapping_cues_keep_their_times_in_a_caption_export(tmp_path):
    """sample_data's standup.vtt has one cue with two voices (two messages at 17.2 s):
    `convo export --to vtt` moved the second after the first and every later cue 3.6 s
    late, out of step with the recording. Cues of one transcript keep their own times
    (WebVTT and SRT allow overlapping cues); another conversation still starts after."""
    vtt = tmp_path / "standup.vtt"
    vtt.write_text("WEBVTT\n\n00:00:01.000 --> 00:00:04.000\n<v Ann>Hello.\n\n"
                   "00:00:05.000 --> 00:00:08.000\n<v Bob>I can review it.\n<v Ann>Thanks.\n\n"
                   "00:00:09.000 --> 00:00:12.000\n<v Bob>Will do.\n")  # fmt: skip
    for fmt in ("vtt", "srt"):
        r = _invoke("export", "--to", fmt, "--no-merge", str(vtt))
        assert r.exit_code == 0, r.output
        times = [(a.replace(",", "."), b.replace(",", ".")) for a, b in _srt_times(r.stdout)]
        assert times == [("00:00:01.000", "00:00:04.000"), ("00:00:05.000", "00:00:08.000"),
                         ("00:00:05.000", "00:00:08.000"), ("00:00:09.000", "00:00:12.000")], fmt  # fmt: skip


def test_a_search_with_no_hits_on_a_terminal_is_one_line(tmp_path):
    """`convo search nosuchword` on a terminal drew the table's frame with no row and
    then said "no matches"; the read commands say "no messages match", and nothing else."""
    store = tmp_path / "s.jsonl"
    store.write_bytes(orjson.dumps(_rec(1, "2024-03-06T10:00:00Z")) + b"\n")
    tty = {"CONVO_FORCE_TTY": "1", "COLUMNS": "80", "NO_COLOR": "1"}
    r = _invoke("--store", str(store), "search", "nosuchwordxyz", "--mode", "fts", env=tty)
    assert r.exit_code == 0 and r.stdout == "", r.stdout
    assert "no messages match" in r.stderr


def test_rm_and_tag_read_the_ids_of_a_json_array_on_stdin(tmp_path):
    """`convo query ... -f json | convo rm - --dry-run` said "would remove 0 messages"
    (exit 0): each line of the pretty-printed array was taken for an id."""
    store = tmp_path / "s.jsonl"
    store.write_bytes(b"".join(orjson.dumps(_rec(i, "2024-03-06T10:00:00Z")) + b"\n"
                               for i in (1, 2, 3)))  # fmt: skip
    listed = _invoke("--store", str(store), "query", "-f", "json", "id:m1 OR id:m3").stdout
    r = _invoke("--store", str(store), "rm", "-", "--dry-run", input=listed)
    assert r.exit_code == 0 and r.stdout.split() == ["m1", "m3"], r.output
    r = _invoke("--store", str(store), "tag", "+seen", "-", input=listed)
    assert r.exit_code == 0, r.output
    assert _invoke("--store", str(store), "query", "--count", "tag:seen").stdout == "2\n"
    r = _invoke("--store", str(store), "rm", "-", "--dry-run", input='[{"id": ')
    assert r.exit_code == 2 and "not a JSON array" in r.stderr


def test_a_missing_file_of_any_input_type_is_an_error_not_a_search_for_its_name(tmp_path):
    """`convo query chat.db` (iMessage's database, not there) printed 0, exit 0: the
    word was searched for in the store, since only some input extensions (.json, .vtt...)
    made a word an input; .db, .docx, .msg, .ass, .traj, .zst... did not."""
    store = tmp_path / "s.jsonl"
    store.write_bytes(orjson.dumps(_rec(1, "2024-03-06T10:00:00Z")) + b"\n")
    for word in ("chat.db", "slackdump.sqlite", "meeting.docx", "mail.msg", "mail.emlx",
                 "talk.ass", "run.traj", "server.log", "dump.ndjson.zst"):  # fmt: skip
        r = _invoke("--store", str(store), "query", "--count", str(tmp_path / "none" / word))
        assert r.exit_code == 2, (word, r.output)
        r = _invoke("--store", str(store), "query", "--count", word)
        assert r.exit_code == 2 and "no such file" in r.stderr, (word, r.output)
    for word in ("v2.4", "node.js", "message"):  # words still
        assert _invoke("--store", str(store), "query", "--count", word).exit_code == 0, word
