"""A config file's string may hold what no command line can: TOML's "\\u0000". A store
named so was an internal error (ValueError: embedded null byte) of every command, and
``convo config`` printed a traceback."""

from __future__ import annotations

import pytest

from convo.cli.app import app


@pytest.mark.parametrize("key", ["store", "people", "tz"])
@pytest.mark.parametrize("args", [["list", "-n", "1"], ["config"]])
def test_a_nul_in_a_setting_is_one_located_line(runner, tmp_path, monkeypatch, key, args):
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'{key} = "a\\u0000b"\n')
    monkeypatch.setenv("CONVO_CONFIG", str(cfg))
    monkeypatch.setenv("CONVO_STORE", str(tmp_path / "s.jsonl"))
    r = runner.invoke(app, args)
    assert r.exit_code == 2, r.output
    assert f"{cfg}: {key} holds a NUL character" in r.output
    assert "Traceback" not in r.output and "internal error" not in r.output
