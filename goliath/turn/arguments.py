"""The arguments stage: fills ONE tool's arguments in a fresh context, under the tool's own schema.

It sees the brief, the ask and the minimum of context (the steps of required tools, else only
the latest step), so a small model is never asked to juggle more than one tool. When a required
value is not there it says so in ``missing`` instead of inventing one; ``missing`` comes last in
the schema so it cannot take the argument budget.

Deliberate additions to the original rule, for how small models actually fill the field:
a placeholder (``none``, ``n/a``, ``-`` …) means nothing is missing, and a required string left
empty counts as missing even when ``missing`` is blank — a tool never runs on an empty value.
And ``missing`` only skips a call that lacks something it needs: a read whose required values
are all given runs (the 1.5B model names there what the *ask* wants to learn — "missing: email
address" on ``find_contact(name="Diego")`` — or an optional filter), and so does a write whose
``missing`` names only optional parameters. An optional value the model filled with nothing — an
empty string or list, or a 0 the ask never says for it — is left out, so the tool's default applies
(docs/design.md, "What missing means"). A write's number that nobody gave — ``missing`` blank,
the value invented — and a value that copies the request are caught after this stage, by
``given.py``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any

import attrs
import pydantic

from .._origin import origin_of
from ..classify import is_invalid_output
from ..compress import clip
from ..records import StepRecord
from ..tools import Tool
from .generation import ModelCaller
from .prompts import MISSING_DESCRIPTION
from .words import words

__all__ = [
    "Arguments",
    "Malformed",
    "Missing",
    "arguments_schema",
    "blank_required",
    "context_steps",
    "named_parameters",
    "names_no_parameter",
    "request_arguments",
    "unfilled_required",
    "validate_arguments",
]

MISSING_CHARS = 120
_NOTHING_MISSING = {"", "none", "n/a", "na", "nothing", "null", "-", "no", "empty", "[]", "missing"}
_NOT_GIVEN = {"missing", "unknown", "not given", "not provided", "not specified", "n/a", "tbd", "?"}
"""String values small models write into an argument they do not have (often copying the word
``missing`` from the schema): the value is treated as not given."""


@attrs.frozen
class Arguments:
    values: dict[str, Any]


@attrs.frozen
class Missing:
    """The call named required values it did not have; the step is skipped, not guessed."""

    what: str
    values: dict[str, Any]

    @property
    def result(self) -> str:
        return f"missing: {clip(self.what, MISSING_CHARS)}. Ask the user or use another tool."


@attrs.frozen
class Malformed:
    """The reply was not usable arguments; ``error`` becomes the retry's hint."""

    error: str


def arguments_schema(tool: Tool) -> dict[str, Any]:
    """The tool's schema plus a trailing optional ``missing`` string."""
    schema = dict(tool.schema)
    if schema.get("type") == "object":
        properties = dict(schema.get("properties", {}))
        properties["missing"] = {"type": "string", "description": MISSING_DESCRIPTION}
        schema["properties"] = properties
    return schema


def context_steps(tool: Tool, steps: Sequence[StepRecord]) -> list[StepRecord]:
    """The steps an arguments call may see: those of required tools, otherwise only the latest one."""
    if tool.requires:
        return [step for step in steps if step.tool in tool.requires]
    return list(steps[-1:])


def validate_arguments(tool: Tool, values: Any) -> dict[str, Any]:
    """Validate (and transform) arguments with the tool's model; raises ``ValidationError``."""
    model = tool.parameters.model_validate(values)
    return model.model_dump()


def _validation_text(error: pydantic.ValidationError) -> str:
    parts = []
    for item in error.errors(include_url=False):
        where = ".".join(str(part) for part in item.get("loc", ())) or "arguments"
        parts.append(f"{where}: {item.get('msg', 'invalid')}")
    return "; ".join(parts)


def blank_required(tool: Tool, data: dict[str, Any]) -> list[str]:
    """Required string arguments the call left empty (small models leave them blank)."""
    properties = tool.schema.get("properties", {})
    return [
        name
        for name in tool.schema.get("required", [])
        if properties.get(name, {}).get("type") == "string"
        and isinstance(data.get(name), str)
        and not data[name].strip()
    ]


def unfilled_required(tool: Tool, data: dict[str, Any]) -> list[str]:
    """Required arguments the call left blank (:func:`blank_required`) or without a value."""
    blank = set(blank_required(tool, data))
    return [
        name for name in tool.schema.get("required", []) if name in blank or data.get(name) is None
    ]


def _drop_not_given(tool: Tool, data: dict[str, Any]) -> dict[str, Any]:
    """Placeholders mean "not given": an optional one is dropped, a required one left blank."""
    required = set(tool.schema.get("required", []))
    cleaned: dict[str, Any] = {}
    for name, value in data.items():
        if isinstance(value, str) and value.strip().strip(".").lower() in _NOT_GIVEN:
            if name in required:
                cleaned[name] = ""
            continue
        cleaned[name] = value
    return cleaned


_ZERO = re.compile(r"(?<![\d.,])0+(?:[.,]0+)?(?!\d)|\bzero\b")
_NONE_OF = re.compile(r"\b(?:no|non|without|free)")
_VAGUE_WORDS = {"max", "min", "num", "number", "count", "the", "of", "per", "only", "eur", "usd"}


def _words(text: str) -> str:
    return " ".join(words(text))


def _zero_said(name: str, ask: str) -> bool:
    """Whether the ask says a 0 for parameter ``name``: a zero in digits or as "zero", or a
    "no"/"non"/"without" beside one of the parameter's own words ("nonstop" for
    ``max_stops``; not for ``max_price_eur``)."""
    text = ask.lower()
    if _ZERO.search(text):
        return True
    if not _NONE_OF.search(text):
        return False
    words = [word for word in _words(name).split() if word not in _VAGUE_WORDS and len(word) > 2]
    stems = [word[:-1] if word.endswith("s") and len(word) > 3 else word for word in words]
    return any(stem in text for stem in stems)


def named_parameters(tool: Tool, what: str) -> set[str]:
    """The tool's parameters that a ``missing`` text names (``list_name``, "list name",
    ``listName``)."""
    said = f" {_words(what)} "
    properties = tool.schema.get("properties", {}) if isinstance(tool.schema, dict) else {}
    return {name for name in properties if f" {_words(name)} " in said}


_SHOWN_KEY = re.compile(r"(?:^|[|,\n]|\d\.)\s*([a-z][a-z _]{0,24}?):\s", re.IGNORECASE)
_PARTS = re.compile(r",|;|\band\b")


def shown_keys(texts: Sequence[str]) -> frozenset[str]:
    """The keys of the ``key: value`` lines the worker was shown (``from`` in "id: 4, from:
    Riverside Leisure Centre", ``time now`` in the facts), lower case."""
    return frozenset(
        match.group(1).strip().lower() for text in texts for match in _SHOWN_KEY.finditer(text)
    )


def names_no_parameter(tool: Tool, what: str) -> bool:
    """Whether a ``missing`` text names none of the tool's parameters, neither by name nor by
    a word of a parameter's name or description ("time" beside ``start_time``, "balance"
    beside "amount ... from the balance": what the model lacks under another name)."""
    if named_parameters(tool, what):
        return False
    parts = [part.strip().lower() for part in _PARTS.split(what)]
    parts = [part for part in parts if part]
    if not parts:
        return False
    properties = tool.schema.get("properties", {}) if isinstance(tool.schema, dict) else {}
    described = {
        word
        for name, spec in properties.items()
        for word in _words(
            f"{name} {spec.get('description', '') if isinstance(spec, dict) else ''}"
        ).split()
        if len(word) > 2
    }
    return not any(set(_words(part).split()) & described for part in parts)


def names_only_shown_keys(tool: Tool, missing: Missing, keys: frozenset[str]) -> bool:
    """Whether a write's ``missing`` names only keys of lines the worker was shown — none of
    them a parameter — while every required value is given: "missing: from" on
    ``archive_email(email_id=4)`` after a search showed "from: Riverside Leisure Centre",
    "missing: time now" from the facts. The 1.5B model copies a key it read into
    ``missing``; the call lacks nothing it can take, and is made (docs/design.md, "What
    missing means"). A key that may be a parameter under another name
    (:func:`names_no_parameter`) makes the write wait."""
    if not tool.writes or not names_no_parameter(tool, missing.what):
        return False
    if unfilled_required(tool, missing.values):
        return False
    parts = [part.strip().lower() for part in _PARTS.split(missing.what)]
    return all(part in keys for part in parts if part)


def _missing_is_moot(tool: Tool, what: str, data: dict[str, Any]) -> bool:
    """Whether a ``missing`` text leaves the call able to run: every required value is given,
    and the call is a read, or what it names are only optional parameters."""
    required = set(tool.schema.get("required", []))
    if any(data.get(name) is None for name in required):
        return False
    if not tool.writes:
        return True
    named = named_parameters(tool, what)
    return bool(named) and not (named & required)


def _drop_empty_optionals(tool: Tool, data: dict[str, Any], ask: str) -> dict[str, Any]:
    """Optional values filled with nothing — ``""``, ``[]``, ``{}``, or a 0 the ask never
    says — are left out, so the tool's own default applies (the 1.5B model writes
    ``max_price_eur: 0`` for "any price")."""
    required = set(tool.schema.get("required", []))
    cleaned: dict[str, Any] = {}
    for name, value in data.items():
        if name not in required:
            if isinstance(value, (str, list, dict)) and not (
                value.strip() if isinstance(value, str) else value
            ):
                continue
            if (
                isinstance(value, (int, float))
                and not isinstance(value, bool)
                and value == 0
                and not _zero_said(name, ask)
            ):
                continue
        cleaned[name] = value
    return cleaned


def _is_nothing(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, list):
        return all(_is_nothing(item) for item in value)
    return isinstance(value, str) and value.strip().strip(".").lower() in _NOTHING_MISSING


async def request_arguments(
    caller: ModelCaller,
    tool: Tool,
    *,
    system: str,
    prompt: Callable[[bool], str],
    ask: str = "",
) -> Arguments | Missing | Malformed:
    """One arguments call; provider failures other than malformed output propagate. ``ask``
    is the user's ask, which says whether a 0 the model wrote was meant."""
    try:
        generation = await caller.call(
            "arguments", system, prompt, arguments_schema(tool), compactable=False
        )
    except Exception as exc:
        if origin_of(exc) == "model" and is_invalid_output(exc):
            return Malformed(str(exc))
        raise
    try:
        data = json.loads(generation.text, strict=False)
    except ValueError:
        return Malformed("the reply was not JSON")
    if not isinstance(data, dict):
        return Malformed("the reply was not a JSON object")
    missing = data.pop("missing", None)
    data = _drop_empty_optionals(tool, _drop_not_given(tool, data), ask)
    blank = blank_required(tool, data)
    if not _is_nothing(missing):
        what = ", ".join(map(str, missing)) if isinstance(missing, list) else str(missing)
        if blank or not _missing_is_moot(tool, what, data):
            return Missing(what.strip(), data)
    if blank:  # "nothing missing", yet a required value is empty: it is missing after all
        return Missing(", ".join(blank), data)
    try:
        return Arguments(validate_arguments(tool, data))
    except pydantic.ValidationError as error:
        return Malformed(_validation_text(error))
