"""The journal on its own, over a real SQLite file: what each transition of a turn writes,
and how a restart settles the turns a crash left unfinished."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from pathlib import Path

import msgspec
import pytest

from actors.journal import Journal
from actors.store import TurnRecord, memory_key
from actors.store_sqlite import SQLiteStore
from actors.ticket import Ticket
from goliath.config import TurnRequest
from goliath.durable import (
    OUTCOME_UNKNOWN_RESULT,
    PENDING_RESULT,
    Checkpoint,
    PendingCall,
    call_fingerprint,
    payload_fingerprint,
)
from goliath.records import Decision, Exchange, MemoryState, RunResult, StepRecord


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SQLiteStore]:
    opened = SQLiteStore(tmp_path / "goliath.db")
    await opened.open()
    yield opened
    await opened.aclose()


def request(turn_id: str = "t-1", ask: str = "add eggs") -> TurnRequest:
    return TurnRequest(ask=ask, turn_id=turn_id, conversation_id="alice", context={"user": 7})


def write_step(result: str | None = None) -> StepRecord:
    return StepRecord(
        index=0,
        kind="tool",
        brief="add it",
        tool="create_task",
        input={"title": "eggs"},
        result=result,
        writes=True,
    )


def checkpoint(turn_id: str = "t-1") -> Checkpoint:
    arguments = {"title": "eggs"}
    return Checkpoint(
        steps=[],
        pending=PendingCall(
            call_id="call-0",
            tool="create_task",
            input=arguments,
            brief="add it",
            fingerprint=call_fingerprint(turn_id, "call-0", "create_task", arguments),
        ),
    )


async def begun(journal: Journal, turn_id: str = "t-1") -> Ticket:
    """A remote turn recorded as the runtime records one, journal attached."""
    made = Ticket.remote(request(turn_id), lambda message: None, journal=journal)
    assert await journal.begin(made.request) is None
    return made


async def test_a_new_turn_is_recorded_queued_and_its_id_answers_a_twin(
    store: SQLiteStore,
) -> None:
    """``begin`` writes the ask, the context's snapshot, the payload fingerprint and the node;
    a second ``begin`` with the same id gets that record back instead of a new one."""
    journal = Journal(store, node="node-a")
    assert await journal.begin(request()) is None
    twin = await journal.begin(request(ask="something else"))
    assert twin is not None
    assert (twin.status, twin.ask, twin.context, twin.node) == (
        "queued",
        "add eggs",
        {"user": 7},
        "node-a",
    )
    assert twin.payload == payload_fingerprint("add eggs", {"user": 7})
    await journal.forget("t-1")
    assert await journal.get("t-1") is None


async def test_a_pause_an_answer_and_a_write_ahead_mark_are_each_written(
    store: SQLiteStore,
) -> None:
    """The ticket's transitions write through the journal: the checkpoint and the pending
    question while it waits, the person's answer before it is delivered, then the write-ahead
    mark (and no checkpoint) once the write runs, and the mark cleared when it ended."""
    journal = Journal(store)
    ticket = await begun(journal)
    await ticket.paused(checkpoint())
    paused = await journal.get("t-1")
    assert paused is not None and paused.resumable
    assert paused.pending is not None and paused.pending.call_id == "call-0"
    assert paused.approval is None

    await ticket.record_answer("call-0", Decision(approved=True, reason="fine"))
    answered = await journal.get("t-1")
    assert answered is not None and answered.approval is not None
    assert (answered.approval.approved, answered.approval.reason) == (True, "fine")
    assert answered.approval.fingerprint == checkpoint().pending.fingerprint

    await ticket.executing([write_step(PENDING_RESULT)], "call-0")
    running = await journal.get("t-1")
    assert running is not None
    assert (running.status, running.executing, running.checkpoint, running.approval) == (
        "running",
        "call-0",
        None,
        None,
    )
    assert [step.result for step in running.steps] == [PENDING_RESULT]

    await ticket.executed([write_step("ok: true")])
    ran = await journal.get("t-1")
    assert ran is not None and ran.executing is None
    assert [step.result for step in ran.steps] == ["ok: true"]


async def test_the_end_of_a_turn_is_written_with_its_result_or_why_it_has_none(
    store: SQLiteStore,
) -> None:
    """A result makes the record ``done``; a cancelled turn is ``cancelled`` with its error
    and code; any other failure is ``failed``."""
    journal = Journal(store)
    done = await begun(journal, "t-done")
    result = RunResult(text="Added.", handled_by="device")
    await journal.finish(done, result)

    cancelled = await begun(journal, "t-cancelled")
    cancelled.cancel("client")
    await journal.finish(cancelled)

    broken = await begun(journal, "t-broken")
    broken.fail(OSError("disk on fire"))
    await journal.finish(broken)

    ended = await stored(journal, "t-done", "t-cancelled", "t-broken")
    assert all(record.final for record in ended.values())
    assert ended["t-done"].result == result
    assert (ended["t-cancelled"].status, ended["t-cancelled"].error_code) == (
        "cancelled",
        "cancelled",
    )
    assert "cancelled (client)" in (ended["t-cancelled"].error or "")
    assert (ended["t-broken"].status, ended["t-broken"].error) == ("failed", "disk on fire")


async def stored(journal: Journal, *turn_ids: str) -> dict[str, TurnRecord]:
    found = {turn_id: await journal.get(turn_id) for turn_id in turn_ids}
    missing = [turn_id for turn_id, record in found.items() if record is None]
    assert not missing, f"no record of {missing}"
    return {turn_id: record for turn_id, record in found.items() if record is not None}


async def test_recovery_resumes_paused_turns_and_tells_every_other_unfinished_one(
    store: SQLiteStore,
) -> None:
    """After a crash: a turn paused at a write comes back to be resumed, untouched; a queued
    turn and one cut off mid-write become ``interrupted`` — the write's outcome unknown —; the
    one that had started adds an interrupted exchange to its conversation's history (the queued
    one never ran: no exchange, #25); finished turns stay."""
    journal = Journal(store)
    now = time.time()

    def record(turn_id: str, status: str, **fields: object) -> TurnRecord:
        return TurnRecord(
            turn_id=turn_id,
            conversation_id="alice",
            status=status,  # type: ignore[arg-type]
            ask=f"ask of {turn_id}",
            created_at=now,
            updated_at=now,
            **fields,  # type: ignore[arg-type]
        )

    await store.save_memory(
        memory_key("alice"),
        MemoryState(summary="Eggs.", recent=[Exchange(ask="hi", answer="hello", at=now)]),
    )
    for each in (
        record("t-paused", "awaiting_confirmation", checkpoint=checkpoint("t-paused")),
        record("t-queued", "queued"),
        record("t-writing", "running", steps=[write_step(PENDING_RESULT)], executing="call-0"),
        record("t-done", "done", result=RunResult(text="ok", handled_by="device")),
    ):
        assert await store.begin_turn(each) is None

    resumable = await journal.recover()

    assert [each.turn_id for each in resumable] == ["t-paused"]
    paused = await journal.get("t-paused")
    assert paused is not None and paused.status == "awaiting_confirmation" and paused.resumable
    settled = await stored(journal, "t-queued", "t-writing", "t-done")
    queued, writing, done = settled["t-queued"], settled["t-writing"], settled["t-done"]
    assert (queued.status, queued.error_code) == ("interrupted", "interrupted")
    assert (writing.status, writing.executing) == ("interrupted", None)
    (step,) = writing.steps
    assert (step.outcome_unknown, step.failed, step.result) == (True, True, OUTCOME_UNKNOWN_RESULT)
    assert done.status == "done"
    memory = await store.load_memory(memory_key("alice"))
    assert memory.summary == "Eggs."
    assert [(e.ask, e.interrupted) for e in memory.recent] == [
        ("hi", False),
        ("ask of t-writing", True),
    ]
    assert [s.tool for s in memory.recent[-1].steps] == ["create_task"]
    assert await journal.recover() == resumable  # a second pass changes nothing more
    assert msgspec.json.encode(await journal.get("t-writing")) == msgspec.json.encode(writing)
