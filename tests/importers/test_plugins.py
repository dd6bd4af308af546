"""core/plugins.py: entry points found where importlib.metadata finds them, and only
asked of it when some distribution names the group."""

from __future__ import annotations

import importlib.metadata
import sys
import textwrap

import pytest

from convo.core import plugins
from convo.core.plugins import PluginRegistry, may_declare


class _Things(PluginRegistry):
    group = "convo.test-things"


def _dist(root, name: str, entry_points: str | None) -> None:
    info = root / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    if entry_points is not None:
        (info / "entry_points.txt").write_text(textwrap.dedent(entry_points))


@pytest.fixture
def site(tmp_path, monkeypatch):
    root = tmp_path / "site"
    root.mkdir()
    monkeypatch.syspath_prepend(str(root))
    importlib.invalidate_caches()
    return root


def test_no_declaration_means_no_metadata_lookup(site, monkeypatch):
    _dist(site, "other", "[console_scripts]\nother = other:main\n")
    _dist(site, "bare", None)
    assert not may_declare("convo.test-things")

    def fail(**_kw):
        raise AssertionError("importlib.metadata asked although nothing declares the group")

    monkeypatch.setattr(importlib.metadata, "entry_points", fail)
    assert _Things().names() == []


def test_a_declared_entry_point_is_loaded(site):
    (site / "thing_plugin.py").write_text(
        textwrap.dedent("""
        class Thing:
            name = "widget"

        def register(registry):
            registry.register(Thing())
        """)
    )
    _dist(site, "thing-plugin", "[convo.test-things]\nwidget = thing_plugin\n")
    assert may_declare("convo.test-things")
    assert _Things().names() == ["widget"]
    sys.modules.pop("thing_plugin", None)


def test_unsure_cases_ask_importlib_metadata(tmp_path, monkeypatch):
    archive = tmp_path / "plugins.zip"
    archive.write_bytes(b"PK\x05\x06" + b"\0" * 18)  # an empty zip on the path
    monkeypatch.syspath_prepend(str(archive))
    assert may_declare("convo.test-things")


def test_another_distribution_finder_is_trusted_to_importlib_metadata(monkeypatch):
    class Finder:
        @staticmethod
        def find_distributions(context=None):
            return iter(())

    monkeypatch.setattr(sys, "meta_path", [Finder(), *sys.meta_path])
    assert may_declare("convo.test-things")


def test_builtins_load_without_the_metadata_module(monkeypatch):
    """The importers' and writers' groups are declared by nobody here: their built-ins
    register through the same hook, and ``importlib.metadata`` is not consulted."""
    calls = []
    real = plugins.may_declare
    monkeypatch.setattr(plugins, "may_declare", lambda g: calls.append(g) or real(g))
    from convo.importers.registry import Registry

    names = Registry().names()
    assert "jsonl" in names and calls == ["convo.importers"]
