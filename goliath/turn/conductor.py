"""The conductor: picks the next step, one at a time, from a flat enum-constrained plan.

The plan has four fields in generation order — ``why`` (the deciding fact, first so the model
reasons before it commits), ``kind``, ``tool`` (an enum of the available names) and ``brief``
(the one-line instruction the worker will follow).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, Literal

import attrs

from .._origin import origin_of
from ..classify import is_invalid_output
from ..schema import plan_schema
from .generation import ModelCaller

__all__ = ["InvalidPlan", "Plan", "parse_plan", "plan_from_patch", "request_plan"]

PlanKind = Literal["tool", "answer", "escalate"]


@attrs.frozen
class Plan:
    kind: PlanKind
    brief: str
    tool: str | None = None
    why: str | None = None

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind, "brief": self.brief}
        if self.tool is not None:
            data["tool"] = self.tool
        if self.why is not None:
            data["why"] = self.why
        return data


@attrs.frozen
class InvalidPlan:
    """A malformed plan, the hint the retry will carry, and whether it lacked a tool name."""

    hint: str
    needs_tool: bool = False


def _names(tool_names: Sequence[str]) -> str:
    return ", ".join(tool_names)


def _malformed_hint(tool_names: Sequence[str]) -> str:
    return (
        'Your last reply was not a valid plan. Reply with JSON fields "kind", "tool" and "brief"; '
        f'"tool" must be one of: {_names(tool_names)}. Or leave "tool" out and answer.'
    )


def _unknown_tool_hint(name: object, tool_names: Sequence[str]) -> str:
    shown = name if isinstance(name, str) and name else "(none)"
    return f"There is no tool {shown}. Pick one of: {_names(tool_names)}. Or answer."


def parse_plan(text: str, tool_names: Sequence[str]) -> Plan | InvalidPlan:
    try:
        data = json.loads(text, strict=False)
    except ValueError:
        return InvalidPlan(_malformed_hint(tool_names))
    if (
        not isinstance(data, dict)
        or data.get("kind") not in ("tool", "answer", "escalate")
        or not isinstance(data.get("brief"), str)
        or not isinstance(data.get("why", ""), (str, type(None)))
    ):
        return InvalidPlan(_malformed_hint(tool_names))
    tool = data.get("tool")
    if data["kind"] == "tool" and (not isinstance(tool, str) or tool not in tool_names):
        return InvalidPlan(_unknown_tool_hint(tool, tool_names), needs_tool=True)
    return Plan(
        kind=data["kind"],
        brief=data["brief"].strip(),
        tool=tool if data["kind"] == "tool" else None,
        why=(data.get("why") or "").strip() or None,
    )


def plan_from_patch(value: Any, tool_names: Sequence[str]) -> Plan:
    """Validate a plan an ``after_plan`` hook returned (a dict or a :class:`Plan`)."""
    if isinstance(value, Plan):
        value = value.as_dict()
    if not isinstance(value, dict):
        raise ValueError(f"plan must be a dict with kind, tool and brief; got {value!r}")
    parsed = parse_plan(json.dumps(value), tool_names)
    if isinstance(parsed, InvalidPlan):
        raise ValueError(f"invalid plan {value!r}: {parsed.hint}")
    return parsed


async def request_plan(
    caller: ModelCaller,
    *,
    system: str,
    prompt: Callable[[bool], str],
    tool_names: Sequence[str],
    require_tool: bool = False,
) -> Plan | InvalidPlan:
    """One conductor call. Provider failures other than malformed output propagate."""
    schema = plan_schema(list(tool_names), require_tool=require_tool)
    try:
        generation = await caller.call("conductor", system, prompt, schema, compactable=True)
    except Exception as exc:
        if origin_of(exc) == "model" and is_invalid_output(exc):
            return InvalidPlan(_malformed_hint(tool_names))
        raise
    return parse_plan(generation.text, tool_names)
