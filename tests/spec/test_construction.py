"""Construction and the Agent API."""

from __future__ import annotations

import json
from typing import Any

import pytest
import trio

import goliath
from goliath import (
    DEFAULT_MAX_STEPS,
    DEFAULT_WINDOW,
    Agent,
    ConfigError,
    Extension,
    GoliathError,
    MemoryState,
    Tool,
)
from goliath.memory import InMemory
from goliath.testing import FakeModel, ScriptMismatch

from .helpers import (
    Empty,
    TaskBox,
    answer_plan,
    calls,
    events,
    labels,
    make_tool,
    offered_tools,
    run_turn,
    text,
    use,
)

# The public names (every one importable) are pinned exactly in tests/test_exports.py.


def test_error_tree() -> None:
    """ConfigError, BudgetError and ExtensionError are GoliathErrors."""
    for cls in (goliath.ConfigError, goliath.BudgetError, goliath.ExtensionError):
        assert issubclass(cls, GoliathError)


def test_default_window_and_max_steps_constants() -> None:
    """DEFAULT_WINDOW is 4096 and DEFAULT_MAX_STEPS is 5."""
    assert DEFAULT_WINDOW == 4096
    assert DEFAULT_MAX_STEPS == 5


async def test_agent_defaults_to_window_4096_and_five_steps(box: TaskBox) -> None:
    """Without window/max_steps an agent budgets for W=4096 and allows 5 steps."""
    model = FakeModel([answer_plan(), text("Hi.")])
    result = await run_turn(model, tools=[box.list_tasks])
    assert {event.limit for event in events(result, "budget")} == {2867}
    assert "At most 5 steps in all." in calls(model, "conductor")[0].system


def test_default_instructions_open_every_system_prompt() -> None:
    """The default instructions are the documented sentence."""
    model = FakeModel([text("Hi.")])
    result = Agent(model).run_sync("hello")
    assert result.text == "Hi."
    assert model.calls[0].system.split("\n")[0] == (
        "You are a careful assistant that lives on this device."
    )


@pytest.mark.parametrize("max_steps", [-1, 2.5, "3", None])
def test_invalid_max_steps_is_rejected_at_construction(max_steps: Any) -> None:
    """A negative or non-integer max_steps raises ConfigError."""
    with pytest.raises(ConfigError, match="max_steps"):
        Agent(FakeModel([]), max_steps=max_steps)


def test_zero_max_steps_is_accepted() -> None:
    """max_steps=0 is a valid non-negative integer."""
    Agent(FakeModel([]), max_steps=0)


@pytest.mark.parametrize("window", [0, -4096, 1.5, 4096.0, "4096"])
def test_invalid_numeric_window_is_rejected_at_construction(window: Any) -> None:
    """A window that is not a positive integer raises ConfigError."""
    with pytest.raises(ConfigError, match="window"):
        Agent(FakeModel([]), window=window)


@pytest.mark.parametrize("value", [0, -1, 2.5, "4096"])
async def test_window_function_returning_invalid_value_rejects_the_run(value: Any) -> None:
    """A window function returning an invalid value makes that run reject."""
    model = FakeModel([text("Hi.")])
    with pytest.raises(GoliathError, match="window"):
        await run_turn(model, window=lambda: value)
    assert model.calls == []


async def test_async_window_function_is_resolved_once_per_run() -> None:
    """A (sync or async) window function is resolved once per run."""
    seen: list[int] = []

    async def window() -> int:
        seen.append(1)
        return 2048

    model = FakeModel([answer_plan(), text("Hi.")])
    result = await run_turn(model, tools=[make_tool("ping", lambda a, c: "pong")], window=window)
    assert seen == [1]
    assert {event.limit for event in events(result, "budget")} == {1433}


@pytest.mark.parametrize("names", [["audit", "audit"], ["audit", ""], ["   "]])
def test_extension_names_must_be_nonblank_and_unique(names: list[str]) -> None:
    """Two extensions sharing a name, or a blank name, raise ConfigError."""
    extensions = [type(f"E{i}", (Extension,), {"name": name})() for i, name in enumerate(names)]
    with pytest.raises(ConfigError):
        Agent(FakeModel([]), extensions=extensions)


def test_tool_names_must_be_unique() -> None:
    """Two tools with the same name raise ConfigError at construction."""
    first = make_tool("ping", lambda a, c: 1)
    second = make_tool("ping", lambda a, c: 2)
    with pytest.raises(ConfigError):
        Agent(FakeModel([]), tools=[first, second])


@pytest.mark.parametrize("name", ["list tasks", "list-tasks", "1tool", ""])
def test_tool_names_must_be_identifiers(name: str) -> None:
    """A tool name that is not a valid identifier raises ConfigError."""
    with pytest.raises(ConfigError):
        Agent(FakeModel([]), tools=[Tool(name, "Bad.", Empty, lambda a, c: None)])


async def test_tools_are_looked_up_by_their_own_name(box: TaskBox) -> None:
    """A mapping's keys are ignored; the conductor sees and uses each tool's own name."""
    model = FakeModel([use("list_tasks"), answer_plan(), text("Two tasks.")])
    result = await run_turn(model, tools={"whatever": box.list_tasks})
    assert offered_tools(calls(model, "conductor")[0]) == ["list_tasks"]
    assert box.ran("list_tasks") == 1
    assert result.steps[0].tool == "list_tasks"


@pytest.mark.parametrize("conversation_id", ["", "   ", "\t"])
async def test_blank_conversation_id_rejects_the_run(conversation_id: str) -> None:
    """Run rejects when conversation_id is an empty or blank string."""
    model = FakeModel([text("Hi.")])
    with pytest.raises(ConfigError):
        await run_turn(model, run={"conversation_id": conversation_id})
    assert model.calls == []


async def test_named_conversation_needs_a_memory_factory() -> None:
    """A named conversation_id with a plain Memory object rejects the run."""
    model = FakeModel([text("Hi.")])
    with pytest.raises(ConfigError, match="factory"):
        await run_turn(model, memory=InMemory(), run={"conversation_id": "alice"})
    assert model.calls == []


async def test_plain_memory_object_serves_the_default_conversation() -> None:
    """A plain Memory object is used for the default conversation."""
    memory = InMemory()
    await run_turn(FakeModel([text("Hi.")]), "hello", memory=memory)
    assert [e.ask for e in (await memory.load()).recent] == ["hello"]


async def test_memory_factory_is_called_once_per_conversation() -> None:
    """A memory factory is called exactly once per conversation id (None for default)."""
    made: list[str | None] = []

    def factory(conversation_id: str | None) -> InMemory:
        made.append(conversation_id)
        return InMemory()

    model = FakeModel([text("1"), text("2"), text("3"), text("4"), text("5")])
    agent = Agent(model, memory=factory)
    async with agent:
        await agent.run("a")
        await agent.run("b", conversation_id="alice")
        await agent.run("c", conversation_id="alice")
        await agent.run("d")
        await agent.run("e", conversation_id="bob")
    assert sorted(made, key=str) == sorted([None, "alice", "bob"], key=str)


async def test_run_outside_async_with_raises_with_a_hint() -> None:
    """run() before ``async with agent:`` raises GoliathError saying how to start."""
    agent = Agent(FakeModel([text("Hi.")]))
    with pytest.raises(GoliathError, match="async with"):
        await agent.run("hello")


def test_run_sync_keeps_in_process_memory_between_calls() -> None:
    """In-process memory survives between run_sync calls of one Agent."""
    model = FakeModel([text("First."), text("Second.")])
    agent = Agent(model)
    agent.run_sync("one")
    second = agent.run_sync("two")
    assert events(second, "recall")[0].recent == 1
    assert "User: one" in model.calls[1].prompt


def test_unused_conversation_is_not_in_session_fallback() -> None:
    """An unknown or unused conversation reports is_session_fallback() false."""
    agent = Agent(FakeModel([]), fallback=lambda request: "cloud")
    assert agent.is_session_fallback() is False
    assert agent.is_session_fallback("nobody") is False


def test_model_factory_is_called_for_every_generation() -> None:
    """A zero-argument model factory is invoked for every single generation call."""
    model = FakeModel([use("ping"), answer_plan(), text("Pong.")])
    made: list[int] = []

    def factory() -> FakeModel:
        made.append(1)
        return model

    result = Agent(factory, tools=[make_tool("ping", lambda a, c: "pong")]).run_sync("ping?")
    assert result.text == "Pong."
    assert len(made) == len(model.calls) == 3


# ---------------------------------------------------------------- serialization


def _script_by_prompt(request: Any) -> dict[str, Any]:
    """Replies for 'use slow, then answer' regardless of how runs interleave."""
    if request.label == "conductor":
        return use("slow") if "Calls so far" not in request.prompt else answer_plan()
    return text("done")


def _slow_tool(intervals: list[tuple[str, float, float]]) -> Tool:
    async def slow(arguments: dict[str, Any], ctx: Any) -> str:
        start = trio.current_time()
        await trio.sleep(1)
        intervals.append((ctx.conversation_id or "default", start, trio.current_time()))
        return "ok"

    return make_tool("slow", slow)


def _overlap(a: tuple[str, float, float], b: tuple[str, float, float]) -> bool:
    return a[1] < b[2] and b[1] < a[2]


async def test_runs_of_one_conversation_never_overlap(autojump_clock: Any) -> None:
    """Two runs on the same conversation are serialized."""
    intervals: list[tuple[str, float, float]] = []
    agent = Agent(FakeModel(_script_by_prompt), tools=[_slow_tool(intervals)])
    async with agent, trio.open_nursery() as nursery:
        nursery.start_soon(agent.run, "first")
        nursery.start_soon(agent.run, "second")
    assert len(intervals) == 2
    assert not _overlap(intervals[0], intervals[1])


async def test_runs_of_different_conversations_may_overlap(autojump_clock: Any) -> None:
    """Runs on different conversations run concurrently."""
    intervals: list[tuple[str, float, float]] = []
    agent = Agent(
        FakeModel(_script_by_prompt),
        tools=[_slow_tool(intervals)],
        memory=lambda conversation_id: InMemory(),
    )
    async with agent, trio.open_nursery() as nursery:
        nursery.start_soon(lambda: agent.run("first", conversation_id="a"))
        nursery.start_soon(lambda: agent.run("second", conversation_id="b"))
    assert len(intervals) == 2
    assert _overlap(intervals[0], intervals[1])


class Boom(Exception):
    pass


async def test_a_rejected_run_does_not_block_the_next_one() -> None:
    """After a run rejects, the next run of the same conversation proceeds."""

    def explode(event: Any) -> None:
        raise Boom("observer failed")

    model = FakeModel([text("Second.")])
    agent = Agent(model)
    async with agent:
        with pytest.raises(Boom):
            await agent.run("one", on_event=explode)
        result = await agent.run("two")
    assert result.text == "Second."


async def test_run_raises_the_original_exception_not_a_group() -> None:
    """A failing run raises the original exception itself, never a group."""

    class MemoryDown(Exception):
        pass

    class Broken:
        async def load(self) -> MemoryState:
            raise MemoryDown("disk gone")

        async def save(self, state: MemoryState) -> None:
            pass

    with pytest.raises(MemoryDown, match="disk gone"):
        await run_turn(FakeModel([text("Hi.")]), memory=Broken())


async def test_no_tools_agent_only_answers() -> None:
    """An agent without tools is valid and answers directly."""
    model = FakeModel([text("Hello!")])
    result = await run_turn(model, "hi")
    assert result.text == "Hello!"
    assert result.handled_by == "device"
    assert labels(model) == ["answer"]


@pytest.mark.parametrize("conversation_id", [123, ["a"]])
async def test_non_string_conversation_id_rejects_the_run(conversation_id: Any) -> None:
    """conversation_id must be a non-blank string when given."""
    with pytest.raises(ConfigError):
        await run_turn(FakeModel([text("Hi.")]), run={"conversation_id": conversation_id})


async def test_session_fallback_turns_do_not_call_the_window_function() -> None:
    """A session-fallback turn reuses the last window; the window callback is not called."""
    from goliath.errors import ModelError

    from .helpers import RecordingFallback, fail

    seen: list[int] = []

    def window() -> int:
        seen.append(1)
        return 4096

    agent = Agent(
        FakeModel([fail(ModelError("x"))] * 3), window=window, fallback=RecordingFallback()
    )
    async with agent:
        for _ in range(3):
            await agent.run("hi")
        assert seen == [1, 1, 1]
        await agent.run("hi")
    assert seen == [1, 1, 1]


async def test_fake_model_contract() -> None:
    """FakeModel records calls, counts what remains, raises errors and runs out."""
    from goliath.models import GenerateRequest

    class Scripted(Exception):
        pass

    model = FakeModel([{"text": "a"}, {"json": {"k": 1}}, {"error": Scripted("boom")}])
    request = GenerateRequest(
        label="answer", system="s", prompt="p", schema=None, max_output_tokens=9
    )
    structured = GenerateRequest(
        label="answer", system="s", prompt="p", schema={"type": "object"}, max_output_tokens=9
    )
    assert model.remaining() == 3
    assert (await model.generate(request)).text == "a"
    assert json.loads((await model.generate(structured)).text) == {"k": 1}
    with pytest.raises(Scripted):
        await model.generate(request)
    assert model.remaining() == 0
    with pytest.raises(Exception, match=r"script exhausted after 3 call\(s\)"):
        await model.generate(request)
    assert len(model.calls) == 4 and model.calls[0] is request
    # A JSON entry handed to a call that takes text: the script fell out of step (#24).
    with pytest.raises(ScriptMismatch, match=r"entry 0 is JSON .* takes text"):
        await FakeModel([{"json": {"call": "answer_the_user"}}]).generate(request)


async def test_model_window_and_tokenizer_are_used_by_default() -> None:
    """A model offering window() and count_tokens() is budgeted with them."""

    class Native(FakeModel):
        def window(self) -> int:
            return 2048

        def count_tokens(self, text: str) -> int:
            return len(text) // 3

    model = Native([text("Hi.")])
    result = await run_turn(model)
    [budget] = events(result, "budget")
    assert (budget.limit, budget.source) == (1433, "tokenizer")
    assert budget.tokens == len(model.calls[0].system + "\n\n" + model.calls[0].prompt) // 3 + 8


async def test_conductor_states_the_step_maximum(box: TaskBox) -> None:
    """The conductor system prompt states the maximum number of steps."""
    model = FakeModel([answer_plan(), text("Hi."), answer_plan(), text("Hi.")])
    await run_turn(model, tools=box.tools, max_steps=7)
    assert "7" in calls(model, "conductor")[0].system
