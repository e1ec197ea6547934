"""Script builders, tool sets and spec reference functions for the conformance suite.

The reference functions (``ref_estimate``, ``ref_clip_tokens``, ``ref_clip``) are written from
the rules in their docstrings, independently of ``goliath.budget``/``goliath.compress``, so a test
can compute the exact text the rules demand.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

import pydantic

from goliath import Agent, Exchange, MemoryState, RunResult, StepRecord, Tool, ToolContext, tool
from goliath.memory import InMemory
from goliath.schema import DONE, HAND_OFF
from goliath.testing import FakeModel

# ---------------------------------------------------------------- script entries


def use(tool_name: str) -> dict[str, Any]:
    """A conductor reply choosing ``tool_name`` alone (``{"call": NAME}``): as a turn's first
    plan too, so the turn asks again for each next step."""
    return {"json": {"call": tool_name}}


def answer_plan() -> dict[str, Any]:
    """A conductor reply that answers now."""
    return {"json": {"call": DONE}}


def hand_off() -> dict[str, Any]:
    """A conductor reply that hands the turn over (escalates ``conductor-asked``)."""
    return {"json": {"call": HAND_OFF}}


def args(**values: Any) -> dict[str, Any]:
    """An arguments reply."""
    return {"json": values}


def text(value: str) -> dict[str, Any]:
    return {"text": value}


def fail(error: BaseException) -> dict[str, Any]:
    return {"error": error}


# ---------------------------------------------------------------- running


async def run_turn(
    model: Any,
    ask: str = "what is on my list?",
    *,
    run: dict[str, Any] | None = None,
    **config: Any,
) -> RunResult:
    """Build an agent, start it with ``async with``, run one turn, stop it.

    Writes run without a handler here (``auto_approve=True``, the original's default) unless a
    test says otherwise: these rules are about other things; test_confirmation.py checks that
    writes fail closed by default (D11).
    """
    config.setdefault("auto_approve", True)
    agent = Agent(model, **config)
    async with agent:
        return await agent.run(ask, **(run or {}))


def events(result: RunResult, kind: str) -> list[Any]:
    """The trace events of one type, in order."""
    return [event for event in result.trace if event.type == kind]


def types(result: RunResult) -> list[str]:
    return [event.type for event in result.trace]


def reasons(result: RunResult) -> list[str]:
    return [event.reason for event in events(result, "escalate")]


def labels(model: FakeModel) -> list[str]:
    return [call.label for call in model.calls]


def offered_tools(call: Any) -> list[str]:
    """The tool names a planning call offers: its ``call`` enum without the plan's options
    (docs/design.md, "The plan")."""
    from goliath.schema import NO_TOOL

    enum = call.schema["properties"]["call"]["enum"]
    return [name for name in enum if name not in (NO_TOOL, DONE, HAND_OFF)]


def calls(model: FakeModel, label: str) -> list[Any]:
    return [call for call in model.calls if call.label == label]


class RecordingFallback:
    """A fallback that records each request and answers with a fixed text."""

    def __init__(self, reply: Any = "cloud answer") -> None:
        self.reply = reply
        self.requests: list[Any] = []

    async def __call__(self, request: Any) -> Any:
        self.requests.append(request)
        return self.reply


class Recorder:
    """A list-backed ``on_event`` callback."""

    def __init__(self) -> None:
        self.seen: list[Any] = []

    def __call__(self, event: Any) -> None:
        self.seen.append(event)


def exchange(ask: str, answer: str, *, at: float = 1.0, **extra: Any) -> Exchange:
    return Exchange(ask=ask, answer=answer, at=at, **extra)


def memory_with(summary: str = "", recent: Iterable[Exchange] = ()) -> InMemory:
    return InMemory(MemoryState(summary=summary, recent=list(recent)))


# ---------------------------------------------------------------- tools


class TaskBox:
    """A task list and tools over it; ``runs`` counts executions per tool name."""

    def __init__(self) -> None:
        self.tasks: list[dict[str, Any]] = [{"title": "Buy milk"}, {"title": "Call mom"}]
        self.runs: dict[str, int] = {}
        self.inputs: dict[str, list[Any]] = {}
        box = self

        @tool
        def list_tasks() -> list[dict[str, Any]]:
            """List the tasks."""
            box._count("list_tasks", {})
            return [dict(task) for task in box.tasks]

        @tool(writes=True)
        def create_task(title: str) -> dict[str, Any]:
            """Add a task."""
            box._count("create_task", {"title": title})
            box.tasks.append({"title": title})
            return {"ok": True, "title": title}

        @tool
        def search(query: str, limit: int = 5) -> list[dict[str, Any]]:
            """Search the tasks."""
            box._count("search", {"query": query, "limit": limit})
            return [t for t in box.tasks if query.lower() in t["title"].lower()][:limit]

        self.list_tasks = list_tasks
        self.create_task = create_task
        self.search = search

    def _count(self, name: str, value: Any) -> None:
        self.runs[name] = self.runs.get(name, 0) + 1
        self.inputs.setdefault(name, []).append(value)

    def ran(self, name: str) -> int:
        return self.runs.get(name, 0)

    @property
    def tools(self) -> list[Tool]:
        return [self.list_tasks, self.create_task, self.search]


class Empty(pydantic.BaseModel):
    """No arguments."""


class Query(pydantic.BaseModel):
    query: str


def make_tool(
    name: str,
    execute: Callable[[dict[str, Any], ToolContext], Any],
    *,
    parameters: type[pydantic.BaseModel] = Empty,
    description: str | None = None,
    **options: Any,
) -> Tool:
    """A ``Tool`` built directly (execute receives the arguments dict and the context)."""
    return Tool(name, description or f"The {name} tool.", parameters, execute, **options)


def step(index: int, tool_name: str, result: str, **extra: Any) -> StepRecord:
    return StepRecord(index=index, kind="tool", brief="b", tool=tool_name, result=result, **extra)


# ---------------------------------------------------------------- spec reference functions


def ref_estimate(value: str) -> int:
    """``ceil(ascii/4 × 1.15)`` plus the UTF-8 bytes of every non-ASCII character."""
    ascii_chars = sum(1 for char in value if ord(char) <= 0x7F)
    other = sum(len(char.encode("utf-8")) for char in value if ord(char) > 0x7F)
    return math.ceil(ascii_chars / 4 * 1.15) + other


def _longest_prefix(value: str, budget: int, suffix: str) -> int:
    """The longest prefix length (code points) with ``estimate(prefix + suffix) <= budget``."""
    suffix_ascii = sum(1 for char in suffix if ord(char) <= 0x7F)
    suffix_other = ref_estimate(suffix) - math.ceil(suffix_ascii / 4 * 1.15)
    ascii_chars, other, best = suffix_ascii, suffix_other, 0
    if math.ceil(ascii_chars / 4 * 1.15) + other > budget:
        return -1
    for length, char in enumerate(value, start=1):
        if ord(char) <= 0x7F:
            ascii_chars += 1
        else:
            other += len(char.encode("utf-8"))
        if math.ceil(ascii_chars / 4 * 1.15) + other > budget:
            break
        best = length
    return best


def ref_clip_tokens(value: str, budget: int) -> str:
    """The longest prefix such that ``estimate(prefix + "…") <= budget``."""
    if ref_estimate(value) <= budget:
        return value
    if budget < ref_estimate("…"):
        return ""
    return value[: _longest_prefix(value, budget, "…")] + "…"


def ref_clip(value: str, limit: int) -> str:
    """Text over ``limit`` characters: its first ``limit - 1``, trailing space trimmed, plus '…'."""
    if len(value) <= limit:
        return value
    return value[: limit - 1].rstrip() + "…"


EXCERPT_MARKER = "\n[excerpt truncated]"
EXCERPT_OMITTED = "(earlier excerpt omitted; read the file again if needed)"


def ref_fit_excerpt(value: str, budget: int) -> str:
    """A content result over ``budget`` tokens: the longest prefix that fits with the marker."""
    if ref_estimate(value) <= budget:
        return value
    return value[: _longest_prefix(value, budget, EXCERPT_MARKER)] + EXCERPT_MARKER


def new_model(script: Iterable[Any]) -> FakeModel:
    return FakeModel(list(script))
