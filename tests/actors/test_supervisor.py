"""The supervisor on its own: conversation id → actor, started on demand, each supervised
alone, with a real model worker and the scripted model behind it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest
import trio
import trio.testing

from actors.messages import ConfirmAsk, Failure, Outbound, ResultMessage
from actors.model_worker import ModelWorker, RunningCall
from actors.supervisor import Supervisor
from actors.ticket import Ticket
from goliath import tool
from goliath.config import AgentConfig, TurnRequest
from goliath.errors import BusyError, ConversationFailedError, DrainingError, TurnCancelled
from goliath.memory import InMemory
from goliath.models import GenerateRequest, TextSink
from goliath.records import Decision
from goliath.session import Session
from goliath.testing import FakeModel
from tests.helpers import answer, answer_plan, task_tools, use


def answering(text: str = "Done.") -> FakeModel:
    def reply(request: GenerateRequest) -> dict[str, Any]:
        return answer_plan() if request.label == "conductor" else answer(text)

    return FakeModel(reply)


async def fresh_session(conversation_id: str | None) -> Session:
    return Session(memory=InMemory(), conversation_id=conversation_id)


@asynccontextmanager
async def supervising(
    model: FakeModel,
    *,
    tools: tuple[Any, ...] = (),
    auto_approve: bool = True,
    make_session: Callable[[str | None], Awaitable[Session]] = fresh_session,
    mailbox_size: int = 4,
    idle_timeout: float = 600.0,
    restart_limit: int = 3,
    restart_window: float = 60.0,
    turn_records: int = 100,
) -> AsyncIterator[Supervisor]:
    worker = ModelWorker(model)

    async def start(
        request: GenerateRequest, key: str, turn_id: str, on_text: TextSink | None
    ) -> RunningCall:
        return await worker.start(request, conversation=key, turn_id=turn_id, on_text=on_text)

    supervisor = Supervisor(
        config=AgentConfig(tools=tools, auto_approve=auto_approve),
        make_session=make_session,
        start=start,
        mailbox_size=mailbox_size,
        idle_timeout=idle_timeout,
        restart_limit=restart_limit,
        restart_window=restart_window,
        turn_records=turn_records,
    )
    async with trio.open_nursery() as nursery:
        await nursery.start(worker.serve)
        await nursery.start(supervisor.serve)
        yield supervisor
        nursery.cancel_scope.cancel()


def ticket(ask: str, turn_id: str, conversation_id: str | None = None) -> Ticket:
    return Ticket.local(TurnRequest(ask=ask, turn_id=turn_id, conversation_id=conversation_id))


def held() -> tuple[trio.Event, Any]:
    """A tool that holds its conversation until the returned event is set."""
    gate = trio.Event()

    @tool
    async def hold() -> str:
        """Hold the conversation."""
        await gate.wait()
        return "held"

    return gate, hold


def holding_model() -> FakeModel:
    """Asks that say "hold it" call ``hold`` once; every other ask is answered at once."""

    def reply(request: GenerateRequest) -> dict[str, Any]:
        holds = "hold it" in request.prompt and "hold(" not in request.prompt
        if request.label == "conductor":
            return use("hold") if holds else answer_plan()
        return answer("ok")

    return FakeModel(reply)


def remote_ticket(ask: str, turn_id: str, outbox: Callable[[Outbound], None]) -> Ticket:
    """A ticket as the runtime makes one for a remote caller: its messages go to ``outbox``
    and a write waits for a confirmation reply."""
    return Ticket.remote(TurnRequest(ask=ask, turn_id=turn_id), outbox)


async def test_an_enqueued_turn_runs_in_its_conversations_actor() -> None:
    """A ticket put in is run by an actor started for its conversation, and ends with the
    turn's result."""
    async with supervising(answering("Hi there.")) as supervisor:
        first = ticket("hello", "t-1", "alice")
        supervisor.enqueue(first)
        with trio.fail_after(10):
            await first.done.wait()
        stats = supervisor.statistics()
    assert first.status == "done" and first.unwrap().text == "Hi there."
    assert supervisor.ticket("t-1") is first
    assert (stats.active_actors, stats.activations, stats.sessions) == (1, 1, 1)


async def test_runs_are_refused_before_serving_and_while_draining(autojump_clock: Any) -> None:
    """No nursery yet, or draining: DrainingError at once, nothing queued."""
    idle = Supervisor(
        config=AgentConfig(),
        make_session=fresh_session,
        start=None,  # type: ignore[arg-type]  # never reached: the run is refused first
        mailbox_size=1,
        idle_timeout=1.0,
        restart_limit=1,
        restart_window=1.0,
        turn_records=1,
    )
    with pytest.raises(DrainingError, match="shutting down"):
        idle.enqueue(ticket("early", "t-0"))
    async with supervising(answering()) as supervisor:
        await supervisor.drain(grace=1.0)
        with pytest.raises(DrainingError):
            supervisor.enqueue(ticket("late", "t-1"))
        assert supervisor.ticket("t-1") is None


async def test_a_full_run_mailbox_is_busy_and_drain_waits_for_the_turns_within_grace(
    autojump_clock: Any,
) -> None:
    """With one run held and one queued, a third is BusyError; drain waits up to its grace for
    turns still running, then returns."""
    gate, hold = held()
    async with supervising(holding_model(), tools=(hold,), mailbox_size=1) as supervisor:
        running, queued = ticket("hold it", "t-1"), ticket("b", "t-2")
        supervisor.enqueue(running)
        await trio.testing.wait_all_tasks_blocked()
        supervisor.enqueue(queued)
        with pytest.raises(BusyError, match="already has 1 runs queued"):
            supervisor.enqueue(ticket("c", "t-3"))
        with pytest.raises(BusyError):
            supervisor.check_accepting(None)
        started = trio.current_time()
        await supervisor.drain(grace=5.0)
        assert trio.current_time() - started == pytest.approx(5.0)
        assert [t.turn_id for t in supervisor.running()] == ["t-1", "t-2"]
        gate.set()
        with trio.fail_after(10):
            await queued.done.wait()
    assert running.status == queued.status == "done"


async def test_a_queued_turn_cancelled_never_runs_and_a_running_one_stops(
    autojump_clock: Any,
) -> None:
    """Cancelling a queued turn ends it cancelled without a model call; cancelling a running
    one reaches it through its actor's control mailbox; an unknown id is False."""
    _, hold = held()
    model = holding_model()
    async with supervising(model, tools=(hold,)) as supervisor:
        running, queued = ticket("hold it", "t-1"), ticket("b", "t-2")
        supervisor.enqueue(running)
        await trio.testing.wait_all_tasks_blocked()
        supervisor.enqueue(queued)
        calls_before = len(model.calls)
        assert supervisor.cancel("t-2", "client") is True
        with trio.fail_after(10):
            await queued.done.wait()
        assert supervisor.cancel("t-1", "client") is True
        with trio.fail_after(10):
            await running.done.wait()
        assert supervisor.cancel("nope") is False
    assert (queued.status, queued.error_code, queued.cancel_reason) == (
        "cancelled",
        "cancelled",
        "client",
    )
    with pytest.raises(TurnCancelled):
        queued.unwrap()
    assert running.status == "cancelled"
    assert len(model.calls) == calls_before  # the queued turn never asked the model


async def test_a_confirmation_reply_is_routed_to_the_turn_that_waits_for_it() -> None:
    """``confirm`` answers "unknown" for a call nobody waits on and "ok" once it delivered the
    reply, which lets the write run; a second reply to the same call is "answered"."""
    tasks, tools = task_tools()
    model = FakeModel(
        [use("create_task"), {"json": {"title": "eggs"}}, answer_plan(), answer("Added eggs.")]
    )
    inbox: list[Outbound] = []
    async with supervising(model, tools=tuple(tools), auto_approve=False) as supervisor:
        paused = remote_ticket("add eggs", "t-1", inbox.append)
        supervisor.enqueue(paused)
        await trio.testing.wait_all_tasks_blocked()
        (ask,) = [message for message in inbox if isinstance(message, ConfirmAsk)]
        assert paused.status == "awaiting_confirmation"
        assert supervisor.confirm("t-1", "another-call", Decision(approved=True)) == "unknown"
        assert supervisor.confirm("t-unknown", ask.call_id, Decision(approved=True)) == "unknown"
        assert supervisor.confirm("t-1", ask.call_id, Decision(approved=True)) == "ok"
        with trio.fail_after(10):
            await paused.done.wait()
        assert supervisor.confirm("t-1", ask.call_id, Decision(approved=False)) == "answered"
    assert paused.unwrap().text == "Added eggs."
    assert [task["title"] for task in tasks].count("eggs") == 1
    assert isinstance(inbox[-1], ResultMessage)


async def test_an_actor_that_keeps_crashing_is_stopped_and_its_conversation_refused(
    autojump_clock: Any,
) -> None:
    """Each crash restarts the actor; at the restart limit its queued turns fail with
    ConversationFailedError (and a Failure to their subscribers), later runs are refused, and
    other conversations go on."""
    opened: list[str | None] = []

    async def flaky(conversation_id: str | None) -> Session:
        opened.append(conversation_id)
        if conversation_id == "bad":
            raise OSError("disk on fire")
        return await fresh_session(conversation_id)

    async with supervising(answering(), make_session=flaky, restart_limit=3) as supervisor:
        doomed = ticket("hi", "t-bad", "bad")
        told: list[Outbound] = []
        doomed.subscribe(told.append)
        supervisor.enqueue(doomed)
        with trio.fail_after(10):
            await doomed.done.wait()
        with pytest.raises(ConversationFailedError, match=r"crashed 3 times.*disk on fire"):
            supervisor.enqueue(ticket("again", "t-bad-2", "bad"))
        fine = ticket("hi", "t-good", "good")
        supervisor.enqueue(fine)
        with trio.fail_after(10):
            await fine.done.wait()
        stats = supervisor.statistics()
    assert opened.count("bad") == 3
    assert doomed.error_code == "conversation_failed"
    assert [type(message) for message in told] == [Failure]
    assert fine.status == "done"
    assert (stats.restarts, stats.failed_conversations) == (2, 1)


async def test_an_idle_actor_is_passivated_and_started_again_on_demand(
    autojump_clock: Any,
) -> None:
    """After ``idle_timeout`` with nothing queued the actor goes (its in-process session
    stays, or the conversation would forget); the next run starts a new one."""
    async with supervising(answering(), idle_timeout=30.0) as supervisor:
        first = ticket("one", "t-1", "c")
        supervisor.enqueue(first)
        await first.done.wait()
        await trio.sleep(31)
        stats = supervisor.statistics()
        assert (stats.active_actors, stats.passivations, stats.sessions) == (0, 1, 1)
        second = ticket("two", "t-2", "c")
        supervisor.enqueue(second)
        await second.done.wait()
        assert supervisor.statistics().activations == 2
    assert second.status == "done"


async def test_finished_turns_are_forgotten_past_the_limit_but_never_running_ones(
    autojump_clock: Any,
) -> None:
    """``turn_records`` bounds the turns kept for at-most-once answers: the oldest finished go
    first; a turn still running is kept however many come after it."""
    gate, hold = held()
    ids = ("t-long", "t-0", "t-1", "t-2", "t-last")
    async with supervising(holding_model(), tools=(hold,), turn_records=2) as supervisor:
        long = ticket("hold it", "t-long", "slow")
        supervisor.enqueue(long)
        for n in range(3):
            each = ticket("hi", f"t-{n}", f"c{n}")
            supervisor.enqueue(each)
            with trio.fail_after(10):
                await each.done.wait()
        assert [turn_id for turn_id in ids if supervisor.ticket(turn_id)] == list(ids[:4])
        gate.set()
        await long.done.wait()
        last = ticket("hi", "t-last", "c9")
        supervisor.enqueue(last)
        kept = [turn_id for turn_id in ids if supervisor.ticket(turn_id)]
        assert supervisor.resubmitted("t-last") is last
    assert kept == ["t-2", "t-last"]
