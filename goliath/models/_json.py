"""JSON helpers shared by the bridges: bounded strings, the schema note, parsing replies.

Small models given a free string loop inside it until the token cap and leave the JSON
unterminated, so every string without a bound gets a ``maxLength`` before the schema becomes a
grammar or a response format. Replies are parsed with ``strict=False`` because grammars admit
raw newlines inside strings.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .._util import compact_json
from ..errors import ConfigError, InvalidOutputError

__all__ = [
    "check_max_length",
    "limit_strings",
    "max_length_for",
    "parse_reply",
    "with_schema_note",
]

_UNBOUNDED_MARKERS = ("maxLength", "enum", "const", "pattern", "format")
_SUBSCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SUBSCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties")
_SUBSCHEMAS = ("items", "additionalProperties", "not", "if", "then", "else", "contains")


def check_max_length(option: object, bridge: str) -> int | None:
    """A bridge's ``max_string_length`` option, checked: ``None`` or one int for every call.

    The caps per stage belong to the caller and come with each request
    (``GenerateRequest.max_string_length``); the option overrides them all, ``0`` meaning "add
    no bound" (for servers that reject ``maxLength``).
    """
    if option is None:
        return None
    if isinstance(option, Mapping):
        raise ConfigError(
            f"{bridge}(max_string_length=...) is one int for every call now, not a mapping by "
            "stage: each request carries its stage's cap (GenerateRequest.max_string_length, "
            "from goliath/turn/stages.py). Pass an int to override them all, or leave it out."
        )
    if isinstance(option, bool) or not isinstance(option, int) or option < 0:
        raise ConfigError(
            f"{bridge}(max_string_length=...) must be an int ≥ 0 (0: no bound), got {option!r}."
        )
    return option


def max_length_for(option: int | None, request_cap: int) -> int:
    """The ``maxLength`` a request's free strings get: the bridge's override, else its own."""
    return request_cap if option is None else option


def limit_strings(schema: Any, max_length: int) -> Any:
    """A copy of ``schema`` where every unbounded string has ``maxLength: max_length``.

    ``max_length <= 0`` leaves the schema as it is.
    """
    if max_length <= 0:
        return schema
    if isinstance(schema, list):
        return [limit_strings(item, max_length) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _SUBSCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: limit_strings(sub, max_length) for name, sub in value.items()}
        elif key in _SUBSCHEMA_LISTS and isinstance(value, list):
            out[key] = [limit_strings(sub, max_length) for sub in value]
        elif key in _SUBSCHEMAS and isinstance(value, dict):
            out[key] = limit_strings(value, max_length)
        else:
            out[key] = value
    kind = out.get("type")
    is_string = kind == "string" or (isinstance(kind, list) and "string" in kind)
    if is_string and not any(marker in out for marker in _UNBOUNDED_MARKERS):
        out["maxLength"] = max_length
    return out


def with_schema_note(system: str, schema: Mapping[str, Any] | None) -> str:
    """The system prompt with the reply's JSON Schema appended, as Apple's SDK does.

    The harness's prompts say "matching the schema" and count the schema in their budget; a
    grammar constrains the tokens but does not tell the model what the fields mean.
    """
    if schema is None:
        return system
    return f"{system}\nReply with JSON matching this schema: {compact_json(schema)}"


def parse_reply(text: str, *, finished: bool, max_output_tokens: int) -> Any:
    """Parse a constrained reply or raise :class:`InvalidOutputError` saying why it is not JSON."""
    if not finished:
        raise InvalidOutputError(
            f"The reply reached the output cap of {max_output_tokens} tokens before its JSON was "
            f"complete (it starts {text[:80]!r}); a string probably ran on."
        )
    try:
        return json.loads(text, strict=False)
    except json.JSONDecodeError as exc:
        raise InvalidOutputError(f"The reply is not valid JSON ({exc}): {text[:120]!r}") from exc
