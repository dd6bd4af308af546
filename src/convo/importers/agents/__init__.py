"""Agent-framework message logs and LLM API objects: OpenAI, Anthropic, AgentScope,
LangMem, AutoGen, Jianmu (``formats``), and Codex CLI rollouts, Claude Code's prompt history, aider's chat history, Cline tasks, Gemini CLI sessions, ShareGPT, Hugging Face chat, OpenAI API
objects, Gemini, LangChain, the Vercel AI SDK, Pydantic AI message histories, SWE-agent
trajectories, LlamaIndex chat stores, Letta agent files, Goose sessions, OpenHands event streams, Ollama's chats, CrewAI's run logs, Cursor's chats, GitHub
Copilot CLI sessions, Zed's saved conversations, LLM CLI logs and its database, and Google AI Studio
prompts (one module each)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from convo.importers.registry import Registry


def register(registry: Registry) -> None:
    """Declare the agent formats (each module imported when a gate admits a source or its
    format is named: ``importers.gates``)."""
    from convo.importers.gates import JSON, JSON_OBJECT, Gate, json_with

    both = ("*.json", "*.jsonl")
    lines = ("*.json", "*.jsonl", "*.ndjson")
    sqlite = Gate(magic=(b"SQLite format 3\x00",))
    autogen_log = Gate(pattern=r'\A\ufeff*(?:Started new session with Session ID:|\{")')
    # Declaration order is detection's tie-break order (and `convo formats`' order): the
    # framework formats first.
    registry.declare(__package__, (
        ("agentscope_session", "agentscope-session", ("*.json",), json_with('"content"', opens="{")),
        ("autogen_runtime", "autogen-runtime", ("*.log", "*.db"), sqlite, autogen_log),
        ("autogen_state", "autogen-state", ("*.json",), json_with('"type"', opens="{")),
        ("langgraph_store", "langgraph-store", both, json_with('"namespace"')),
        ("codex", "codex", ("rollout-*.jsonl", "rollout-*.json", "*.jsonl", "*.json"), JSON_OBJECT),
        ("claude_history", "claude-history", ("history.jsonl", "*.jsonl", "agent-*.meta.json"), json_with('"display"', '"agentType"', opens="{")),
        ("aider", "aider", (".aider.chat.history.md", "*.md", ".aider.input.history"), Gate(pattern=r"\A[\ufeff\s]*# (?:aider chat started at |\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?\r?\n\+)")),
        ("cline", "cline", ("api_conversation_history.json", "ui_messages.json", "task_metadata.json", "*.json"), json_with('"role"', '"say"', '"ask"', '"files_in_context"')),
        ("pydantic_ai", "pydantic-ai", both, json_with('"part_kind"')),
        ("llamaindex", "llamaindex", ("chat_store.json", "*.json"), json_with('"store"', '\\"store\\"', opens='{"')),
        ("letta", "letta", ("*.af", "*.json"), json_with('"core_memory"', '"memory_blocks"', '"in_context_message_indices"', '"in_context_message_ids"', '"llm_config"', '\\"llm_config\\"', opens='{"')),
        ("goose", "goose", ("*.jsonl", "sessions.db", "*.db"), json_with('"created"', opens="{"), sqlite),
        ("llm_logs", "llm-logs", ("*.json",), json_with('"datetime_utc"', opens="[")),
        ("llm_logsdb", "llm-logsdb", ("logs.db", "*.db"), sqlite),
        ("aistudio", "aistudio", ("*.json",), json_with('"chunkedPrompt"', opens="{")),
        ("swe_agent", "swe-agent", ("*.traj", "*.traj.json", "*.json"), json_with('"history"', '"trajectory"', '"attempts"', '"mini_version"', "minisweagent.", opens="{")),
        ("openhands", "openhands", ("*.json", "base_state.json"), json_with('"observation"', '"action"', '"kind"', '"agent"')),
        ("cursor", "cursor", ("state.vscdb", "*.vscdb"), sqlite),
        ("zed", "zed", ("*.zed.json", "*.json"), json_with('"zed"', opens="{")),
        ("copilot_cli", "copilot-cli", ("events.jsonl", "*.jsonl"), json_with('"parentId"', opens="{")),
        ("crewai", "crewai", ("*.json", "*.txt", "logs.txt"), json_with('"agent"', '"task"', opens="["), Gate(pattern=r'\A\ufeff*\d{4}-\d\d-\d\d \d\d:\d\d:\d\d: (?:task_name|agent|task)="')),
        ("ollama", "ollama", ("db.sqlite", "*.sqlite", "*.json", "*.jsonl"), sqlite, json_with('"done"')),
        ("gemini_cli", "gemini-cli", ("session-*.json", "session-*.jsonl", "logs.json", "*.json", "*.jsonl"), json_with('"sessionId"', '"session_id"', '"response"')),
        # formats.FORMATS, one per name of parts.AGENT_FORMATS (a heavier module)
        *(("formats", name, lines, JSON) for name in ("openai", "anthropic", "agentscope", "langmem", "autogen", "jianmu")),
        ("sharegpt", "sharegpt", both, json_with('"conversations"')),
        ("hf_chat", "hf-chat", both, json_with('"messages"', '"prompt"', '"chosen"', '"instruction"')),
        ("openai_responses", "openai-responses", both, JSON),
        ("openai_api", "openai-completion", both, json_with('"choices"')),
        ("openai_api", "openai-assistants", both, json_with('"thread.message"')),
        ("gemini", "gemini", both, json_with('"parts"')),
        ("langchain", "langchain", both, json_with('"data"', '"constructor"')),
        ("vercel_ai", "vercel-ai", both, json_with('"parts"')),
    ), family="chat")  # fmt: skip
