"""A write's text the arguments worker left blank, written by a call of its own.

Filling a whole write at once, the 1.5B model often gets the recipient and the subject right
and leaves the one text it has to compose blank, naming in ``missing`` something no
parameter is ("email olivia.grant@example.com to ask if the customer survey draft is ready"
became ``send_email(body="")`` with "missing: time now"; "add a first-aid kit to my camping
checklist" ``append_to_note(text="")`` with "missing: day"). Sent back with a note, it
repeated itself (docs/evals.md, ninth session). Asked for that one text alone, with the
request beside it, it writes it ("ask if the customer survey draft is ready").

So when a write's ``missing`` names no parameter and every required value but one free text
is given, and that text is what the write says (a ``body``, a ``text``, a ``message``; not an
address or a title), it is asked for in its own call. What comes back must be
the user's words: a copy of the whole request is cut to its item, and a text whose words
are mostly not the request's (a greeting, "please find attached") is dropped, and the write
waits for the user as before. "text Yuki" says nothing to send, and the worker names the
``text`` it lacks: that ``missing`` names a parameter, and this call is never made.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pydantic

from ..tools import Tool
from .arguments import Arguments, Missing, names_no_parameter, unfilled_required, validate_arguments
from .generation import ModelCaller
from .given import copied_ask, cut_request, free_text
from .handoff import purpose
from .lookup import id_parameters
from .words import WRITTEN_WORDS, singular, words

__all__ = ["COMPOSE_SYSTEM", "blank_text", "compose_user", "composed_arguments"]

COMPOSE_SYSTEM = (
    "You write one text value of a function call an assistant makes for a user. Take it from "
    "the user's request: what the request asks to say, add or write, in the user's own words, "
    "without the words that ask for the action. Keep it short: no greeting, no signature, no "
    "To: or Subject: lines, nothing the request does not say. Reply with JSON."
)
"""The stage's rules, the same for every write (byte-stable)."""

_GLUE = frozenset({"a", "an", "the", "my", "of", "s", "and", "to", "for", "is", "it", "if"})
"""Words a composed text may add without counting against it. Narrower than
:data:`~goliath.turn.words.FUNCTION_WORDS` on purpose: "Can you send me the report?" for
"email Sam the report" is the model's request, not the user's, and its "can", "you" and "me"
must count as words the user never said."""


def blank_text(tool: Tool, missing: Missing) -> str | None:
    """The one required free text a write's worker left blank while its ``missing`` names no
    parameter and every other required value is given; ``None`` when the call is not that.
    Only a text the write says (:data:`~goliath.turn.words.WRITTEN_WORDS`) is composed: a
    blank address, name, title or number means the worker did not know which; the user is
    asked."""
    if not tool.writes or not names_no_parameter(tool, missing.what):
        return None
    unfilled = unfilled_required(tool, missing.values)
    if len(unfilled) != 1:
        return None  # two blanks (the address too): the worker did not know whom; ask
    name = unfilled[0]
    properties = tool.schema.get("properties", {}) if isinstance(tool.schema, dict) else {}
    if name in id_parameters(tool) or not free_text(properties.get(name)):
        return None
    if not set(words(name)) & WRITTEN_WORDS:
        return None  # a blank address or title: not a text to compose
    return name


def _description(tool: Tool, name: str) -> str:
    """The description of ``tool``'s parameter ``name``, on one line ("" when it has none)."""
    properties = tool.schema.get("properties", {}) if isinstance(tool.schema, dict) else {}
    spec = properties.get(name)
    described = spec.get("description") if isinstance(spec, dict) else None
    return " ".join(str(described).split()) if described else ""


def compose_user(ask: str, tool: Tool, name: str, values: Mapping[str, Any]) -> str:
    """The request, the function, the values it already has, and the one text to write."""
    described = _description(tool, name)
    given = "".join(
        f"{key}: {value}\n"
        for key, value in values.items()
        if key != name and value not in (None, "", [], {})
    )
    about = f" ({described})" if described else ""
    return (
        f"Request: {ask}\nFunction: {tool.name}: {purpose(tool)}\n{given}"
        f"Write {name}{about}, in one short sentence from the request's words. If the request "
        "gives nothing for it, reply an empty string."
    )


def _schema(name: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {name: {"type": "string"}},
        "required": [name],
        "additionalProperties": False,
    }


def _content(text: str) -> set[str]:
    return {singular(word) for word in words(text) if len(word) > 1} - _GLUE


def _the_users(tool: Tool, name: str, text: str, values: Mapping[str, Any], ask: str) -> str | None:
    """``text`` as the value, or ``None`` when it is not the user's to send: empty, the
    parameter's description, mostly words the request never says, or the request copied
    whole with no item to cut out. A text in the user's words that only names whom it is for
    ("Hello Diego" for "email Diego") is left to the write's own check of dictated texts
    (``given.undictated_texts``), which asks the user what to say."""
    text = " ".join(text.split())
    echoed = _content(f"{tool.name} {_description(tool, name)}")
    found = _content(text) - echoed  # "The email's text.": the description, not a text
    if not found or len(found & _content(ask)) * 2 < len(found):
        return None
    if name in copied_ask(tool, {**values, name: text}, ask):
        return cut_request(text)
    return text


async def composed_arguments(
    caller: ModelCaller, tool: Tool, missing: Missing, name: str, ask: str
) -> Arguments | None:
    """The write's arguments with the blank text ``name`` written by its own call, or
    ``None`` when it came back empty or not in the user's words."""
    values = dict(missing.values)

    def prompt(_compact: bool) -> str:
        return compose_user(ask, tool, name, values)

    generation = await caller.call(
        "compose", COMPOSE_SYSTEM, prompt, _schema(name), compactable=False
    )
    try:
        reply = json.loads(generation.text, strict=False)
    except ValueError:
        return None
    text = reply.get(name) if isinstance(reply, dict) else None
    if not isinstance(text, str):
        return None
    value = _the_users(tool, name, text, values, ask)
    if value is None:
        return None
    try:
        return Arguments(validate_arguments(tool, {**values, name: value}))
    except pydantic.ValidationError:
        return None
