"""The managed llama-server: start, health, restart after kill -9, stop, failed calls, and
what its bridge sends (slots, prompt cache, schema, stream usage, scoring).

The server process is ``tests/fake_llama_server.py``, a real HTTP server on 127.0.0.1 that
speaks the endpoints and flags the supervisor uses (health while loading, API key, replies) and
keeps a prompt cache per slot as llama-server does.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio

from actors.model_worker import ModelWorker
from goliath.errors import ConfigError, ModelUnavailableError
from goliath.models import GenerateRequest
from goliath.models.managed import ManagedLlamaServer, find_llama_server

pytestmark = pytest.mark.slow
FAKE = [sys.executable, str(Path(__file__).resolve().parents[1] / "fake_llama_server.py")]


def hello(text: str = "hello") -> GenerateRequest:
    return GenerateRequest(label="answer", system="Answer.", prompt=f"Ask: {text}\n")


@pytest.fixture
def model_file(tmp_path: Path) -> Path:
    path = tmp_path / "model.gguf"
    path.write_bytes(b"GGUF fake weights")
    return path


@pytest.fixture
def record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "starts"
    folder.mkdir()
    monkeypatch.setenv("FAKE_LLAMA_RECORD", str(folder))
    return folder


def started(folder: Path) -> list[dict[str, Any]]:
    """What each fake server that became healthy recorded (its arguments)."""
    return [json.loads(path.read_text()) for path in folder.iterdir()]


async def wait_for(condition: object, seconds: float = 20.0) -> None:
    with trio.fail_after(seconds):
        while not condition():  # type: ignore[operator]
            await trio.sleep(0.05)


async def test_serve_returns_once_healthy_with_the_slots_asked_for(
    model_file: Path, record: Path, monkeypatch: pytest.MonkeyPatch
):
    """A server still loading (503 on /health for 1 s) is waited for; once started it answers
    200, was given --parallel 3 and a context of 3 slots' windows, and a key in its environment
    that is not on its command line; calls through its bridge work."""
    monkeypatch.setenv("FAKE_LLAMA_LOAD_SECONDS", "1")
    server = ManagedLlamaServer(model_file, slots=3, window=1024, binary=FAKE)
    async with trio.open_nursery() as nursery:
        began = trio.current_time()
        await nursery.start(server.serve)
        assert trio.current_time() - began >= 1.0
        async with httpx.AsyncClient() as client:
            assert (await client.get(f"{server.url}/health")).status_code == 200
            refused = await client.post(f"{server.url}/v1/chat/completions", json={})
            assert refused.status_code == 401  # the key is required
        (started_with,) = started(record)
        argv = started_with["argv"]
        assert started_with["parallel"] == 3 and started_with["key"]
        assert argv[argv.index("--ctx-size") + 1] == "3072"
        assert server.api_key not in " ".join(argv)
        generation = await server.model().generate(hello())
        assert generation.text == "answer to hello"
        assert server.model().statistics().calls == 0  # each bridge counts its own calls
        nursery.cancel_scope.cancel()


async def test_a_server_that_loads_slowly_keeps_running(
    model_file: Path, monkeypatch: pytest.MonkeyPatch
):
    """A server loading for longer than Trio keeps an idle worker thread (10 s) is not sent a
    signal when the thread that started it ends: it comes up and stays up."""
    monkeypatch.setenv("FAKE_LLAMA_LOAD_SECONDS", "11")
    server = ManagedLlamaServer(model_file, slots=1, binary=FAKE)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.serve)
        await trio.sleep(2)
        assert server.healthy and server.restarts == 0, server.last_exit
        nursery.cancel_scope.cancel()


async def test_a_killed_server_is_restarted_and_serves_again(model_file: Path, record: Path):
    """kill -9: the supervisor starts a new process on the same port; calls work again."""
    server = ManagedLlamaServer(model_file, slots=2, binary=FAKE)
    model = server.model()
    async with trio.open_nursery() as nursery:
        await nursery.start(server.serve)
        first = server.pid
        assert first is not None
        os.kill(first, signal.SIGKILL)
        await wait_for(lambda: server.healthy and server.pid != first)
        assert server.restarts == 1 and server.last_exit == "was killed by SIGKILL"
        assert (await model.generate(hello("again"))).text == "answer to again"
        assert len(started(record)) == 2
        nursery.cancel_scope.cancel()


async def test_a_call_in_flight_when_the_server_dies_is_model_unavailable(model_file: Path):
    """The call the server was answering fails at once as ModelUnavailableError saying the
    server was killed; it does not hang until the reply timeout."""
    server = ManagedLlamaServer(model_file, slots=1, binary=FAKE)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.serve)
        pid = server.pid
        assert pid is not None
        failure: list[BaseException] = []

        async def call() -> None:
            try:
                await server.model().generate(hello("slow one"))
            except ModelUnavailableError as exc:
                failure.append(exc)

        with trio.fail_after(15):
            async with trio.open_nursery() as calls:
                calls.start_soon(call)
                await trio.sleep(0.5)
                os.kill(pid, signal.SIGKILL)
        assert failure, "the call failed"
        assert "SIGKILL" in str(failure[0]) and "restarted" in str(failure[0])
        nursery.cancel_scope.cancel()


async def test_stopping_the_supervisor_stops_the_process(model_file: Path):
    server = ManagedLlamaServer(model_file, slots=1, binary=FAKE)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.serve)
        pid = server.pid
        nursery.cancel_scope.cancel()
    assert pid is not None
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # reaped: gone
    async with httpx.AsyncClient() as client:
        with pytest.raises(httpx.ConnectError):
            await client.get(f"{server.url}/health")


async def test_a_server_that_cannot_start_is_a_clear_error(
    model_file: Path, monkeypatch: pytest.MonkeyPatch
):
    """The first start failing stops everything with the server's exit and last output."""
    monkeypatch.setenv("FAKE_LLAMA_EXIT", "3")
    server = ManagedLlamaServer(model_file, slots=1, binary=FAKE)
    failed = pytest.RaisesExc(ModelUnavailableError, match="(?s)exited with status 3.*told to fail")
    with pytest.RaisesGroup(failed):  # the error itself, straight from nursery.start
        async with trio.open_nursery() as nursery:
            await nursery.start(server.serve)


async def test_a_server_that_keeps_dying_is_given_up_on(model_file: Path):
    """More than restart_limit deaths within the window: no more restarts, and calls fail at
    once naming why."""
    server = ManagedLlamaServer(
        model_file, slots=1, binary=FAKE, restart_limit=1, restart_window=60
    )
    async with trio.open_nursery() as nursery:
        await nursery.start(server.serve)
        for _ in range(2):
            pid = server.pid
            assert pid is not None
            os.kill(pid, signal.SIGKILL)
            await wait_for(lambda old=pid: server.gave_up or (server.healthy and server.pid != old))
        assert server.gave_up
        with trio.fail_after(2), pytest.raises(ModelUnavailableError, match="given up"):
            await server.model().generate(hello())
        nursery.cancel_scope.cancel()


def test_bad_options_and_a_missing_binary_are_named(
    model_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    with pytest.raises(ConfigError, match="--slots"):
        ManagedLlamaServer(model_file, slots=0, binary=FAKE)
    with pytest.raises(ModelUnavailableError, match="build-llama-server"):
        ManagedLlamaServer(model_file, slots=1, binary=tmp_path / "nothing")
    monkeypatch.setenv("GOLIATH_LLAMA_SERVER", str(tmp_path / "nothing"))
    assert find_llama_server() == tmp_path / "nothing"
    monkeypatch.delenv("GOLIATH_LLAMA_SERVER")
    monkeypatch.setenv("GOLIATH_CACHE", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path))
    assert find_llama_server() is None
    with pytest.raises(ModelUnavailableError, match="not built"):
        ManagedLlamaServer(model_file, slots=1)


async def test_a_call_made_while_the_server_restarts_waits_for_it_within_restart_wait(
    model_file: Path, monkeypatch: pytest.MonkeyPatch
):
    """After a kill the new process takes 3 s to load: a call made meanwhile waits and is
    answered by it; one whose bridge waits at most 0.5 s fails as ModelUnavailableError saying
    why, and neither hangs."""
    server = ManagedLlamaServer(model_file, slots=1, binary=FAKE)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.serve)
        monkeypatch.setenv("FAKE_LLAMA_LOAD_SECONDS", "3")  # the next start loads slowly
        pid = server.pid
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        await wait_for(lambda: not server.healthy)
        impatient = server.model(restart_wait=0.5)
        with trio.fail_after(5), pytest.raises(ModelUnavailableError, match="not back within"):
            await impatient.generate(hello())
        with trio.fail_after(20):
            generation = await server.model().generate(hello("after the restart"))
        assert generation.text == "answer to after the restart"
        assert server.pid != pid and server.restarts == 1
        nursery.cancel_scope.cancel()


def sent(path: Path) -> list[dict[str, Any]]:
    """The parameters each chat call sent the fake server, with the slot and cache it used."""
    return [json.loads(line) for line in path.read_text().splitlines()]


async def test_each_conversation_keeps_its_slot_and_its_slot_keeps_its_prompt_warm(
    model_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """Two conversations, each with its own long system prompt, alternate calls through the
    runtime's model worker and the managed bridge (2 slots). Every call carries cache_prompt
    and the conversation's own id_slot, schema calls carry llama-server's json_schema, and a
    conversation's second call finds its whole system prompt in its slot's cache."""
    bodies = tmp_path / "bodies.jsonl"
    monkeypatch.setenv("FAKE_LLAMA_BODIES", str(bodies))
    server = ManagedLlamaServer(model_file, slots=2, binary=FAKE)
    worker = ModelWorker(server.model(), slots=2)
    schema = {"type": "object", "properties": {"title": {"type": "string"}}}
    system = {
        name: f"You serve {name}. " + "Keep every answer short and plain. " * 20
        for name in ("ana", "ben")
    }
    replies: dict[str, list[Any]] = {"ana": [], "ben": []}
    async with trio.open_nursery() as nursery:
        await nursery.start(server.serve)
        await nursery.start(worker.serve)
        for turn in range(2):
            for name in ("ana", "ben"):
                request = GenerateRequest(
                    label="arguments",
                    system=system[name],
                    prompt=f"Ask: add {name} {turn}\n",
                    schema=schema if turn else None,
                )
                replies[name].append(await worker.generate(request, conversation=name))
        nursery.cancel_scope.cancel()
    calls = sent(bodies)
    assert len(calls) == 4
    slots = {name: {call["id_slot"] for call in calls if name in call["user"]} for name in system}
    assert all(len(used) == 1 for used in slots.values()), slots
    assert slots["ana"] != slots["ben"]
    assert all(call["cache_prompt"] is True for call in calls)
    assert [("json_schema" in call, "response_format" in call) for call in calls[2:]] == [
        (True, False),
        (True, False),
    ]
    for name in system:
        first, second = replies[name]
        assert first.cached_tokens == 0
        assert second.cached_tokens >= len(system[name].split())
        assert second.input_tokens > second.cached_tokens


async def test_a_streamed_answer_reports_its_prompt_and_cached_tokens(
    model_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """The managed bridge streams prose; llama-server sends a stream's usage only when asked,
    and the bridge asks, so a streamed answer counts its prompt and cached tokens."""
    bodies = tmp_path / "bodies.jsonl"
    monkeypatch.setenv("FAKE_LLAMA_BODIES", str(bodies))
    server = ManagedLlamaServer(model_file, slots=1, binary=FAKE)
    model = server.model()
    async with trio.open_nursery() as nursery:
        await nursery.start(server.serve)
        pieces: list[str] = []
        first = await model.generate_stream(hello(), pieces.append)
        second = await model.generate_stream(hello("again"), pieces.append)
        nursery.cancel_scope.cancel()
    assert first.text == "answer to hello" and len(pieces) > 2
    assert first.input_tokens > 0 and first.output_tokens > 0
    assert 0 < second.cached_tokens < second.input_tokens
    assert all(call["stream_options"] == {"include_usage": True} for call in sent(bodies))
    stats = model.statistics()
    assert stats.calls == 2
    assert stats.prompt_tokens == first.input_tokens + second.input_tokens
    assert stats.cached_tokens == second.cached_tokens


async def test_a_scored_plan_is_scored_from_the_servers_token_logprobs(model_file: Path):
    """A request that names an enum field to score gets each option's log-probability, read
    from the alternatives llama-server sends at the token where the value starts."""
    server = ManagedLlamaServer(model_file, slots=1, binary=FAKE)
    options = ["answer_the_user", "list_tasks", "beyond_these_functions"]
    schema = {
        "type": "object",
        "properties": {"call": {"type": "string", "enum": options}},
        "required": ["call"],
    }
    request = GenerateRequest(
        label="conductor", system="Plan.", prompt="Ask: hi\n", schema=schema, score="call"
    )
    async with trio.open_nursery() as nursery:
        await nursery.start(server.serve)
        generation = await server.model().generate(request)
        nursery.cancel_scope.cancel()
    assert json.loads(generation.text)["call"] == "answer_the_user"
    assert generation.scores == {
        "answer_the_user": -0.05,
        "list_tasks": -2.0,
        "beyond_these_functions": -3.0,
    }
