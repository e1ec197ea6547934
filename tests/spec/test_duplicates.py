"""Duplicate tool calls."""

from __future__ import annotations

from typing import Any

import pydantic

from goliath import Agent, Deny, Extension
from goliath.testing import FakeModel

from .helpers import (
    RecordingFallback,
    TaskBox,
    answer_plan,
    args,
    events,
    make_tool,
    reasons,
    run_turn,
    text,
    use,
)


class Range(pydantic.BaseModel):
    start: int
    end: int


def counting_reader(name: str = "read_range", **options: Any) -> tuple[Any, list[Any]]:
    executions: list[Any] = []

    def read(arguments: dict[str, Any], ctx: Any) -> list[int]:
        executions.append(dict(arguments))
        return list(range(arguments["start"], arguments["end"]))

    return make_tool(name, read, parameters=Range, **options), executions


async def test_repeated_read_is_served_from_cache_in_any_key_order() -> None:
    """A repeated successful read (any key order) is cached: 'same as step 1', ms 0."""
    reader, executions = counting_reader()
    model = FakeModel(
        [
            use("read_range"),
            args(start=1, end=3),
            use("read_range"),
            {"json": {"end": 3, "start": 1}},
            answer_plan(),
            text("1 and 2."),
        ]
    )
    result = await run_turn(model, tools=[reader])
    first, second = result.steps[:2]
    assert executions == [{"start": 1, "end": 3}]
    assert second.cached is True
    assert second.result == "same as step 1"
    assert second.output == first.output == [1, 2]
    tool_events = events(result, "tool")
    assert tool_events[1].ms == 0
    assert tool_events[1].result == "same as step 1"
    assert reasons(result) == []


async def test_cached_step_names_the_earlier_step_number(box: TaskBox) -> None:
    """N in 'same as step N' is the earlier step's index + 1."""
    model = FakeModel(
        [
            use("search"),
            args(query="milk"),
            use("list_tasks"),
            use("list_tasks"),
            answer_plan(),
            text("Ok."),
        ]
    )
    result = await run_turn(model, tools=box.tools)
    assert result.steps[2].result == "same as step 2"
    assert box.ran("list_tasks") == 1


async def test_third_identical_read_escalates_repeated_tool_call(box: TaskBox) -> None:
    """A third identical read (after a cached one) escalates repeated-tool-call."""
    model = FakeModel([use("list_tasks"), use("list_tasks"), use("list_tasks")])
    result = await run_turn(model, tools=box.tools, fallback=RecordingFallback())
    assert reasons(result) == ["repeated-tool-call"]
    assert box.ran("list_tasks") == 1
    assert len(result.steps) == 2


async def test_identical_write_escalates_before_confirmation(box: TaskBox) -> None:
    """An identical write escalates repeated-tool-call before confirm or execution."""
    asked: list[Any] = []
    model = FakeModel(
        [use("create_task"), args(title="Eggs"), use("create_task"), args(title="Eggs")]
    )
    result = await run_turn(
        model,
        tools=box.tools,
        confirm=lambda request: asked.append(request) or True,
        fallback=RecordingFallback(),
    )
    assert reasons(result) == ["repeated-tool-call"]
    assert len(asked) == 1
    assert box.ran("create_task") == 1
    assert len(events(result, "confirm")) == 1


async def test_identical_write_after_a_decline_escalates(box: TaskBox) -> None:
    """A write identical to an earlier declined one escalates repeated-tool-call."""
    asked: list[Any] = []
    model = FakeModel(
        [use("create_task"), args(title="Eggs"), use("create_task"), args(title="Eggs")]
    )
    result = await run_turn(
        model,
        tools=box.tools,
        confirm=lambda request: asked.append(request) or False,
        fallback=RecordingFallback(),
    )
    assert reasons(result) == ["repeated-tool-call"]
    assert len(asked) == 1
    assert box.ran("create_task") == 0


async def test_read_after_an_identical_failed_read_escalates() -> None:
    """An identical read after a failed identical read escalates repeated-tool-call."""
    attempts: list[int] = []

    def flaky(arguments: dict[str, Any], ctx: Any) -> Any:
        attempts.append(1)
        raise RuntimeError("timeout")

    model = FakeModel([use("fetch"), use("fetch")])
    result = await run_turn(model, tools=[make_tool("fetch", flaky)], fallback=RecordingFallback())
    assert reasons(result) == ["repeated-tool-call"]
    assert attempts == [1]


async def test_read_after_an_identical_skipped_read_escalates(box: TaskBox) -> None:
    """An identical read after a skipped (policy) identical read escalates."""

    class DenyOnce(Extension):
        name = "deny-once"

        def before_tool(self, ctx: Any) -> Any:
            if not ctx.state.get("denied"):
                ctx.state["denied"] = True
                return Deny("not yet")
            return None

    model = FakeModel([use("list_tasks"), use("list_tasks")])
    result = await run_turn(
        model, tools=box.tools, extensions=[DenyOnce()], fallback=RecordingFallback()
    )
    assert result.steps[0].skip_reason == "policy"
    assert reasons(result) == ["repeated-tool-call"]
    assert box.ran("list_tasks") == 0


async def test_write_between_identical_reads_invalidates_the_cache(box: TaskBox) -> None:
    """A non-skipped write between two identical reads makes the second read execute."""
    model = FakeModel(
        [
            use("list_tasks"),
            use("create_task"),
            args(title="Eggs"),
            use("list_tasks"),
            answer_plan(),
            text("Three."),
        ]
    )
    result = await run_turn(model, tools=box.tools)
    assert box.ran("list_tasks") == 2
    assert result.steps[2].cached is False
    assert "3. title: Eggs" in result.steps[2].result


async def test_failed_write_also_invalidates_the_cache(box: TaskBox) -> None:
    """A failed (non-skipped) write also invalidates cached reads."""

    def broken_write(arguments: dict[str, Any], ctx: Any) -> Any:
        raise RuntimeError("disk full")

    model = FakeModel(
        [use("list_tasks"), use("wipe"), use("list_tasks"), answer_plan(), text("Ok.")]
    )
    result = await run_turn(
        model, tools=[box.list_tasks, make_tool("wipe", broken_write, writes=True)]
    )
    assert result.steps[1].failed is True
    assert box.ran("list_tasks") == 2
    assert result.steps[2].cached is False


async def test_declined_write_does_not_invalidate_the_cache(box: TaskBox) -> None:
    """A skipped write does not invalidate an earlier read; the repeat is cached."""
    model = FakeModel(
        [
            use("list_tasks"),
            use("create_task"),
            args(title="Eggs"),
            use("list_tasks"),
            answer_plan(),
            text("Two."),
        ]
    )
    result = await run_turn(model, tools=box.tools, confirm=lambda request: False)
    assert box.ran("list_tasks") == 1
    assert result.steps[2].cached is True
    assert result.steps[2].result == "same as step 1"


async def test_content_mode_cached_read_repeats_the_excerpt() -> None:
    """A cached content-mode read returns the earlier excerpt, not 'same as step N'."""
    reader, executions = counting_reader(
        "read_file", output_mode="content", to_model_output=lambda o: "line one\nline two"
    )
    model = FakeModel(
        [
            use("read_file"),
            args(start=0, end=2),
            use("read_file"),
            args(start=0, end=2),
            answer_plan(),
            text("Ok."),
        ]
    )
    result = await run_turn(model, tools=[reader])
    assert len(executions) == 1
    assert result.steps[1].cached is True
    assert result.steps[1].result == "line one\nline two" == result.steps[0].result


async def test_different_arguments_are_not_duplicates() -> None:
    """Arrays compare element-wise and values must match; different inputs execute."""
    reader, executions = counting_reader()
    model = FakeModel(
        [
            use("read_range"),
            args(start=1, end=3),
            use("read_range"),
            args(start=1, end=4),
            answer_plan(),
            text("Ok."),
        ]
    )
    result = await run_turn(model, tools=[reader])
    assert len(executions) == 2
    assert result.steps[1].cached is False


async def test_nested_key_order_never_matters() -> None:
    """Canonical comparison sorts object keys at every depth."""

    class Point(pydantic.BaseModel):
        x: int
        y: int

    class Where(pydantic.BaseModel):
        at: Point
        tags: list[str]

    executions: list[Any] = []
    reader = make_tool("locate", lambda a, c: executions.append(a) or "here", parameters=Where)
    model = FakeModel(
        [
            use("locate"),
            {"json": {"at": {"x": 1, "y": 2}, "tags": ["a", "b"]}},
            use("locate"),
            {"json": {"tags": ["a", "b"], "at": {"y": 2, "x": 1}}},
            use("locate"),
            {"json": {"tags": ["b", "a"], "at": {"y": 2, "x": 1}}},
            answer_plan(),
            text("Ok."),
        ]
    )
    result = await run_turn(model, tools=[reader])
    assert [s.cached for s in result.steps[:3]] == [False, True, False]
    assert len(executions) == 2


async def test_duplicate_suppression_is_scoped_to_one_turn(box: TaskBox) -> None:
    """The same read in the next turn executes again."""
    model = FakeModel(
        [
            use("list_tasks"),
            answer_plan(),
            text("Two."),
            use("list_tasks"),
            answer_plan(),
            text("Two."),
        ]
    )
    agent = Agent(model, tools=box.tools)
    async with agent:
        await agent.run("first")
        second = await agent.run("second")
    assert box.ran("list_tasks") == 2
    assert second.steps[0].cached is False


async def test_duplicates_are_judged_on_the_resolved_input() -> None:
    """The duplicate check uses the resolve_input-resolved arguments."""
    from .helpers import Query

    executions: list[Any] = []
    reader = make_tool(
        "lookup",
        lambda a, c: executions.append(a) or "found",
        parameters=Query,
        resolve_input=lambda arguments, ctx: {"query": arguments["query"].lower()},
    )
    model = FakeModel(
        [
            use("lookup"),
            args(query="Milk"),
            use("lookup"),
            args(query="MILK"),
            answer_plan(),
            text("Ok."),
        ]
    )
    result = await run_turn(model, tools=[reader])
    assert executions == [{"query": "milk"}]
    assert result.steps[1].cached is True


async def test_before_tool_runs_for_cache_candidates_and_can_defeat_the_cache(
    box: TaskBox,
) -> None:
    """before_tool runs for cached-read candidates; changing the input re-executes."""
    calls_seen: list[Any] = []

    class Rewrite(Extension):
        name = "rewrite"

        def before_tool(self, ctx: Any) -> Any:
            calls_seen.append(dict(ctx.input))
            if len(calls_seen) == 2:
                return {"input": {"query": "call"}}
            return None

    model = FakeModel(
        [
            use("search"),
            args(query="milk"),
            use("search"),
            args(query="milk"),
            answer_plan(),
            text("Ok."),
        ]
    )
    result = await run_turn(model, tools=box.tools, extensions=[Rewrite()])
    assert len(calls_seen) == 2
    assert result.steps[1].cached is False
    assert box.inputs["search"] == [
        {"query": "milk", "limit": 5},
        {"query": "call", "limit": 5},
    ]


async def test_denied_step_does_not_run_resolve_input() -> None:
    """resolve_input runs only for steps that are not skipped."""
    from .helpers import Query

    resolved: list[Any] = []
    reader = make_tool(
        "lookup",
        lambda a, c: "found",
        parameters=Query,
        resolve_input=lambda arguments, ctx: resolved.append(arguments) or arguments,
    )

    class Block(Extension):
        name = "block"

        def before_tool(self, ctx: Any) -> Any:
            return Deny("no")

    model = FakeModel([use("lookup"), args(query="x"), answer_plan(), text("Ok.")])
    await run_turn(model, tools=[reader], extensions=[Block()])
    assert resolved == []
