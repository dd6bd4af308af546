"""``--extractor`` and the model's options, shared by ``convo knowledge`` and ``convo
export --to typeagent-db``.

``--extractor rules`` (the default) is convo's own offline knowledge; ``--extractor llm``
adds a language model's (``convo.analysis.knowledge.llm``). The endpoint and the model
come from ``--llm-url``/``--llm-model``, else ``$CONVO_LLM_URL``/``$CONVO_LLM_MODEL``, else
the config file's ``llm_url``/``llm_model``; the API key only from the environment
(``$CONVO_LLM_KEY``, else ``$OPENAI_API_KEY``; none for a local server), never from an
option a process list would show.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import typer

from convo.core.errors import UsageError

if TYPE_CHECKING:
    from convo.analysis.knowledge.llm import Settings

EXTRACTORS = ("rules", "llm")

EXTRACTOR = typer.Option(
    "rules",
    "--extractor",
    metavar="rules|llm",
    help="Content knowledge from convo's rules (offline), or from rules and a language model "
    "(an OpenAI-compatible chat endpoint: --llm-url, --llm-model, $CONVO_LLM_KEY).",
)
LLM_URL = typer.Option(
    None, "--llm-url", metavar="URL",
    help="--extractor llm: the endpoint's base URL (e.g. http://localhost:11434/v1).",
)  # fmt: skip
LLM_MODEL = typer.Option(None, "--llm-model", metavar="NAME", help="--extractor llm: the model.")
LLM_TIMEOUT = typer.Option(
    60.0, "--llm-timeout", metavar="SECONDS", min=0.1,
    help="--extractor llm: seconds to wait for one answer (then that message keeps convo's).",
)  # fmt: skip


def _configured(key: str) -> str | None:
    from convo.cli.runtime import config_exists

    if not os.environ.get("CONVO_CONFIG") and not config_exists():
        return None
    from convo.cli import config

    return config.load().get(key)


def llm_settings(
    extractor: str, url: str | None, model: str | None, timeout: float
) -> Settings | None:
    """The model to ask (module docstring), or None for ``--extractor rules``."""
    if extractor not in EXTRACTORS:
        raise UsageError(f"no extractor {extractor!r}", hint="--extractor rules or llm")
    if extractor == "rules":
        return None
    url = url or os.environ.get("CONVO_LLM_URL") or _configured("llm_url")
    model = model or os.environ.get("CONVO_LLM_MODEL") or _configured("llm_model")
    if not url:
        raise UsageError(
            "--extractor llm needs the chat endpoint",
            hint="--llm-url URL, $CONVO_LLM_URL or llm_url in the config file",
        )
    if not url.startswith(("http://", "https://")):
        raise UsageError(f"--llm-url must be an http(s) URL, not {url!r}")
    if not model:
        raise UsageError(
            "--extractor llm needs a model",
            hint="--llm-model NAME, $CONVO_LLM_MODEL or llm_model in the config file",
        )
    from convo.analysis.knowledge.llm import Settings

    key = os.environ.get("CONVO_LLM_KEY") or os.environ.get("OPENAI_API_KEY") or None
    return Settings(url, model, key, timeout)
