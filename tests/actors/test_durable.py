"""Approvals bound to their write, answered once, and kept durable; turn ids name one request.

In-process runtimes through the transports' door (``Runtime.handle``), a real SQLite file where
a store is needed.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any

import pytest
import trio

from actors.messages import (
    Cancel,
    ConfirmAsk,
    ConfirmReply,
    DeleteMemory,
    Failure,
    GetMemory,
    GetTurn,
    MemoryReply,
    Outbound,
    ResultMessage,
    Run,
    TurnStatus,
)
from actors.runtime import RequestError
from actors.store import TurnRecord
from actors.store_sqlite import SQLiteStore
from actors.ticket import Approval
from goliath import Agent, StepRecord, tool
from goliath.durable import Checkpoint, PendingCall, call_fingerprint, payload_fingerprint
from goliath.memory import InMemory
from goliath.models import GenerateRequest
from goliath.testing import FakeModel
from tests.transports.daemon_app import make_agent as daemon_agent


class Inbox:
    """An outbox for the runtime and the way to read it."""

    def __init__(self) -> None:
        self.send, self.receive = trio.open_memory_channel[Outbound](math.inf)

    def __call__(self, message: Outbound) -> None:
        self.send.send_nowait(message)

    async def next(self, kind: type[Any]) -> Any:
        with trio.fail_after(10):
            async for message in self.receive:
                if isinstance(message, kind):
                    return message
                if isinstance(message, (ResultMessage, Failure)) and kind not in (
                    ResultMessage,
                    Failure,
                ):
                    raise AssertionError(f"the turn ended before a {kind.__name__}: {message}")
        raise AssertionError("the outbox closed")


async def refused(runtime: Any, message: Any) -> RequestError:
    with pytest.raises(RequestError) as caught:
        await runtime.handle(message, Inbox())
    return caught.value


class TestConfirmations:
    async def test_an_answer_after_the_deadline_is_refused_not_taken(
        self, autojump_clock: Any
    ) -> None:
        """No answer within confirm_timeout declines the write; a reply that comes later gets
        a conflict saying so, and the write never runs."""
        created: list[str] = []
        agent = daemon_agent(created).with_options(confirm_timeout=5)
        async with agent:
            runtime = agent.runtime
            inbox = Inbox()
            await runtime.handle(Run(turn_id="late", ask="add jam", conversation_id="c"), inbox)
            ask = await inbox.next(ConfirmAsk)
            result = await inbox.next(ResultMessage)
            assert "no answer" in (result.result.steps[0].result or "")
            error = await refused(
                runtime, ConfirmReply(turn_id="late", call_id=ask.call_id, approved=True)
            )
        assert error.code == "conflict" and "ended" in error.message
        assert created == []

    async def test_an_answer_after_the_deadline_while_the_turn_goes_on_is_a_conflict(
        self, autojump_clock: Any
    ) -> None:
        """The turn declined at its deadline and moved on: the late reply is refused (409)."""
        created: list[str] = []
        agent = daemon_agent(created).with_options(confirm_timeout=5)
        async with agent:
            runtime = agent.runtime
            inbox = Inbox()
            await runtime.handle(
                Run(turn_id="late2", ask="add jam then wait and tell me", conversation_id="c"),
                inbox,
            )
            ask = await inbox.next(ConfirmAsk)
            await trio.sleep(6)  # declined; the slow step runs now
            assert runtime.supervisor.ticket("late2").status == "running"
            error = await refused(
                runtime, ConfirmReply(turn_id="late2", call_id=ask.call_id, approved=True)
            )
            assert error.code == "conflict" and "not answered in time" in error.message
            runtime.cancel("late2")
        assert created == []

    async def test_an_answer_for_another_write_is_refused(self) -> None:
        """A reply whose fingerprint is not the pending call's runs nothing; the right one does."""
        created: list[str] = []
        async with daemon_agent(created) as agent:
            runtime = agent.runtime
            inbox = Inbox()
            await runtime.handle(Run(turn_id="fp", ask="add jam", conversation_id="c"), inbox)
            ask = await inbox.next(ConfirmAsk)
            assert ask.fingerprint == call_fingerprint("fp", ask.call_id, "create_task", ask.input)
            stale = call_fingerprint("fp", ask.call_id, "create_task", {"title": "caviar"})
            error = await refused(
                runtime,
                ConfirmReply(turn_id="fp", call_id=ask.call_id, approved=True, fingerprint=stale),
            )
            assert error.code == "conflict" and "fingerprint" in error.message
            assert created == []
            await runtime.handle(
                ConfirmReply(
                    turn_id="fp", call_id=ask.call_id, approved=True, fingerprint=ask.fingerprint
                ),
                Inbox(),
            )
            await inbox.next(ResultMessage)
            again = await refused(
                runtime, ConfirmReply(turn_id="fp", call_id=ask.call_id, approved=True)
            )
        assert created == ["jam"] and again.code == "conflict"

    async def test_the_pending_call_is_shown_and_a_rejoining_caller_is_asked_again(self) -> None:
        """GET shows the call a turn waits on; a retry of the run with the same turn id is
        subscribed to the turn and receives the pending confirmation request at once."""
        created: list[str] = []
        async with daemon_agent(created) as agent:
            runtime = agent.runtime
            first = Inbox()
            await runtime.handle(Run(turn_id="rj", ask="add figs", conversation_id="c"), first)
            ask = await first.next(ConfirmAsk)
            status = Inbox()
            await runtime.handle(GetTurn(turn_id="rj"), status)
            shown = await status.next(TurnStatus)
            assert shown.status == "awaiting_confirmation"
            assert shown.pending is not None
            assert (shown.pending.call_id, shown.pending.input) == (ask.call_id, {"title": "figs"})
            again = Inbox()
            await runtime.handle(Run(turn_id="rj", ask="add figs", conversation_id="c"), again)
            replayed = await again.next(ConfirmAsk)
            assert replayed.fingerprint == ask.fingerprint
            await runtime.handle(
                ConfirmReply(turn_id="rj", call_id=ask.call_id, approved=True), Inbox()
            )
            ends = [await first.next(ResultMessage), await again.next(ResultMessage)]
        assert [end.result.text for end in ends] == ["answer to add figs"] * 2
        assert created == ["figs"]


class TestTurnIds:
    async def test_a_turn_id_reused_for_another_ask_is_a_conflict(self) -> None:
        """The same id with another ask (or context) is refused, never answered with the old
        turn's result; the same request again is answered from its record."""
        async with daemon_agent() as agent:
            runtime = agent.runtime
            inbox = Inbox()
            await runtime.handle(Run(turn_id="same", ask="hello", conversation_id="c"), inbox)
            assert (await inbox.next(ResultMessage)).result.text == "answer to hello"
            for other in (
                Run(turn_id="same", ask="transfer everything", conversation_id="c"),
                Run(turn_id="same", ask="hello", conversation_id="c", context={"x": 1}),
            ):
                error = await refused(runtime, other)
                assert error.code == "conflict" and "another request" in error.message
            replay = Inbox()
            await runtime.handle(Run(turn_id="same", ask="hello", conversation_id="c"), replay)
            assert (await replay.next(ResultMessage)).result.text == "answer to hello"

    async def test_cancelling_a_finished_turn_is_a_conflict(self) -> None:
        """There is nothing to cancel once a turn ended: 409, not a silent 202."""
        async with daemon_agent() as agent:
            runtime = agent.runtime
            inbox = Inbox()
            await runtime.handle(Run(turn_id="over", ask="hello", conversation_id="c"), inbox)
            await inbox.next(ResultMessage)
            error = await refused(runtime, Cancel(turn_id="over"))
        assert error.code == "conflict" and "already ended" in error.message


class TestMemoryRequests:
    async def test_reading_or_clearing_never_run_conversations_caches_nothing(
        self, tmp_path: Path
    ) -> None:
        """GET and DELETE of memory for conversations that never ran leave no session behind,
        with in-process memory and with a store."""
        for agent in (
            Agent(daemon_agent().model, memory=lambda cid: InMemory()),
            Agent(daemon_agent().model, store=SQLiteStore(tmp_path / "m.db")),
        ):
            async with agent:
                runtime = agent.runtime
                for n in range(200):
                    await runtime.handle(
                        GetMemory(turn_id=f"g{n}", conversation_id=f"n{n}"), Inbox()
                    )
                    await runtime.handle(
                        DeleteMemory(turn_id=f"d{n}", conversation_id=f"n{n}"), Inbox()
                    )
                assert runtime.supervisor.statistics().sessions == 0


class TestRecordedApprovals:
    async def test_an_approval_recorded_before_a_crash_runs_the_write_once_without_asking(
        self, tmp_path: Path
    ) -> None:
        """A record paused at a write whose approval was recorded (the crash came before the
        write ran): the next start resumes the turn, runs the write once, and finishes it."""
        store_path = tmp_path / "r.db"
        arguments = {"title": "plums"}
        fingerprint = call_fingerprint("rec", "call-0", "create_task", arguments)
        pending = PendingCall(
            call_id="call-0",
            tool="create_task",
            input=arguments,
            brief="add plums",
            fingerprint=fingerprint,
            deadline=time.time() + 600,
        )
        store = SQLiteStore(store_path)
        await store.open()
        await store.begin_turn(
            TurnRecord(
                turn_id="rec",
                conversation_id="c",
                status="awaiting_confirmation",
                ask="add plums",
                payload=payload_fingerprint("add plums", None),
                checkpoint=Checkpoint(steps=[], pending=pending),
                approval=Approval(call_id="call-0", fingerprint=fingerprint, approved=True),
            )
        )
        created: list[str] = []
        agent = daemon_agent(created).with_options(memory=None, store=SQLiteStore(store_path))
        async with agent:
            runtime = agent.runtime
            with trio.fail_after(10):
                while (
                    ticket := runtime.supervisor.ticket("rec")
                ) is None or not ticket.done.is_set():
                    await trio.sleep(0.01)
            result = ticket.unwrap()
        assert created == ["plums"]
        assert result.text == "answer to add plums"
        assert [(s.tool, s.output) for s in result.steps if s.kind == "tool"] == [
            ("create_task", {"ok": True, "title": "plums"})
        ]
        reopened = SQLiteStore(store_path)
        await reopened.open()
        record = await reopened.get_turn("rec")
        assert record is not None and record.status == "done"

    async def test_a_tampered_paused_write_is_not_run(self, tmp_path: Path) -> None:
        """A checkpoint whose arguments no longer match its fingerprint is never executed."""
        store_path = tmp_path / "t.db"
        fingerprint = call_fingerprint("tam", "call-0", "create_task", {"title": "plums"})
        pending = PendingCall(
            call_id="call-0",
            tool="create_task",
            input={"title": "everything to account 42"},
            brief="add plums",
            fingerprint=fingerprint,
        )
        store = SQLiteStore(store_path)
        await store.open()
        await store.begin_turn(
            TurnRecord(
                turn_id="tam",
                conversation_id="c",
                status="awaiting_confirmation",
                ask="add plums",
                checkpoint=Checkpoint(steps=[], pending=pending),
                approval=Approval(call_id="call-0", fingerprint=fingerprint, approved=True),
            )
        )
        created: list[str] = []
        agent = daemon_agent(created).with_options(memory=None, store=SQLiteStore(store_path))
        async with agent:
            runtime = agent.runtime
            with trio.fail_after(10):
                while (
                    ticket := runtime.supervisor.ticket("tam")
                ) is None or not ticket.done.is_set():
                    await trio.sleep(0.01)
        assert created == []
        assert isinstance(ticket.steps, list) and all(
            isinstance(step, StepRecord) for step in ticket.steps
        )


class TestCancelAfterAWrite:
    async def test_the_next_turns_prompt_shows_the_write_of_a_cancelled_turn(self) -> None:
        """A turn approved a write, then was cancelled during its next step: the next turn's
        conductor reads that the write ran (so it neither denies it nor repeats it blindly)."""
        created: list[str] = []
        agent = daemon_agent(created)
        model = agent.model
        assert isinstance(model, FakeModel)
        async with agent:
            runtime = agent.runtime
            inbox = Inbox()
            await runtime.handle(
                Run(turn_id="cw", ask="add jam then wait and tell me", conversation_id="r"), inbox
            )
            ask = await inbox.next(ConfirmAsk)
            await runtime.handle(
                ConfirmReply(turn_id="cw", call_id=ask.call_id, approved=True), Inbox()
            )
            with trio.fail_after(10):
                while created != ["jam"]:
                    await trio.sleep(0.01)
            await trio.sleep(0.05)  # the slow step starts
            runtime.cancel("cw", "client")
            end = await inbox.next(Failure)
            assert end.code == "cancelled" and "create_task" in end.message
            before = len(model.calls)
            replies = Inbox()
            await runtime.handle(
                Run(turn_id="next", ask="what did you do?", conversation_id="r"), replies
            )
            await replies.next(ResultMessage)
        conductor = next(c for c in model.calls[before:] if c.label == "conductor")
        assert "add jam then wait and tell me" in conductor.prompt
        assert "create_task" in conductor.prompt  # the cancelled turn's step log (the tools
        # themselves are listed in the system prompt, not here)
        assert created == ["jam"]

    async def test_a_cancel_after_a_write_trims_no_exchange_unsummarised(self) -> None:
        """Four real exchanges, then a turn that wrote and was cancelled: memory keeps all
        three recent exchanges beside the interrupted one (a cancel calls no scribe, so it
        evicts nothing), and the next turn folds the ones that no longer fit into the brief."""
        created: list[str] = []
        agent = daemon_agent(created)
        async with agent:
            runtime = agent.runtime
            for number in range(1, 5):
                replies = Inbox()
                await runtime.handle(
                    Run(turn_id=f"q{number}", ask=f"q{number}", conversation_id="f"), replies
                )
                await replies.next(ResultMessage)
            inbox = Inbox()
            await runtime.handle(
                Run(turn_id="cw", ask="add jam then wait and tell me", conversation_id="f"), inbox
            )
            ask = await inbox.next(ConfirmAsk)
            await runtime.handle(
                ConfirmReply(turn_id="cw", call_id=ask.call_id, approved=True), Inbox()
            )
            with trio.fail_after(10):
                while created != ["jam"]:
                    await trio.sleep(0.01)
            await trio.sleep(0.05)  # the slow step starts
            runtime.cancel("cw", "client")
            await inbox.next(Failure)
            memory = Inbox()
            await runtime.handle(GetMemory(turn_id="m1", conversation_id="f"), memory)
            state = (await memory.next(MemoryReply)).state
            assert state.summary == "Goal: chat\nDone: q1"
            assert [e.ask for e in state.recent] == [
                "q2",
                "q3",
                "q4",
                "add jam then wait and tell me",
            ]
            assert state.recent[-1].interrupted
            replies = Inbox()
            await runtime.handle(Run(turn_id="q5", ask="q5", conversation_id="f"), replies)
            await replies.next(ResultMessage)
            await runtime.handle(GetMemory(turn_id="m2", conversation_id="f"), memory)
            state = (await memory.next(MemoryReply)).state
            assert state.summary == "Goal: chat\nDone: q1 | q2 | q3"
            assert [e.ask for e in state.recent] == ["q4", "add jam then wait and tell me", "q5"]


def planning_reply(request: GenerateRequest) -> dict[str, Any]:
    """Turn structure V3: the first plan names two calls (a write, then a read); each later
    plan takes the next one the prompt says is planned, else answers."""
    if request.label == "conductor":
        if "Next call?" not in request.prompt:  # the first plan
            return {"json": {"call": "create_task", "then": "count_tasks"}}
        if "Planned next: count_tasks" in request.prompt:
            return {"json": {"call": "count_tasks"}}
        return {"json": {"call": "answer_the_user"}}
    if request.label == "arguments":
        return {"json": {"title": "plums"}}
    if request.label == "scribe":
        return {"text": "Goal: tasks"}
    return {"text": "done"}


def planning_agent(created: list[str]) -> Agent:
    @tool(writes=True)
    def create_task(title: str) -> dict[str, Any]:
        """Add a task."""
        created.append(title)
        return {"ok": True}

    @tool
    def count_tasks() -> int:
        """How many tasks there are."""
        return len(created)

    return Agent(FakeModel(planning_reply), tools=[create_task, count_tasks])


class TestResumedPlans:
    async def test_a_paused_turn_keeps_its_first_plans_remaining_calls_across_a_restart(
        self, tmp_path: Path
    ) -> None:
        """The checkpoint of a write planned first of two calls keeps the second; after a
        restart the resumed turn runs it as planned (a planned read needs no conductor call),
        as the turn would have done had it never stopped."""
        store_path = tmp_path / "p.db"
        created: list[str] = []
        first = planning_agent(created).with_options(store=SQLiteStore(store_path))
        async with first:
            inbox = Inbox()
            await first.runtime.handle(
                Run(turn_id="plan", ask="add plums and tell me the count", conversation_id="c"),
                inbox,
            )
            ask = await inbox.next(ConfirmAsk)
            first.runtime.stop_turns("restart")  # parked at its checkpoint, as at shutdown
        reopened = SQLiteStore(store_path)
        await reopened.open()
        record = await reopened.get_turn("plan")
        assert record is not None and record.checkpoint is not None
        assert record.checkpoint.planned == ["count_tasks"]
        assert created == []

        second = planning_agent(created).with_options(store=SQLiteStore(store_path))
        model = second.model
        assert isinstance(model, FakeModel)
        async with second:
            runtime = second.runtime
            with trio.fail_after(10):
                while (ticket := runtime.supervisor.ticket("plan")) is None or not ticket.asking():
                    await trio.sleep(0.01)
            await runtime.handle(
                ConfirmReply(
                    turn_id="plan",
                    call_id=ask.call_id,
                    approved=True,
                    fingerprint=ask.fingerprint,
                ),
                Inbox(),
            )
            with trio.fail_after(10):
                await ticket.done.wait()
            result = ticket.unwrap()
        assert created == ["plums"]
        assert [step.tool for step in result.steps if step.kind == "tool"] == [
            "create_task",
            "count_tasks",
        ]
        assert [c for c in model.calls if c.label == "conductor"] == []
