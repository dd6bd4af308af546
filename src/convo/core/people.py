"""People: the names one person has in different sources, mapped to that person.

A people file (``--people FILE`` or ``$CONVO_PEOPLE``) is TOML::

    [people.alice]
    name = "Alice Smith"                 # how convo shows her (default: the first name)
    names = ["Alice Smith", "Alice", "alice_dev"]
    addresses = ["alice@example.org"]

A name is the person's when it equals (ignoring case) one of the names, the key, or
its address is one of the addresses (``Alice Smith <alice@example.org>``). Filters
(``-s``/``-r``, ``from:``/``to:``) expand a value that names a person by the name rule
(``convo.core.names``) into all of the person's names; ``canonical_record`` rewrites a
record's speaker and listeners to the person's name for ``stats`` and ``knowledge``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from convo.core import fields
from convo.core.errors import InputError
from convo.core.names import NameQuery, split_name

HINT = "write [people.KEY] tables with names = [...] and addresses = [...]"


@dataclass
class Person:
    key: str
    name: str
    names: list[str] = field(default_factory=list)
    addresses: list[str] = field(default_factory=list)

    def aliases(self) -> list[str]:
        """Every way to find this person's messages with the name rule."""
        return list(dict.fromkeys([self.name, *self.names, *self.addresses]))


def _strings(value: Any, where: str, what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise InputError(f"{what} must be a list of names", where=where, hint=HINT)
    return [v.strip() for v in value]


class People:
    """The people of one file, looked up by any of their names."""

    def __init__(self, persons: list[Person]):
        self.persons = persons
        self._by_name: dict[str, Person] = {}
        for p in persons:
            for n in (p.key, p.name, *p.names, *p.addresses):
                self._by_name.setdefault(n.casefold(), p)

    @classmethod
    def load(cls, path: str) -> People:
        import tomllib  # (only with a people file: not on every read command's start-up)

        from convo.core.io import open_binary

        try:
            with open_binary(path) as f:
                data = tomllib.load(f)
        except OSError as e:
            raise InputError(
                f"cannot read the people file ({e.strerror or e})", where=path
            ) from None
        except tomllib.TOMLDecodeError as e:
            raise InputError(f"not a TOML file ({e})", where=path, hint=HINT) from None
        except UnicodeDecodeError as e:
            raise InputError(
                f"not UTF-8 (byte {e.start}); a TOML file is UTF-8", where=path, hint=HINT
            ) from None
        except RecursionError:
            raise InputError(
                "nested too deeply to be a people file", where=path, hint=HINT
            ) from None
        return cls.of(data, path)

    @classmethod
    def of(cls, data: dict[str, Any], where: str = "people") -> People:
        table = data.get("people", {})
        if not isinstance(table, dict):
            raise InputError("[people] must be a table", where=where, hint=HINT)
        persons = []
        for key, entry in table.items():
            at = f"{where}: people.{key}"
            if not isinstance(entry, dict):
                raise InputError("must be a table", where=at, hint=HINT)
            names = _strings(entry.get("names", []), at, "names")
            addresses = _strings(entry.get("addresses", []), at, "addresses")
            name = entry.get("name", names[0] if names else key)
            if not isinstance(name, str) or not name.strip():
                raise InputError("name must be a string", where=at, hint=HINT)
            persons.append(Person(key, name.strip(), names, addresses))
        return cls(persons)

    def person_of(self, name: str | None) -> Person | None:
        """The person a record's name belongs to (whole name, display name or address)."""
        if not name:
            return None
        p = self._by_name.get(name.strip().casefold())
        if p is not None:
            return p
        display, address = split_name(name)
        return self._by_name.get(address.casefold()) or self._by_name.get(display.casefold())

    def canonical(self, name: str) -> str:
        p = self.person_of(name)
        return p.name if p is not None else name

    def named_by(self, query: str) -> list[Person]:
        """The persons a ``-s`` value names: by key or alias, else by the name rule."""
        p = self._by_name.get(query.strip().casefold())
        if p is not None:
            return [p]
        q = NameQuery(query)
        return [p for p in self.persons if any(q.matches(a) for a in (p.key, *p.aliases()))]

    def aliases_for(self, query: str) -> list[str]:
        """``query`` and every alias of the persons it names ([] when it names none)."""
        persons = self.named_by(query)
        if not persons:
            return []
        return list(dict.fromkeys([query, *(a for p in persons for a in p.aliases())]))

    def canonical_record(self, record: dict[str, Any]) -> dict[str, Any]:
        """``record`` with its speaker and listeners as their persons' names."""
        meta = fields.meta(record)
        speaker = fields.speaker(record)
        listeners = fields.listeners(record)
        new_speaker = self.canonical(speaker) if speaker else speaker
        new_listeners = list(dict.fromkeys(self.canonical(n) for n in listeners))
        if new_speaker == speaker and new_listeners == listeners:
            return record
        meta = {k: v for k, v in meta.items() if k != "recipients"}
        meta.update(speaker=new_speaker, listeners=new_listeners)
        return {**record, "metadata": meta}
