"""The managed llama-server: start, health, restart after kill -9, stop, and failed calls.

The server process is ``tests/fake_llama_server.py``, a real HTTP server on 127.0.0.1 that
speaks the endpoints and flags the supervisor uses (health while loading, API key, replies).
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
