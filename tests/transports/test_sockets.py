"""The daemon on a Unix socket: HTTP without a token (mode 0600) and MessagePack frames."""

from __future__ import annotations

import functools
import os
import socket
import stat
import struct
from pathlib import Path
from typing import Any

import pytest
import trio

from actors.messages import ConfirmReply, Failure, Run, decode_msgpack, encode_msgpack
from goliath import ConfirmRequest
from transports.client import Client, RemoteError
from transports.http import serve_http
from transports.stream import MAX_FRAME_BYTES, SocketPathError, read_frame, serve_stream

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
        with trio.fail_after(5):
            assert await intruder.receive_some(1) == b""  # refused: the server closed it
        nursery.cancel_scope.cancel()


def _frame(message: Any) -> bytes:
    payload = encode_msgpack(message)
    return struct.pack(">I", len(payload)) + payload


async def _replies_for(connection: trio.SocketStream, turn_id: str, until: str) -> list[Any]:
    """Replies of ``turn_id`` up to the first of type ``until`` (others are skipped)."""
    seen = []
    with trio.fail_after(10):
        while True:
            payload = await read_frame(connection)
            assert payload is not None, f"the server closed the connection after {seen}"
            reply = decode_msgpack(payload)
            if reply.turn_id == turn_id:
                seen.append(reply)
                if reply.type == until or reply.type in ("failure", "result"):
                    return seen


async def test_a_refused_run_does_not_let_a_connection_confirm_anothers_turn(
    socket_dir: Path,
) -> None:
    """B sends a `run` with A's turn id in another conversation: refused, and B's confirmation
    of A's write is then refused too; the write never runs on B's word."""
    path = socket_dir / "frames.sock"
    created: list[str] = []
    agent = make_agent(created)
    async with agent, trio.open_nursery() as nursery:
        await nursery.start(functools.partial(serve_stream, agent.runtime, path=path))
        a = await trio.open_unix_socket(str(path))
        b = await trio.open_unix_socket(str(path))
        await a.send_all(_frame(Run(turn_id="t-a", ask="add jam", conversation_id="a")))
        [*_, ask] = await _replies_for(a, "t-a", "confirm_request")
        assert ask.type == "confirm_request"
        await b.send_all(_frame(Run(turn_id="t-a", ask="add jam", conversation_id="b")))
        [refusal] = await _replies_for(b, "t-a", "failure")
        assert refusal.code == "conflict"
        await b.send_all(_frame(ConfirmReply(turn_id="t-a", call_id=ask.call_id, approved=True)))
        [forbidden] = await _replies_for(b, "t-a", "failure")
        assert forbidden.code == "forbidden"
        assert created == []
        await a.send_all(_frame(ConfirmReply(turn_id="t-a", call_id=ask.call_id, approved=False)))
        replies = await _replies_for(a, "t-a", "result")
        assert replies[-1].type == "result" and created == []
        await a.aclose()
        await b.aclose()
        nursery.cancel_scope.cancel()


@pytest.mark.parametrize(
    ("run", "code", "words"),
    [
        (Run(turn_id="", ask="hi", conversation_id="c"), "invalid", "turn id"),
        (Run(turn_id="t" * 200_000, ask="hi", conversation_id="c"), "invalid", "turn id"),
        (Run(turn_id="t\x00", ask="hi", conversation_id="c"), "invalid", "turn id"),
        (Run(turn_id="../x", ask="hi", conversation_id="c"), "invalid", "turn id"),
        (Run(turn_id="ok", ask="a" * 900_000, conversation_id="c"), "too_large", "900,000"),
    ],
    ids=["empty-id", "200k-id", "nul-id", "path-id", "900k-ask"],
)
async def test_frames_refuse_what_http_refuses(
    socket_dir: Path, run: Run, code: str, words: str
) -> None:
    """Turn ids and asks follow the HTTP rules on frames too; the connection stays usable."""
    path = socket_dir / "frames.sock"
    agent = make_agent()
    async with agent, trio.open_nursery() as nursery:
        await nursery.start(functools.partial(serve_stream, agent.runtime, path=path))
        async with await trio.open_unix_socket(str(path)) as connection:
            await connection.send_all(_frame(run))
            with trio.fail_after(10):
                payload = await read_frame(connection)
            assert payload is not None
            reply = decode_msgpack(payload)
            assert isinstance(reply, Failure) and (reply.code, reply.turn_id) == (code, run.turn_id)
            assert words in reply.message
            assert agent.runtime.supervisor.statistics().turn_records == 0
            await connection.send_all(_frame(Run(turn_id="fine", ask="hi", conversation_id="c")))
            replies = await _replies_for(connection, "fine", "result")
            assert replies[-1].type == "result"
        nursery.cancel_scope.cancel()


async def test_a_client_that_never_reads_is_dropped(socket_dir: Path) -> None:
    """A connection that sends runs and never reads its replies is cut off once its bounded
    outbox is full; the daemon keeps serving others."""
    path = socket_dir / "frames.sock"
    agent = make_agent()
    async with agent, trio.open_nursery() as nursery:
        await nursery.start(functools.partial(serve_stream, agent.runtime, path=path))
        hog = await trio.open_unix_socket(str(path))
        dropped = False
        with trio.fail_after(60):
            for n in range(20_000):
                try:
                    await hog.send_all(
                        _frame(Run(turn_id=f"h{n}", ask=f"hi {n}", conversation_id=f"h{n % 500}"))
                    )
                except trio.BrokenResourceError:
                    dropped = True
                    break
                if n % 50 == 0:
                    await trio.sleep(0.01)  # let the daemon run the turns
        assert dropped, "the server kept a connection that never reads"
        await hog.aclose()
        async with Client.stream(path=str(path)) as client:
            assert (await client.run("still there?", conversation_id="ok")).text == (
                "answer to still there?"
            )
        nursery.cancel_scope.cancel()


async def test_the_stream_socket_never_replaces_a_file_that_is_not_a_stale_socket(
    socket_dir: Path,
) -> None:
    """A regular file at the path is left alone (a clear error), a live socket too; a stale
    socket of an earlier run is replaced."""
    agent = make_agent()
    regular = socket_dir / "notes.txt"
    regular.write_text("precious")
    async with agent, trio.open_nursery() as nursery:
        with pytest.raises(SocketPathError, match="is not a socket"):
            await nursery.start(functools.partial(serve_stream, agent.runtime, path=regular))
        assert regular.read_text() == "precious"
        live = socket_dir / "live.sock"
        await nursery.start(functools.partial(serve_stream, agent.runtime, path=live))
        with pytest.raises(SocketPathError, match="another process is serving"):
            await nursery.start(functools.partial(serve_stream, agent.runtime, path=live))
        stale = socket_dir / "stale.sock"
        leftover = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        leftover.bind(str(stale))
        leftover.close()  # a socket file nobody listens on
        await nursery.start(functools.partial(serve_stream, agent.runtime, path=stale))
        async with Client.stream(path=str(stale)) as client:
            assert (await client.run("hi", conversation_id="s")).text == "answer to hi"
        nursery.cancel_scope.cancel()


@pytest.mark.parametrize(
    "payload",
    [
        struct.pack(">I", 100) + b"half",
        b"\x00\x00\x00\x04\xc1\xc1\xc1\xc1",
        struct.pack(">I", 2**31),
    ],
    ids=["truncated", "undecodable", "oversized"],
)
async def test_a_client_that_sends_a_bad_frame_and_leaves_ends_nothing_else(
    socket_dir: Path, payload: bytes
) -> None:
    """The server's last word to a bad frame meets a closed socket: that connection ends, the
    server goes on serving (it used to raise BrokenResourceError out of the listener and end
    the daemon)."""
    path = str(socket_dir / "frames.sock")
    agent = make_agent()
    async with agent, trio.open_nursery() as nursery:
        await nursery.start(functools.partial(serve_stream, agent.runtime, path=path))
        for _ in range(3):
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as raw:
                raw.connect(path)
                raw.sendall(payload)
                raw.shutdown(socket.SHUT_RDWR)
            await trio.sleep(0.05)
        async with Client.stream(path=path) as client:
            assert (await client.run("hello", conversation_id="after")).text == "answer to hello"
        nursery.cancel_scope.cancel()


@pytest.mark.parametrize(
    ("options", "code"),
    [
        ({"ask": "a" * 9_000}, "too_large"),
        ({"ask": "hi", "turn_id": "a/b"}, "invalid"),
        ({"ask": "hi", "turn_id": "t" * 200}, "invalid"),
    ],
    ids=["long-ask", "slash-id", "long-id"],
)
async def test_every_edge_refuses_with_the_doors_words(
    socket_dir: Path, options: dict[str, Any], code: str
) -> None:
    """HTTP, frames and the in-process client refuse an over-long ask or a malformed turn id
    with the same code and the very same message: the runtime's door wrote it once."""
    from actors.admission import RequestError, check_ask, check_turn_id
    from transports.inproc import InProcTransport

    try:
        check_ask(options["ask"])
        check_turn_id(options["turn_id"])
    except RequestError as exc:
        expected = exc.message
    http_path, frames_path = socket_dir / "http.sock", socket_dir / "frames.sock"
    agent = make_agent()
    async with agent, trio.open_nursery() as nursery:
        await nursery.start(
            functools.partial(serve_http, agent.runtime, unix_socket=http_path, token=None)
        )
        await nursery.start(functools.partial(serve_stream, agent.runtime, path=frames_path))
        clients = [
            Client.http("http://daemon", uds=str(http_path)),
            Client.stream(path=str(frames_path)),
            Client(InProcTransport(agent)),
        ]
        said = []
        for client in clients:
            async with client:
                with pytest.raises(RemoteError) as refused:
                    await client.run(conversation_id="c", **options)
            said.append((refused.value.code, refused.value.message))
        assert said == [(code, expected)] * 3
        assert agent.runtime.supervisor.statistics().turn_records == 0
        nursery.cancel_scope.cancel()
