"""Skype's export .tar read in place (``convo.importers.apps.skype_tar``).

The tars are built here from the ``skype`` fixture, laid out as Microsoft's export is
(``messages.json``, ``endpoints.json``, ``media/``), in both member orders.
"""

from __future__ import annotations

import gzip
import io
import tarfile
from pathlib import Path

import pytest
from formats_helpers import FIXTURES, run

from convo.core.errors import InputError
from convo.core.io import Source
from convo.importers.apps import skype, skype_tar
from convo.importers.registry import registry

MESSAGES = FIXTURES / "skype" / "messages.json"


def _tar(path: Path, members: list[tuple[str, bytes]]) -> Path:
    with tarfile.open(path, "w") as tf:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return path


def _export(tmp_path: Path, media_first: bool = False) -> Path:
    media = [(f"media/0-weu-d{k}-abc.1.jpg", b"\xff\xd8" * 5000) for k in range(30)]
    core = [("messages.json", MESSAGES.read_bytes()), ("endpoints.json", b'{"endpoints": []}')]
    return _tar(tmp_path / "8_live_ann_export.tar", media + core if media_first else core + media)


@pytest.mark.parametrize("media_first", [False, True])
def test_the_tar_gives_the_messages_json_records(tmp_path, media_first):
    path = _export(tmp_path, media_first)
    assert registry.detect(Source(path)).name == "skype-tar"
    assert skype_tar.sniff_tar(Source(path)) == (80 if media_first else 90)
    recs, rejects, warnings = run(skype_tar.read_tar, path)
    plain, plain_rejects, plain_warnings = run(skype.read, MESSAGES)
    assert [r["id"] for r in recs] == [r["id"] for r in plain]  # one message, one id
    strip = lambda rs: [{k: v for k, v in r.items() if k != "source_id"} for r in rs]  # noqa: E731
    assert strip(recs) == strip(plain)
    assert {r["format"] for r in recs} == {"skype"}
    assert all(r["source_id"].startswith("8_live_ann_export.tar#messages.json") for r in recs)
    assert len(rejects) == len(plain_rejects)
    assert [w.replace("8_live_ann_export.tar#", "") for w in warnings] == plain_warnings


def test_a_gzipped_tar_is_read(tmp_path):
    path = _export(tmp_path)
    gz = tmp_path / "export.tar.gz"
    gz.write_bytes(gzip.compress(path.read_bytes()))
    recs, _, _ = run(skype_tar.read_tar, gz)
    assert len(recs) == len(run(skype.read, MESSAGES)[0])


def test_a_tar_without_messages_is_refused(tmp_path):
    path = _tar(tmp_path / "files.tar", [("media/a.jpg", b"x"), ("../messages.json", b"{}")])
    with pytest.raises(InputError, match=r"no messages\.json in this tar"):
        run(skype_tar.read_tar, path)


def test_a_damaged_tar_is_one_clear_error(tmp_path):
    path = _export(tmp_path)
    cut = tmp_path / "cut.tar"
    cut.write_bytes(path.read_bytes()[:700])
    with pytest.raises(InputError):
        run(skype_tar.read_tar, cut)


def test_other_tars_are_not_skype():
    assert skype_tar.sniff_tar(Source(MESSAGES)) == 0
