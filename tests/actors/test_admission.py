"""The runtime's door admits every request from outside once, and answers what the edges ask.

The rules (:mod:`actors.admission`) on their own, then through ``Runtime.admit`` and
``Runtime.handle`` (which admits before anything is queued or recorded), then the questions an
edge asks instead of reaching into the supervisor or the journal: ``accepting``,
``stop_accepting()``, ``ticket``, ``record``, ``durable`` and ``running``.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import attrs
import pytest
import trio

from actors.admission import (
    MAX_ASK_CHARS,
    RequestError,
    admit,
    check_ask,
    check_context,
    check_same_request,
)
from actors.messages import (
    MAX_NESTING,
    Cancel,
    ConfirmAsk,
    ConfirmReply,
    DeleteMemory,
    GetMemory,
    GetTurn,
    Hello,
    Inbound,
    Outbound,
    ResultMessage,
    Run,
)
from actors.runtime import Runtime
from actors.store_sqlite import SQLiteStore
from goliath import Agent
from goliath.config import AgentConfig
from goliath.durable import payload_fingerprint
from goliath.ids import URL_SAFE_RULE
from goliath.memory import InMemory
from goliath.session import Session
from goliath.testing import FakeModel
from tests.transports.daemon_app import make_agent
from transports.client import Client, RemoteError
from transports.inproc import InProcTransport


@attrs.frozen
class Alice:
    """A user's access: the conversations starting with ``alice:``."""

    name: str = "alice"
    conversations: str = "alice:"

    def allows(self, conversation_id: str | None) -> bool:
        return conversation_id is not None and conversation_id.startswith(self.conversations)


def refusal(message: Inbound, access: Any = None) -> RequestError:
    with pytest.raises(RequestError) as caught:
        admit(message, access)
    return caught.value


class Replies:
    """An outbox for the runtime, and what reached it."""

    def __init__(self) -> None:
        self.send, self.receive = trio.open_memory_channel[Outbound](math.inf)

    def __call__(self, message: Outbound) -> None:
        self.send.send_nowait(message)

    async def ask(self) -> ConfirmAsk:
        """The next confirmation ask that reaches the outbox."""
        with trio.fail_after(10):
            async for message in self.receive:
                if isinstance(message, ConfirmAsk):
                    return message
        raise AssertionError("the outbox closed")

    async def end(self) -> Outbound:
        with trio.fail_after(10):
            async for message in self.receive:
                if message.type in ("result", "failure"):
                    return message
        raise AssertionError("the outbox closed")


def answering_agent(**options: Any) -> Agent:
    return make_agent().with_options(**options)


# ---------------------------------------------------------------- the rules, one by one

BAD_TURN_IDS = ["", "t" * 200, "t\x00", "../x", "a/b", " t"]


@pytest.mark.parametrize(
    "turn_id", BAD_TURN_IDS, ids=["empty", "long", "nul", "dots", "slash", "space"]
)
@pytest.mark.parametrize("kind", ["run", "cancel", "confirm", "status"])
def test_every_request_naming_a_turn_needs_a_url_safe_turn_id(turn_id: str, kind: str) -> None:
    """A run, a cancel, a confirmation and a status request alike: the same code, the same words
    (the id cut to 40 characters, then the rule)."""
    message: Inbound = {
        "run": Run(turn_id=turn_id, ask="hi", conversation_id="c"),
        "cancel": Cancel(turn_id=turn_id),
        "confirm": ConfirmReply(turn_id=turn_id, call_id="c0", approved=True),
        "status": GetTurn(turn_id=turn_id),
    }[kind]
    error = refusal(message)
    assert error.code == "invalid"
    assert error.message == f"turn id {turn_id[:40]!r} is not valid: {URL_SAFE_RULE}"


def test_a_url_safe_turn_id_is_admitted() -> None:
    for turn_id in ("t", "t-1", "alice:t.2", "a@b_c", "9" * 128):
        admit(Run(turn_id=turn_id, ask="hi", conversation_id="c"), None)
        admit(GetTurn(turn_id=turn_id), None)


def test_the_ask_limit_is_inclusive_and_says_what_to_do() -> None:
    """MAX_ASK_CHARS characters pass; one more is ``too_large``, with both numbers and a hint."""
    check_ask("a" * MAX_ASK_CHARS)
    admit(Run(turn_id="t", ask="a" * MAX_ASK_CHARS), None)
    error = refusal(Run(turn_id="t", ask="a" * (MAX_ASK_CHARS + 1)))
    assert error.code == "too_large"
    assert error.message.startswith("the ask is 8,001 characters; the limit is 8,000.")
    assert "put long material in files" in error.message


def nested(depth: int) -> Any:
    value: Any = "leaf"
    for _ in range(depth):
        value = [value]
    return value


def test_a_context_may_nest_up_to_the_limit() -> None:
    """``MAX_NESTING`` levels pass; one more is ``invalid``, in words that name the limit."""
    check_context(nested(MAX_NESTING))
    admit(Run(turn_id="t", ask="hi", context=nested(MAX_NESTING)), None)
    error = refusal(Run(turn_id="t", ask="hi", context=nested(MAX_NESTING + 1)))
    assert (error.code, error.message) == (
        "invalid",
        f"the context is nested too deeply: the limit is {MAX_NESTING} levels",
    )


def test_a_user_reaches_only_their_conversations() -> None:
    """A run or a memory request for another's conversation is ``forbidden`` (the default
    conversation too, with a hint to name one); the operator (``None``) reaches every one."""
    for message in (
        Run(turn_id="t", ask="hi", conversation_id="bob:1"),
        GetMemory(turn_id="m", conversation_id="bob:1"),
        DeleteMemory(turn_id="m", conversation_id="bob:1"),
    ):
        error = refusal(message, Alice())
        assert (error.code, error.message) == (
            "forbidden",
            "alice may not use conversation 'bob:1'",
        )
        admit(message, None)
    default = refusal(Run(turn_id="t", ask="hi"), Alice())
    assert default.message == "alice may not use the default conversation; name one"
    admit(Run(turn_id="t", ask="hi", conversation_id="alice:1"), Alice())


def test_a_malformed_conversation_id_in_a_memory_request_is_invalid() -> None:
    """Before access: a blank or unprintable id is ``invalid``, not a crash of the caller."""
    for bad in ("", "   ", "a\x00b", "x" * 300):
        error = refusal(GetMemory(turn_id="m", conversation_id=bad), Alice())
        assert error.code == "invalid" and "conversation_id" in error.message


def test_what_is_not_a_request_is_left_to_the_runtime() -> None:
    """``admit`` has no rule for a Hello; ``Runtime.handle`` refuses it as no request."""
    admit(Hello(turn_id="", token="x"), None)


def test_a_retried_turn_id_must_be_the_same_request() -> None:
    """Another conversation, or another ask or context, is a conflict; the same request again
    passes; a turn whose payload was not kept is compared by conversation only."""
    payload = payload_fingerprint("hello", None)
    same = {"known_conversation": "c", "known_payload": payload}
    check_same_request("t", **same, conversation_id="c", payload=payload)
    with pytest.raises(RequestError, match="'t' belongs to another conversation") as elsewhere:
        check_same_request("t", **same, conversation_id="d", payload=payload)
    other = payload_fingerprint("transfer everything", None)
    with pytest.raises(RequestError, match="was used for another request") as changed:
        check_same_request("t", **same, conversation_id="c", payload=other)
    assert elsewhere.value.code == changed.value.code == "conflict"
    check_same_request(
        "t", known_conversation="c", known_payload="", conversation_id="c", payload=other
    )


# ---------------------------------------------------------------- through the runtime


async def test_the_runtime_admits_before_it_queues_or_records_anything(tmp_path: Path) -> None:
    """``Runtime.admit`` is the same rules; ``handle`` applies them first: a refused run leaves
    no turn in memory nor in the store, and the same runtime goes on serving."""
    agent = answering_agent(memory=None, store=SQLiteStore(tmp_path / "door.db"))
    async with agent:
        runtime = agent.runtime
        assert runtime is not None
        with pytest.raises(RequestError, match="turn id"):
            runtime.admit(Run(turn_id="a/b", ask="hi", conversation_id="c"))
        for message in (
            Run(turn_id="a/b", ask="hi", conversation_id="c"),
            Run(turn_id="long", ask="a" * (MAX_ASK_CHARS + 1), conversation_id="c"),
        ):
            with pytest.raises(RequestError):
                await runtime.handle(message, Replies())
            assert runtime.ticket(message.turn_id) is None
            assert await runtime.record(message.turn_id) is None
        with pytest.raises(RequestError, match="alice may not use"):
            await runtime.handle(
                Run(turn_id="u", ask="hi", conversation_id="c"), Replies(), Alice()
            )
        assert runtime.ticket("alice:u") is None and runtime.ticket("u") is None
        replies = Replies()
        await runtime.handle(Run(turn_id="ok", ask="hello", conversation_id="c"), replies)
        end = await replies.end()
        assert isinstance(end, ResultMessage) and end.result.text == "answer to hello"


async def test_the_in_process_client_is_refused_a_deep_context_in_the_doors_words() -> None:
    """The in-process edge checks nothing itself: the door refuses the context, with the words
    HTTP and the frame socket use, before any turn starts."""
    async with answering_agent() as agent, Client(InProcTransport(agent)) as client:
        with pytest.raises(RemoteError) as caught:
            await client.run("hi", turn_id="deep", context=nested(MAX_NESTING + 1))
        assert caught.value.code == "invalid"
        assert caught.value.message == (
            f"the context is nested too deeply: the limit is {MAX_NESTING} levels"
        )
        assert agent.runtime is not None and agent.runtime.ticket("deep") is None
        result = await client.run("hello", context=nested(MAX_NESTING))
        assert result.text == "answer to hello"


async def test_a_confirmation_is_answered_at_most_once_in_one_set_of_words() -> None:
    """An unknown call is ``not_found``; a second answer to the same call is a ``conflict``;
    once the turn ended, a cancel and a reply are refused in the same words."""
    async with answering_agent() as agent:
        runtime = agent.runtime
        assert runtime is not None
        replies = Replies()
        await runtime.handle(Run(turn_id="w", ask="add jam", conversation_id="c"), replies)
        ask = await replies.ask()

        def reply(call_id: str) -> ConfirmReply:
            return ConfirmReply(turn_id="w", call_id=call_id, approved=True, conversation_id="c")

        with pytest.raises(RequestError) as unknown:
            await runtime.handle(reply("nope"), Replies())
        assert (unknown.value.code, unknown.value.message) == (
            "not_found",
            "turn 'w' has no pending call 'nope'",
        )
        await runtime.handle(reply(ask.call_id), Replies())
        with pytest.raises(RequestError) as again:
            await runtime.handle(reply(ask.call_id), Replies())
        assert (again.value.code, again.value.message) == (
            "conflict",
            f"call {ask.call_id!r} was already answered",
        )
        end = await replies.end()
        assert isinstance(end, ResultMessage)
        refused = []
        for late in (reply(ask.call_id), Cancel(turn_id="w", conversation_id="c")):
            with pytest.raises(RequestError) as caught:
                await runtime.handle(late, Replies())
            refused.append((caught.value.code, caught.value.message))
        assert (
            refused
            == [("conflict", "turn 'w' already ended (done); there is nothing to cancel or answer")]
            * 2
        )


async def test_a_user_is_told_of_a_refused_turn_id_as_they_sent_it() -> None:
    """The door checks the caller's own id, before it is put in the user's scope."""
    async with answering_agent() as agent:
        assert agent.runtime is not None
        with pytest.raises(RequestError) as caught:
            await agent.runtime.handle(GetTurn(turn_id="x/y"), Replies(), Alice())
    assert caught.value.message == f"turn id 'x/y' is not valid: {URL_SAFE_RULE}"


# ---------------------------------------------------------------- what the edges ask


async def fresh_session(conversation_id: str | None) -> Session:
    return Session(memory=InMemory(), conversation_id=conversation_id)


async def test_accepting_once_served_until_told_to_stop() -> None:
    """Not before the runtime is served; then until ``stop_accepting()``, after which a run is
    refused as ``draining`` and the runtime no longer says it is accepting."""
    runtime = Runtime(config=AgentConfig(), model=FakeModel([]), make_session=fresh_session)
    assert not runtime.accepting  # made, not served yet
    async with trio.open_nursery() as nursery:
        await nursery.start(runtime.serve)
        assert runtime.accepting
        runtime.stop_accepting()
        assert not runtime.accepting
        with pytest.raises(RequestError) as refused:
            await runtime.handle(Run(turn_id="late", ask="hello", conversation_id="c"), Replies())
        assert refused.value.code == "draining"
        assert runtime.ticket("late") is None
        nursery.cancel_scope.cancel()


async def test_a_ticket_is_the_turn_this_node_holds() -> None:
    """``ticket`` finds a turn by the runtime's id (a user's is scoped: ``alice:`` + theirs)
    while it runs and once it finished; an unknown id is ``None``."""
    async with answering_agent(memory=lambda cid: InMemory()) as agent:
        runtime = agent.runtime
        assert runtime is not None
        assert runtime.ticket("nobody") is None
        replies = Replies()
        await runtime.handle(
            Run(turn_id="t1", ask="hello", conversation_id="alice:1"), replies, Alice()
        )
        await replies.end()
        ticket = runtime.ticket("alice:t1")
        assert ticket is not None and ticket.done.is_set()
        assert ticket.conversation_id == "alice:1" and ticket.result is not None
        assert runtime.ticket("t1") is None


async def test_records_come_from_the_store_and_only_with_one(tmp_path: Path) -> None:
    """Without a store the runtime is not ``durable`` and knows no record; with one, a finished
    turn's record carries its conversation and status."""
    async with answering_agent() as agent:
        assert agent.runtime is not None
        assert not agent.runtime.durable
        replies = Replies()
        await agent.runtime.handle(Run(turn_id="t", ask="hello", conversation_id="c"), replies)
        await replies.end()
        assert await agent.runtime.record("t") is None
    async with answering_agent(memory=None, store=SQLiteStore(tmp_path / "r.db")) as agent:
        runtime = agent.runtime
        assert runtime is not None and runtime.durable
        replies = Replies()
        await runtime.handle(Run(turn_id="t", ask="hello", conversation_id="c"), replies)
        await replies.end()
        record = await runtime.record("t")
        assert record is not None
        assert (record.conversation_id, record.status) == ("c", "done")
        assert await runtime.record("unknown") is None


async def test_running_lists_the_turns_a_shutdown_waits_for(autojump_clock: Any) -> None:
    """A turn in a slow tool is running; once cancelled (and ended) it is not."""
    async with answering_agent() as agent:
        runtime = agent.runtime
        assert runtime is not None
        assert runtime.running() == []
        replies = Replies()
        await runtime.handle(Run(turn_id="w", ask="wait", conversation_id="c"), replies)
        await trio.sleep(1)
        assert [ticket.turn_id for ticket in runtime.running()] == ["w"]
        runtime.cancel("w")
        await replies.end()
        assert runtime.running() == []
