"""convo's own embedders, registered through the hook a third party uses."""

from __future__ import annotations

from convo.embed.protocol import Embedder, EmbedderSpec


def _wordllama(option: str | None) -> Embedder:
    from convo.embed.wordllama import WordLlamaEmbedder

    return WordLlamaEmbedder()


def _openai(option: str | None) -> Embedder:
    from convo.embed.remote import OpenAIEmbedder

    return OpenAIEmbedder(option)


def register(registry) -> None:
    registry.register(
        EmbedderSpec(
            "wordllama",
            "WordLlama l2_supercat, 256 dims, weights inside its wheel (the default; offline)",
            _wordllama,
        )
    )
    registry.register(
        EmbedderSpec(
            "openai",
            "an OpenAI-compatible /v1/embeddings server (CONVO_EMBED_URL, CONVO_EMBED_MODEL)",
            _openai,
            needs="embed",
        )
    )
