"""asyncio hosts: `async with agent:` and `await agent.run(...)` inside a real asyncio loop.

Each test runs its own ``asyncio.run(...)``: the agent's Trio runtime is a guest of that loop.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from goliath import Agent, ConfirmRequest, GoliathError, tool
from goliath.memory import InMemory
from goliath.streaming import ResultEvent, TokenEvent
from goliath.testing import FakeModel
from tests.helpers import answer, answer_plan, use


def greeter() -> FakeModel:
    def reply(request: Any) -> dict[str, Any]:
        if request.label == "conductor":
            return {"json": {"call": "answer_the_user"}}
        ask = request.prompt.rsplit("Ask: ", 1)[-1].split("\n", 1)[0]
        return {"text": f"Hello from asyncio: {ask}"}

    return FakeModel(reply)


def test_a_turn_runs_inside_a_running_asyncio_loop() -> None:
    """Under asyncio.run, `async with agent:` starts the runtime and `await agent.run()` answers."""

    async def main() -> tuple[str, str]:
        async with Agent(greeter()) as agent:
            result = await agent.run("hi")
            return result.text, result.handled_by

    assert asyncio.run(main()) == ("Hello from asyncio: hi", "device")


def test_conversations_run_concurrently_from_asyncio_gather() -> None:
    """asyncio.gather of runs in different conversations: each answer in its own memory."""

    async def main() -> list[str]:
        agent = Agent(greeter(), memory=lambda conversation_id: InMemory())
        async with agent:
            results = await asyncio.gather(
                *(agent.run(f"q{n}", conversation_id=f"c{n}") for n in range(20))
            )
        return [result.text for result in results]

    assert asyncio.run(main()) == [f"Hello from asyncio: q{n}" for n in range(20)]


def test_the_asyncio_loop_keeps_serving_while_a_turn_waits() -> None:
    """While a turn's tool waits, other asyncio tasks keep running (one thread, two loops)."""
    ticks: list[int] = []

    @tool
    async def slow_lookup() -> str:
        """Look something up slowly (on the host loop: asyncio's sleep, #24)."""
        await asyncio.sleep(0.2)
        return "found"

    async def ticker() -> None:
        for n in range(5):
            ticks.append(n)
            await asyncio.sleep(0.01)

    async def main() -> str:
        model = FakeModel([use("slow_lookup"), answer_plan(), answer("Found it.")])
        async with Agent(model, tools=[slow_lookup]) as agent:
            tick = asyncio.create_task(ticker())
            result = await agent.run("look it up")
            await tick
        return result.text

    assert asyncio.run(main()) == "Found it."
    assert ticks == [0, 1, 2, 3, 4]


def test_cancelling_the_asyncio_caller_cancels_the_turn() -> None:
    """asyncio.wait_for timing out cancels the Trio turn inside its actor."""
    stopped = threading.Event()

    @tool
    async def forever() -> str:
        """Never finish."""
        try:
            await asyncio.Event().wait()  # on the host loop (#24)
        finally:
            stopped.set()
        return "never"  # pragma: no cover

    async def main() -> str:
        model = FakeModel([use("forever"), answer_plan(), answer("unreachable")])
        async with Agent(model, tools=[forever]) as agent:
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(agent.run("go", turn_id="t-cancel"), timeout=0.3)
            ticket = agent.runtime.supervisor.ticket("t-cancel")  # type: ignore[union-attr]
            assert ticket is not None
            # the cancel crosses two event loops: wait for it to land, with a bound generous
            # enough for a loaded machine (a count of polls, not a timing under test)
            for _ in range(3000):
                if stopped.is_set() and ticket.status not in ("queued", "running"):
                    break
                await asyncio.sleep(0.01)
            return ticket.status

    assert asyncio.run(main()) == "cancelled"
    assert stopped.is_set()


def test_a_failed_run_raises_its_own_error_in_asyncio() -> None:
    """The turn's original exception reaches the asyncio caller unchanged."""

    def refuse(event: Any) -> None:
        raise ValueError("callback refused")

    async def main() -> None:
        async with Agent(greeter(), on_event=refuse) as agent:
            await agent.run("hi")

    with pytest.raises(ValueError, match="callback refused"):
        asyncio.run(main())


def test_a_sync_confirm_handler_in_asyncio_runs_in_a_thread() -> None:
    """A blocking confirm handler (a person at input()) runs outside the event loop's thread."""
    seen: list[str] = []

    @tool(writes=True)
    def add_note(text: str) -> str:
        """Save a note."""
        return "saved"

    def person(request: ConfirmRequest) -> bool:
        seen.append(threading.current_thread().name)
        return True

    async def main() -> str:
        model = FakeModel([use("add_note"), {"json": {"text": "x"}}, answer_plan(), answer("Ok.")])
        async with Agent(model, tools=[add_note], confirm=person) as agent:
            return (await agent.run("note x")).text

    assert asyncio.run(main()) == "Ok."
    assert seen and seen[0] != threading.main_thread().name


def test_run_stream_yields_tokens_under_asyncio() -> None:
    """`async for event in agent.run_stream(...)` works from asyncio, tokens before the result."""

    async def main() -> list[Any]:
        model = FakeModel([answer("One two three.")], token_delay=0.01)  # no tools: no plan
        async with Agent(model) as agent:
            return [event async for event in agent.run_stream("count")]

    events = asyncio.run(main())
    tokens = [event.text for event in events if isinstance(event, TokenEvent)]
    assert tokens == ["One ", "two ", "three."]
    assert isinstance(events[-1], ResultEvent) and events[-1].result.text == "One two three."


def test_run_before_the_runtime_started_says_how_to_start_it_under_asyncio() -> None:
    """Without `async with agent:`, an asyncio caller gets the GoliathError that says so."""

    async def main() -> None:
        await Agent(greeter()).run("hi")

    with pytest.raises(GoliathError, match="async with agent"):
        asyncio.run(main())


def test_an_agent_cannot_be_used_from_another_loop() -> None:
    """An agent started in one asyncio loop refuses calls from another, with the reason."""
    agent = Agent(greeter())
    started = threading.Event()
    finish = threading.Event()

    async def owner() -> None:
        async with agent:
            started.set()
            while not finish.is_set():
                await asyncio.sleep(0.01)

    thread = threading.Thread(target=asyncio.run, args=(owner(),))
    thread.start()
    try:
        assert started.wait(10)

        async def intruder() -> None:
            await agent.run("hi")

        with pytest.raises(GoliathError, match="another asyncio event loop"):
            asyncio.run(intruder())
    finally:
        finish.set()
        thread.join(10)


def test_an_unsupported_async_library_gets_a_clear_error() -> None:
    """Driving agent.run() outside Trio and asyncio names the problem instead of crashing."""
    coroutine = Agent(greeter()).run("hi")
    with pytest.raises(GoliathError, match="Trio, or inside an asyncio event loop"):
        coroutine.send(None)
    coroutine.close()
