"""`goliath serve` as a real process: it starts, serves, and drains on SIGTERM."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio

from tests.processes import start_goliath
from tests.sse import iter_sse

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]


async def start_daemon(*extra: str) -> tuple[trio.Process, str]:
    process, url, _ = await start_goliath(
        "tests.transports.daemon_app:make_agent", "--port", "0", "--token", "T0k3n", *extra
    )
    return process, url


async def test_sigterm_drains_and_tells_in_flight_clients() -> None:
    """On SIGTERM new runs get 503, a running turn is cancelled after the grace, its client
    hears why, and the process exits cleanly."""
    process, url = await start_daemon("--grace", "0.5")
    headers = {"authorization": "Bearer T0k3n"}
    events: list[tuple[str, Any]] = []
    try:
        async with httpx.AsyncClient(base_url=url, headers=headers, timeout=30) as http:
            assert (await http.get("/readyz")).status_code == 200
            async with http.stream(
                "POST", "/v1/conversations/a/runs", json={"ask": "wait"}
            ) as response:
                async for name, data in iter_sse(response):
                    events.append((name, data))
                    if name == "plan":
                        process.send_signal(signal.SIGTERM)
                        await trio.sleep(0.1)
                        refused = await http.post("/v1/conversations/b/runs", json={"ask": "hi"})
                        assert refused.status_code == 503
                        assert refused.json()["error"]["code"] == "draining"
        with trio.fail_after(15):
            code = await process.wait()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert events[-1][0] == "error"
    assert events[-1][1]["code"] == "cancelled"
    assert "shutting down" in events[-1][1]["message"]
    assert code == 0


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
async def test_a_signal_closes_every_listener_the_frame_socket_included(
    signum: int, tmp_path: Path
) -> None:
    """With `--stream-socket` a signal still drains and exits: the frame client's running turn
    is cancelled and told why, the socket file is removed, and the process exits 0."""
    import tempfile

    from transports.client import Client, RemoteError

    with tempfile.TemporaryDirectory(prefix="gl", dir="/tmp") as folder:
        frames = str(Path(folder) / "frames.sock")
        process, url = await start_daemon("--grace", "0.5", "--stream-socket", frames)
        try:
            async with Client.stream(path=frames) as client:
                assert (await client.run("hello", conversation_id="f")).text == "answer to hello"
                failure: list[RemoteError] = []

                async def slow() -> None:
                    try:
                        await client.run("wait", conversation_id="f", turn_id="slow-1")
                    except RemoteError as exc:
                        failure.append(exc)

                async with trio.open_nursery() as nursery:
                    nursery.start_soon(slow)
                    async with httpx.AsyncClient(
                        base_url=url, headers={"authorization": "Bearer T0k3n"}
                    ) as http:
                        with trio.fail_after(15):
                            while (await http.get("/v1/turns/slow-1")).json().get(
                                "status"
                            ) != "running":
                                await trio.sleep(0.05)
                    process.send_signal(signum)
            with trio.fail_after(15):
                code = await process.wait()
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
        assert code == 0
        assert [exc.code for exc in failure] == ["cancelled"]
        assert "shutting down" in failure[0].message
        assert not await trio.Path(frames).exists()


async def test_a_generated_token_is_kept_in_a_private_file_and_never_printed(
    tmp_path: Path,
) -> None:
    """Without --token or GOLIATH_TOKEN the daemon makes a token once, keeps it in a 0600
    file under $XDG_STATE_HOME, prints only where it is, and uses the same one after a
    restart."""
    env: dict[str, str | None] = {"GOLIATH_TOKEN": None, "XDG_STATE_HOME": str(tmp_path)}
    tokens = []
    for _ in range(2):
        process, url, printed = await start_goliath(
            "tests.transports.daemon_app:make_agent", "--port", "0", env=env
        )
        try:
            path = tmp_path / "goliath" / "token"
            assert str(path).encode() in printed
            assert os.stat(path).st_mode & 0o777 == 0o600
            token = path.read_text().strip()
            assert token.encode() not in printed
            tokens.append(token)
            async with httpx.AsyncClient(base_url=url) as http:
                assert (await http.get("/v1/turns/x")).status_code == 401
                authorized = await http.get(
                    "/v1/turns/x", headers={"authorization": f"Bearer {token}"}
                )
                assert authorized.status_code == 404
        finally:
            process.send_signal(signal.SIGTERM)
            with trio.fail_after(15):
                await process.wait()
    assert tokens[0] == tokens[1]


@pytest.mark.parametrize("value", ["", "   ", "two words"], ids=["empty", "blank", "spaced"])
async def test_a_blank_token_stops_the_daemon_with_a_clear_error(value: str) -> None:
    """GOLIATH_TOKEN="" never turns auth off and a whitespace token never locks everyone out:
    the daemon refuses to start and says why."""
    process = await trio.lowlevel.open_process(
        [
            sys.executable,
            "-m",
            "goliath.cli",
            "serve",
            "tests.transports.daemon_app:make_agent",
            "--port",
            "0",
        ],
        cwd=ROOT,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT), "GOLIATH_TOKEN": value},
    )
    assert process.stderr is not None
    output = b""
    with trio.fail_after(30):
        while chunk := await process.stderr.receive_some(4096):
            output += chunk
        code = await process.wait()
    assert code == 2
    assert b"GOLIATH_TOKEN" in output
    assert b"serving on" not in output


async def test_sigkill_mid_turn_with_the_sqlite_store_reads_as_interrupted_after_restart(
    tmp_path: Path,
) -> None:
    """Killed mid-turn: after a restart the turn is interrupted (by id, in the history), memory
    is intact, the same turn id is not run again, and the conversation continues."""
    store = f"sqlite:{tmp_path / 'daemon.db'}"
    headers = {"authorization": "Bearer T0k3n"}
    process, url = await start_daemon("--store", store)
    try:
        async with httpx.AsyncClient(base_url=url, headers=headers, timeout=30) as http:
            first = await http.post("/v1/conversations/k/runs", json={"ask": "hello"})
            assert "answer to hello" in first.text
            async with http.stream(
                "POST", "/v1/conversations/k/runs", json={"ask": "wait", "turn_id": "w1"}
            ) as response:
                async for name, _ in iter_sse(response):
                    if name == "plan":
                        process.kill()  # SIGKILL: no drain, no goodbye
                        break
        await process.wait()
    finally:
        if process.returncode is None:
            process.kill()
    process, url = await start_daemon("--store", store)
    try:
        async with httpx.AsyncClient(base_url=url, headers=headers, timeout=30) as http:
            status = (await http.get("/v1/turns/w1")).json()
            assert status["status"] == "interrupted"
            memory = (await http.get("/v1/conversations/k/memory")).json()
            assert [(e["ask"], e.get("interrupted", False)) for e in memory["recent"]] == [
                ("hello", False),
                ("wait", True),
            ]
            retry = await http.post(
                "/v1/conversations/k/runs", json={"ask": "wait", "turn_id": "w1"}
            )
            assert "event: error" in retry.text and '"code":"interrupted"' in retry.text
            again = await http.post("/v1/conversations/k/runs", json={"ask": "again"})
            assert "answer to again" in again.text
            memory = (await http.get("/v1/conversations/k/memory")).json()
            assert [e["ask"] for e in memory["recent"]] == ["hello", "wait", "again"]
    finally:
        process.send_signal(signal.SIGTERM)
        with trio.fail_after(15):
            await process.wait()


def test_the_sync_client_runs_turns_from_plain_python() -> None:
    """SyncClient drives a real daemon from synchronous code, confirmations included."""
    from transports.client import SyncClient

    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "goliath.cli",
            "serve",
            "tests.transports.daemon_app:make_agent",
            "--port",
            "0",
            "--token",
            "T0k3n",
        ],
        cwd=ROOT,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        assert process.stderr is not None
        buffer = b""
        while (match := re.search(rb"serving on (http://[\d.]+:\d+)", buffer)) is None:
            line = process.stderr.readline()
            assert line, buffer.decode()
            buffer += line
        client = SyncClient.http(match.group(1).decode(), token="T0k3n")
        asked: list[str] = []
        result = client.run(
            "add figs", conversation_id="sync", confirm=lambda r: asked.append(r.tool) or True
        )
        assert result.text == "answer to add figs" and asked == ["create_task"]
        assert [e.ask for e in client.memory("sync").recent] == ["add figs"]
        client.forget("sync")
        assert client.memory("sync").recent == []
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=15)
