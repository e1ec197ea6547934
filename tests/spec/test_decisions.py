"""The Python version's decisions D1–D5, D7 and D9 (docs/design.md, "Decisions").

D6 is tested in test_cancellation.py, D8 in test_confirmation.py.
"""

from __future__ import annotations

import threading
from typing import Any

import msgspec
import pytest
import trio

import goliath.session
from goliath import (
    Agent,
    ConfirmRequest,
    Decision,
    Exchange,
    Extension,
    FallbackRequest,
    MemoryState,
    RunResult,
    StepRecord,
    tool,
)
from goliath.errors import InvalidOutputError, ModelError
from goliath.events import event_types
from goliath.memory import InMemory
from goliath.testing import FakeModel

from .helpers import (
    RecordingFallback,
    TaskBox,
    answer_plan,
    args,
    calls,
    events,
    exchange,
    fail,
    labels,
    memory_with,
    reasons,
    run_turn,
    text,
    use,
)

# ---------------------------------------------------------------- D1: malformed tool arguments


@pytest.mark.parametrize(
    "malformed",
    [text("title is Eggs"), args(title=5), args(), fail(InvalidOutputError("bad json"))],
    ids=["not-json", "wrong-type", "missing-field", "invalid-output-error"],
)
async def test_malformed_arguments_get_one_retry_with_the_error(
    box: TaskBox, malformed: dict[str, Any]
) -> None:
    """D1: a malformed arguments reply is retried once with the error as a hint."""
    model = FakeModel(
        [use("create_task"), malformed, args(title="Eggs"), answer_plan(), text("Added.")]
    )
    result = await run_turn(model, tools=box.tools)
    first, second = calls(model, "arguments")
    assert second.prompt.startswith(first.prompt + "\n\n")
    assert len(second.prompt) > len(first.prompt) + 2
    assert second.schema == first.schema
    assert box.inputs["create_task"] == [{"title": "Eggs"}]
    assert reasons(result) == []


async def test_validation_error_names_the_field(box: TaskBox) -> None:
    """D1: the retry hint carries the validation error (it names the bad field)."""
    model = FakeModel(
        [use("create_task"), args(title=5), args(title="Eggs"), answer_plan(), text("Ok.")]
    )
    await run_turn(model, tools=box.tools)
    first, second = calls(model, "arguments")
    assert "title" in second.prompt[len(first.prompt) :]


async def test_two_malformed_argument_replies_escalate(box: TaskBox) -> None:
    """D1: a second malformed reply in a row escalates tool-args-invalid."""
    fallback = RecordingFallback()
    model = FakeModel([use("create_task"), text("??"), args(title=7), text("spare")])
    result = await run_turn(model, tools=box.tools, fallback=fallback)
    assert reasons(result) == ["tool-args-invalid"]
    assert labels(model) == ["conductor", "arguments", "arguments"]
    assert box.ran("create_task") == 0
    assert result.steps == []
    assert fallback.requests[0].reason == "tool-args-invalid"


async def test_argument_allowance_is_per_step(box: TaskBox) -> None:
    """D1: each step gets its own retry; one malformed reply per step never escalates."""
    model = FakeModel(
        [
            use("create_task"),
            text("?"),
            args(title="Eggs"),
            use("create_task"),
            text("?"),
            args(title="Ham"),
            answer_plan(),
            text("Added both."),
        ]
    )
    result = await run_turn(model, tools=box.tools)
    assert box.inputs["create_task"] == [{"title": "Eggs"}, {"title": "Ham"}]
    assert reasons(result) == []


async def test_zero_argument_tools_never_make_an_arguments_call_even_on_retry(box: TaskBox) -> None:
    """D1: a zero-field tool validates {} with no arguments call at all."""
    model = FakeModel([use("list_tasks"), answer_plan(), text("Two.")])
    await run_turn(model, tools=box.tools)
    assert "arguments" not in labels(model)


# ---------------------------------------------------------------- D2: malformed plans


async def test_a_valid_plan_resets_the_plan_allowance(box: TaskBox) -> None:
    """D2: one malformed plan per step; a valid plan in between resets the allowance."""
    model = FakeModel(
        [text("bad"), use("list_tasks"), text("bad again"), answer_plan(), text("Two tasks.")]
    )
    result = await run_turn(model, tools=box.tools)
    assert reasons(result) == []
    assert result.text == "Two tasks."
    prompts = [call.prompt for call in calls(model, "conductor")]
    assert len(prompts) == 4
    assert prompts[1].startswith(prompts[0] + "\n\n")
    assert prompts[3].startswith(prompts[2] + "\n\n")
    assert not prompts[2].startswith(prompts[1])


async def test_two_malformed_plans_in_a_row_escalate(box: TaskBox) -> None:
    """D2: two malformed plans in a row escalate plan-invalid even after earlier valid steps."""
    model = FakeModel([use("list_tasks"), text("bad"), text("worse")])
    result = await run_turn(model, tools=box.tools, fallback=RecordingFallback())
    assert reasons(result) == ["plan-invalid"]
    assert len(result.steps) == 1


async def test_retry_hint_is_not_carried_to_the_next_step(box: TaskBox) -> None:
    """D2: after a valid plan the hint is dropped."""
    model = FakeModel([text("bad"), use("list_tasks"), answer_plan(), text("Ok.")])
    await run_turn(model, tools=box.tools)
    prompts = [call.prompt for call in calls(model, "conductor")]
    assert prompts[2].endswith("Next call?")


# ---------------------------------------------------------------- D3: best-effort memory


async def test_best_effort_answer_is_saved_as_partial(box: TaskBox) -> None:
    """D3: a non-blank best-effort answer is saved with best_effort=True."""
    memory = InMemory()
    model = FakeModel([use("list_tasks"), text("Found two tasks so far.")])
    result = await run_turn(model, tools=box.tools, max_steps=1, memory=memory)
    assert result.best_effort is True
    [saved] = (await memory.load()).recent
    assert (saved.answer, saved.best_effort) == ("Found two tasks so far.", True)
    assert events(result, "remember")


async def test_blank_best_effort_answer_is_not_saved(box: TaskBox) -> None:
    """D3: a blank best-effort answer is not saved."""
    memory = InMemory()
    model = FakeModel([use("list_tasks"), text("   ")])
    result = await run_turn(model, tools=box.tools, max_steps=1, memory=memory)
    assert (await memory.load()).recent == []
    assert events(result, "remember") == []


# ---------------------------------------------------------------- D4: the circuit breaker


class FakeClock:
    """Stands in for ``goliath.session.now`` (the breaker's clock) so no test sleeps."""

    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    # The breaker reads goliath.session.now (monotonic seconds), not Trio's clock, so the
    # autojump clock cannot drive it; the module documents patching it for tests.
    fake = FakeClock()
    monkeypatch.setattr(goliath.session, "now", fake)
    return fake


async def test_breaker_needs_a_fallback() -> None:
    """D4: without a fallback the breaker never opens; turns keep running on device."""
    model = FakeModel([fail(ModelError("x"))] * 3 + [text("Back.")])
    agent = Agent(model)
    async with agent:
        for _ in range(3):
            await agent.run("hi")
        assert agent.is_session_fallback() is False
        result = await agent.run("hi")
    assert (result.text, result.handled_by) == ("Back.", "device")


async def test_breaker_probes_the_device_after_the_cool_down(clock: FakeClock) -> None:
    """D4: after session_retry_after seconds the next turn probes the device; success closes it."""
    fallback = RecordingFallback()
    model = FakeModel(
        [fail(ModelError("x"))] * 3
        + [text("Back on device."), text("Goal: one"), text("Still here."), text("Goal: two")]
    )
    agent = Agent(model, fallback=fallback, session_retry_after=300)
    async with agent:
        for _ in range(3):
            await agent.run("hi")
        assert agent.is_session_fallback() is True
        clock.t += 299
        handed = await agent.run("hi")
        assert (handed.handled_by, len(model.calls)) == ("cloud", 3)
        assert fallback.requests[-1].error == "session fallback"
        clock.t += 1
        assert agent.is_session_fallback() is False
        probe = await agent.run("hi")
        after = await agent.run("hi")
        assert agent.is_session_fallback() is False
    assert (probe.text, probe.handled_by) == ("Back on device.", "device")
    assert (after.text, after.handled_by) == ("Still here.", "device")
    assert labels(model)[3:] == ["answer", "scribe", "answer", "scribe"]


async def test_failed_probe_reopens_the_breaker(clock: FakeClock) -> None:
    """D4: a probe turn that escalates model-error hands the conversation over again.

    (The Decision only says a device turn without model-error closes the breaker; reopening on
    a failed probe is the usual circuit-breaker reading and what the implementation does.)
    """
    fallback = RecordingFallback()
    model = FakeModel([fail(ModelError("x"))] * 4)
    agent = Agent(model, fallback=fallback, session_retry_after=60)
    async with agent:
        for _ in range(3):
            await agent.run("hi")
        clock.t += 61
        probe = await agent.run("hi")
        assert len(model.calls) == 4
        assert (probe.handled_by, fallback.requests[-1].error) == ("cloud", "ModelError: x")
        assert agent.is_session_fallback() is True
        again = await agent.run("hi")
    assert len(model.calls) == 4
    assert fallback.requests[-1].error == "session fallback"
    assert again.handled_by == "cloud"


async def test_retry_after_none_keeps_the_breaker_open(clock: FakeClock) -> None:
    """D4: session_retry_after=None keeps the breaker open for the agent's lifetime."""
    model = FakeModel([fail(ModelError("x"))] * 3 + [text("never")])
    agent = Agent(model, fallback=RecordingFallback(), session_retry_after=None)
    async with agent:
        for _ in range(3):
            await agent.run("hi")
        clock.t += 10**9
        assert agent.is_session_fallback() is True
        result = await agent.run("hi")
    assert result.handled_by == "cloud"
    assert len(model.calls) == 3


async def test_default_cool_down_is_300_seconds(clock: FakeClock) -> None:
    """D4: session_retry_after defaults to 300 seconds."""
    model = FakeModel([fail(ModelError("x"))] * 3 + [text("Back.")])
    agent = Agent(model, fallback=RecordingFallback())
    async with agent:
        for _ in range(3):
            await agent.run("hi")
        clock.t += 299.5
        assert agent.is_session_fallback() is True
        clock.t += 0.5
        assert agent.is_session_fallback() is False
        result = await agent.run("hi")
    assert result.handled_by == "device"


async def test_session_fallback_turn_has_the_full_lifecycle(clock: FakeClock) -> None:
    """Handed-over turns run hooks, events and memory; the scribe makes no model call."""
    seen: list[str] = []

    class Watch(Extension):
        name = "watch"

        def before_fallback(self, ctx: Any) -> None:
            seen.append(ctx.request.error)

    memory = memory_with("Goal: S", [exchange(f"q{i}", f"a{i}") for i in range(3)])
    model = FakeModel([fail(ModelError("x"))] * 3)
    agent = Agent(model, fallback=lambda r: "cloud", extensions=[Watch()], memory=memory)
    async with agent:
        for _ in range(3):
            await agent.run("hi")
        result = await agent.run("q-last")
    assert seen[-1] == "session fallback"
    assert [e.type for e in result.trace] == ["recall", "escalate", "answer", "remember"]
    assert len(model.calls) == 3
    state = await memory.load()
    assert state.summary == "Goal: S"
    assert state.recent[-1].ask == "q-last"


# ---------------------------------------------------------------- D5: no 'no-model'


async def test_every_escalation_reason_is_a_known_code(box: TaskBox) -> None:
    """D5: reason codes come from the fixed list, which has no 'no-model'."""
    known = {
        "model-unavailable",
        "too-many-steps",
        "repeated-tool-call",
        "empty-answer",
        "answer-invalid",
        "plan-invalid",
        "conductor-asked",
        "tool-args-invalid",
        "tool-error",
        "guardrail",
        "context-budget",
        "tool-prerequisite-missing",
        "model-error",
    }
    scripts = [
        [fail(ModelError("x"))],
        [use("list_tasks"), use("list_tasks"), use("list_tasks")],
        [answer_plan(), text(""), text("")],
    ]
    for script in scripts:
        result = await run_turn(FakeModel(script), tools=box.tools, fallback=RecordingFallback())
        assert set(reasons(result)) <= known
        assert "no-model" not in reasons(result)


# ---------------------------------------------------------------- D7: snake_case names


def test_record_fields_are_snake_case() -> None:
    """D7: record field names are the snake_case ones of the contract."""
    assert set(StepRecord.__struct_fields__) >= {
        "index",
        "kind",
        "brief",
        "tool",
        "input",
        "result",
        "output",
        "writes",
        "output_mode",
        "skipped",
        "skip_reason",
        "cached",
        "failed",
        "extension",
        "text",
    }
    assert set(RunResult.__struct_fields__) >= {
        "text",
        "handled_by",
        "steps",
        "output",
        "best_effort",
        "stopped",
        "diagnostics",
        "trace",
        "conversation_id",
        "turn_id",
    }
    assert set(FallbackRequest.__struct_fields__) >= {
        "ask",
        "summary",
        "recent",
        "steps",
        "reason",
        "error",
        "conversation_id",
    }
    assert set(ConfirmRequest.__struct_fields__) >= {
        "tool",
        "input",
        "brief",
        "conversation_id",
        "turn_id",
        "call_id",
    }
    assert set(Exchange.__struct_fields__) >= {"ask", "answer", "at", "best_effort", "steps"}
    assert set(MemoryState.__struct_fields__) >= {"summary", "recent"}
    assert Decision(approved=False, reason="r") == Decision(False, "r")


def test_records_are_constructible_by_keyword() -> None:
    """Exchange(ask=..., answer=..., at=...), MemoryState(summary=..., recent=[...])."""
    item = Exchange(ask="q", answer="a", at=1.5)
    state = MemoryState(summary="s", recent=[item])
    assert state.recent[0].at == 1.5
    assert msgspec.json.decode(msgspec.json.encode(state))["recent"][0]["ask"] == "q"


def test_event_types_keep_their_spellings() -> None:
    """D7: event types are recall … budget, with memory_error spelled with '_'; ``check`` is
    Goliath's addition (docs/design.md, "Where Goliath differs")."""
    assert set(event_types()) == {
        "recall",
        "plan",
        "tool",
        "confirm",
        "escalate",
        "answer",
        "remember",
        "budget",
        "memory_error",
        "check",
    }


def test_tool_options_are_snake_case() -> None:
    """D7: tool options are snake_case (requires_confirmation, output_mode)."""

    @tool(writes=True, requires_confirmation=True, output_mode="content")
    def write_note(text: str) -> str:
        """Write a note."""
        return text

    assert (write_note.writes, write_note.requires_confirmation, write_note.output_mode) == (
        True,
        True,
        "content",
    )


# ---------------------------------------------------------------- D9: where tools run


async def test_sync_tools_run_in_a_worker_thread_and_async_ones_in_the_actor() -> None:
    """D9: sync tool functions run in a worker thread; async ones in the conversation actor."""
    seen: dict[str, Any] = {}
    trio_thread = threading.current_thread()
    caller = trio.lowlevel.current_task()

    @tool
    def sync_probe() -> str:
        """Probe from a thread."""
        seen["sync"] = threading.current_thread()
        return "sync"

    @tool
    async def async_probe() -> str:
        """Probe from Trio."""
        seen["async"] = (threading.current_thread(), trio.lowlevel.current_task())
        return "async"

    model = FakeModel([use("sync_probe"), use("async_probe"), answer_plan(), text("Ok.")])
    await run_turn(model, tools=[sync_probe, async_probe])
    assert seen["sync"] is not trio_thread
    async_thread, async_task = seen["async"]
    assert async_thread is trio_thread
    assert async_task is not caller


async def test_sync_confirm_and_fallback_handlers_are_accepted(box: TaskBox) -> None:
    """Handlers may be sync or async callables."""
    result = await run_turn(
        FakeModel([use("create_task"), args(title="Eggs"), fail(ModelError("x"))]),
        tools=box.tools,
        confirm=lambda request: True,
        fallback=lambda request: "sync cloud",
    )
    assert result.text == "sync cloud"
    assert box.ran("create_task") == 1
