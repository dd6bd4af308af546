"""The embedders by name: built-ins and the ``convo.embedders`` entry points.

Built-ins register through the hook a third party uses (``convo.core.plugins``): a
package exposes ``register(registry)`` calling ``registry.register(EmbedderSpec(...))``
in the ``convo.embedders`` entry-point group. ``--model NAME:OPTION`` passes ``OPTION``
to the factory (``openai:nomic-embed-text``).

Without the ``[embed]`` extra the default model cannot load: ``make`` turns that
ImportError into one ``UsageError`` naming what to install, and ``unavailable`` says the
same as a sentence, for a search that then stays keyword-only and says so once.
"""

from __future__ import annotations

from convo.core.errors import UsageError
from convo.core.extras import install_hint
from convo.core.plugins import PluginRegistry
from convo.embed.protocol import Embedder, EmbedderSpec

DEFAULT = "wordllama"


class EmbedderRegistry(PluginRegistry[EmbedderSpec]):
    group = "convo.embedders"
    builtins = ("convo.embed.builtin",)

    def unknown(self, name: str) -> Exception:
        return UsageError(
            f"unknown embedding model {name!r}",
            hint=f"choose one of: {', '.join(self.names())}",
        )


embedders = EmbedderRegistry()


def split(choice: str | None) -> tuple[str, str | None]:
    """``NAME[:OPTION]`` as ``(NAME, OPTION)``; None or empty is the default model."""
    if not choice:
        return DEFAULT, None
    name, sep, option = choice.partition(":")
    return name, (option if sep and option else None)


def make(choice: str | None = None) -> Embedder:
    """The embedder ``choice`` names (``NAME[:OPTION]``; None: the default)."""
    name, option = split(choice)
    spec = embedders.get(name)
    try:
        return spec.factory(option)
    except ModuleNotFoundError as e:
        if (e.name or "").partition(".")[0] == "convo":  # a bug of convo, not a missing extra
            raise
        raise UsageError(
            f"the embedding model {name!r} cannot load ({e.name or e})",
            hint=install_hint(spec.needs),
        ) from None


def unavailable(choice: str | None = None) -> str | None:
    """None when ``choice``'s package imports, else why not (one sentence, with the fix)."""
    name, _ = split(choice)
    try:
        spec = embedders.get(name)
    except UsageError as e:
        return str(e)
    if name != DEFAULT:
        return None
    import importlib.util

    if any(importlib.util.find_spec(m) is None for m in ("wordllama", "numpy", "tokenizers")):
        return f"search by meaning needs the embed extra ({install_hint(spec.needs)}); searching by keyword only"
    return None
