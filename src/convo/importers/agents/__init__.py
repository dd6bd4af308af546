"""Agent-framework message logs and LLM API objects: OpenAI, Anthropic, AgentScope,
LangMem, AutoGen, Jianmu (``formats``), and ShareGPT, Hugging Face chat, OpenAI API
objects, Gemini, LangChain and the Vercel AI SDK (one module each)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from convo.importers.registry import Registry

# Registration order is detection's tie-break order (and `convo formats`' order): the
# framework formats first.
MODULES = ("agentscope_session", "autogen_runtime", "autogen_state", "langgraph_store", "formats", "sharegpt",
           "hf_chat", "openai_responses", "openai_api", "gemini", "langchain",
           "vercel_ai")  # fmt: skip


def register(registry: Registry) -> None:
    """Register the agent formats (imported when the registry loads, not at start-up)."""
    from convo.importers.registry import register_modules

    register_modules(__package__, MODULES, registry)
