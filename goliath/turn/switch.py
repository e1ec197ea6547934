"""An on/off switch takes the side the user's verb says: "switch it off" is ``on: false``.

The 1.5B model fills a switch's boolean from the words nearest it, and an ask that states the
condition before the request ("if the porch light is still on, switch it off") got ``on:
true`` — the light would stay on, and the confirmation would show a write nobody asked for.
The request says the side with a verb and its particle ("turn off", "switch the lamp on", "shut
it off"); a state said without such a verb ("it is still on") says nothing about the change.
When every such phrase in the ask names the same side, a boolean parameter that means "on"
(``on``, ``enabled``, ``power``, or one whose description says true switches it on) is set to
it. An ask that says both ("turn on the lamp and turn off the fan") is left to the model.
Switched off, the write keeps no optional number the ask does not say: the worker copied
``brightness: 100`` from another light's line, and the tool refused it for a light going off.
No model call; the person confirms the write with the value as set.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..tools import Tool
from .words import words

__all__ = ["switched"]

_VERB_THEN_SIDE = re.compile(
    r"\b(?:switch|turn|shut|flip|put|power)(?:ed|ing|s)?\b(?:\s+[\w'-]+){0,4}?\s+(?P<side>on|off)\b",
    re.IGNORECASE,
)
_ON_NAMES = frozenset({"on", "enabled", "enable", "power", "powered", "active", "lit"})
_TRUE_MEANS_ON = re.compile(r"\btrue\b[^.;]*\b(?:on|enables?|enabled)\b", re.IGNORECASE)


def _side(ask: str) -> bool | None:
    """``True`` for "on", ``False`` for "off", ``None`` when the ask's verbs say neither or
    both."""
    sides = {match["side"].lower() for match in _VERB_THEN_SIDE.finditer(ask)}
    if len(sides) != 1:
        return None
    return sides.pop() == "on"


def _means_on(name: str, spec: Any) -> bool:
    if not isinstance(spec, Mapping) or spec.get("type") != "boolean":
        return False
    if set(words(name)) & _ON_NAMES:
        return True
    return _TRUE_MEANS_ON.search(str(spec.get("description", ""))) is not None


def switched(tool: Tool, values: Mapping[str, Any], ask: str) -> dict[str, Any]:
    """``values`` with every given boolean of the write ``tool`` that means "on" set to the
    side the ask's verb names ("turn it off" → ``False``), when the ask names one side."""
    out = dict(values)
    if not tool.writes:
        return out
    side = _side(ask)
    if side is None:
        return out
    schema = tool.schema if isinstance(tool.schema, dict) else {}
    properties = schema.get("properties") or {}
    switches = [
        name
        for name, spec in properties.items()
        if name in out and isinstance(out[name], bool) and _means_on(name, spec)
    ]
    for name in switches:
        out[name] = side
    if switches and not side:  # off is all there is to it: "brightness: 100" read off a list
        required = set(schema.get("required") or [])
        said = ask.lower()
        for name in list(out):
            value = out[name]
            if (
                name not in required
                and isinstance(value, (int, float))
                and not isinstance(value, bool)
                and re.search(rf"(?<![\d.]){re.escape(_plain(value))}(?![\d])", said) is None
            ):
                del out[name]
    return out


def _plain(number: float) -> str:
    return str(int(number)) if float(number).is_integer() else str(number)
