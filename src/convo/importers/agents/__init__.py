"""Agent-framework message logs: OpenAI, Anthropic, AgentScope, LangMem, AutoGen, Jianmu."""

from convo.importers.agents.formats import register

__all__ = ["register"]
