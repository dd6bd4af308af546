"""Who wrote a message and to whom: speaker, listeners, and the speaker when From is missing."""

from __future__ import annotations

import re
from typing import Any

from convo.importers.context import ImportContext
from convo.importers.email.addresses import addresses

# The sender address on an mbox "From " line ("From -" and MAILER-DAEMON name nobody);
# list archives spell it out (pipermail's "From jane at example.org  Mon Jan ...").
_ENVELOPE_SENDER = re.compile(rb"From ([^\s@]+@[^\s@]+|[\w.+%'-]+ at [\w-]+(?:\.[\w-]+)+)\s")


# Gmail Takeout's envelope: ``From 1654953015393719153@xxx Mon Jan 06 ...``, Gmail's
# message id at a placeholder host, nobody's address.
_TAKEOUT_ID = re.compile(rb"\d+@xxx")


def people(
    h: dict[str, list[str]], extra: dict[str, Any], cs: str | None
) -> tuple[list[str], list[str]]:
    """(From addresses, listeners = To then Cc); the address lists go to ``extra``."""
    senders = addresses(h.get("from"), cs)
    if len(senders) > 1:
        extra["from"] = senders
    to = addresses(h.get("to"), cs)
    cc = addresses(h.get("cc"), cs)
    if to:
        extra["to"] = to
    if cc:
        extra["cc"] = cc
    bcc = addresses(h.get("bcc"), cs)
    if bcc:
        extra["bcc"] = bcc
    return senders, list(dict.fromkeys([*to, *cc]))


def stand_in_speaker(
    h: dict[str, list[str]],
    envelope: bytes | None,
    cs: str | None,
    ctx: ImportContext,
    where: str,
    extra: dict[str, Any],
) -> str | None:
    """The speaker of a message without a usable From: Sender, Reply-To, then the mbox
    envelope's address (not Gmail Takeout's ``<message id>@xxx``); the choice is warned
    about and kept in ``extra.speaker_source``."""
    said = "unreadable From header" if h.get("from") else "no From header"
    for key, label in (("sender", "Sender"), ("reply-to", "Reply-To")):
        found = addresses(h.get(key), cs)
        if found:
            extra["speaker_source"] = key
            ctx.warn(where, f"{said}; speaker taken from {label}")
            return found[0]
    m = _ENVELOPE_SENDER.match(envelope or b"")
    if m and not _TAKEOUT_ID.fullmatch(m.group(1)):
        extra["speaker_source"] = "envelope"
        ctx.warn(where, f"{said}; speaker taken from the mbox From line")
        return m.group(1).decode("utf-8", "replace").replace(" at ", "@")
    ctx.warn(where, f"{said}; speaker unknown")
    return None
