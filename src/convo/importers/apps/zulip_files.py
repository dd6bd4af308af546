"""The files of a Zulip organization export that hold no messages
(``convo.importers.apps.zulip`` reads its ``messages-*.json``).

zulip/zulip ``zerver/lib/export.py`` writes, beside the messages, ``realm.json``
(``zerver_realm``, ``zerver_userprofile``...: the names the messages' ids stand for),
``attachment.json`` (``zerver_attachment``), ``analytics.json`` (``analytics_*``),
``migration_status.json`` (``migrations_by_app``) and the ``records.json`` of
``avatars/``, ``uploads/``, ``emoji/`` and ``realm_icons/`` (``path``, ``s3_path``,
``realm_id``). Each is recognised, so an export's folder reads without "format not
recognised" rejections, and none is read: beside the messages nothing is said, alone
one warning.
"""

from __future__ import annotations

import re

from convo.core.io import Source
from convo.importers.context import ImportContext
from convo.importers.jsoninput import has_key, json_head_with

__all__ = ["EXPORT_FILES", "export_file"]

# An export's file without messages, by the keys only it writes.
EXPORT_FILES = re.compile(
    r'\{\s*"(?:zerver_(?!message\b)\w+|analytics_\w+|migrations_by_app)"\s*:'
    r'|"s3_path"\s*:[^{}]*"realm_id"\s*:|"realm_id"\s*:[^{}]*"s3_path"\s*:'
)


def export_file(source: Source, ctx: ImportContext) -> bool:
    """Whether the source is one of an export's files without messages (said once, unless
    the export's ``messages-*.json`` are beside it or one folder up)."""
    head = json_head_with(source)
    if has_key(head, "zerver_message") or not EXPORT_FILES.search(head):
        return False
    folder = None if source.path is None or source.is_stdin else source.path.parent
    near = folder is not None and any(
        next(f.glob("messages-*.json"), None) for f in (folder, folder.parent)
    )
    if not near:
        ctx.warn(
            source.name,
            "a Zulip export's file without messages (realm, attachments, analytics, "
            "migrations or upload records): the messages are in messages-*.json",
        )
    return True
