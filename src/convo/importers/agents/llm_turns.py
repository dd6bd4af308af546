"""LLM 0.32's message store (``turns``, ``messages``, ``parts``; simonw/llm
``llm/migrations.py`` m023 on) read back as the objects ``llm logs --json`` writes, as
``llm/logs.py``'s ``_LogRowBuilder.build`` and ``log_row_extras`` make them:

- a turn's output is the messages from ``tip_message_hash`` back to (not including)
  ``parent_message_hash``; its input is the trailing run of ``user`` and ``tool``
  messages that ends at the parent; its system prompt is the chain's root when that is
  a ``system`` message;
- ``prompt`` is the text parts of the input's user messages, ``response`` the output's
  text parts, joined without a separator; a part's text is its ``text`` column, else its
  payload's ``text_ref`` (``{"literal"}`` and ``{"fragment": id}`` pieces);
- tool calls are the output's ``tool_call`` parts, tool results the input's
  ``tool_result`` parts (and the output's, run by the provider), each with its
  ``parts.id``, the turn's tool id of its name and its instance;
- attachments are the input's ``attachment`` parts (``{"attachment": {"id"}}``),
  fragments the turn's ``turn_fragments`` by kind.

Messages are shared between turns (content-addressed): the chain walks keep a bounded
memo of message rows (``MEMO``), so memory stays flat.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from convo.importers.sqlitedb import columns, lenient_json

MEMO = 50_000  # message rows remembered while walking chains (then forgotten)

_TURNS = (
    "SELECT turns.*, {name} AS conversation_name, {schema} AS _schema FROM turns{join} "
    "ORDER BY turns.id"
)


class Turns:
    """The turns of one database, in id order."""

    def __init__(self, con: Any, tables: set[str]):
        self.con = con
        self.tables = tables
        self._messages: dict[str, tuple[str | None, str]] = {}

    def calls(self) -> Iterator[tuple[dict[str, Any], str]]:
        join, name, schema = "", "NULL", "NULL"
        if "threads" in self.tables:
            join += " LEFT JOIN threads ON turns.thread_id = threads.id"
            name = "threads.name"
        if "schemas" in self.tables:
            join += " LEFT JOIN schemas ON turns.schema_id = schemas.id"
            schema = "schemas.content"
        cur = self.con.execute(_TURNS.format(name=name, schema=schema, join=join))
        names = [d[0] for d in cur.description]
        for values in cur:
            row = dict(zip(names, values, strict=True))
            yield self._call(row), f"turns:{row['id']}"

    def _message(self, hash_: str) -> tuple[str | None, str] | None:
        got = self._messages.get(hash_)
        if got is None:
            found = self.con.execute(
                "SELECT parent_hash, role FROM messages WHERE hash = ?", (hash_,)
            ).fetchone()
            if found is None:
                return None
            if len(self._messages) >= MEMO:
                self._messages.clear()
            got = self._messages[hash_] = (found[0], str(found[1] or ""))
        return got

    def _chain(self, tip: str | None, stop: str | None) -> list[tuple[str, str]]:
        """(hash, role) from ``tip`` back to (not including) ``stop``, oldest first."""
        out: list[tuple[str, str]] = []
        seen: set[str] = set()
        while tip and tip != stop and tip not in seen:
            seen.add(tip)
            found = self._message(tip)
            if found is None:
                break
            out.append((tip, found[1]))
            tip = found[0]
        out.reverse()
        return out

    def _segments(self, row: dict[str, Any]) -> tuple[list[Any], list[Any], list[Any]]:
        """The turn's system root, its own input and its output: (hash, role) lists."""
        parent = row.get("parent_message_hash")
        above = self._chain(parent, None)
        start = len(above)
        while start and above[start - 1][1] in ("user", "tool"):
            start -= 1
        root = above[:1] if above and above[0][1] == "system" else []
        return root, above[start:], self._chain(row.get("tip_message_hash"), parent)

    def _call(self, row: dict[str, Any]) -> dict[str, Any]:
        root, inputs, outputs = self._segments(row)
        parts = self._parts([h for h, _ in root + inputs + outputs])

        def of(messages: list[Any], role: str | None = None) -> list[dict[str, Any]]:
            return [p for h, r in messages if role in (None, r) for p in parts.get(h, [])]

        given, said = of(inputs), of(outputs)
        tools = self._tool_ids(row["id"])
        item = {k: v for k, v in row.items() if not k.endswith("_hash")}
        item.update(
            conversation_id=row.get("thread_id"),
            conversation_model=row.get("model"),
            options_json=lenient_json(row.get("options_json") or "{}"),
            response_json=None,
            schema_json=lenient_json(item.pop("_schema", None)),
            prompt=_text(of(inputs, "user")),
            system=_text(of(root)) or None,
            response=_text(said),
            attachments=[self._attachment(p) for p in given if p["type"] == "attachment"],
            tool_calls=[_tool_call(p, tools) for p in said if p["type"] == "tool_call"],
            tool_results=self._results(row["id"], given, said, tools),
            **self._fragments(row["id"]),
        )
        return item

    def _parts(self, hashes: list[str]) -> dict[str, list[dict[str, Any]]]:
        if not hashes:
            return {}
        marks = ",".join("?" * len(hashes))
        cur = self.con.execute(
            "SELECT id, message_hash, type, text, payload FROM parts "
            f"WHERE message_hash IN ({marks}) ORDER BY message_hash, position",
            hashes,
        )
        out: dict[str, list[dict[str, Any]]] = {}
        for pid, message, kind, text, payload in cur:
            part = lenient_json(payload) if payload else {}
            part = part if isinstance(part, dict) else {}
            part.update(_id=pid, type=str(kind or ""))
            if text is not None:
                part["text"] = text
            elif "text_ref" in part:
                part["text"] = self._resolve(part.pop("text_ref"))
            out.setdefault(message, []).append(part)
        return out

    def _resolve(self, pieces: Any) -> str:
        said = []
        for piece in pieces if isinstance(pieces, list) else []:
            if not isinstance(piece, dict):
                continue
            if "literal" in piece:
                said.append(str(piece["literal"]))
            elif "fragment" in piece:
                found = self.con.execute(
                    "SELECT content FROM fragments WHERE id = ?", (piece["fragment"],)
                ).fetchone()
                said.append(str(found[0]) if found and found[0] is not None else "")
        return "".join(said)

    def _attachment(self, part: dict[str, Any]) -> dict[str, Any]:
        ref = part.get("attachment")
        aid = ref.get("id") if isinstance(ref, dict) else None
        found = self.con.execute(
            "SELECT id, type, path, url, length(content) FROM attachments WHERE id = ?", (aid,)
        ).fetchone()
        if found is None:
            return {"id": aid, "type": None, "path": None, "url": None}
        size = found[4] or None
        keys = ("id", "type", "path", "url", "content", "content_length")
        return dict(zip(keys, (*found[:4], bool(size) or None, size), strict=True))

    def _tool_ids(self, turn: str) -> dict[str, Any]:
        if not {"turn_tools", "tools"} <= self.tables:
            return {}
        cur = self.con.execute(
            "SELECT tools.name, tools.id FROM tools JOIN turn_tools ON turn_tools.tool_id = "
            "tools.id WHERE turn_tools.turn_id = ?",
            (turn,),
        )
        return {name: tid for name, tid in cur}

    def _results(
        self, turn: str, given: list[dict[str, Any]], said: list[dict[str, Any]], tools: dict
    ) -> list[dict[str, Any]]:
        parts = [(p, False) for p in given if p["type"] == "tool_result"]
        parts += [(p, True) for p in said if p["type"] == "tool_result"]
        instances = self._instances(turn) if parts else {}
        return [
            {
                "id": p["_id"],
                "tool_id": tools.get(str(p.get("name"))),
                "name": p.get("name"),
                "output": p.get("output"),
                "tool_call_id": p.get("tool_call_id"),
                "exception": p.get("exception"),
                "server_executed": server,
                "instance": instances.get(str(p.get("tool_call_id"))),
                "attachments": [
                    self._attachment({"attachment": a}) for a in _list(p, "attachments")
                ],
            }
            for p, server in parts
        ]

    def _instances(self, turn: str) -> dict[str, dict[str, Any]]:
        if not {"tool_instantiations", "tool_instances"} <= self.tables:
            return {}
        if "instance_id" not in columns(self.con, "tool_instantiations"):
            return {}
        cur = self.con.execute(
            "SELECT ti.tool_call_id, i.name, i.plugin, i.arguments FROM tool_instantiations ti "
            "JOIN tool_instances i ON i.id = ti.instance_id WHERE ti.turn_id = ?",
            (turn,),
        )
        return {c: {"name": n, "plugin": p, "arguments": a} for c, n, p, a in cur}

    def _fragments(self, turn: str) -> dict[str, list[dict[str, Any]]]:
        out: dict[str, list[dict[str, Any]]] = {"prompt_fragments": [], "system_fragments": []}
        if not {"turn_fragments", "fragments"} <= self.tables:
            return out
        cur = self.con.execute(
            "SELECT tf.kind, f.hash, f.content, (SELECT json_group_array(a.alias) FROM "
            "fragment_aliases a WHERE a.fragment_id = f.id) FROM turn_fragments tf JOIN "
            'fragments f ON f.id = tf.fragment_id WHERE tf.turn_id = ? ORDER BY tf."order"',
            (turn,),
        )
        for kind, hash_, content, aliases in cur:
            key = "system_fragments" if kind == "system" else "prompt_fragments"
            out[key].append(
                {"hash": hash_, "content": content, "aliases": lenient_json(aliases) or []}
            )
        return out


def _list(part: dict[str, Any], key: str) -> list[Any]:
    value = part.get(key)
    return value if isinstance(value, list) else []


def _text(parts: list[dict[str, Any]]) -> str:
    return "".join(str(p.get("text") or "") for p in parts if p["type"] == "text")


def _tool_call(part: dict[str, Any], tools: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": part["_id"],
        "tool_id": tools.get(str(part.get("name"))),
        "name": part.get("name"),
        "arguments": part.get("arguments"),
        "tool_call_id": part.get("tool_call_id"),
        "server_executed": bool(part.get("server_executed")),
    }
