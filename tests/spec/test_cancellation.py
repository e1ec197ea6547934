"""Cancellation (design.md, D6)."""

from __future__ import annotations

from typing import Any

import pytest
import trio

from goliath import (
    Agent,
    Extension,
    StepRecord,
    ToolContext,
)
from goliath.errors import ModelError
from goliath.memory import InMemory
from goliath.models import GenerateRequest, Generation
from goliath.testing import FakeModel

from .helpers import (
    RecordingFallback,
    answer_plan,
    events,
    exchange,
    make_tool,
    memory_with,
    text,
    use,
)

# ---------------------------------------------------------------- D6: cancellation


class Observer(Extension):
    name = "observer"

    def __init__(self) -> None:
        self.seen: list[tuple[str, Any]] = []
        self.steps: list[StepRecord] = []
        self.trace: list[Any] = []

    def on_error(self, ctx: Any) -> None:
        self.seen.append(("on_error", type(ctx.error)))
        self.steps = list(ctx.steps)
        self.trace = list(ctx.trace)

    async def on_finish(self, ctx: Any) -> None:
        await trio.sleep(1)  # shielded: still completes although the run was cancelled
        self.seen.append(("on_finish", ctx.outcome.status))


async def test_cancelling_the_caller_aborts_the_turn(autojump_clock: Any) -> None:
    """D6: cancelling the caller's scope cancels the turn; on_error/on_finish run (aborted)."""
    observer = Observer()
    memory = InMemory()
    fallback = RecordingFallback()
    model = FakeModel([text("Hi.")], delay=30)
    agent = Agent(model, extensions=[observer], memory=memory, fallback=fallback)
    async with agent:
        with trio.move_on_after(5) as scope:
            await agent.run("hi")
    assert scope.cancelled_caught
    assert observer.seen == [("on_error", trio.Cancelled), ("on_finish", "aborted")]
    assert fallback.requests == []
    assert not any(event.type == "escalate" for event in observer.trace)
    state = await memory.load()
    assert state.recent == []


async def test_cancelled_run_raises_cancelled_in_the_caller(autojump_clock: Any) -> None:
    """D6: the run raises trio.Cancelled in the caller."""
    raised: list[BaseException] = []
    agent = Agent(FakeModel([text("Hi.")], delay=30))
    async with agent:
        with trio.move_on_after(5):
            try:
                await agent.run("hi")
            except BaseException as exc:
                raised.append(exc)
                raise
    assert len(raised) == 1 and isinstance(raised[0], trio.Cancelled)


class SlowScribe:
    """A model whose scribe call takes a minute (answers come from the script)."""

    def __init__(self, script: list[dict[str, Any]]) -> None:
        self.inner = FakeModel(script)

    async def generate(self, request: GenerateRequest) -> Generation:
        if request.label == "scribe":
            await trio.sleep(60)
        return await self.inner.generate(request)


async def test_nothing_half_done_is_saved(autojump_clock: Any) -> None:
    """D6: a turn cancelled while its memory is being written saves nothing."""
    before = [exchange(f"q{i}", f"a{i}") for i in range(3)]
    memory = memory_with("Goal: S", before)
    observer = Observer()
    agent = Agent(SlowScribe([text("a3"), text("Goal: new")]), memory=memory, extensions=[observer])
    async with agent:
        with trio.move_on_after(10) as scope:
            await agent.run("q3")
    assert scope.cancelled_caught
    state = await memory.load()
    assert (state.summary, [e.ask for e in state.recent]) == ("Goal: S", ["q0", "q1", "q2"])
    assert observer.seen[-1] == ("on_finish", "aborted")


async def test_cancelled_tool_step_stays_in_the_steps(autojump_clock: Any) -> None:
    """D6: a step whose tool was cancelled stays in steps with its placeholder."""

    async def slow(arguments: dict[str, Any], ctx: ToolContext) -> str:
        await trio.sleep(60)
        return "late"

    observer = Observer()
    agent = Agent(
        FakeModel([use("slow"), answer_plan(), text("Ok.")]),
        tools=[make_tool("slow", slow)],
        extensions=[observer],
    )
    async with agent:
        with trio.move_on_after(10):
            await agent.run("go")
    [step] = observer.steps
    assert (step.tool, step.result) == ("slow", "(tool execution did not complete)")


async def test_observers_are_bounded_when_cancelled(autojump_clock: Any) -> None:
    """D6: on_error/on_finish run shielded but bounded by a short deadline."""

    class Stuck(Extension):
        name = "stuck"

        async def on_finish(self, ctx: Any) -> None:
            await trio.sleep_forever()

    agent = Agent(FakeModel([text("Hi.")], delay=30), extensions=[Stuck()])
    async with agent:
        start = trio.current_time()
        with trio.move_on_after(5) as scope:
            await agent.run("hi")
        elapsed = trio.current_time() - start
    assert scope.cancelled_caught
    assert elapsed < 60


async def test_cancellation_leaves_the_model_error_count_alone(autojump_clock: Any) -> None:
    """D6: a cancelled turn neither counts nor resets the model-error count."""

    class Script:
        def __init__(self) -> None:
            self.n = 0

        async def generate(self, request: GenerateRequest) -> Generation:
            self.n += 1
            if self.n == 3:
                await trio.sleep(60)
            raise ModelError("x")

    agent = Agent(Script(), fallback=RecordingFallback())
    async with agent:
        await agent.run("a")
        await agent.run("b")
        with trio.move_on_after(5):
            await agent.run("cancelled")
        assert agent.is_session_fallback() is False
        await agent.run("c")
        assert agent.is_session_fallback() is True


async def test_conversation_continues_after_a_cancelled_turn(autojump_clock: Any) -> None:
    """D6: after a cancelled turn the conversation serves the next run normally."""

    class Script:
        def __init__(self) -> None:
            self.n = 0

        async def generate(self, request: GenerateRequest) -> Generation:
            self.n += 1
            if self.n == 1:
                await trio.sleep(60)
            return Generation(text="Fine.")

    agent = Agent(Script())
    async with agent:
        with trio.move_on_after(5):
            await agent.run("slow")
        result = await agent.run("again")
    assert result.text == "Fine."
    assert events(result, "recall")[0].recent == 0


async def test_already_cancelled_run_calls_neither_window_nor_model() -> None:
    """D6: a run started in an already-cancelled scope raises without calling window."""
    seen: list[int] = []

    def window() -> int:
        seen.append(1)
        return 4096

    model = FakeModel([text("Hi.")])
    agent = Agent(model, window=window)
    async with agent:
        with trio.CancelScope() as scope:
            scope.cancel()
            await agent.run("hi")
    assert scope.cancelled_caught
    assert (seen, model.calls) == ([], [])


@pytest.mark.parametrize("when", ["queued", "already-cancelled"])
async def test_observers_run_for_runs_cancelled_before_they_start(
    autojump_clock: Any, when: str
) -> None:
    """D6: on_error and on_finish run (aborted) even for a run cancelled before it starts."""
    seen: list[tuple[str, str]] = []

    class Watch(Extension):
        name = "watch"

        def on_error(self, ctx: Any) -> None:
            seen.append(("on_error", ctx.run_id))

        def on_finish(self, ctx: Any) -> None:
            seen.append((f"on_finish:{ctx.outcome.status}", ctx.run_id))

    agent = Agent(FakeModel([text("A.")], delay=10), extensions=[Watch()])
    async with agent:
        if when == "queued":
            async with trio.open_nursery() as nursery:
                nursery.start_soon(agent.run, "first")
                await trio.sleep(1)
                with trio.move_on_after(1):
                    await agent.run("second")
        else:
            with trio.CancelScope() as scope:
                scope.cancel()
                await agent.run("second")
    statuses = [name for name, _ in seen]
    assert statuses.count("on_error") == 1
    assert statuses.count("on_finish:aborted") == 1
