"""The daemon on a Unix socket: HTTP without a token (mode 0600) and MessagePack frames."""

from __future__ import annotations

import functools
import os
import stat
import struct
from pathlib import Path

import pytest
import trio

from actors.messages import Failure, Run, decode_msgpack, encode_msgpack
from goliath import ConfirmRequest
from transports.client import Client, RemoteError
from transports.http import serve_http
from transports.stream import MAX_FRAME_BYTES, serve_stream

from .daemon_app import make_agent


@pytest.fixture
def socket_dir() -> object:
    # Unix socket paths are limited to ~100 bytes: use a short directory under /tmp
    import tempfile

    with tempfile.TemporaryDirectory(prefix="gl", dir="/tmp") as directory:
        yield Path(directory)


async def test_http_over_a_unix_socket_needs_no_token_and_is_private(socket_dir: Path) -> None:
    """The socket file is created 0600 and serves the API without a bearer token."""
    path = socket_dir / "http.sock"
    agent = make_agent()
    async with agent, trio.open_nursery() as nursery:
        await nursery.start(
            functools.partial(serve_http, agent.runtime, unix_socket=path, token=None)
        )
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
        async with Client.http("http://daemon", uds=str(path)) as client:
            result = await client.run("hello", conversation_id="u")
        assert result.text == "answer to hello"
        nursery.cancel_scope.cancel()


async def test_a_full_turn_with_confirmation_over_frames(socket_dir: Path) -> None:
    """The stream client runs a turn, answers its confirmation, and gets the result."""
    path = socket_dir / "frames.sock"
    created: list[str] = []
    agent = make_agent(created)
    async with agent, trio.open_nursery() as nursery:
        await nursery.start(functools.partial(serve_stream, agent.runtime, path=path))
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
        asked: list[ConfirmRequest] = []
        async with Client.stream(path=str(path)) as client:

            def approve(request: ConfirmRequest) -> bool:
                asked.append(request)
                return True

            result = await client.run("add jam", conversation_id="s", confirm=approve)
            memory = await client.memory("s")
        assert result.text == "answer to add jam"
        assert created == ["jam"] and asked[0].input == {"title": "jam"}
        assert [e.ask for e in memory.recent] == ["add jam"]
        nursery.cancel_scope.cancel()


async def test_frames_carry_many_turns_at_once(socket_dir: Path) -> None:
    """One connection multiplexes concurrent turns of different conversations."""
    path = socket_dir / "frames.sock"
    agent = make_agent()
    texts: dict[int, str] = {}
    async with agent, trio.open_nursery() as nursery:
        await nursery.start(functools.partial(serve_stream, agent.runtime, path=path))
        async with Client.stream(path=str(path)) as client:

            async def one(n: int) -> None:
                texts[n] = (await client.run(f"q{n}", conversation_id=f"c{n}")).text

            async with trio.open_nursery() as inner:
                for n in range(20):
                    inner.start_soon(one, n)
        nursery.cancel_scope.cancel()
    assert texts == {n: f"answer to q{n}" for n in range(20)}


async def test_a_malformed_frame_closes_only_its_connection(socket_dir: Path) -> None:
    """Garbage gets a Failure and a closed connection; another connection keeps working."""
    path = socket_dir / "frames.sock"
    agent = make_agent()
    async with agent, trio.open_nursery() as nursery:
        await nursery.start(functools.partial(serve_stream, agent.runtime, path=path))
        bad = await trio.open_unix_socket(str(path))
        payload = b"\x93not msgpack at all"
        await bad.send_all(struct.pack(">I", len(payload)) + payload)
        header = await bad.receive_some(4)
        (size,) = struct.unpack(">I", header)
        reply = decode_msgpack(await bad.receive_some(size))
        assert isinstance(reply, Failure) and reply.code == "invalid"
        assert await bad.receive_some(1) == b""  # closed by the server
        oversized = await trio.open_unix_socket(str(path))
        await oversized.send_all(struct.pack(">I", MAX_FRAME_BYTES + 1))
        header = await oversized.receive_some(4)
        assert isinstance(
            decode_msgpack(await oversized.receive_some(struct.unpack(">I", header)[0])), Failure
        )
        async with Client.stream(path=str(path)) as client:
            assert (
                await client.run("still there?", conversation_id="ok")
            ).text == "answer to still there?"
        nursery.cancel_scope.cancel()


async def test_a_connection_cannot_cancel_another_connections_turn(socket_dir: Path) -> None:
    """Cancelling a turn started on another connection is refused as forbidden."""
    path = socket_dir / "frames.sock"
    agent = make_agent()
    async with agent, trio.open_nursery() as nursery:
        await nursery.start(functools.partial(serve_stream, agent.runtime, path=path))
        async with (
            Client.stream(path=str(path)) as owner,
            Client.stream(path=str(path)) as stranger,
        ):

            async def run() -> None:
                with pytest.raises(RemoteError, match="cancelled"):
                    await owner.run("wait", conversation_id="w", turn_id="mine")

            nursery.start_soon(run)
            while (
                status := agent.runtime.supervisor.ticket("mine")
            ) is None or status.status != "running":
                await trio.sleep(0.01)
            with pytest.raises(RemoteError, match="forbidden"):
                await stranger.cancel("mine")
            await owner.cancel("mine")
        nursery.cancel_scope.cancel()


async def test_tcp_frames_require_the_token(socket_dir: Path) -> None:
    """On TCP the first frame must carry the token; without it the server refuses."""
    agent = make_agent()
    async with agent, trio.open_nursery() as nursery:
        host, port = await nursery.start(
            functools.partial(serve_stream, agent.runtime, port=0, token="s3cret")
        )
        async with Client.stream(host=host, port=port, token="s3cret") as client:
            assert (await client.run("hi", conversation_id="t")).text == "answer to hi"
        intruder = await trio.open_tcp_stream(host, port)
        frame = encode_msgpack(Run(turn_id="x", ask="hi", conversation_id="t"))
        await intruder.send_all(struct.pack(">I", len(frame)) + frame)
        header = await intruder.receive_some(4)
        reply = decode_msgpack(await intruder.receive_some(struct.unpack(">I", header)[0]))
        assert isinstance(reply, Failure) and reply.code == "unauthorized"
        nursery.cancel_scope.cancel()
