"""Agent.run_stream: the trace as it happens, the answer's text while it is written, the result."""

from __future__ import annotations

from typing import Any

import pytest
import trio

from goliath import Agent, GoliathError, tool
from goliath.streaming import ResultEvent, TokenEvent
from goliath.testing import FakeModel
from tests.helpers import answer, answer_plan, use

ANSWER = "Milk, eggs and bread are on the list."


@tool
def list_tasks() -> list[str]:
    """List the tasks."""
    return ["milk", "eggs", "bread"]


def listing_model(**options: Any) -> FakeModel:
    return FakeModel([use("list_tasks"), answer_plan(), answer(ANSWER)], **options)


async def test_answer_text_arrives_in_pieces_before_the_turn_ends(autojump_clock: Any) -> None:
    """Token events come while the turn still runs; they add up to the answer, then the result."""
    agent = Agent(listing_model(token_delay=0.1), tools=[list_tasks])
    seen: list[Any] = []
    running_at_first_token: bool | None = None
    async with agent:
        async for event in agent.run_stream("what is on my list?", turn_id="t1"):
            if isinstance(event, TokenEvent) and running_at_first_token is None:
                ticket = agent.runtime.supervisor.ticket("t1")  # type: ignore[union-attr]
                running_at_first_token = ticket is not None and not ticket.done.is_set()
            seen.append(event)
    assert running_at_first_token is True
    tokens = [event.text for event in seen if isinstance(event, TokenEvent)]
    assert len(tokens) == len(ANSWER.split()) and "".join(tokens) == ANSWER
    assert isinstance(seen[-1], ResultEvent) and seen[-1].result.text == ANSWER
    kinds = [event.type for event in seen]
    assert kinds.index("plan") < kinds.index("tool") < kinds.index("token") < kinds.index("answer")


async def test_tokens_stay_out_of_the_trace() -> None:
    """A streamed run's RunResult.trace is the same list of events a plain run records."""
    async with Agent(listing_model(), tools=[list_tasks]) as agent:
        streamed = [event async for event in agent.run_stream("list?")][-1]
    async with Agent(listing_model(), tools=[list_tasks]) as agent:
        plain = await agent.run("list?")
    assert isinstance(streamed, ResultEvent)
    assert [e.type for e in streamed.result.trace] == [e.type for e in plain.trace]
    assert "token" not in [e.type for e in streamed.result.trace]


async def test_only_the_prose_answer_streams() -> None:
    """Conductor and arguments calls are never streamed: every token belongs to the answer."""
    model = FakeModel([use("list_tasks"), answer_plan(), answer("Done.")])
    async with Agent(model, tools=[list_tasks]) as agent:
        tokens = [e.text async for e in agent.run_stream("list?") if isinstance(e, TokenEvent)]
    assert tokens == ["Done."]


async def test_leaving_the_loop_early_cancels_the_turn(autojump_clock: Any) -> None:
    """`break` out of the stream cancels the running turn inside its actor."""
    agent = Agent(listing_model(token_delay=1.0), tools=[list_tasks])
    async with agent:
        stream = agent.run_stream("list?", turn_id="t2")
        async for event in stream:
            if isinstance(event, TokenEvent):
                break
        await stream.aclose()  # type: ignore[attr-defined]
        ticket = agent.runtime.supervisor.ticket("t2")  # type: ignore[union-attr]
        assert ticket is not None
        with trio.fail_after(5):
            await ticket.done.wait()
        assert ticket.status == "cancelled"


async def test_a_failing_turn_raises_from_the_stream() -> None:
    """The turn's original error is raised where the result would have come."""

    def refuse(event: Any) -> None:
        raise ValueError("callback refused")

    agent = Agent(FakeModel([answer_plan(), answer("Hi.")]), on_event=refuse)
    async with agent:
        with pytest.raises(ValueError, match="callback refused"):
            async for _ in agent.run_stream("hi"):
                pass


async def test_a_stream_before_the_runtime_started_says_how_to_start_it() -> None:
    """run_stream outside `async with agent:` is a GoliathError naming the fix."""
    with pytest.raises(GoliathError, match="async with agent"):
        async for _ in Agent(FakeModel([])).run_stream("hi"):
            pass
