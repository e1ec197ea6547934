"""The extension phases of a turn: what each hook sees, may change, and how it is checked.

Each method runs one phase's hooks through the :class:`~goliath.turn.hooks.ExtensionRunner`
and returns the turn's data as the hooks leave it; without extensions it returns its input
untouched. Validation lives here: a patch of the wrong shape is an
:class:`~goliath.errors.ExtensionError`, never a silently odd turn.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from ..extensions import Skip
from ..memory.codec import copy_state
from ..records import Exchange, FallbackRequest, MemoryState, StepRecord
from ..tools import Tool
from .arguments import validate_arguments
from .conductor import Plan, checked_plan
from .hooks import Denied, ExtensionRunner

__all__ = ["Phases", "memory_from", "tool_info"]


class Phases:
    """One turn's extension phases."""

    def __init__(self, runner: ExtensionRunner) -> None:
        self.runner = runner

    async def before_run(
        self, ask: str, instructions: str, facts: dict[str, str]
    ) -> tuple[str, str, dict[str, str]]:
        """``ask``, ``instructions`` and ``facts`` as the hooks leave them (facts merge)."""
        if not self.runner.active:
            return ask, instructions, facts

        def validate(patch: dict[str, Any], current: dict[str, Any]) -> dict[str, Any]:
            for key in ("ask", "instructions"):
                if key in patch and not isinstance(patch[key], str):
                    raise TypeError(f"{key} must be a string")
            if "facts" in patch:
                if not isinstance(patch["facts"], Mapping):
                    raise TypeError("facts must be a dict of strings")
                patch = {**patch, "facts": {**current["facts"], **patch["facts"]}}
            return patch

        patch, _ = await self.runner.transform(
            "before_run",
            {"ask": ask, "instructions": instructions, "facts": facts},
            frozenset({"ask", "instructions", "facts"}),
            validate=validate,
        )
        return (
            patch.get("ask", ask),
            patch.get("instructions", instructions),
            dict(patch.get("facts", facts)),
        )

    async def after_recall(self, memory: MemoryState) -> MemoryState:
        """The working view of memory for this run (never saved)."""
        if not self.runner.active:
            return memory

        def validate(patch: dict[str, Any], _current: dict[str, Any]) -> dict[str, Any]:
            return {"memory": memory_from(patch["memory"])}

        patch, _ = await self.runner.transform(
            "after_recall", {"memory": memory}, frozenset({"memory"}), validate=validate
        )
        return patch.get("memory", memory)  # type: ignore[no-any-return]

    async def before_plan(
        self, tools: list[Tool], ask: str, steps: list[StepRecord], attempt: int
    ) -> tuple[list[Tool], str | None]:
        """The tools this plan may use (hooks can only remove) and extra context text."""
        available = list(tools)
        if not self.runner.active:
            return available, None
        descriptors = [
            {"name": t.name, "description": t.description, "writes": t.writes} for t in available
        ]
        names = [t.name for t in available]
        context_text: str | None = None

        def validate(patch: dict[str, Any], current: dict[str, Any]) -> dict[str, Any]:
            out: dict[str, Any] = {}
            if "tools" in patch:
                kept = patch["tools"]
                if not isinstance(kept, (list, tuple)) or not all(isinstance(n, str) for n in kept):
                    raise TypeError("tools must be a list of tool names")
                allowed = {d["name"] for d in current["tools"]}
                out["tools"] = [
                    d for d in current["tools"] if d["name"] in kept and d["name"] in allowed
                ]
            if "context_text" in patch:
                if not isinstance(patch["context_text"], str):
                    raise TypeError("context_text must be a string")
                out["context_text"] = patch["context_text"]
            return out

        patch, _ = await self.runner.transform(
            "before_plan",
            {
                "ask": ask,
                "tools": descriptors,
                "context_text": context_text,
                "steps": steps,
                "attempt": attempt,
            },
            frozenset({"tools", "context_text"}),
            validate=validate,
        )
        if "tools" in patch:
            kept_names = {d["name"] for d in patch["tools"]}
            available = [t for t in available if t.name in kept_names and t.name in names]
        return available, patch.get("context_text", context_text)

    async def after_plan(
        self, plan: Plan, available: list[Tool], steps: list[StepRecord], attempt: int
    ) -> Plan:
        """The plan as the hooks leave it: each sees the :class:`Plan` itself and may return
        another, whose tool must be available (``checked_plan``)."""
        if not self.runner.active:
            return plan

        def validate(patch: dict[str, Any], _current: dict[str, Any]) -> dict[str, Any]:
            return {"plan": checked_plan(patch["plan"], available)}

        patch, _ = await self.runner.transform(
            "after_plan",
            {
                "plan": plan,
                "tools": [tool_info(t) for t in available],
                "steps": steps,
                "attempt": attempt,
            },
            frozenset({"plan"}),
            validate=validate,
        )
        return patch.get("plan", plan)  # type: ignore[no-any-return]

    async def before_tool(
        self, tool: Tool, tool_input: dict[str, Any], brief: str, steps: list[StepRecord]
    ) -> dict[str, Any] | Denied:
        """The input to use (re-validated), or the extension's refusal."""
        if not self.runner.active:
            return tool_input

        def validate(patch: dict[str, Any], _current: dict[str, Any]) -> dict[str, Any]:
            return {"input": validate_arguments(tool, patch["input"])}

        patch, decision = await self.runner.transform(
            "before_tool",
            {"tool": tool_info(tool), "input": tool_input, "brief": brief, "steps": steps},
            frozenset({"input"}),
            validate=validate,
            deny=True,
        )
        if isinstance(decision, Denied):
            return decision
        return patch.get("input", tool_input)  # type: ignore[no-any-return]

    async def after_tool(
        self,
        tool: Tool,
        tool_input: Any,
        text: str,
        outcome: dict[str, Any],
        steps: list[StepRecord],
    ) -> str:
        """The result text the model will see (presentation only; the outcome stands)."""
        if not self.runner.active:
            return text

        def validate(patch: dict[str, Any], _current: dict[str, Any]) -> dict[str, Any]:
            if not isinstance(patch["result"], str):
                raise TypeError("result must be a string")
            return patch

        patch, _ = await self.runner.transform(
            "after_tool",
            {
                "tool": tool_info(tool),
                "input": tool_input,
                "result": text,
                "outcome": outcome,
                "steps": steps,
            },
            frozenset({"result"}),
            validate=validate,
        )
        return patch.get("result", text)  # type: ignore[no-any-return]

    async def before_fallback(self, request: FallbackRequest) -> FallbackRequest:
        """The hand-off as the hooks leave it (its reason cannot change)."""
        if not self.runner.active:
            return request

        def validate(patch: dict[str, Any], current: dict[str, Any]) -> dict[str, Any]:
            value = patch["request"]
            if isinstance(value, dict):
                value = msgspec.convert(value, FallbackRequest)
            if not isinstance(value, FallbackRequest):
                raise TypeError("request must be a FallbackRequest or a dict of its fields")
            if value.reason != current["request"].reason:
                raise ValueError("request.reason cannot be changed")
            return {"request": value}

        patch, _ = await self.runner.transform(
            "before_fallback", {"request": request}, frozenset({"request"}), validate=validate
        )
        return patch.get("request", request)  # type: ignore[no-any-return]

    async def after_answer(
        self, text: str, handled_by: str, best_effort: bool, steps: list[StepRecord]
    ) -> str:
        """The final text as the hooks leave it (never blank)."""
        if not self.runner.active:
            return text

        def validate(patch: dict[str, Any], _current: dict[str, Any]) -> dict[str, Any]:
            if not isinstance(patch["text"], str) or not patch["text"].strip():
                raise ValueError("text must be a non-blank string")
            return patch

        patch, _ = await self.runner.transform(
            "after_answer",
            {
                "text": text,
                "handled_by": handled_by,
                "best_effort": best_effort,
                "steps": steps,
            },
            frozenset({"text"}),
            validate=validate,
        )
        return patch.get("text", text)  # type: ignore[no-any-return]

    async def before_remember(self, memory: MemoryState, exchange: Exchange) -> MemoryState | None:
        """The memory to save, or ``None`` when a hook skipped saving."""
        if not self.runner.active:
            return memory

        def validate(patch: dict[str, Any], _current: dict[str, Any]) -> dict[str, Any]:
            return {"memory": memory_from(patch["memory"])}

        patch, decision = await self.runner.transform(
            "before_remember",
            {"memory": memory, "exchange": exchange},
            frozenset({"memory"}),
            validate=validate,
            skip=True,
        )
        if isinstance(decision, Skip):
            return None
        return patch.get("memory", memory)  # type: ignore[no-any-return]


def memory_from(value: Any) -> MemoryState:
    if isinstance(value, MemoryState):
        return copy_state(value)
    if isinstance(value, dict):
        return msgspec.convert(value, MemoryState)
    raise TypeError(f"memory must be a MemoryState; got {value!r}")


def tool_info(tool: Tool) -> dict[str, Any]:
    return {"name": tool.name, "description": tool.description, "writes": tool.writes}
