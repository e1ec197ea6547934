"""Confirmation of writes (design.md, D8)."""

from __future__ import annotations

import threading
from typing import Any

import pytest
import trio
import trio.lowlevel

from goliath import Agent, ConfirmRequest, Decision, tool
from goliath.memory import InMemory
from goliath.testing import FakeModel

from .helpers import (
    RecordingFallback,
    TaskBox,
    answer_plan,
    args,
    events,
    reasons,
    run_turn,
    text,
    use,
)


def add_eggs() -> list[dict[str, Any]]:
    return [use("create_task", "add eggs"), args(title="Eggs"), answer_plan(), text("Done.")]


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
        [*writer_first_half, answer_plan(), text("Hello."), answer_plan(), text("Done.")]
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
    assert (results["reader"].text, results["writer"].text) == ("Hello.", "Done.")
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


async def test_tool_time_excludes_the_confirmation_wait(box: TaskBox, autojump_clock: Any) -> None:
    """The tool event times the tool alone; the confirm event reports the person's wait."""

    async def thinks_for_four_seconds(request: ConfirmRequest) -> bool:
        await trio.sleep(4)
        return True

    result = await run_turn(FakeModel(add_eggs()), tools=box.tools, confirm=thinks_for_four_seconds)
    [confirm] = events(result, "confirm")
    [ran] = events(result, "tool")
    assert confirm.ms == pytest.approx(4000, abs=1)
    assert ran.ms < 1


async def test_requires_confirmation_has_no_effect_on_reads() -> None:
    """requires_confirmation has no effect on tools without writes."""
    executed: list[str] = []

    @tool(requires_confirmation=True)
    def peek() -> str:
        """Peek."""
        executed.append("peek")
        return "seen"

    model = FakeModel([use("peek"), answer_plan(), text("Ok.")])
    result = await run_turn(model, tools=[peek])
    assert executed == ["peek"]
    assert events(result, "confirm") == []


async def test_requires_confirmation_write_runs_with_an_approving_handler() -> None:
    """An explicit handler decides for requires_confirmation writes too."""
    executed: list[str] = []

    @tool(writes=True, requires_confirmation=True)
    def delete_task(title: str) -> str:
        """Delete a task."""
        executed.append(title)
        return "deleted"

    model = FakeModel([use("delete_task"), args(title="Eggs"), answer_plan(), text("Deleted.")])
    await run_turn(model, tools=[delete_task], confirm=lambda request: True)
    assert executed == ["Eggs"]


async def test_per_run_confirm_replaces_the_configured_one(box: TaskBox) -> None:
    """A per-run confirm replaces the configured handler for that run."""
    configured: list[Any] = []
    per_run: list[Any] = []
    model = FakeModel(
        [*add_eggs(), use("create_task"), args(title="Ham"), answer_plan(), text("Ok.")]
    )
    agent = Agent(model, tools=box.tools, confirm=lambda r: configured.append(r) or True)
    async with agent:
        first = await agent.run("add eggs", confirm=lambda r: per_run.append(r) or False)
        await agent.run("add ham")
    assert len(per_run) == 1 and per_run[0].input == {"title": "Eggs"}
    assert len(configured) == 1 and configured[0].input == {"title": "Ham"}
    assert first.steps[0].skip_reason == "confirmation"
    assert box.inputs["create_task"] == [{"title": "Ham"}]


async def test_decline_with_a_reason(box: TaskBox) -> None:
    """A decline with reason R gives 'declined by the user: R. Do not retry unless asked.'."""
    model = FakeModel(add_eggs())
    result = await run_turn(
        model, tools=box.tools, confirm=lambda r: Decision(approved=False, reason="not today")
    )
    declined = result.steps[0]
    assert (declined.skipped, declined.skip_reason) == (True, "confirmation")
    assert declined.result == "declined by the user: not today. Do not retry unless asked."
    [event] = events(result, "confirm")
    assert (event.tool, event.approved, event.reason) == ("create_task", False, "not today")
    assert events(result, "tool")[0].result == declined.result
    assert box.ran("create_task") == 0


async def test_decline_without_a_reason(box: TaskBox) -> None:
    """A plain False declines with 'declined by the user. Do not retry unless asked.'."""
    result = await run_turn(FakeModel(add_eggs()), tools=box.tools, confirm=lambda r: False)
    assert result.steps[0].result == "declined by the user. Do not retry unless asked."


async def test_async_handler_and_decision_approval(box: TaskBox) -> None:
    """An async handler may return Decision(approved=True)."""

    async def confirm(request: ConfirmRequest) -> Decision:
        await trio.lowlevel.checkpoint()
        return Decision(approved=True)

    result = await run_turn(FakeModel(add_eggs()), tools=box.tools, confirm=confirm)
    assert box.ran("create_task") == 1
    assert events(result, "confirm")[0].approved is True


async def test_confirm_request_fields(box: TaskBox) -> None:
    """ConfirmRequest has tool, input (a plain dict), brief, conversation and turn."""
    seen: list[ConfirmRequest] = []
    model = FakeModel(add_eggs())
    agent = Agent(model, tools=box.tools, memory=lambda cid: InMemory())
    async with agent:
        result = await agent.run(
            "add eggs", conversation_id="alice", confirm=lambda r: seen.append(r) or True
        )
    [request] = seen
    assert (request.tool, request.input, request.brief) == (
        "create_task",
        {"title": "Eggs"},
        "add eggs",
    )
    assert type(request.input) is dict
    assert request.conversation_id == "alice"
    assert request.turn_id == result.turn_id
    assert isinstance(request.call_id, str) and request.call_id


async def test_throwing_handler_rejects_the_run_without_fallback(box: TaskBox) -> None:
    """A throwing confirm handler rejects the run (no fallback)."""

    class Unreachable(Exception):
        pass

    def confirm(request: ConfirmRequest) -> bool:
        raise Unreachable("phone locked")

    fallback = RecordingFallback()
    with pytest.raises(Unreachable):
        await run_turn(FakeModel(add_eggs()), tools=box.tools, confirm=confirm, fallback=fallback)
    assert fallback.requests == []
    assert box.ran("create_task") == 0


async def test_declined_write_lets_the_conductor_plan_again(box: TaskBox) -> None:
    """A decline counts as a step and the conductor may plan something else."""
    model = FakeModel(
        [use("create_task"), args(title="Eggs"), use("list_tasks"), answer_plan(), text("Ok.")]
    )
    result = await run_turn(model, tools=box.tools, confirm=lambda r: False)
    assert [s.tool for s in result.steps if s.kind == "tool"] == ["create_task", "list_tasks"]
    assert reasons(result) == []


async def test_cancelling_during_confirmation_prevents_execution(box: TaskBox) -> None:
    """Cancelling while confirm is pending prevents execution; the run is cancelled."""
    waiting = trio.Event()
    model = FakeModel(add_eggs())
    agent = Agent(model, tools=box.tools)

    async def confirm(request: ConfirmRequest) -> bool:
        waiting.set()
        await trio.sleep_forever()
        return True  # pragma: no cover

    async with agent:
        with trio.CancelScope() as scope:
            async with trio.open_nursery() as nursery:

                async def cancel_when_waiting() -> None:
                    await waiting.wait()
                    scope.cancel()

                nursery.start_soon(cancel_when_waiting)
                await agent.run("add eggs", confirm=confirm)
                pytest.fail("the run should have been cancelled")  # pragma: no cover
    assert scope.cancelled_caught
    assert box.ran("create_task") == 0


async def test_run_cancelled_during_confirmation_raises_cancelled(box: TaskBox) -> None:
    """D6: the cancelled run raises trio.Cancelled in the caller."""
    waiting = trio.Event()
    raised: list[BaseException] = []

    async def confirm(request: ConfirmRequest) -> bool:
        waiting.set()
        await trio.sleep_forever()
        return True  # pragma: no cover

    agent = Agent(FakeModel(add_eggs()), tools=box.tools)
    async with agent:
        with trio.CancelScope() as scope:

            async def run() -> None:
                try:
                    await agent.run("add eggs", confirm=confirm)
                except BaseException as exc:
                    raised.append(exc)
                    raise

            async with trio.open_nursery() as nursery:
                nursery.start_soon(run)
                await waiting.wait()
                scope.cancel()
    assert len(raised) == 1 and isinstance(raised[0], trio.Cancelled)
    assert box.ran("create_task") == 0


# ---------------------------------------------------------------- D8: confirm timeout


async def test_unanswered_confirmation_is_declined_after_the_timeout(
    box: TaskBox, autojump_clock: Any
) -> None:
    """D8: no answer within confirm_timeout is a decline with the reason 'no answer'."""

    async def never(request: ConfirmRequest) -> bool:
        await trio.sleep_forever()
        return True  # pragma: no cover

    start = trio.current_time()
    result = await run_turn(
        FakeModel(add_eggs()), tools=box.tools, confirm=never, confirm_timeout=30
    )
    assert 30 <= trio.current_time() - start < 31
    [event] = events(result, "confirm")
    assert (event.approved, event.reason) == (False, "no answer")
    assert result.steps[0].result == "declined by the user: no answer. Do not retry unless asked."
    assert box.ran("create_task") == 0


async def test_default_confirm_timeout_is_120_seconds(box: TaskBox, autojump_clock: Any) -> None:
    """D8: the default timeout is 120 s: an answer after 119 s counts, none by 120 s declines."""

    async def slow_yes(request: ConfirmRequest) -> bool:
        await trio.sleep(119)
        return True

    async def never(request: ConfirmRequest) -> bool:
        await trio.sleep_forever()
        return True  # pragma: no cover

    model = FakeModel(
        [*add_eggs(), use("create_task"), args(title="Ham"), answer_plan(), text("Ok.")]
    )
    agent = Agent(model, tools=box.tools)
    async with agent:
        first = await agent.run("add eggs", confirm=slow_yes)
        start = trio.current_time()
        second = await agent.run("add ham", confirm=never)
    assert events(first, "confirm")[0].approved is True
    assert box.inputs["create_task"] == [{"title": "Eggs"}]
    assert 120 <= trio.current_time() - start < 121
    assert events(second, "confirm")[0].reason == "no answer"
