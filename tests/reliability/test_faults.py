"""Faults injected on purpose, each with its expected outcome (docs/reliability.md lists where
the other faults are tested)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio
import trio.testing
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from actors import RuntimeLimits
from actors.store_sqlite import SQLiteStore
from goliath import Agent, tool
from goliath.models import GenerateRequest, Generation
from goliath.records import ConfirmRequest
from goliath.testing import FakeModel
from goliath.turn import REASONS
from tests.sse import parse_sse

from .app import ScriptedModel, make_agent, scripted_text
from .conftest import AUTH, serving
from .strategies import json_values


def _self_containing() -> Any:
    value: dict[str, Any] = {"name": "loop"}
    value["self"] = value
    return value


def _generator() -> Any:
    yield 1


UNSERIALIZABLE = {
    "object": object,
    "self-containing": _self_containing,
    "generator": _generator,
    "huge-int": lambda: 10**5000,
    "nan": lambda: float("nan"),
    "bytes": lambda: b"\xff\x00",
    "tuple-keys": lambda: {(1, 2): 3},
    "function": lambda: print,
}


@pytest.mark.slow
@pytest.mark.parametrize("kind", list(UNSERIALIZABLE))
async def test_a_tool_returning_something_unserializable_fails_nothing(
    kind: str, tmp_path: Path
) -> None:
    """The turn completes over HTTP with the output omitted or snapshotted, its record and the
    memory (SQLite store) are written, and the conversation goes on."""
    make = UNSERIALIZABLE[kind]

    @tool
    async def read_notes() -> Any:
        """Read the notes."""
        return make()

    agent = Agent(ScriptedModel(), tools=[read_notes], store=SQLiteStore(tmp_path / "s.db"))
    async with serving(agent) as url, httpx.AsyncClient(base_url=url, headers=AUTH) as http:
        reply = await http.post("/v1/conversations/u/runs", json={"ask": "read", "turn_id": "t1"})
        name, result = parse_sse(reply.text)[-1]
        assert name == "result", result
        step = result["steps"][0]
        assert step["tool"] == "read_notes" and not step.get("failed", False)
        json.dumps(step.get("output"), allow_nan=False)  # plain JSON, or omitted (None)
        assert 0 < len(step["result"]) <= 600
        assert (await http.get("/v1/turns/t1")).json()["status"] == "done"
        memory = (await http.get("/v1/conversations/u/memory")).json()
        assert [exchange["ask"] for exchange in memory["recent"]] == ["read"]
        again = parse_sse((await http.post("/v1/conversations/u/runs", json={"ask": "hi"})).text)
        assert again[-1][1]["text"] == "answer to hi after none"


@pytest.mark.slow
async def test_a_ten_mib_tool_output_is_kept_out_of_results_records_and_memory(
    tmp_path: Path,
) -> None:
    """A 10 MiB output is summarized for the model as usual, but its raw snapshot is omitted
    (over `raw_output_bytes`): the result, the turn record and memory stay small, and the SQLite
    file grows by well under a MiB per turn instead of ~20 MB."""

    @tool
    async def read_notes() -> Any:
        """Read the notes."""
        return {"notes": [{"line": n, "text": "x" * 100} for n in range(100_000)]}

    database = tmp_path / "s.db"
    agent = Agent(ScriptedModel(), tools=[read_notes], store=SQLiteStore(database))
    async with serving(agent) as url, httpx.AsyncClient(base_url=url, headers=AUTH) as http:
        await http.post("/v1/conversations/u/runs", json={"ask": "hi"})
        before = database.stat().st_size
        reply = await http.post("/v1/conversations/u/runs", json={"ask": "read", "turn_id": "t1"})
        assert len(reply.content) < 64 * 1024
        name, result = parse_sse(reply.text)[-1]
        assert name == "result", result
        step = result["steps"][0]
        assert step.get("output") is None
        assert "over the 131,072-byte cap" in step["output_omitted"]
        assert "notes" in step["result"]  # the model still read the summary
        record = (await http.get("/v1/turns/t1")).json()
        assert record["result"]["steps"][0].get("output") is None
        memory = (await http.get("/v1/conversations/u/memory")).json()
        assert len(json.dumps(memory)) < 64 * 1024
        assert memory["recent"][-1]["steps"][0]["output_omitted"] == step["output_omitted"]
        grown = database.stat().st_size - before
    assert grown < 1024 * 1024, grown


class GarbageModel:
    """Answers every call with the next of ``replies`` (cycling): text a model should not say."""

    def __init__(self, replies: list[str]) -> None:
        self.replies = replies
        self.calls = 0

    async def generate(self, request: GenerateRequest) -> Generation:
        await trio.lowlevel.checkpoint()
        text = self.replies[self.calls % len(self.replies)]
        self.calls += 1
        return Generation(text=text, input_tokens=1, output_tokens=1)


garbage_text = st.one_of(
    st.text(max_size=200),
    st.binary(max_size=200).map(lambda raw: raw.decode("latin-1")),
    json_values.map(json.dumps),
    st.sampled_from(["", " ", "{", '{"kind": "tool"}', '{"call":"nope"}', "null"]),
)


class TestModelGarbage:
    @pytest.mark.slow
    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(replies=st.lists(garbage_text, min_size=1, max_size=4))
    async def test_a_model_talking_garbage_ends_the_turn_cleanly_and_never_writes(
        self, replies: list[str]
    ) -> None:
        """Whatever a model says, the turn returns a result, escalates with a documented reason
        instead of guessing, and no write runs without valid arguments and an approval."""
        writes: dict[str, int] = {}
        refused: list[str] = []

        def refuse(request: ConfirmRequest) -> bool:
            refused.append(request.tool)
            return False

        agent = make_agent(writes).with_options(model=GarbageModel(replies), confirm=refuse)
        async with agent:
            result = await agent.run("add milk", conversation_id="g")
            assert (await agent.run("again", conversation_id="g")).conversation_id == "g"
        assert result.handled_by == "device"
        reasons = [event.reason for event in result.trace if event.type == "escalate"]
        assert all(reason in REASONS for reason in reasons)
        assert reasons or result.steps[-1].kind == "answer"
        assert writes == {}  # nobody approved: nothing was written
        for step in result.steps:  # a tool only ever saw arguments that validated
            assert (
                step.kind == "answer"
                or step.tool != "create_task"
                or step.skipped
                or (isinstance(step.input.get("title"), str))
            )

    async def test_garbage_plans_escalate_plan_invalid_while_others_are_served(self) -> None:
        """One conversation's model output is garbage: it escalates plan-invalid after one retry;
        a conversation with a sane model on the same daemon is unaffected."""

        def reply(request: GenerateRequest) -> dict[str, Any]:
            if "garbage" in request.prompt and request.label == "conductor":
                return {"text": "<|im_end|>\x00 {kind: tool"}
            return {"text": scripted_text(request)}

        model = FakeModel(reply)
        async with make_agent().with_options(model=model) as agent:
            async with trio.open_nursery() as nursery:
                results: dict[str, Any] = {}

                async def run(ask: str, conversation: str) -> None:
                    results[conversation] = await agent.run(ask, conversation_id=conversation)

                nursery.start_soon(run, "garbage please", "bad")
                for n in range(10):
                    nursery.start_soon(run, f"hi {n}", f"ok{n}")
        bad = results["bad"]
        assert [e.reason for e in bad.trace if e.type == "escalate"] == ["plan-invalid"]
        conductor_calls = [
            c for c in model.calls if c.label == "conductor" and "garbage" in c.prompt
        ]
        assert len(conductor_calls) == 2  # one retry with the hint, then escalation
        assert all(results[f"ok{n}"].text == f"answer to hi {n} after none" for n in range(10))


class TestDeadlines:
    async def test_a_hung_model_call_is_cut_at_its_deadline_and_the_queue_moves_on(
        self, autojump_clock: Any
    ) -> None:
        """With one model slot, a call that hangs holds the others only until model_timeout;
        then its turn escalates model-error and the waiting conversations are answered."""

        async def reply(request: GenerateRequest) -> dict[str, Any]:
            if "Ask: hang" in request.prompt:
                await trio.sleep_forever()
            return {"text": scripted_text(request)}

        agent = make_agent(limits=RuntimeLimits(model_slots=1), model_timeout=30).with_options(
            model=FakeModel(reply)
        )
        finished: dict[str, float] = {}
        results: dict[str, Any] = {}
        async with agent:
            async with trio.open_nursery() as nursery:

                async def run(ask: str, conversation: str) -> None:
                    results[conversation] = await agent.run(ask, conversation_id=conversation)
                    finished[conversation] = trio.current_time()

                start = trio.current_time()
                nursery.start_soon(run, "hang", "stuck")
                await trio.testing.wait_all_tasks_blocked()
                for n in range(3):
                    nursery.start_soon(run, f"hi {n}", f"c{n}")
        stuck = results["stuck"]
        assert [e.reason for e in stuck.trace if e.type == "escalate"] == ["model-error"]
        assert finished["stuck"] - start == pytest.approx(30)
        for n in range(3):
            assert results[f"c{n}"].text == f"answer to hi {n} after none"
            assert finished[f"c{n}"] - start == pytest.approx(30)  # waited for the slot, no more

    async def test_a_hung_tool_fails_its_step_at_the_deadline_and_blocks_no_one(
        self, autojump_clock: Any
    ) -> None:
        """An async tool that never returns fails its step after tool_timeout; other
        conversations are answered at once meanwhile."""

        @tool
        async def read_notes() -> str:
            """Read the notes (hangs)."""
            await trio.sleep_forever()
            return "never"

        agent = Agent(ScriptedModel(), tools=[read_notes], tool_timeout=10)
        finished: dict[str, float] = {}
        results: dict[str, Any] = {}
        async with agent:
            async with trio.open_nursery() as nursery:

                async def run(ask: str, conversation: str) -> None:
                    results[conversation] = await agent.run(ask, conversation_id=conversation)
                    finished[conversation] = trio.current_time()

                start = trio.current_time()
                nursery.start_soon(run, "read the notes", "stuck")
                await trio.testing.wait_all_tasks_blocked()
                nursery.start_soon(run, "hi", "free")
        step = results["stuck"].steps[0]
        assert step.failed and "did not finish within 10 s" in (step.result or "")
        assert finished["stuck"] - start == pytest.approx(10)
        assert finished["free"] - start == 0
        assert results["free"].text == "answer to hi after none"


class TestSlowReaders:
    async def test_an_sse_client_that_never_reads_is_dropped_after_the_send_timeout(self) -> None:
        """HTTP streams have the frame socket's write timeout: a client that stops reading is
        dropped once one write waits ``send_seconds`` (30 s, as ``SEND_SECONDS``), and what it
        then finds is a cut-off stream, not the rest of it; the daemon serves others meanwhile."""
        import socket

        from transports.stream import SEND_SECONDS
        from transports.wire import HttpLimits

        assert HttpLimits().send_seconds == SEND_SECONDS

        @tool
        def read_huge() -> str:
            """Read a huge document."""
            return "h" * 6_000_000  # more than any socket buffers between the two

        def reply(request: GenerateRequest) -> dict[str, Any]:
            if request.label == "conductor":
                if "read_huge(" in request.prompt:
                    return {"json": {"call": "answer_the_user"}}
                return {"json": {"call": "read_huge"}}
            return {"text": "read"}

        agent = Agent(FakeModel(reply), tools=[read_huge], raw_output_bytes=8 * 2**20)
        # 5 s, not less: the first request below reads the whole 6 MB in this same process,
        # and on a loaded CI machine one of its writes has waited over a second.
        limits = HttpLimits(send_seconds=5.0)
        async with (
            serving(agent, limits=limits) as url,
            httpx.AsyncClient(base_url=url, headers=AUTH, timeout=30) as http,
        ):
            done = await http.post(
                "/v1/conversations/r/runs", json={"ask": "huge", "turn_id": "b1"}
            )
            assert "event: result" in done.text and len(done.content) > 6_000_000
            host, port = url.removeprefix("http://").rsplit(":", 1)
            sock = trio.socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)  # a small window
            await sock.connect((host, int(port)))
            client = trio.SocketStream(sock)
            request = (
                f"GET /v1/turns/b1/events HTTP/1.1\r\nHost: {host}\r\n"
                f"Authorization: {AUTH['authorization']}\r\n\r\n"
            )
            await client.send_all(request.encode())
            await trio.sleep(8)  # reads nothing: the stream's writes wait, then time out
            assert (await http.get("/v1/turns/b1")).status_code == 200  # others are served
            received = bytearray()
            with trio.fail_after(10):
                try:
                    while chunk := await client.receive_some(65536):
                        received += chunk
                except trio.BrokenResourceError:
                    pass  # reset by the daemon: dropped
            await client.aclose()
            assert received.startswith(b"HTTP/1.1 200")
            assert b'"queue_ms"' not in received, "the stream was not cut off"  # its last field
            assert len(received) < len(done.content)
