"""The files a ChatGPT data export holds beside its conversations (``conversations.json``,
or ``conversations-000.json``... in newer exports): ``user.json`` and
``user_settings.json`` (the account), ``message_feedback.json`` (thumbs up/down, with
any text written), ``model_comparisons.json`` ("is this response better or worse?":
the compared answers), ``shared_conversations.json`` (shared links),
``export_manifest.json``, ``conversation_asset_file_names.json`` and
``library_files.json`` (what files the export holds).

They hold no conversation. Ingesting the export folder recognises them (so the run
does not count them as unreadable files and exit 1) and reads no message from them;
the feedback and the comparisons, which hold what the user wrote or chose, are named in
a warning, not dropped unsaid, and every other side file gets one line saying it was
taken as the export's and not read. A file is recognised by its name and, for the generic
``user.json``, by the keys ChatGPT writes in it.
"""

from __future__ import annotations

from convo.core.io import Source, load_json
from convo.core.plural import counted
from convo.importers.context import ImportContext
from convo.importers.jsoninput import has_key, json_head

_QUIET = frozenset({
    "user_settings.json", "shared_conversations.json", "export_manifest.json",
    "conversation_asset_file_names.json", "library_files.json",
})  # fmt: skip
_TOLD = {
    "message_feedback.json": ("rating", "of answers, with any feedback text"),
    "model_comparisons.json": ("comparison", "of regenerated answers"),
}


def sidecar(source: Source) -> str:
    """The name of a ChatGPT export's side file when ``source`` is one; "" otherwise."""
    name = source.match_name
    text = json_head(source)
    if not text.startswith(("[", "{")):
        return ""
    if name == "user.json":
        return name if has_key(text, "chatgpt_plus_user") else ""
    return name if name in _QUIET or name in _TOLD else ""


def report(source: Source, kind: str, ctx: ImportContext) -> None:
    """No messages; one warning a file: what the feedback and the comparisons hold, and
    that the others (claimed by their name alone: a file of another tool may share it)
    were taken as the export's and not read."""
    if kind not in _TOLD:
        ctx.warn(source.name, f"taken as a ChatGPT export's {kind}: no conversation; not read")
        return
    data = load_json(source)
    n = len(data) if isinstance(data, list) else 1
    noun, what = _TOLD[kind]
    ctx.warn(
        source.name, f"ChatGPT {kind} holds {counted(n, noun)} {what}, no conversation; not read"
    )
