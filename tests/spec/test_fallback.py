"""The fallback, session fallback and http_fallback."""

from __future__ import annotations

import functools
import json
from typing import Any

import h11
import pytest
import trio

from goliath import Agent, FallbackRequest, GoliathError, MemoryState
from goliath.errors import (
    ContextWindowError,
    GuardrailError,
    ModelError,
    ModelUnavailableError,
)
from goliath.memory import InMemory
from goliath.testing import FakeModel

from .helpers import (
    RecordingFallback,
    TaskBox,
    answer_plan,
    args,
    events,
    exchange,
    fail,
    labels,
    memory_with,
    run_turn,
    text,
    types,
    use,
)

# ---------------------------------------------------------------- the fallback


async def test_fallback_receives_the_whole_record(box: TaskBox) -> None:
    """The fallback gets ask, summary, recent, every step with raw output, reason, error."""
    memory = memory_with("Goal: groceries", [exchange("earlier", "sure")])
    fallback = RecordingFallback("From the cloud.")
    model = FakeModel([use("list_tasks"), fail(ModelError("overheated"))])
    result = await run_turn(
        model, "plan my week", tools=box.tools, fallback=fallback, memory=memory
    )
    [request] = fallback.requests
    assert isinstance(request, FallbackRequest)
    assert request.ask == "plan my week"
    assert request.summary == "Goal: groceries"
    assert [e.ask for e in request.recent] == ["earlier"]
    assert [s.tool for s in request.steps] == ["list_tasks"]
    assert request.steps[0].output == [{"title": "Buy milk"}, {"title": "Call mom"}]
    assert (request.reason, request.error) == ("model-error", "ModelError: overheated")
    assert (result.text, result.handled_by) == ("From the cloud.", "cloud")
    assert events(result, "answer")[0].text == "From the cloud."
    assert types(result)[-2:] == ["answer", "remember"]


async def test_fallback_steps_are_unprojected() -> None:
    """The fallback gets the original content excerpts, not the prompt projection."""
    from goliath import Budgets

    from .helpers import Query, make_tool

    reader = make_tool("read_file", lambda a, c: "x" * 200, parameters=Query, output_mode="content")
    model = FakeModel(
        [
            use("read_file"),
            args(query="a"),
            use("read_file"),
            args(query="b"),
            fail(ModelError("x")),
        ]
    )
    fallback = RecordingFallback()
    await run_turn(
        model,
        tools=[reader],
        fallback=fallback,
        budgets=Budgets(tool_result_tokens=60, retrieved_context_tokens=60),
    )
    steps = fallback.requests[0].steps
    assert [s.result.startswith("xxxx") for s in steps] == [True, True]


async def test_fallback_called_once_and_its_error_rejects(box: TaskBox) -> None:
    """A throwing fallback makes the run reject; it is called only once."""

    class CloudDown(Exception):
        pass

    attempts: list[Any] = []

    async def fallback(request: FallbackRequest) -> str:
        attempts.append(request)
        raise CloudDown("503")

    with pytest.raises(CloudDown):
        await run_turn(FakeModel([fail(ModelError("x"))]), tools=box.tools, fallback=fallback)
    assert len(attempts) == 1


@pytest.mark.parametrize("reply", [42, None, {"txt": "hi"}, {"text": 5}, ["hi"]])
async def test_fallback_must_return_text(box: TaskBox, reply: Any) -> None:
    """A fallback returning something other than a str or {'text': str} rejects."""
    with pytest.raises(GoliathError):
        await run_turn(
            FakeModel([fail(ModelError("x"))]), tools=box.tools, fallback=lambda request: reply
        )


async def test_fallback_may_return_a_text_dict(box: TaskBox) -> None:
    """A fallback may return {'text': str}."""
    result = await run_turn(
        FakeModel([fail(ModelError("x"))]), tools=box.tools, fallback=lambda r: {"text": "ok"}
    )
    assert (result.text, result.handled_by) == ("ok", "cloud")


async def test_empty_cloud_answer_is_persisted_without_answer_event(box: TaskBox) -> None:
    """An empty cloud answer is persisted and emits no answer event."""
    memory = InMemory()
    result = await run_turn(
        FakeModel([fail(ModelError("x"))]),
        "hi",
        tools=box.tools,
        fallback=lambda r: "",
        memory=memory,
    )
    assert result.text == "" and result.handled_by == "cloud"
    assert events(result, "answer") == []
    assert [(e.ask, e.answer) for e in (await memory.load()).recent] == [("hi", "")]


async def test_cloud_answer_after_device_failure_makes_no_scribe_call() -> None:
    """After a model-error hand-off the scribe makes no model call."""
    memory = memory_with("S", [exchange(f"q{i}", f"a{i}") for i in range(3)])
    model = FakeModel([fail(ModelError("x")), text("never")])
    result = await run_turn(model, "q3", fallback=lambda r: "cloud", memory=memory)
    assert labels(model) == ["answer"]
    assert events(result, "remember")[0].summary == "S"


async def test_non_device_failure_reasons_still_fold_with_the_scribe(box: TaskBox) -> None:
    """After a hand-off that is not a device failure, the scribe folds the evicted exchange."""
    memory = memory_with("S", [exchange(f"q{i}", f"a{i}") for i in range(3)])
    model = FakeModel([use("list_tasks"), text("Goal: new brief")])
    result = await run_turn(
        model, tools=box.tools, max_steps=1, fallback=lambda r: "cloud", memory=memory
    )
    assert labels(model) == ["conductor", "scribe"]
    assert events(result, "remember")[0].summary == "Goal: new brief"


# ---------------------------------------------------------------- session fallback (design.md, D4)


async def test_three_model_errors_open_session_fallback(box: TaskBox) -> None:
    """After three model-error turns the fourth calls the fallback without the device."""
    fallback = RecordingFallback()
    model = FakeModel([fail(ModelError("x"))] * 3)
    agent = Agent(model, tools=box.tools, fallback=fallback)
    async with agent:
        for _ in range(3):
            await agent.run("hi")
        assert agent.is_session_fallback() is True
        fourth = await agent.run("hi again")
    assert len(model.calls) == 3
    assert fourth.handled_by == "cloud"
    [escalation] = events(fourth, "escalate")
    assert (escalation.reason, escalation.error) == ("model-error", "session fallback")
    assert (fallback.requests[-1].reason, fallback.requests[-1].error) == (
        "model-error",
        "session fallback",
    )
    assert events(fourth, "budget") == []
    assert types(fourth)[0] == "recall"


async def test_session_fallback_is_per_conversation(box: TaskBox) -> None:
    """The model-error count is kept per conversation."""
    model = FakeModel([fail(ModelError("x"))] * 3 + [answer_plan(), text("Fine.")])
    agent = Agent(
        model, tools=box.tools, fallback=RecordingFallback(), memory=lambda cid: InMemory()
    )
    async with agent:
        for _ in range(3):
            await agent.run("hi", conversation_id="a")
        other = await agent.run("hi", conversation_id="b")
        assert agent.is_session_fallback("a") is True
        assert agent.is_session_fallback("b") is False
    assert (other.text, other.handled_by) == ("Fine.", "device")


@pytest.mark.parametrize(
    "reset",
    [
        fail(ModelUnavailableError("gone")),
        fail(ContextWindowError("overflow")),
        fail(GuardrailError("unsafe")),
    ],
    ids=["model-unavailable", "context-budget", "guardrail"],
)
async def test_other_failures_reset_the_model_error_count(box: TaskBox, reset: Any) -> None:
    """A model-unavailable, context-budget or guardrail turn resets the count to 0."""
    script = [fail(ModelError("x"))] * 2 + [reset] + [fail(ModelError("x"))] * 2
    model = FakeModel([*script, answer_plan(), text("Back.")])
    agent = Agent(model, tools=box.tools, fallback=RecordingFallback())
    async with agent:
        for _ in range(5):
            await agent.run("hi")
        assert agent.is_session_fallback() is False
        last = await agent.run("hi")
    assert (last.text, last.handled_by) == ("Back.", "device")


async def test_a_successful_turn_resets_the_count(box: TaskBox) -> None:
    """Any other completed turn resets the count."""
    model = FakeModel(
        [fail(ModelError("x"))] * 2 + [answer_plan(), text("Ok.")] + [fail(ModelError("x"))] * 2
    )
    agent = Agent(model, tools=box.tools, fallback=RecordingFallback())
    async with agent:
        for _ in range(5):
            await agent.run("hi")
        assert agent.is_session_fallback() is False


async def test_budget_escalation_does_not_count_toward_session_fallback() -> None:
    """An over-budget turn (context-budget) does not count toward session fallback."""
    model = FakeModel([fail(ModelError("x"))] * 2 + [fail(ModelError("x"))])
    agent = Agent(model, fallback=RecordingFallback())
    async with agent:
        await agent.run("hi")
        await agent.run("hi")
        await agent.run("x " * 20000)
        await agent.run("hi")
        assert agent.is_session_fallback() is False


# ---------------------------------------------------------------- http_fallback


class Capture:
    def __init__(self, status: int, body: bytes) -> None:
        self.status = status
        self.body = body
        self.requests: list[tuple[str, str, dict[str, str], bytes]] = []


async def _serve_one(stream: trio.SocketStream, capture: Capture) -> None:
    connection = h11.Connection(h11.SERVER)
    method = target = ""
    headers: dict[str, str] = {}
    body = b""
    while True:
        event = connection.next_event()
        if event is h11.NEED_DATA:
            connection.receive_data(await stream.receive_some(65536))
            continue
        if isinstance(event, h11.Request):
            method, target = event.method.decode(), event.target.decode()
            headers = {k.decode().lower(): v.decode() for k, v in event.headers}
        elif isinstance(event, h11.Data):
            body += bytes(event.data)
        elif isinstance(event, h11.EndOfMessage):
            break
    capture.requests.append((method, target, headers, body))
    response = h11.Response(
        status_code=capture.status,
        headers=[("content-type", "application/json"), ("content-length", str(len(capture.body)))],
    )
    await stream.send_all(connection.send(response) + connection.send(h11.Data(data=capture.body)))
    await stream.send_all(connection.send(h11.EndOfMessage()))
    await stream.aclose()


async def _with_server(capture: Capture, action: Any) -> Any:
    async with trio.open_nursery() as nursery:
        serve = functools.partial(
            trio.serve_tcp, lambda stream: _serve_one(stream, capture), 0, host="127.0.0.1"
        )
        listeners = await nursery.start(serve)
        port = listeners[0].socket.getsockname()[1]
        try:
            return await action(f"http://127.0.0.1:{port}/handoff")
        finally:
            nursery.cancel_scope.cancel()


async def test_http_fallback_posts_json_and_returns_text() -> None:
    """http_fallback POSTs JSON with content-type application/json and returns body.text."""
    from goliath.fallback import http_fallback

    capture = Capture(200, json.dumps({"text": "from the cloud"}).encode())

    async def action(url: str) -> Any:
        fallback = http_fallback(url, headers={"authorization": "Bearer t"})
        return await run_turn(FakeModel([fail(ModelError("x"))]), "plan my week", fallback=fallback)

    result = await _with_server(capture, action)
    assert (result.text, result.handled_by) == ("from the cloud", "cloud")
    [(method, target, headers, body)] = capture.requests
    assert (method, target) == ("POST", "/handoff")
    assert headers["content-type"] == "application/json"
    assert headers["authorization"] == "Bearer t"
    payload = json.loads(body)
    assert {"ask", "summary", "recent", "steps", "reason", "error"} <= set(payload)
    assert "signal" not in payload
    assert (payload["ask"], payload["reason"]) == ("plan my week", "model-error")


async def test_http_fallback_raises_on_non_2xx() -> None:
    """A non-2xx reply makes http_fallback raise (the run rejects)."""
    from goliath.fallback import http_fallback

    capture = Capture(500, b'{"error": "down"}')

    async def action(url: str) -> Any:
        with pytest.raises(Exception, match="500"):
            await run_turn(FakeModel([fail(ModelError("x"))]), "hi", fallback=http_fallback(url))
        return None

    await _with_server(capture, action)
    assert len(capture.requests) == 1


async def test_http_fallback_requires_a_text_string() -> None:
    """A reply without a 'text' string makes http_fallback raise."""
    from goliath.fallback import http_fallback

    capture = Capture(200, b'{"answer": "hi"}')

    async def action(url: str) -> Any:
        with pytest.raises(Exception, match="text"):
            await run_turn(FakeModel([fail(ModelError("x"))]), "hi", fallback=http_fallback(url))
        return None

    await _with_server(capture, action)


async def test_memory_state_is_unchanged_by_a_rejected_run() -> None:
    """A rejected run persists nothing."""
    memory = InMemory(MemoryState(summary="kept"))

    class Oops(Exception):
        pass

    def explode(event: Any) -> None:
        if event.type == "answer":
            raise Oops()

    with pytest.raises(Oops):
        await run_turn(FakeModel([text("Hi.")]), memory=memory, on_event=explode)
    state = await memory.load()
    assert (state.summary, state.recent) == ("kept", [])
