"""Knowledge from a language model: TypeAgent's own schema sent to an OpenAI-compatible
chat endpoint, the reply parsed and validated (``convo knowledge --extractor llm``).

TypeAgent extracts a message's knowledge by sending its ``KnowledgeResponse`` schema (the
TypeScript that TypeChat renders of ``knowpro/knowledge_schema.py`` in typeagent 0.5.0,
``SCHEMA`` below) and the message text in its own prompt (``prompt``, the wording of
``knowpro/convknowledge.py``) to a chat model; this module does the same through
``POST {base_url}/chat/completions`` (any OpenAI-compatible server: OpenAI, Azure's
compatible endpoint, Ollama, llama.cpp, vLLM, LM Studio), with ``temperature`` 0.

The reply's content must be one JSON object of that schema (a ```json fence around it is
taken off). ``validate`` checks every field and returns the knowledge as plain data in
convo's serialisation (``dicts``): action fields in camelCase (``verbTense``; the
schema's snake_case names are read too), ``"none"`` for an absent entity name, ``None``
for absent optionals; an action's verb tense must be past, present or future. Anything
else (no answer within ``timeout`` seconds, an HTTP error, a reply that is not such an
object) is a ``Failure`` with its reason: ``Refiner`` then keeps convo's own knowledge
of that message and counts the failure, so a run never stops on a bad reply.

``Refiner`` adds the model's knowledge to convo's (the metadata knowledge: people,
``say`` actions, mail's ``sent``/``received``): entities merged by name, the model's
actions and inverse actions, and the model's topics before the message's subject and
tags (key phrases are not kept: the model names topics). Text the model reads is the
message body (``body_analysis.message_body``: no quoted mail, signature or tool output),
at most ``MAX_CHARS`` characters; a message without one is not sent.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any

from convo.analysis.knowledge.body_analysis import message_body
from convo.analysis.knowledge.dicts import Plain, merge_entities
from convo.analysis.knowledge.tagtopics import topic_tags
from convo.analysis.knowledge.text import clean_subject
from convo.core.plural import counted

MAX_CHARS = 4000
TENSES = ("past", "present", "future")

SCHEMA = """\
// Detailed and comprehensive knowledge response.
interface KnowledgeResponse {
    entities: ConcreteEntity[];
    // The 'subject_entity_name' and 'object_entity_name' must correspond to the 'name' of an entity listed in the 'entities' array.
    actions: Action[];
    // Some actions can ALSO be expressed in a reverse way... E.g. (A give to B) --> (B receive from A) and vice versa. If so, also return the reverse form of the action, full filled out.
    inverse_actions: Action[];
    // Detailed, descriptive topics and keywords.
    topics: string[];
}

interface Action {
    knowledge_type?: "action";
    // Each verb is typically a word.
    verbs: string[];
    verb_tense?: VerbTense;
    subject_entity_name?: string | "none";
    object_entity_name?: string | "none";
    indirect_object_entity_name?: string | "none";
    params?: Array<string | ActionParam> | null;
    subject_entity_facet?: Facet | null;
}

interface Facet {
    name: string;
    // Very concise values.
    value: Value;
}

type Value = string | number | boolean | Quantity | Quantifier

// 'amount' is a descriptive string, not a number; e.g. 'many', 'few', 'several', 'a lot of', 'some', 'dozens'.
interface Quantifier {
    amount: string;
    units: string;
}

// 'amount' must be a number; do not infer amounts.
interface Quantity {
    amount: number;
    units: string;
}

interface ActionParam {
    name: string;
    value: Value;
}

type VerbTense = "past" | "present" | "future"

// Specific, tangible people, places, institutions or things only.
interface ConcreteEntity {
    knowledge_type?: "entity";
    // The name of the entity or thing such as 'Bach', 'Great Gatsby', 'frog' or 'piano'.
    name: string;
    // The types of the entity such as 'speaker', 'person', 'artist', 'animal', 'object', 'instrument', 'school', 'room', 'museum', 'food' etc. An entity can have multiple types; entity types should be single words.
    type: string[];
    // A specific, inherent, defining, or non-immediate facet of the entity such as 'blue', 'old', 'famous', 'sister', 'aunt_of', 'weight: 4 kg'. Trivial actions or state changes are not facets. Facets are concise 'properties'.
    facets?: Facet[] | null;
}
"""


def prompt(text: str) -> str:
    """TypeAgent's knowledge extraction prompt for one message's text."""
    return (
        "You are a service that translates user messages in a conversation into JSON objects "
        'of type "KnowledgeResponse" according to the following TypeScript definitions:\n'
        f"```\n{SCHEMA.rstrip()}\n```\n"
        "The following are messages in a conversation:\n"
        f'"""\n{text}\n"""\n'
        "The following is the user request translated into a JSON object with 2 spaces of "
        "indentation and no properties with the value undefined:\n"
    )


class Failure(Exception):
    """Why a message's knowledge could not come from the model (one line)."""


@dataclass(frozen=True)
class Settings:
    """Where the model is: the endpoint's base URL (``.../v1``), the model's name, the
    API key (None: no ``Authorization`` header, as a local server wants), the seconds to
    wait for one answer."""

    base_url: str
    model: str
    api_key: str | None = None
    timeout: float = 60.0


def ask(settings: Settings, text: str) -> Plain:
    """The model's knowledge of ``text``, validated; raises ``Failure``."""
    body = {
        "model": settings.model,
        "temperature": 0,
        "response_format": {"type": "json_object"},
        "messages": [{"role": "user", "content": prompt(text[:MAX_CHARS])}],
    }
    headers = {"Content-Type": "application/json"}
    if settings.api_key:
        headers["Authorization"] = f"Bearer {settings.api_key}"
    url = settings.base_url.rstrip("/") + "/chat/completions"
    request = urllib.request.Request(
        url, data=json.dumps(body).encode("utf-8"), headers=headers, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=settings.timeout) as response:
            raw = response.read()
    except urllib.error.HTTPError as e:
        raise Failure(f"HTTP {e.code} from {url}") from None
    except TimeoutError:
        raise Failure(f"no answer from {url} within {settings.timeout:g} s") from None
    except (urllib.error.URLError, OSError) as e:
        reason = getattr(e, "reason", e)
        if isinstance(reason, TimeoutError):
            raise Failure(f"no answer from {url} within {settings.timeout:g} s") from None
        raise Failure(f"cannot reach {url}: {reason}") from None
    return validate(_content(raw))


def _content(raw: bytes) -> Any:
    """The JSON object in a chat completion's first choice."""
    try:
        reply = json.loads(raw)
        content = reply["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError):
        raise Failure("the reply is not a chat completion") from None
    if not isinstance(content, str):
        raise Failure("the reply has no text content")
    text = content.strip()
    if text.startswith("```"):
        text = text.split("\n", 1)[1] if "\n" in text else ""
        text = text.rsplit("```", 1)[0]
    try:
        return json.loads(text)
    except ValueError:
        raise Failure("the model's answer is not JSON") from None


def _strings(value: Any, what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise Failure(f"{what} is not a list of strings")
    return value


_SCALARS = (str, int, float, bool)


def _value(value: Any, what: str) -> Any:
    """A facet's or parameter's value: a string, number, boolean, or an amount and units."""
    if isinstance(value, _SCALARS):
        return value
    if (
        isinstance(value, dict)
        and set(value) == {"amount", "units"}
        and isinstance(value["amount"], _SCALARS)
        and isinstance(value["units"], str)
    ):
        return {"amount": value["amount"], "units": value["units"]}
    raise Failure(f"{what} is not a value")


def _name_value(item: Any, what: str) -> Plain:
    if not isinstance(item, dict) or not isinstance(item.get("name"), str) or "value" not in item:
        raise Failure(f"{what} has no name and value")
    return {"name": item["name"], "value": _value(item["value"], what)}


def _entity(e: Any) -> Plain:
    if not isinstance(e, dict) or not isinstance(e.get("name"), str) or not e["name"].strip():
        raise Failure("an entity has no name")
    facets = e.get("facets")
    if facets is not None and not isinstance(facets, list):
        raise Failure("an entity's facets are not a list")
    return {
        "name": e["name"].strip(),
        "type": _strings(e.get("type", []), "an entity's type"),
        "facets": None if facets is None else [_name_value(f, "a facet") for f in facets],
    }


def _field(a: dict[str, Any], camel: str, snake: str, default: Any) -> Any:
    return a[camel] if camel in a else a.get(snake, default)


def _name(a: dict[str, Any], camel: str, snake: str) -> str:
    value = _field(a, camel, snake, "none")
    if value is None:
        return "none"
    if not isinstance(value, str):
        raise Failure(f"an action's {camel} is not a string")
    return value or "none"


def _action(a: Any) -> Plain:
    if not isinstance(a, dict):
        raise Failure("an action is not an object")
    tense = _field(a, "verbTense", "verb_tense", "past")
    if tense not in TENSES:
        raise Failure(f"an action's tense is {tense!r}")
    params = a.get("params")
    if params is not None and not isinstance(params, list):
        raise Failure("an action's params are not a list")
    facet = _field(a, "subjectEntityFacet", "subject_entity_facet", None)
    return {
        "verbs": _strings(a.get("verbs"), "an action's verbs"),
        "verbTense": tense,
        "subjectEntityName": _name(a, "subjectEntityName", "subject_entity_name"),
        "objectEntityName": _name(a, "objectEntityName", "object_entity_name"),
        "indirectObjectEntityName": _name(
            a, "indirectObjectEntityName", "indirect_object_entity_name"
        ),
        "params": None
        if params is None
        else [p if isinstance(p, str) else _name_value(p, "a param") for p in params],
        "subjectEntityFacet": None if facet is None else _name_value(facet, "a facet"),
    }


def validate(data: Any) -> Plain:
    """Knowledge as plain data from a parsed ``KnowledgeResponse`` (module docstring);
    raises ``Failure`` saying what is wrong."""
    if not isinstance(data, dict):
        raise Failure("the answer is not a JSON object")
    for key in ("entities", "actions", "topics"):
        if not isinstance(data.get(key), list):
            raise Failure(f"the answer has no {key} list")
    inverse = data.get("inverse_actions", data.get("inverseActions", []))
    if not isinstance(inverse, list):
        raise Failure("the answer's inverse_actions are not a list")
    return {
        "entities": [_entity(e) for e in data["entities"]],
        "actions": [_action(a) for a in data["actions"]],
        "inverse_actions": [_action(a) for a in inverse],
        "topics": [t.strip() for t in _strings(data["topics"], "topics") if t.strip()],
    }


@dataclass
class Refiner:
    """Adds the model's knowledge to convo's, message by message (module docstring);
    counts the messages asked and those that fell back, and keeps the first reason."""

    settings: Settings
    asked: int = 0
    failed: int = 0
    first_failure: str | None = None
    _seen: set[str] = field(default_factory=set)

    def __call__(self, record: dict[str, Any], knowledge: Plain) -> Plain:
        text = message_body(record).strip()
        if not text:
            return knowledge
        self.asked += 1
        try:
            found = ask(self.settings, text)
        except Failure as e:
            self.failed += 1
            if self.first_failure is None:
                self.first_failure = str(e)
            return knowledge
        return combine(record, knowledge, found)

    def warning(self) -> str | None:
        """One line on the fallbacks, or None when every message asked was answered."""
        if not self.failed:
            return None
        return (
            f"llm extractor: {self.failed} of {counted(self.asked, 'message')} kept convo's own "
            f"knowledge (first: {self.first_failure})"
        )


def combine(record: dict[str, Any], knowledge: Plain, found: Plain) -> Plain:
    """convo's knowledge of ``record`` with the model's ``found`` added (module docstring)."""
    subject = record.get("subject")
    tags = record.get("tags")
    own = [clean_subject(subject)] if isinstance(subject, str) else []
    own += topic_tags(tags)
    topics: dict[str, str] = {}
    for t in (*found["topics"], *own):
        t = " ".join(t.split())
        if t:
            topics.setdefault(t.casefold(), t)
    return {
        "entities": merge_entities([*knowledge["entities"], *found["entities"]], _same),
        "actions": [*knowledge["actions"], *found["actions"]],
        "inverse_actions": [*knowledge["inverse_actions"], *found["inverse_actions"]],
        "topics": list(topics.values()),
    }


def _same(name: str) -> str:
    return name
