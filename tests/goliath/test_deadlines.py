"""Deadlines: a model that hangs fails its call; a tool that hangs fails its step."""

from __future__ import annotations

from typing import Any

import trio

from goliath import Agent, ToolContext, tool
from goliath.models import GenerateRequest
from goliath.testing import FakeModel
from tests.helpers import answer, answer_plan, use


async def test_a_hanging_model_call_fails_as_a_model_error_and_frees_the_model(
    autojump_clock: Any,
) -> None:
    """Past model_timeout the call ends, the turn escalates model-error, the next call runs."""
    released = trio.Event()

    async def reply(request: GenerateRequest) -> dict[str, Any]:
        if request.prompt.endswith("Ask: hang"):
            try:
                await trio.sleep_forever()
            finally:
                released.set()
        return answer("fine")

    agent = Agent(FakeModel(reply), model_timeout=30)
    async with agent:
        started = trio.current_time()
        result = await agent.run("hang")
        assert trio.current_time() - started == 30
        with trio.fail_after(0.001):  # the worker cancels the hung call at once
            await released.wait()
        escalation = next(event for event in result.trace if event.type == "escalate")
        assert escalation.reason == "model-error"
        assert "did not answer the answer call within 30 s" in (escalation.error or "")
        assert (await agent.run("next")).text == "fine"


async def test_a_hanging_async_tool_fails_its_step_and_the_turn_goes_on(
    autojump_clock: Any,
) -> None:
    """Past tool_timeout the step is failed with a timeout message the model reads."""

    @tool
    async def slow_lookup() -> str:
        """Look something up slowly."""
        await trio.sleep_forever()
        return "never"

    model = FakeModel([use("slow_lookup"), answer_plan(), answer("It timed out.")])
    result = await _run(Agent(model, tools=[slow_lookup], tool_timeout=10), "look it up")
    step = result.steps[0]
    assert step.failed
    assert (
        step.result
        == "error: TimeoutError: slow_lookup did not finish within 10 s. Try different arguments or another tool."
    )
    assert result.text == "It timed out."


async def test_a_cooperative_sync_tool_stops_at_the_deadline() -> None:
    """A sync tool that calls ctx.check_cancelled() ends when its deadline passes."""
    import time

    stopped: list[bool] = []

    @tool
    def crunch(ctx: ToolContext) -> str:
        """Crunch numbers for a long time."""
        try:
            for _ in range(10_000):
                time.sleep(0.01)
                ctx.check_cancelled()
        except BaseException:
            stopped.append(True)
            raise
        return "done"

    model = FakeModel([use("crunch"), answer_plan(), answer("Too slow.")])
    result = await _run(Agent(model, tools=[crunch], tool_timeout=0.2), "crunch")
    assert stopped == [True]
    assert result.steps[0].failed and "did not finish within 0.2 s" in (
        result.steps[0].result or ""
    )


async def _run(agent: Agent, ask: str) -> Any:
    async with agent:
        return await agent.run(ask)
