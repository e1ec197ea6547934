"""The arguments stage and tools."""

from __future__ import annotations

from typing import Any

import pydantic
import pytest

from goliath import Agent, ConfirmRequest, StepRecord, ToolContext, tool
from goliath.testing import FakeModel

from .helpers import (
    Query,
    RecordingFallback,
    TaskBox,
    answer_plan,
    args,
    calls,
    events,
    exchange,
    labels,
    make_tool,
    memory_with,
    reasons,
    ref_clip,
    run_turn,
    text,
    use,
)


async def test_zero_argument_tool_needs_no_arguments_call(box: TaskBox) -> None:
    """A tool whose parameters have no fields runs without an arguments call."""
    model = FakeModel([use("list_tasks"), answer_plan(), text("Two tasks.")])
    result = await run_turn(model, tools=box.tools)
    assert labels(model) == ["conductor", "conductor", "answer"]
    assert box.ran("list_tasks") == 1
    assert result.steps[0].input == {}


async def test_arguments_schema_has_a_trailing_optional_missing_field(box: TaskBox) -> None:
    """A tool with parameters gets one structured arguments call with a trailing 'missing'."""
    model = FakeModel([use("search"), args(query="milk"), answer_plan(), text("Milk.")])
    await run_turn(model, tools=box.tools)
    [filling] = calls(model, "arguments")
    assert list(filling.schema["properties"]) == ["query", "limit", "missing"]
    assert filling.schema["properties"]["missing"]["type"] == "string"
    assert "missing" not in filling.schema.get("required", [])
    assert "query" in filling.schema.get("required", [])
    assert filling.max_output_tokens == 512
    assert box.inputs["search"] == [{"query": "milk", "limit": 5}]


async def test_arguments_system_prompt_carries_the_brief(box: TaskBox) -> None:
    """The arguments system prompt starts with instructions and names the call to fill: the
    tool's signature and the plan's brief (the tool's description)."""
    model = FakeModel([use("search"), args(query="milk"), answer_plan(), text("Milk.")])
    await run_turn(model, "is milk on it?", tools=box.tools, instructions="Be terse.")
    [filling] = calls(model, "arguments")
    lines = filling.system.split("\n")
    assert lines[0] == "Be terse."
    assert (
        "You fill the arguments of one function call: search(query, limit?): Search the tasks."
        in lines
    )
    assert filling.prompt.endswith("Ask: is milk on it?")


async def test_missing_argument_skips_the_step(box: TaskBox) -> None:
    """A non-blank 'missing' skips the step; no execution and no confirmation."""
    asked: list[ConfirmRequest] = []

    def confirm(request: ConfirmRequest) -> bool:
        asked.append(request)
        return True

    model = FakeModel(
        [use("create_task"), args(title="", missing="the title"), answer_plan(), text("Which?")]
    )
    result = await run_turn(model, tools=box.tools, confirm=confirm)
    skipped = result.steps[0]
    assert (skipped.skipped, skipped.skip_reason) == (True, "missing")
    assert skipped.result == "missing: the title. Ask the user or use another tool."
    assert skipped.result.startswith("missing: ")
    assert skipped.result.endswith("Ask the user or use another tool.")
    assert box.ran("create_task") == 0
    assert asked == []
    assert events(result, "confirm") == []
    [tool_event] = events(result, "tool")
    assert tool_event.result == skipped.result


async def test_missing_text_is_clipped_to_120_characters(box: TaskBox) -> None:
    """The missing text is trimmed and clipped to 120 characters."""
    what = "  " + "the due date and the project name " * 6 + "  "
    model = FakeModel([use("create_task"), args(title="x", missing=what), answer_plan(), text("?")])
    result = await run_turn(model, tools=box.tools)
    assert result.steps[0].result == (
        f"missing: {ref_clip(what.strip(), 120)}. Ask the user or use another tool."
    )


async def test_prerequisite_missing_escalates_without_an_arguments_call(box: TaskBox) -> None:
    """A tool whose prerequisite has not succeeded escalates without an arguments call."""
    guarded = make_tool("rename_task", lambda a, c: "ok", parameters=Query, requires=["list_tasks"])
    model = FakeModel([use("rename_task")])
    result = await run_turn(model, tools=[box.list_tasks, guarded], fallback=RecordingFallback())
    assert reasons(result) == ["tool-prerequisite-missing"]
    assert labels(model) == ["conductor"]
    assert result.steps == []


async def test_failed_prerequisite_does_not_count(box: TaskBox) -> None:
    """A failed earlier call of the required tool does not satisfy the prerequisite."""

    def flaky(arguments: dict[str, Any], ctx: Any) -> Any:
        raise RuntimeError("offline")

    lister = make_tool("fetch_list", flaky)
    guarded = make_tool("rename_task", lambda a, c: "ok", requires=["fetch_list"])
    model = FakeModel([use("fetch_list"), use("rename_task")])
    result = await run_turn(model, tools=[lister, guarded], fallback=RecordingFallback())
    assert reasons(result) == ["tool-prerequisite-missing"]


async def test_skipped_prerequisite_does_not_count(box: TaskBox) -> None:
    """A skipped earlier call of the required tool does not satisfy the prerequisite."""
    guarded = make_tool("rename_task", lambda a, c: "ok", requires=["search"])
    model = FakeModel([use("search"), args(query="", missing="query"), use("rename_task")])
    result = await run_turn(model, tools=[box.search, guarded], fallback=RecordingFallback())
    assert result.steps[0].skip_reason == "missing"
    assert reasons(result) == ["tool-prerequisite-missing"]


async def test_succeeded_or_cached_prerequisite_counts(box: TaskBox) -> None:
    """An executed (or cached) earlier call satisfies the prerequisite."""
    guarded = make_tool("rename_task", lambda a, c: "renamed", requires=["list_tasks"])
    model = FakeModel(
        [use("list_tasks"), use("list_tasks"), use("rename_task"), answer_plan(), text("Done.")]
    )
    result = await run_turn(model, tools=[box.list_tasks, guarded])
    assert [s.cached for s in result.steps[:3]] == [False, True, False]
    assert result.steps[2].result == "renamed"
    assert reasons(result) == []


async def test_arguments_with_requires_sees_only_those_steps(box: TaskBox) -> None:
    """The arguments call for a tool with requires sees only the steps of the required tools."""
    noted = make_tool("note", lambda a, c: "NOTE-RESULT")
    rename = make_tool("rename_task", lambda a, c: "ok", parameters=Query, requires=["list_tasks"])
    model = FakeModel(
        [
            use("list_tasks"),
            use("note"),
            use("rename_task"),
            args(query="Buy milk"),
            answer_plan(),
            text("Ok."),
        ]
    )
    await run_turn(model, tools=[box.list_tasks, noted, rename])
    [filling] = calls(model, "arguments")
    assert "list_tasks({}) [completed] → 1. title: Buy milk" in filling.prompt
    assert "NOTE-RESULT" not in filling.prompt


async def test_arguments_without_requires_sees_only_the_latest_step(box: TaskBox) -> None:
    """The arguments call for a tool without requires sees only the most recent step."""
    first = make_tool("first_note", lambda a, c: "FIRST-RESULT")
    second = make_tool("second_note", lambda a, c: "SECOND-RESULT")
    model = FakeModel(
        [
            use("first_note"),
            use("second_note"),
            use("search"),
            args(query="milk"),
            answer_plan(),
            text("Ok."),
        ]
    )
    await run_turn(model, tools=[first, second, box.search])
    [filling] = calls(model, "arguments")
    assert "SECOND-RESULT" in filling.prompt
    assert "FIRST-RESULT" not in filling.prompt


async def test_arguments_on_the_first_step_sees_no_steps(box: TaskBox) -> None:
    """On the first step the arguments prompt has no step log."""
    model = FakeModel([use("search"), args(query="milk"), answer_plan(), text("Ok.")])
    await run_turn(model, tools=box.tools)
    [filling] = calls(model, "arguments")
    assert "What you found" not in filling.prompt
    assert "[completed]" not in filling.prompt


async def test_throwing_tool_is_a_failed_step_and_the_turn_continues() -> None:
    """A throwing tool yields failed=True, 'error: <Type>: <msg>. Try different …' (#24: the
    exception's type is shown), and continues."""

    def broken(arguments: dict[str, Any], ctx: Any) -> Any:
        raise ValueError("the calendar is locked")

    model = FakeModel([use("calendar"), answer_plan(), text("Sorry, locked.")])
    result = await run_turn(model, tools=[make_tool("calendar", broken)])
    failed = result.steps[0]
    assert failed.failed is True
    assert failed.skipped is False
    assert (
        failed.result
        == "error: ValueError: the calendar is locked. Try different arguments or another tool."
    )
    assert result.text == "Sorry, locked."
    assert reasons(result) == []


async def test_tool_error_message_is_clipped_to_160_characters() -> None:
    """The error message is clipped to 160 characters."""
    message = "x" * 100 + " " + "y" * 100

    def broken(arguments: dict[str, Any], ctx: Any) -> Any:
        raise RuntimeError(message)

    model = FakeModel([use("calendar"), answer_plan(), text("Sorry.")])
    result = await run_turn(model, tools=[make_tool("calendar", broken)])
    assert result.steps[0].result == (
        f"error: {ref_clip('RuntimeError: ' + message, 160)}. Try different arguments or another tool."
    )


async def test_two_consecutive_failures_escalate_tool_error() -> None:
    """Two consecutive failed tool steps escalate tool-error with the last result."""
    count = {"n": 0}

    def broken(arguments: dict[str, Any], ctx: Any) -> Any:
        count["n"] += 1
        raise RuntimeError(f"failure {count['n']}")

    other = make_tool("other", broken)
    model = FakeModel([use("calendar"), use("other")])
    fallback = RecordingFallback()
    result = await run_turn(model, tools=[make_tool("calendar", broken), other], fallback=fallback)
    last = "error: RuntimeError: failure 2. Try different arguments or another tool."
    [escalation] = events(result, "escalate")
    assert (escalation.reason, escalation.error) == ("tool-error", last)
    assert (fallback.requests[0].reason, fallback.requests[0].error) == ("tool-error", last)


async def test_failure_then_success_then_failure_does_not_escalate() -> None:
    """Only two failures in a row escalate."""
    calls_made = {"n": 0}

    def alternating(arguments: dict[str, Any], ctx: Any) -> Any:
        calls_made["n"] += 1
        if calls_made["n"] != 2:
            raise RuntimeError("odd")
        return "fine"

    class N(pydantic.BaseModel):
        n: int

    model = FakeModel(
        [
            use("alt"),
            args(n=1),
            use("alt"),
            args(n=2),
            use("alt"),
            args(n=3),
            answer_plan(),
            text("Ok."),
        ]
    )
    result = await run_turn(model, tools=[make_tool("alt", alternating, parameters=N)])
    assert [s.failed for s in result.steps[:3]] == [True, False, True]
    assert reasons(result) == []


async def test_throwing_to_model_output_keeps_the_raw_output() -> None:
    """A throwing to_model_output gives 'completed (result could not be summarized)'."""

    def formatter(output: Any) -> str:
        raise RuntimeError("cannot format")

    reader = make_tool("read_it", lambda a, c: {"secret": 42}, to_model_output=formatter)
    model = FakeModel([use("read_it"), answer_plan(), text("Ok.")])
    result = await run_turn(model, tools=[reader])
    assert result.steps[0].result == "completed (result could not be summarized)"
    assert result.steps[0].output == {"secret": 42}
    assert result.steps[0].failed is False


async def test_to_model_output_replaces_the_summary() -> None:
    """to_model_output (sync or async) replaces the structural summary."""

    async def formatter(output: Any) -> str:
        return f"{len(output)} items"

    reader = make_tool("read_it", lambda a, c: [1, 2, 3], to_model_output=formatter)
    model = FakeModel([use("read_it"), answer_plan(), text("Ok.")])
    result = await run_turn(model, tools=[reader])
    assert result.steps[0].result == "3 items"
    assert result.steps[0].output == [1, 2, 3]


async def test_invalid_resolve_input_escalates_before_confirmation(box: TaskBox) -> None:
    """resolve_input output failing validation escalates tool-args-invalid before confirm."""
    asked: list[Any] = []

    @tool(writes=True, resolve_input=lambda arguments, ctx: {"title": None})
    def add(title: str) -> str:
        """Add."""
        asked.append("executed")
        return "ok"

    model = FakeModel([use("add"), args(title="Eggs")])
    result = await run_turn(
        model,
        tools=[add],
        confirm=lambda request: asked.append(request) or True,
        fallback=RecordingFallback(),
    )
    assert reasons(result) == ["tool-args-invalid"]
    assert asked == []
    assert result.steps == []


async def test_throwing_resolve_input_escalates_tool_args_invalid() -> None:
    """A resolve_input that throws escalates tool-args-invalid."""

    def resolve(arguments: dict[str, Any], ctx: Any) -> dict[str, Any]:
        raise LookupError("no such task")

    reader = make_tool("open_task", lambda a, c: "ok", parameters=Query, resolve_input=resolve)
    model = FakeModel([use("open_task"), args(query="milk")])
    result = await run_turn(model, tools=[reader], fallback=RecordingFallback())
    assert reasons(result) == ["tool-args-invalid"]


async def test_resolve_input_maps_arguments_before_confirmation() -> None:
    """resolve_input (sync or async) runs before confirmation; its output is what runs."""
    seen: list[Any] = []

    async def resolve(arguments: dict[str, Any], ctx: Any) -> dict[str, Any]:
        return {"query": arguments["query"].upper()}

    writer = make_tool(
        "shout",
        lambda a, c: seen.append(("execute", a)) or "ok",
        parameters=Query,
        writes=True,
        resolve_input=resolve,
    )
    model = FakeModel([use("shout"), args(query="hi"), answer_plan(), text("Ok.")])
    result = await run_turn(
        model,
        tools=[writer],
        confirm=lambda request: seen.append(("confirm", request.input)) or True,
    )
    assert seen == [("confirm", {"query": "HI"}), ("execute", {"query": "HI"})]
    assert result.steps[0].input == {"query": "HI"}


async def test_mutating_the_confirm_request_does_not_change_the_arguments() -> None:
    """Execute gets a copy; mutating the confirm request's input changes nothing."""
    executed: list[Any] = []

    def execute(arguments: dict[str, Any], ctx: Any) -> str:
        executed.append(dict(arguments))
        arguments["query"] = "changed by the tool"
        return "ok"

    def confirm(request: ConfirmRequest) -> bool:
        request.input["query"] = "hacked"
        return True

    writer = make_tool("save", execute, parameters=Query, writes=True)
    model = FakeModel([use("save"), args(query="original"), answer_plan(), text("Ok.")])
    result = await run_turn(model, tools=[writer], confirm=confirm)
    assert executed == [{"query": "original"}]
    assert result.steps[0].input == {"query": "original"}


async def test_tool_context_steps_hold_earlier_raw_outputs(box: TaskBox) -> None:
    """ToolContext.steps holds the earlier steps of the turn with their raw output."""
    seen: list[list[StepRecord]] = []

    def inspect_steps(arguments: dict[str, Any], ctx: ToolContext) -> str:
        seen.append(list(ctx.steps))
        return "ok"

    model = FakeModel([use("list_tasks"), use("inspect"), answer_plan(), text("Ok.")])
    await run_turn(model, tools=[box.list_tasks, make_tool("inspect", inspect_steps)])
    [steps] = seen
    assert len(steps) == 1
    assert steps[0].tool == "list_tasks"
    assert steps[0].output == [{"title": "Buy milk"}, {"title": "Call mom"}]


async def test_tool_context_fields() -> None:
    """ToolContext has conversation_id, context, recent and result_budget.max_tokens."""
    seen: list[ToolContext] = []

    async def look(arguments: dict[str, Any], ctx: ToolContext) -> str:
        seen.append(ctx)
        return "ok"

    memory = memory_with(recent=[exchange("earlier ask", "earlier answer")])
    model = FakeModel([use("look"), answer_plan(), text("Ok.")])
    agent = Agent(model, tools=[make_tool("look", look)], memory=lambda cid: memory)
    async with agent:
        await agent.run("hi", conversation_id="alice", context={"user": 7})
    [ctx] = seen
    assert ctx.conversation_id == "alice"
    assert ctx.context == {"user": 7}
    assert [e.ask for e in ctx.recent] == ["earlier ask"]
    assert ctx.result_budget.max_tokens == 512


async def test_decorated_tool_receives_keyword_arguments_and_context() -> None:
    """@tool calls the function with keyword arguments and injects ToolContext."""
    seen: list[Any] = []

    @tool
    async def greet(name: str, ctx: ToolContext, polite: bool = True) -> str:
        """Greet someone."""
        seen.append((name, polite, ctx.context))
        return f"hello {name}"

    model = FakeModel([use("greet"), args(name="Ada", polite=False), answer_plan(), text("Hi.")])
    result = await run_turn(model, tools=[greet], run={"context": "app"})
    [filling] = calls(model, "arguments")
    assert "ctx" not in filling.schema["properties"]
    assert seen == [("Ada", False, "app")]
    assert greet.description == "Greet someone."
    assert result.steps[0].result == "hello Ada"


async def test_tool_step_record_fields(box: TaskBox) -> None:
    """An executed step records index, brief, tool, input, result, output, writes, mode.

    (Python shape: boolean fields are always present and default to False.)
    """
    model = FakeModel([use("create_task"), args(title="Eggs"), answer_plan(), text("Added.")])
    result = await run_turn(model, tools=box.tools)
    record = result.steps[0]
    assert (record.index, record.kind, record.brief, record.tool) == (
        0,
        "tool",
        "Add a task.",
        "create_task",
    )
    assert record.input == {"title": "Eggs"}
    assert record.output == {"ok": True, "title": "Eggs"}
    assert record.result == "ok: true\ntitle: Eggs"
    assert record.writes is True
    assert record.output_mode == "summary"
    assert (record.skipped, record.cached, record.failed) == (False, False, False)
    assert record.skip_reason is None


async def test_unserializable_output_is_omitted() -> None:
    """The raw output snapshot is omitted (None) when the output is not serializable."""
    model = FakeModel([use("opaque"), answer_plan(), text("Ok.")])
    result = await run_turn(
        model,
        tools=[make_tool("opaque", lambda a, c: object(), to_model_output=lambda o: "an object")],
    )
    assert result.steps[0].output is None
    assert result.steps[0].result == "an object"


async def test_output_is_a_snapshot(box: TaskBox) -> None:
    """step.output is a JSON round-trip snapshot; later mutation does not change it."""
    shared = {"items": ["a"]}
    model = FakeModel([use("peek"), answer_plan(), text("Ok.")])

    def peek(arguments: dict[str, Any], ctx: Any) -> dict[str, Any]:
        return shared

    result = await run_turn(model, tools=[make_tool("peek", peek)])
    shared["items"].append("b")
    assert result.steps[0].output == {"items": ["a"]}


async def test_tool_event_fields(box: TaskBox) -> None:
    """A tool event carries tool, input, the final result and ms."""
    model = FakeModel([use("search"), args(query="milk"), answer_plan(), text("Milk.")])
    result = await run_turn(model, tools=box.tools)
    [event] = events(result, "tool")
    assert (event.tool, event.input, event.result) == (
        "search",
        {"query": "milk", "limit": 5},
        "1. title: Buy milk",
    )
    assert event.ms >= 0


async def test_tool_event_ms_measures_the_step(autojump_clock: Any) -> None:
    """Ms is the time elapsed since the step started, in milliseconds."""
    import trio

    async def slow(arguments: dict[str, Any], ctx: Any) -> str:
        await trio.sleep(2)
        return "ok"

    model = FakeModel([use("slow"), answer_plan(), text("Ok.")])
    result = await run_turn(model, tools=[make_tool("slow", slow)])
    [event] = events(result, "tool")
    assert 2000 <= event.ms < 2100


async def test_sync_tool_results_are_used() -> None:
    """D9: a sync tool function is run (in a worker thread) and its result used."""

    @tool
    def rested() -> str:
        """Report rest."""
        return "rested"

    model = FakeModel([use("rested"), answer_plan(), text("Ok.")])
    result = await run_turn(model, tools=[rested])
    assert result.steps[0].result == "rested"


async def test_missing_skip_keeps_the_rest_of_the_object_as_input(box: TaskBox) -> None:
    """With 'missing' set, the rest of the arguments reply's object is the step's input."""
    model = FakeModel(
        [use("create_task"), args(title="", missing="the title"), answer_plan(), text("?")]
    )
    result = await run_turn(model, tools=box.tools)
    assert result.steps[0].input == {"title": ""}


# Python choice (docs/design.md, goliath/turn/arguments.py): a placeholder such as "none" or "N/A" in
# `missing` means nothing is missing, and a required string left empty is missing regardless.
@pytest.mark.parametrize("word", ["none", "N/A"])
async def test_a_placeholder_missing_with_an_empty_required_value_still_skips(
    box: TaskBox, word: str
) -> None:
    """An empty required value is never executed; the skip names the field."""
    model = FakeModel([use("create_task"), args(title="", missing=word), answer_plan(), text("?")])
    result = await run_turn(model, tools=box.tools)
    assert result.steps[0].skip_reason == "missing"
    assert result.steps[0].result == "missing: title. Ask the user or use another tool."
    assert box.ran("create_task") == 0


@pytest.mark.parametrize("word", ["none", "N/A", "-"])
async def test_a_placeholder_missing_with_complete_arguments_runs_the_tool(
    box: TaskBox, word: str
) -> None:
    """Python choice: small models write placeholders into `missing`; the tool still runs."""
    model = FakeModel(
        [use("create_task"), args(title="Eggs", missing=word), answer_plan(), text("Ok.")]
    )
    result = await run_turn(model, tools=box.tools)
    assert result.steps[0].skipped is False
    assert box.inputs["create_task"] == [{"title": "Eggs"}]


async def test_a_required_value_written_as_missing_is_missing(box: TaskBox) -> None:
    """Python choice: a small model copies the word "missing" into the value it lacks (measured
    with Qwen2.5-Coder-1.5B); that is a value not given, so the step skips naming the field."""
    model = FakeModel(
        [use("create_task"), args(title="Missing", missing="missing"), answer_plan(), text("?")]
    )
    result = await run_turn(model, tools=box.tools)
    assert result.steps[0].skip_reason == "missing"
    assert result.steps[0].result == "missing: title. Ask the user or use another tool."
    assert box.ran("create_task") == 0


@pytest.mark.parametrize("word", ["missing", "unknown", "not given", "TBD"])
async def test_an_optional_value_written_as_a_placeholder_takes_its_default(
    box: TaskBox, word: str
) -> None:
    """Python choice: a placeholder in an optional argument means it was not given."""
    model = FakeModel([use("search"), args(query="milk", limit=word), answer_plan(), text("Ok.")])
    result = await run_turn(model, tools=box.tools)
    assert result.steps[0].skipped is False
    assert box.inputs["search"] == [{"query": "milk", "limit": 5}]


async def test_blank_missing_is_ignored(box: TaskBox) -> None:
    """A blank 'missing' does not skip the step."""
    model = FakeModel(
        [use("create_task"), args(title="Eggs", missing="   "), answer_plan(), text("Ok.")]
    )
    result = await run_turn(model, tools=box.tools)
    assert result.steps[0].skipped is False
    assert box.inputs["create_task"] == [{"title": "Eggs"}]


async def test_arguments_prompt_has_the_answer_layout(box: TaskBox) -> None:
    """The arguments prompt holds the summary ('Earlier:'), the recent block and the ask."""
    memory = memory_with("Goal: groceries", [exchange("add milk", "Added milk.")])
    model = FakeModel([use("search"), args(query="milk"), answer_plan(), text("Ok.")])
    await run_turn(model, "is milk there?", tools=box.tools, memory=memory)
    [filling] = calls(model, "arguments")
    assert filling.prompt.startswith("Earlier: Goal: groceries\n\n")
    assert "Recent conversation (reference only; follow the current ask):" in filling.prompt
    assert filling.prompt.endswith("Ask: is milk there?")


async def test_before_tool_cannot_change_the_input_by_mutation(box: TaskBox) -> None:
    """Hooks receive copies; mutating ctx.input in place changes nothing."""
    from goliath import Extension

    class Mutator(Extension):
        name = "mutator"

        def before_tool(self, ctx: Any) -> None:
            ctx.input["query"] = "mutated"

    model = FakeModel([use("search"), args(query="milk"), answer_plan(), text("Ok.")])
    result = await run_turn(model, tools=box.tools, extensions=[Mutator()])
    assert box.inputs["search"] == [{"query": "milk", "limit": 5}]
    assert result.steps[0].input == {"query": "milk", "limit": 5}


async def test_tool_context_steps_are_a_snapshot(box: TaskBox) -> None:
    """ToolContext.steps is a snapshot; a tool changing it changes no record."""

    def meddle(arguments: dict[str, Any], ctx: ToolContext) -> str:
        ctx.steps[0].result = "tampered"
        return "ok"

    model = FakeModel([use("list_tasks"), use("meddle"), answer_plan(), text("Ok.")])
    result = await run_turn(model, tools=[box.list_tasks, make_tool("meddle", meddle)])
    assert result.steps[0].result == "1. title: Buy milk\n2. title: Call mom"
