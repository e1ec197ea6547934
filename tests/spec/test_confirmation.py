"""Confirmation of writes (design.md, D8)."""

from __future__ import annotations

import threading
from typing import Any

import pytest
import trio
import trio.lowlevel

from goliath import Agent, ConfirmRequest, tool
from goliath.memory import InMemory
from goliath.testing import FakeModel

from .helpers import (
    TaskBox,
    answer_plan,
    args,
    events,
    run_turn,
    text,
    use,
)


def add_eggs() -> list[dict[str, Any]]:
    return [use("create_task"), args(title="Eggs"), answer_plan(), text("Done.")]


async def test_reads_never_call_confirm(box: TaskBox) -> None:
    """Read tools never call confirm."""
    asked: list[Any] = []
    model = FakeModel(
        [use("list_tasks"), use("search"), args(query="milk"), answer_plan(), text("Ok.")]
    )
    result = await run_turn(model, tools=box.tools, confirm=lambda r: asked.append(r) or True)
    assert asked == []
    assert events(result, "confirm") == []


async def test_without_a_handler_writes_are_declined(box: TaskBox) -> None:
    """Without any handler a write is declined: writes fail closed (D11)."""
    result = await run_turn(FakeModel(add_eggs()), tools=box.tools, auto_approve=False)
    assert box.ran("create_task") == 0
    [event] = events(result, "confirm")
    assert (event.tool, event.approved, event.reason) == (
        "create_task",
        False,
        "no confirmation handler",
    )
    assert (result.steps[0].skipped, result.steps[0].skip_reason) == (True, "confirmation")
    assert result.steps[0].result == (
        "declined by the user: no confirmation handler. Do not retry unless asked."
    )


async def test_auto_approve_runs_writes_without_a_handler(box: TaskBox) -> None:
    """With auto_approve=True and no handler a write is approved (the original's default)."""
    result = await run_turn(FakeModel(add_eggs()), tools=box.tools, auto_approve=True)
    assert box.ran("create_task") == 1
    [event] = events(result, "confirm")
    assert (event.tool, event.approved, event.reason) == ("create_task", True, None)


async def test_a_run_handler_is_asked_even_when_the_agent_has_none(box: TaskBox) -> None:
    """A per-run confirm handler decides the write of an agent built without one."""
    await run_turn(
        FakeModel(add_eggs()),
        tools=box.tools,
        auto_approve=False,
        run={"confirm": lambda request: True},
    )
    assert box.ran("create_task") == 1


def test_an_agent_whose_writes_would_all_decline_warns_once(
    box: TaskBox, caplog: pytest.LogCaptureFixture
) -> None:
    """Write tools with neither confirm= nor auto_approve=True log one warning naming them."""
    with caplog.at_level("WARNING", logger="goliath"):
        Agent(FakeModel([]), tools=box.tools)
        Agent(FakeModel([]), tools=box.tools, auto_approve=True)
        Agent(FakeModel([]), tools=box.tools, confirm=lambda request: True)
    warnings = [record for record in caplog.records if record.name == "goliath"]
    assert len(warnings) == 1
    assert "create_task" in warnings[0].getMessage()
    assert "auto_approve=True" in warnings[0].getMessage()


async def test_without_a_handler_requires_confirmation_is_declined() -> None:
    """Without any handler a requires_confirmation write is declined, even with auto_approve."""
    executed: list[str] = []

    @tool(writes=True, requires_confirmation=True)
    def delete_task(title: str) -> str:
        """Delete a task."""
        executed.append(title)
        return "deleted"

    model = FakeModel([use("delete_task"), args(title="Eggs"), answer_plan(), text("Not deleted.")])
    result = await run_turn(model, tools=[delete_task], auto_approve=True)
    assert executed == []
    assert (result.steps[0].skipped, result.steps[0].skip_reason) == (True, "confirmation")
    assert result.steps[0].result == (
        "declined by the user: no confirmation handler. Do not retry unless asked."
    )
    [event] = events(result, "confirm")
    assert event.approved is False


async def test_a_sync_handler_waits_in_a_thread_while_other_conversations_run(
    box: TaskBox,
) -> None:
    """A sync handler (a person at input()) runs in a worker thread: another conversation's
    turn finishes while it waits, and its answer then decides the write."""
    release = threading.Event()
    seen: list[str] = []

    def slow_person(request: ConfirmRequest) -> bool:
        seen.append(threading.current_thread().name)
        release.wait(10)
        return True

    writer_first_half = add_eggs()[:2]  # the plan and the arguments, then the handler waits
    model = FakeModel(
        [*writer_first_half, answer_plan(), text("Hello."), answer_plan(), text("Added Eggs.")]
    )
    agent = Agent(
        model, tools=box.tools, confirm=slow_person, memory=lambda conversation_id: InMemory()
    )
    async with agent, trio.open_nursery() as nursery:
        results: dict[str, Any] = {}

        async def turn(conversation: str, ask: str) -> None:
            results[conversation] = await agent.run(ask, conversation_id=conversation)

        nursery.start_soon(turn, "writer", "add eggs")
        while not seen:
            await trio.sleep(0.001)
        await turn("reader", "hi")  # finishes while the handler still blocks its thread
        assert "writer" not in results
        release.set()
    assert seen[0] != threading.main_thread().name
    assert (results["reader"].text, results["writer"].text) == ("Hello.", "Added Eggs.")
    assert box.ran("create_task") == 1


async def test_confirm_timeout_ends_a_sync_handler_that_never_returns(
    box: TaskBox, autojump_clock: Any
) -> None:
    """A sync handler blocked past confirm_timeout is a decline ('no answer')."""
    release = threading.Event()

    def absent_person(request: ConfirmRequest) -> bool:
        release.wait(30)
        return True

    try:
        result = await run_turn(
            FakeModel(add_eggs()), tools=box.tools, confirm=absent_person, confirm_timeout=5
        )
    finally:
        release.set()
    assert box.ran("create_task") == 0
    [event] = events(result, "confirm")
    assert (event.approved, event.reason) == (False, "no answer")


async def test_tool_time_excludes_the_confirmation_wait(autojump_clock: Any) -> None:
    """The tool event times the tool alone (not the model filling its arguments, not the
    person); the confirm event reports the person's wait."""

    @tool(writes=True)
    async def add_note(text: str) -> str:
        """Save a note."""
        await trio.sleep(0.5)
        return "saved"

    async def thinks_for_four_seconds(request: ConfirmRequest) -> bool:
        await trio.sleep(4)
        return True

    model = FakeModel(
        [use("add_note"), args(text="figs"), answer_plan(), text("Saved.")], delay=1.0
    )  # each model call, the argument filling included, takes a second
    result = await run_turn(model, tools=[add_note], confirm=thinks_for_four_seconds)
    [confirm] = events(result, "confirm")
    [ran] = events(result, "tool")
    assert confirm.ms == pytest.approx(4000, abs=1)
    assert ran.ms == pytest.approx(500, abs=1)
