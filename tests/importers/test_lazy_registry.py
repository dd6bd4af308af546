"""The lazy format registry (importers.registry.Declared, importers.gates) against its plain
twin, the registry with every format module imported.

Detection must not change: every file and folder of sample_data/, tests/ (fixtures and
golden files alike) and, when present, ../shared/corpus is detected by a fresh lazy
registry and by an eager one, and no gate turns away a source its format's sniff scores.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import ROOT, corpus_dir
from convo.core.errors import InputError
from convo.core.io import Source
from convo.importers.gates import Head
from convo.importers.registry import Declared, Format, Registry


def _inputs() -> list[Path]:
    out: list[Path] = []
    for root in (ROOT / "sample_data", ROOT / "tests", corpus_dir()):
        if root.is_dir():
            out += sorted(
                p
                for p in root.rglob("*")
                if "__pycache__" not in p.parts
                and not p.name.startswith(".")
                and p.suffix not in (".py", ".pyc")
            )
    return out


INPUTS = _inputs()


def _eager() -> Registry:
    reg = Registry()
    reg.formats()  # every module imported: the registry as it was before declarations
    return reg


def _detect(reg: Registry, source: Source) -> str:
    try:
        return reg.detect(source).name
    except InputError as e:
        return f"error: {e}"


def test_declarations_are_the_modules_formats_in_order():
    declared = Registry().declared()
    eager: list[Format] = []
    for module in dict.fromkeys(d.module for d in declared):
        eager += importlib.import_module(module).FORMATS
    assert [d.name for d in declared] == [f.name for f in eager]
    for d, f in zip(declared, eager, strict=True):
        assert (d.patterns, d.directory) == (f.patterns, f.directory), d.name
        assert d.family == f.family, d.name
        assert f in importlib.import_module(d.module).FORMATS


def test_families_are_the_formats_families_without_importing_a_format_module():
    """``families()`` (show's views, the web view) reads the declarations; its plain twin
    is every format's own ``family``, each module imported."""
    script = (
        "import sys; from convo.importers.registry import Registry; r = Registry(); "
        "fams = r.families(); "
        "loaded = [m for m in sys.modules if m.count('.') >= 3 and m.startswith('convo.importers.')]; "
        "print(len(loaded), sorted(loaded)[:3])"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.startswith("0 "), out.stdout
    r = Registry()
    assert r.families() == {f.name: f.family for f in r.formats()}


def test_lazy_detection_equals_eager_detection():
    assert len(INPUTS) > 200
    eager = _eager()
    differ = {}
    for path in INPUTS:
        lazy = _detect(Registry(), Source(path)), _detect(eager, Source(path))
        if lazy[0] != lazy[1]:
            differ[str(path)] = lazy
    assert differ == {}


def _unsound(source: Source, eager: Registry, declared: list[Declared]) -> list[str]:
    """The formats whose sniff scores ``source`` although no gate of theirs admits it."""
    head = Head(source)
    return [
        d.name
        for d in declared
        if d.directory == source.is_dir
        and not d.admits(head)
        and eager.get(d.name).sniff(source) > 0
    ]


def test_no_gate_refuses_a_source_its_sniff_scores():
    eager, declared = _eager(), Registry().declared()
    bad = {str(p): names for p in INPUTS if (names := _unsound(Source(p), eager, declared))}
    assert bad == {}


_STARTS = st.sampled_from(
    ["", " ", "\n\n", "\ufeff", "\t", "\r\n", "\u200e"]
)  # what sniffs skip, or do not
_BODIES = st.sampled_from(
    [
        '{"messages": [{"role": "user", "content": "hi"}]}',
        '[{"role": "assistant", "content": [{"type": "text", "text": "x"}]}]',
        '{"textChunks": ["a"], "timestamp": "2024-01-01T00:00:00Z"}',
        "WEBVTT\n\n00:00.000 --> 00:01.000\nhi\n",
        "1\n00:00:01,000 --> 00:00:02,000\nhello\n",
        "0:00:01.000,0:00:02.000\nhi\n",
        "From a@b Mon Jan  1 00:00:00 2024\nFrom: a@b\nSubject: x\n\nbody\n",
        "Subject: hi\nFrom: a <a@b>\n\nbody\n",
        "[12:00] <alice> hi\n[12:01] <bob> yo\n",
        "[1/2/23, 10:00:00] Al: hi\n[1/2/23, 10:01:00] Bo: yo\n",
        "12:00:01\t Alice:\thi\n",
        "id,permalink,date,subreddit,title,url,body\n1,/r/x,2024-01-01,x,t,u,b\n",
        '<?xml version="1.0"?>\n<posts><row Id="1" PostTypeId="1" Body="x"/></posts>',
        "Alice \u2014 1/2/23 3:22 PM\nhi\n",
        '{"type": "version", "version": 1}\n{"type": "post", "create_at": 1}\n',
        "window.YTD.direct_messages.part0 = []",
        "Conversation: Bob\nType: private\n",
        '{"text": " hi", "segments": [{"id": 0, "seek": 0, "start": 0.0, "end": 1.0, "text": " hi"}]}',
        '{"task": "transcribe", "duration": 1.0, "text": "hi", "words": [{"word": "hi", "start": 0}]}',
        '{"result": {"language": "en"}, "transcription": [{"offsets": {"from": 0, "to": 10}}]}',
        '{"id": "t", "status": "completed", "audio_url": "u", "utterances": [{"speaker": "A"}]}',
        '{"metadata": {"channels": 1}, "results": {"channels": [{"alternatives": []}]}}',
        '{"jobName": "j", "accountId": "1", "results": {"transcripts": [{"transcript": "x"}]}}',
    ]
)


@settings(max_examples=60, deadline=None)
@given(start=_STARTS, body=_BODIES, cut=st.integers(0, 40), txt=st.booleans())
def test_gates_are_necessary_on_generated_heads(tmp_path_factory, start, body, cut, txt):
    text = start + body[: len(body) - cut] if cut < len(body) else start
    path = tmp_path_factory.mktemp("h") / ("x.txt" if txt else "x.json")
    path.write_bytes(text.encode("utf-8"))
    source = Source(path)
    assert _unsound(source, _EAGER, _DECLARED) == []
    assert _detect(Registry(), Source(path)) == _detect(_EAGER, Source(path))


_EAGER = _eager()
_DECLARED = Registry().declared()


def test_a_json_chat_file_imports_no_email_or_transcript_module(tmp_path):
    """Detection of an OpenAI messages file imports only what admits it (in a fresh
    interpreter: this one has every module loaded already)."""
    import json
    import os
    import subprocess

    doc = tmp_path / "chat.json"
    doc.write_text('{"messages": [{"role": "user", "content": "hi"}]}')
    code = (
        "import json, sys\n"
        "from convo.core.io import Source\n"
        "from convo.importers.registry import registry\n"
        "print(registry.detect(Source(sys.argv[1])).name)\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(doc)],
        capture_output=True, text=True, timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    name, modules = proc.stdout.splitlines()
    assert name == "openai"
    loaded = json.loads(modules)
    for family in ("email", "transcripts"):  # the family packages themselves only declare
        assert not any(m.startswith(f"convo.importers.{family}.") for m in loaded), family


# ---- plug-ins: a registered Format and a declared one, through an entry point -----------


def _dist(root: Path, name: str, entry_points: str) -> None:
    info = root / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(textwrap.dedent(entry_points))


_PLUGIN = """
from convo.importers.registry import Format
from convo.importers.gates import Gate

def sniff(source):
    return 99 if source.head.startswith(b"ZZFMT") else 0

def read(source, ctx):
    return iter(())

FORMATS = (Format("zz-format", "chat", "a test format", ("*.zz",), sniff, read),)

def register(registry):
    registry.declare("zz_plugin", (("formats", "zz-format", ("*.zz",), Gate(magic=(b"ZZFMT",))),))
    registry.register(Format("zz-eager", "chat", "registered whole", ("*.zze",), sniff, read))
"""


@pytest.fixture
def plugin_site(tmp_path, monkeypatch):
    site = tmp_path / "site"
    pkg = site / "zz_plugin"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "formats.py").write_text(textwrap.dedent(_PLUGIN))
    _dist(site, "zz-plugin", "[convo.importers]\nzz = zz_plugin.formats\n")
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    yield tmp_path
    for name in [m for m in sys.modules if m.startswith("zz_plugin")]:
        sys.modules.pop(name)


def test_an_installed_plugin_is_found_declared_and_registered(plugin_site):
    reg = Registry()
    names = reg.names()
    assert names[-2:] == ["zz-format", "zz-eager"]
    assert [d.name for d in reg.declared()][-1] == "zz-format"
    sample = plugin_site / "a.zz"
    sample.write_bytes(b"ZZFMT hello")
    assert reg.detect(Source(sample)).name == "zz-format"  # the declared one, imported now
    assert isinstance(reg.get("zz-format"), Format)
    assert "zz-format" not in {d.name for d in reg.declared()}
    other = plugin_site / "b.json"
    other.write_text('{"messages": [{"role": "user", "content": "hi"}]}')
    assert reg.detect(Source(other)).name == "openai"
