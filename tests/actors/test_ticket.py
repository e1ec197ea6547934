"""A ticket on its own: one turn's status, its end, its subscribers and its confirmations."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path
from typing import Any

import attrs
import msgspec
import outcome
import pytest
import trio
import trio.testing

from actors.messages import ConfirmAsk, EventMessage, Outbound, Token
from actors.store import Approval, TurnRecord
from actors.ticket import ReplyWaiter, Ticket
from goliath.config import TurnRequest
from goliath.durable import Checkpoint, PendingCall, payload_fingerprint
from goliath.errors import GoliathError, TurnCancelled
from goliath.events import AnswerEvent
from goliath.records import ConfirmRequest, Decision, RunResult, StepRecord


def request(turn_id: str = "t-1") -> TurnRequest:
    return TurnRequest(ask="add eggs", turn_id=turn_id, conversation_id="alice")


def local() -> Ticket:
    return Ticket.local(request())


def remote(*outboxes: Any) -> Ticket:
    """A remote ticket whose first outbox is the caller's, the rest subscribed after."""
    first, *more = outboxes or (lambda message: None,)
    ticket = Ticket.remote(request(), first)
    for outbox in more:
        ticket.subscribe(outbox)
    return ticket


PENDING = PendingCall(
    call_id="call-0", tool="create_task", input={"title": "eggs"}, brief="add", fingerprint="f0"
)
QUESTION = ConfirmRequest(
    tool="create_task",
    input={"title": "eggs"},
    brief="add",
    conversation_id="alice",
    turn_id="t-1",
    call_id="call-0",
    fingerprint="f0",
)
RESULT = RunResult(text="Added.", handled_by="device")


def test_a_turn_ends_once_with_its_result_or_its_error() -> None:
    """``succeed`` and ``fail`` set the end once; a later one changes nothing; ``unwrap``
    returns the result or raises the turn's own exception, every time."""
    won = local()
    won.succeed(RESULT)
    won.fail(OSError("late"))
    assert (won.status, won.result, won.unwrap(), won.unwrap()) == ("done", RESULT, RESULT, RESULT)

    lost = local()
    error = OSError("disk on fire")
    lost.fail(error, code="storage")
    lost.succeed(RESULT)
    assert (lost.status, lost.error_code, lost.result) == ("failed", "storage", None)
    for _ in range(2):
        with pytest.raises(OSError) as raised:
            lost.unwrap()
        assert raised.value is error


async def test_cancelling_a_queued_turn_ends_it_and_a_running_one_is_told_to_stop() -> None:
    """Without a cancel scope (queued) the ticket ends cancelled at once; with one (running)
    the scope is cancelled and the turn ends when it stops."""
    queued = local()
    queued.cancel("client")
    assert queued.done.is_set() and (queued.status, queued.error_code) == ("cancelled", "cancelled")
    with pytest.raises(TurnCancelled, match=r"turn t-1 was cancelled \(client\)"):
        queued.unwrap()

    running = local()
    with trio.CancelScope() as scope:
        running.running_in(scope)
        assert running.status == "running"
        running.cancel("deadline")
        await trio.sleep_forever()
    running.stopped()
    assert scope.cancelled_caught and running.cancel_reason == "deadline"
    assert not running.done.is_set() and running.scope is None


async def test_a_cancel_asked_for_before_the_turn_starts_applies_when_it_does() -> None:
    """``cancel_queued`` marks a waiting turn once (a second mark is refused); the actor that
    then starts it finds its scope cancelled at once."""
    queued = local()
    assert queued.cancel_queued("client") and not queued.cancel_queued("again")
    assert (queued.status, queued.cancel_reason) == ("cancelled", "client")
    with trio.CancelScope() as scope:
        queued.running_in(scope)
        await trio.sleep_forever()
    assert scope.cancelled_caught


def test_the_constructors_wire_the_request_to_the_ticket() -> None:
    """A local ticket takes the turn's progress; a remote one its confirmations, events and
    tokens too, and its caller's outbox is its first subscriber; both fingerprint the ask."""
    mine = Ticket.local(request())
    assert mine.request.progress is mine and mine.request.confirm is None
    assert (mine.key, mine.is_remote, mine.status) == ("alice", False, "queued")
    seen: list[Outbound] = []
    theirs = Ticket.remote(request(), seen.append)
    assert theirs.request.progress is theirs and theirs.is_remote
    assert theirs.request.confirm == theirs.confirm_remotely
    assert theirs.request.on_event == theirs.publish
    assert theirs.request.on_token == theirs.publish_token
    assert theirs.outbox == seen.append
    assert mine.payload == theirs.payload == payload_fingerprint("add eggs", None)


async def test_a_resumed_ticket_carries_on_from_its_checkpoint_with_its_recorded_answer() -> None:
    """From a record paused at a write: remote, awaiting confirmation, the checkpoint's steps,
    the recorded answer and the record's fingerprint and age; resuming, it stays awaiting."""
    step = StepRecord(index=0, kind="tool", brief="read", tool="list_tasks")
    point = Checkpoint(steps=[step], pending=PENDING)
    approval = Approval(call_id="call-0", fingerprint="f0", approved=True)
    record = TurnRecord(
        turn_id="t-1",
        conversation_id="alice",
        status="awaiting_confirmation",
        ask="add eggs",
        created_at=12.5,
        payload="p0",
        checkpoint=point,
        approval=approval,
    )
    ticket = Ticket.resumed(record, journal=None)
    assert (ticket.is_remote, ticket.status, ticket.steps, ticket.approval) == (
        True,
        "awaiting_confirmation",
        [step],
        approval,
    )
    assert (ticket.created_at, ticket.payload, ticket.request.resume) == (12.5, "p0", point)
    assert ticket.asking() is not None and ticket.subscribers == []
    with trio.CancelScope() as scope:
        ticket.running_in(scope)
        await trio.lowlevel.checkpoint()
    assert ticket.status == "awaiting_confirmation"
    with pytest.raises(ValueError, match="no checkpoint"):
        Ticket.resumed(
            TurnRecord(turn_id="t-2", conversation_id=None, status="running"), journal=None
        )


def test_messages_go_to_every_subscriber_and_one_that_fails_is_dropped() -> None:
    """Events and answer tokens reach each outbox; an outbox that raises is removed and the
    others go on receiving."""
    first: list[Outbound] = []
    last: list[Outbound] = []

    def gone(message: Outbound) -> None:
        raise ConnectionResetError("client went away")

    ticket = remote(first.append, gone, last.append)
    ticket.publish(AnswerEvent(text="Added."))
    ticket.publish_token("Add")
    assert ticket.subscribers == [first.append, last.append]
    assert first == last
    assert [type(message) for message in first] == [EventMessage, Token]
    assert first[1] == Token(turn_id="t-1", text="Add")
    assert ticket.outbox == first.append


async def test_a_remote_confirmation_asks_every_subscriber_and_waits_for_the_reply() -> None:
    """The ask goes out, the status is awaiting_confirmation until the reply comes, and the
    reply's decision is the answer; a subscriber that joins while it waits gets the ask at
    once (from the checkpoint)."""
    seen: list[Outbound] = []
    ticket = remote(seen.append)
    await ticket.paused(Checkpoint(steps=[], pending=PENDING))
    decisions: list[Decision] = []

    async def ask() -> None:
        decisions.append(await ticket.confirm_remotely(QUESTION))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(ask)
        await trio.testing.wait_all_tasks_blocked()
        assert ticket.status == "awaiting_confirmation"
        joined: list[Outbound] = []
        ticket.subscribe(joined.append)
        assert [type(message) for message in joined] == [ConfirmAsk]
        assert ticket.pending["call-0"].resolve(Decision(approved=False, reason="not today"))
        assert not ticket.pending["call-0"].resolve(Decision(approved=True))
    assert decisions == [Decision(approved=False, reason="not today")]
    assert ticket.status == "running"
    (question,) = [message for message in seen if isinstance(message, ConfirmAsk)]
    assert (question.call_id, question.fingerprint, question.conversation_id) == (
        "call-0",
        "f0",
        "alice",
    )


async def test_a_recorded_answer_for_the_same_write_is_used_without_asking() -> None:
    """After a restart the person's answer recorded for this call and fingerprint answers at
    once; one recorded for another fingerprint does not."""
    seen: list[Outbound] = []
    ticket = remote(seen.append)
    await ticket.paused(Checkpoint(steps=[], pending=PENDING))
    await ticket.record_answer("call-0", Decision(approved=True, reason="go"))
    assert ticket.approval == Approval(
        call_id="call-0", fingerprint="f0", approved=True, reason="go"
    )
    assert await ticket.confirm_remotely(QUESTION) == Decision(approved=True, reason="go")
    assert seen == []

    other = msgspec.structs.replace(QUESTION, fingerprint="f1")
    with trio.move_on_after(0.05):
        await ticket.confirm_remotely(other)
    assert [type(message) for message in seen] == [ConfirmAsk]


async def test_a_reply_after_the_turn_stopped_waiting_is_refused() -> None:
    """A waiter the turn gave up on (deadline, cancel) is expired: its decision is "no answer"
    and a late reply is not taken."""
    ticket = remote()
    with trio.move_on_after(0.05):
        await ticket.confirm_remotely(QUESTION)
    waiter = ticket.pending["call-0"]
    assert waiter.expired and waiter.decision == Decision(approved=False, reason="no answer")
    assert not waiter.resolve(Decision(approved=True))
    assert await waiter.wait() == Decision(approved=False, reason="no answer")
    fresh = ReplyWaiter("call-1")
    fresh.expire()
    assert fresh.expired


async def test_a_local_turn_keeps_its_steps_but_leaves_no_checkpoint() -> None:
    """Only a remote turn can be resumed by someone else, so only it keeps a checkpoint
    (and becomes parkable); a local one tracks its steps and the write-ahead mark."""
    step = StepRecord(index=0, kind="tool", brief="add", tool="create_task", writes=True)
    mine = local()
    await mine.paused(Checkpoint(steps=[step], pending=PENDING))
    assert (mine.steps, mine.checkpoint, mine.status, mine.parkable) == (
        [step],
        None,
        "queued",
        False,
    )
    await mine.executing([step], "call-0")
    assert mine.running_call == "call-0"
    await mine.executed([step])
    assert mine.running_call is None

    theirs = remote()
    await theirs.paused(Checkpoint(steps=[step], pending=PENDING))
    assert theirs.checkpoint is not None and theirs.asking() is not None
    assert not theirs.parkable  # no journal: nothing would survive the restart
    await theirs.executing([step], "call-0")
    assert (theirs.checkpoint, theirs.status, theirs.asking()) == (None, "running", None)


def test_a_ticket_from_a_record_answers_as_the_turn_did() -> None:
    """A finished record becomes a done ticket: its result, or an error naming how it ended."""
    done = Ticket.from_record(
        TurnRecord(turn_id="t-1", conversation_id="alice", status="done", ask="a", result=RESULT),
        None,
    )
    assert done.done.is_set() and done.unwrap() == RESULT and done.key == "alice"
    interrupted = Ticket.from_record(
        TurnRecord(
            turn_id="t-2",
            conversation_id=None,
            status="interrupted",
            ask="b",
            error="cut off",
            error_code="interrupted",
        ),
        None,
    )
    assert interrupted.done.is_set() and interrupted.error_code == "interrupted"
    with pytest.raises(GoliathError, match="cut off"):
        interrupted.unwrap()
    assert isinstance(interrupted.outcome, outcome.Error)
    running = Ticket.from_record(
        TurnRecord(turn_id="t-3", conversation_id="bob", status="running", ask="c"), None
    )
    assert not running.done.is_set() and running.status == "running"


ROOT = Path(__file__).resolve().parents[2]
FIELDS = frozenset(field.name for field in attrs.fields(Ticket))


def field_writes(path: Path, root: Path = ROOT) -> list[str]:
    """Where ``path`` assigns a Ticket field (or mutates one in place) on something other than
    ``self``: ``x.status = ...``, ``x.steps += ...``, ``with ... as x.scope``,
    ``x.subscribers.append(...)``, ``x.pending[key] = ...``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[str] = []

    def written(target: ast.expr) -> None:
        if isinstance(target, ast.Subscript):
            target = target.value
        if (
            isinstance(target, ast.Attribute)
            and target.attr in FIELDS
            and not (isinstance(target.value, ast.Name) and target.value.id in ("self", "cls"))
        ):
            found.append(f"{path.relative_to(root)}:{target.lineno} {ast.unparse(target)}")

    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                written(target)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            written(node.target)
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            written(node.optional_vars)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("append", "extend", "remove", "clear", "setdefault", "pop")
        ):
            written(node.func.value)
    return found


def test_no_field_of_a_ticket_is_written_outside_its_module() -> None:
    """The runtime, the supervisor, the actor and the edges move a ticket on only through its
    methods (only the ticket's own module writes its fields)."""
    writes = [
        write
        for package in ("actors", "transports", "goliath")
        for path in sorted((ROOT / package).rglob("*.py"))
        if path != ROOT / "actors" / "ticket.py"
        for write in field_writes(path)
        if _is_ticket(write)
    ]
    assert writes == []


def _is_ticket(write: str) -> bool:
    """Other classes have fields of the same names (a job's ``scope``, a feed's ``payload``);
    a ticket is held in names that say so."""
    holder = write.split(" ", 1)[1].split(".", 1)[0]
    return "ticket" in holder.lower() or holder in ("known", "found", "existing", "oldest")


def test_the_field_write_check_sees_each_kind_of_write(tmp_path: Path) -> None:
    """The check above is not blind: each way of writing a field is reported."""
    module = tmp_path / "probe.py"
    module.write_text(
        textwrap.dedent(
            """\
            def f(ticket, scope):
                ticket.status = "running"
                ticket.steps += []
                ticket.subscribers.append(print)
                ticket.pending["c"] = None
                with scope as ticket.scope:
                    pass
                self.status = "fine"
            """
        ),
        encoding="utf-8",
    )
    writes = sorted(write.split(" ", 1)[1] for write in field_writes(module, tmp_path))
    assert writes == sorted(
        ["ticket.status", "ticket.steps", "ticket.subscribers", "ticket.pending", "ticket.scope"]
    )
