"""Trace events and on_event callbacks."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from goliath import Agent
from goliath.errors import ModelError
from goliath.memory import InMemory
from goliath.testing import FakeModel

from .helpers import (
    Recorder,
    RecordingFallback,
    TaskBox,
    answer_plan,
    args,
    events,
    fail,
    hand_off,
    run_turn,
    text,
    types,
    use,
)

# ---------------------------------------------------------------- on_event


@pytest.mark.parametrize("where", ["config", "run"])
async def test_throwing_on_event_rejects_the_run(where: str) -> None:
    """A throwing on_event callback (config or per-run) rejects the run."""

    class Broken(Exception):
        pass

    def explode(event: Any) -> None:
        if event.type == "answer":
            raise Broken()

    options: dict[str, Any] = {}
    run: dict[str, Any] = {}
    (options if where == "config" else run)["on_event"] = explode
    with pytest.raises(Broken):
        await run_turn(FakeModel([text("Hi.")]), run=run, **options)


async def test_events_reach_config_then_run_callbacks() -> None:
    """Each event goes to the trace, then to the config on_event, then the run on_event."""
    order: list[str] = []
    model = FakeModel([text("Hi.")])
    result = await run_turn(
        model,
        on_event=lambda e: order.append(f"config:{e.type}"),
        run={"on_event": lambda e: order.append(f"run:{e.type}")},
    )
    expected: list[str] = []
    for kind in types(result):
        expected += [f"config:{kind}", f"run:{kind}"]
    assert order == expected


# ---------------------------------------------------------------- events


async def test_event_order_of_a_typical_turn(box: TaskBox) -> None:
    """Recall, budget, plan, budget(arguments), confirm, tool, budget, plan, budget, answer, remember."""
    model = FakeModel([use("create_task"), args(title="Eggs"), answer_plan(), text("Added Eggs.")])
    result = await run_turn(model, tools=box.tools)
    assert types(result) == [
        "recall",
        "budget",
        "plan",
        "budget",
        "confirm",
        "tool",
        "budget",
        "plan",
        "budget",
        "answer",
        "remember",
    ]
    assert [e.label for e in events(result, "budget")] == [
        "conductor",
        "arguments",
        "conductor",
        "answer",
    ]


async def test_event_order_for_a_read_without_arguments(box: TaskBox) -> None:
    """A zero-argument read has no arguments budget and no confirm event."""
    result = await run_turn(
        FakeModel([use("list_tasks"), answer_plan(), text("Two.")]), tools=box.tools
    )
    assert types(result) == [
        "recall",
        "budget",
        "plan",
        "tool",
        "budget",
        "plan",
        "budget",
        "answer",
        "remember",
    ]


async def test_events_have_a_type_and_encode_to_json_and_msgpack(box: TaskBox) -> None:
    """Every event has its tag as ``type``, also in its JSON and MessagePack forms."""
    result = await run_turn(
        FakeModel([use("create_task"), args(title="Eggs"), answer_plan(), text("Added Eggs.")]),
        tools=box.tools,
    )
    for event in result.trace:
        data = msgspec.json.decode(msgspec.json.encode(event))
        assert data["type"] == event.type
        assert msgspec.msgpack.decode(msgspec.msgpack.encode(event))["type"] == event.type
    encoded = msgspec.json.decode(msgspec.json.encode(result))
    assert encoded["text"] == "Added Eggs."
    assert encoded["handled_by"] == "device"
    msgspec.msgpack.encode(result)


async def test_escalate_event_fields(box: TaskBox) -> None:
    """Escalate events carry reason (hyphenated code) and error."""
    result = await run_turn(FakeModel([fail(ModelError("overheated"))]), tools=box.tools)
    [event] = events(result, "escalate")
    assert (event.type, event.reason, event.error) == (
        "escalate",
        "model-error",
        "ModelError: overheated",
    )


async def test_budget_event_fields(box: TaskBox) -> None:
    """Budget events carry label, tokens, limit and source."""
    result = await run_turn(FakeModel([answer_plan(), text("Hi.")]), tools=box.tools)
    event = events(result, "budget")[0]
    assert (event.label, event.limit, event.source) == ("conductor", 2867, "estimate")
    assert isinstance(event.tokens, int) and event.tokens > 8


async def test_on_event_receives_every_trace_event(box: TaskBox) -> None:
    """on_event is called for every event of the trace, in order."""
    recorder = Recorder()
    result = await run_turn(
        FakeModel([use("list_tasks"), answer_plan(), text("Two.")]),
        tools=box.tools,
        on_event=recorder,
    )
    assert [e.type for e in recorder.seen] == types(result)


async def test_memory_error_event_type_uses_an_underscore() -> None:
    """D7: the memory error event's type is 'memory_error'."""

    class Full:
        async def load(self) -> Any:
            from goliath import MemoryState

            return MemoryState()

        async def save(self, state: Any) -> None:
            raise OSError("full")

    result = await run_turn(FakeModel([text("Hi.")]), memory=Full())
    assert "memory_error" in types(result)
    assert msgspec.json.decode(msgspec.json.encode(result.trace[-1]))["type"] == "memory_error"


async def test_plan_event_precedes_the_escalation_for_escalate_plans(box: TaskBox) -> None:
    """An escalate plan is reported as a plan event of kind answer, then escalate."""
    result = await run_turn(
        FakeModel([hand_off()]),
        tools=box.tools,
        fallback=RecordingFallback(),
    )
    kinds = types(result)
    assert kinds.index("plan") < kinds.index("escalate")
    assert events(result, "plan")[0].kind == "answer"


async def test_result_carries_conversation_and_turn_ids() -> None:
    """RunResult has conversation_id and turn_id."""
    agent = Agent(FakeModel([text("A."), text("B.")]), memory=lambda cid: InMemory())
    async with agent:
        first = await agent.run("hi", conversation_id="alice")
        second = await agent.run("hi")
    assert (first.conversation_id, second.conversation_id) == ("alice", None)
    assert first.turn_id and second.turn_id and first.turn_id != second.turn_id
