"""Agent-framework message logs and LLM API objects: OpenAI, Anthropic, AgentScope,
LangMem, AutoGen, Jianmu (``formats``), and ShareGPT, Hugging Face chat, OpenAI API
objects, Gemini, LangChain and the Vercel AI SDK (one module each)."""

from __future__ import annotations

import importlib
from typing import Any

from convo.importers.agents import formats

# Registered after the framework formats, in this order (detection's tie-break order).
MODULES = ("sharegpt", "hf_chat", "openai_responses", "openai_api", "gemini", "langchain",
           "vercel_ai")  # fmt: skip


def register(registry: Any) -> None:
    formats.register(registry)
    for name in MODULES:
        importlib.import_module(f"{__package__}.{name}").register(registry)
