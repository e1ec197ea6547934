"""`goliath serve --slots N` as a real process, with a scripted llama-server behind it.

The daemon starts ``tests/fake_llama_server.py`` (through ``$GOLIATH_LLAMA_SERVER``), waits for
its health before it says it is serving, answers turns through it, restarts it after kill -9,
and stops it on SIGTERM.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
from pathlib import Path

import httpx
import pytest
import trio

from goliath.errors import ConfigError
from goliath.events import EscalateEvent
from tests.processes import start_goliath
from transports.client import Client
from transports.serve_command import gguf_of

pytestmark = pytest.mark.slow
FAKE = Path(__file__).resolve().parents[1] / "fake_llama_server.py"
TOKEN = "T0k3n-for-the-slots-test"


def starts(folder: Path) -> list[dict[str, object]]:
    """The fake servers that became healthy, oldest first, each with its pid."""
    found = []
    for path in sorted(folder.iterdir(), key=lambda item: item.stat().st_mtime):
        found.append({**json.loads(path.read_text()), "pid": int(path.stem)})
    return found


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def test_serve_slots_starts_supervises_and_stops_the_server(tmp_path: Path) -> None:
    binary = tmp_path / "llama-server"
    binary.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE}" "$@"\n')
    binary.chmod(0o755)
    model = tmp_path / "model.gguf"
    model.write_bytes(b"GGUF")
    record = tmp_path / "starts"
    record.mkdir()
    process, url, _ = await start_goliath(
        "tests.transports.daemon_app:make_agent",
        "--port",
        "0",
        "--model",
        f"llamacpp:{model}",
        "--slots",
        "2",
        env={
            "GOLIATH_TOKEN": TOKEN,
            "GOLIATH_LLAMA_SERVER": str(binary),
            "FAKE_LLAMA_RECORD": str(record),
            "FAKE_LLAMA_LOAD_SECONDS": "1",
        },
    )
    try:
        (first,) = starts(record)  # healthy before the daemon said it was serving
        assert first["parallel"] == 2
        async with Client.http(url, token=TOKEN) as client:
            result = await client.run("hello", conversation_id="a")
            assert result.text == "answer to hello"
            assert result.model_calls >= 2

            os.kill(int(first["pid"]), signal.SIGKILL)
            with trio.fail_after(30):
                while len(starts(record)) < 2:
                    await trio.sleep(0.1)
            again = await client.run("hello again", conversation_id="b")
            assert again.text == "answer to hello again"
        second = starts(record)[1]
        process.send_signal(signal.SIGTERM)
        with trio.fail_after(30):
            assert await process.wait() == 0
        with trio.fail_after(10):
            while alive(int(second["pid"])):
                await trio.sleep(0.05)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


def test_slots_need_a_llama_cpp_model_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no file at"):
        gguf_of(f"llamacpp:{tmp_path / 'missing.gguf'}")
    with pytest.raises(ConfigError, match=r"--slots needs a llama\.cpp model"):
        gguf_of("apple")


async def test_a_turn_in_flight_when_the_server_dies_ends_model_unavailable(tmp_path: Path) -> None:
    """kill -9 while the server answers a turn: that turn ends at once with the
    model-unavailable classification (no hang until the reply timeout), and the next turn is
    served by the restarted server."""
    binary = tmp_path / "llama-server"
    binary.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE}" "$@"\n')
    binary.chmod(0o755)
    model = tmp_path / "model.gguf"
    model.write_bytes(b"GGUF")
    record = tmp_path / "starts"
    record.mkdir()
    process, url, _ = await start_goliath(
        "tests.transports.daemon_app:make_agent",
        "--port",
        "0",
        "--model",
        f"llamacpp:{model}",
        "--slots",
        "1",
        env={
            "GOLIATH_TOKEN": TOKEN,
            "GOLIATH_LLAMA_SERVER": str(binary),
            "FAKE_LLAMA_RECORD": str(record),
        },
    )
    try:
        (first,) = starts(record)
        async with Client.http(url, token=TOKEN) as client:
            results = []

            async def slow_turn() -> None:
                results.append(await client.run("slow one", conversation_id="a"))

            with trio.fail_after(20):
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(slow_turn)
                    await trio.sleep(1.0)
                    os.kill(int(first["pid"]), signal.SIGKILL)
            (result,) = results
            (escalated,) = [event for event in result.trace if isinstance(event, EscalateEvent)]
            assert escalated.reason == "model-unavailable"
            assert "SIGKILL" in escalated.error and "restarted" in escalated.error
            with trio.fail_after(30):
                while len(starts(record)) < 2:
                    await trio.sleep(0.1)
            again = await client.run("hello again", conversation_id="b")
            assert again.text == "answer to hello again"
    finally:
        process.send_signal(signal.SIGTERM)
        with trio.fail_after(30):
            await process.wait()


async def test_serve_slots_pins_an_openai_servers_conversations_to_its_slots(
    tmp_path: Path,
) -> None:
    """``--model openai:URL#MODEL --slots 2`` against a llama-server-like fake the test starts:
    every call carries cache_prompt and its conversation's own id_slot, and the two
    conversations get the two slots (the slots' caches: test_managed_llama_server.py)."""
    port = free_port()
    bodies = tmp_path / "bodies.jsonl"
    environment = {**os.environ, "LLAMA_API_KEY": "k3y", "FAKE_LLAMA_BODIES": str(bodies)}
    server = await trio.lowlevel.open_process(
        [sys.executable, str(FAKE), "--model", "m", "--port", str(port), "--parallel", "2"],
        env=environment,
    )
    try:
        await wait_healthy(port)
        process, url, _ = await start_goliath(
            "tests.transports.daemon_app:make_agent",
            "--port",
            "0",
            "--model",
            f"openai:http://127.0.0.1:{port}/v1#m",
            "--slots",
            "2",
            env={"GOLIATH_TOKEN": TOKEN, "OPENAI_API_KEY": "k3y"},
        )
        try:
            async with Client.http(url, token=TOKEN) as client:
                for turn in range(2):
                    for name in ("ana", "ben"):
                        result = await client.run(f"{name} {turn}", conversation_id=name)
                        assert result.text == f"answer to {name} {turn}"
        finally:
            process.send_signal(signal.SIGTERM)
            with trio.fail_after(30):
                await process.wait()
    finally:
        server.kill()
        await server.wait()
    calls = [json.loads(line) for line in bodies.read_text().splitlines()]
    slots: dict[str, set[int]] = {}
    for call in calls:
        name = next(name for name in ("ana", "ben") if f"Ask: {name}" in call["user"])
        slots.setdefault(name, set()).add(call["id_slot"])
    assert all(len(used) == 1 for used in slots.values()), slots
    assert slots["ana"] != slots["ben"]
    assert all(call["cache_prompt"] is True for call in calls)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


async def wait_healthy(port: int) -> None:
    with trio.fail_after(20):
        async with httpx.AsyncClient() as client:
            while True:
                try:
                    if (await client.get(f"http://127.0.0.1:{port}/health")).status_code == 200:
                        return
                except httpx.HTTPError:
                    pass
                await trio.sleep(0.1)
