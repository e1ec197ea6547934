"""The MessagePack stream transport fed random, truncated and hostile frames.

Whatever one connection sends, it gets back only well-formed frames (a ``failure`` for bad
input) and the server keeps serving everyone else.
"""

from __future__ import annotations

import functools
import socket
import struct
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import msgspec
import pytest
import trio
import trio.testing
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from actors.messages import (
    Failure,
    GetMemory,
    Inbound,
    Outbound,
    ResultMessage,
    Run,
    decode_msgpack,
    encode_msgpack,
)
from goliath import Agent, Exchange, MemoryState, ToolContext, tool
from goliath.memory import InMemory
from goliath.models import GenerateRequest
from goliath.testing import FakeModel
from transports.client import Client
from transports.stream import MAX_FRAME_BYTES, FrameError, read_frame, serve_stream

from .app import make_agent
from .strategies import message_strategy

pytestmark = pytest.mark.slow
HEADER = struct.Struct(">I")
_outbound = msgspec.msgpack.Decoder(Outbound)


def frame(payload: bytes) -> bytes:
    return HEADER.pack(len(payload)) + payload


DEEP = b"\x84\xa4type\xa3run\xa7turn_id\xa1t\xa3ask\xa1a\xa7context" + b"\x91" * 5000 + b"\xc0"

pieces = st.one_of(
    st.binary(max_size=64),  # raw noise, frame boundaries or not
    st.binary(max_size=64).map(frame),  # well-framed garbage
    message_strategy(Inbound).map(lambda m: frame(encode_msgpack(m))),  # valid requests
    st.integers(MAX_FRAME_BYTES + 1, 2**32 - 1).map(HEADER.pack),  # an oversized length
    st.integers(5, 1000).map(lambda n: HEADER.pack(n) + b"\x00" * (n // 2)),  # truncated
    st.just(frame(DEEP)),  # nested past the recursion limit
    st.just(frame(encode_msgpack(GetMemory(turn_id="m", conversation_id=" ")))),  # a bad id
)


@asynccontextmanager
async def stream_server() -> AsyncIterator[str]:
    with tempfile.TemporaryDirectory(prefix="gl", dir="/tmp") as folder:
        path = str(Path(folder) / "frames.sock")
        agent = make_agent()
        async with agent, trio.open_nursery() as nursery:
            await nursery.start(functools.partial(serve_stream, agent.runtime, path=path))
            yield path
            for ticket in agent.runtime.supervisor.running():
                agent.runtime.cancel(ticket.turn_id, "test over")
            nursery.cancel_scope.cancel()


async def replies_until_closed(connection: trio.SocketStream) -> list[Outbound]:
    """Every frame the server sends until it closes the connection (each must decode)."""
    received = []
    while (payload := await read_frame(connection)) is not None:
        received.append(_outbound.decode(payload))
    return received


async def still_serving(path: str) -> None:
    with trio.fail_after(10):
        async with Client.stream(path=path) as client:
            result = await client.run("hello [probe]", conversation_id="probe")
    assert result.text.startswith("answer to hello [probe]")


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sent=st.lists(pieces, min_size=1, max_size=6))
async def test_random_and_truncated_frames_never_take_the_server_down(sent: list[bytes]) -> None:
    """Any byte sequence on a connection gets well-formed replies at most; others still work."""
    async with stream_server() as path:
        connection = await trio.open_unix_socket(path)
        try:
            await connection.send_all(b"".join(sent))
        except trio.BrokenResourceError:
            pass  # the server already refused the connection's first bad frame
        connection.socket.shutdown(socket.SHUT_WR)
        with trio.fail_after(10):
            try:
                await replies_until_closed(connection)
            except (trio.BrokenResourceError, FrameError):
                pass  # the server reset the connection after its last frame
        await connection.aclose()
        await still_serving(path)


class TestHostileFrames:
    async def test_a_frame_nested_past_the_recursion_limit_is_refused(self) -> None:
        """A frame nested 5,000 deep gets an `invalid` failure; the server lives on."""
        async with stream_server() as path:
            connection = await trio.open_unix_socket(path)
            await connection.send_all(frame(DEEP))
            with trio.fail_after(10):
                replies = await replies_until_closed(connection)
            assert [(r.type, getattr(r, "code", None)) for r in replies] == [("failure", "invalid")]
            assert "nested too deeply" in replies[0].message  # type: ignore[union-attr]
            await still_serving(path)

    async def test_a_request_with_a_malformed_conversation_id_is_refused(self) -> None:
        """A memory request for a blank conversation id gets an `invalid` failure, no crash."""
        async with stream_server() as path:
            async with await trio.open_unix_socket(path) as connection:
                await connection.send_all(
                    frame(encode_msgpack(GetMemory(turn_id="m", conversation_id=" ")))
                )
                with trio.fail_after(10):
                    payload = await read_frame(connection)
            assert payload is not None
            reply = decode_msgpack(payload)
            assert isinstance(reply, Failure) and reply.code == "invalid"
            assert "conversation_id must be a non-blank string" in reply.message
            await still_serving(path)

    async def test_a_client_that_stops_reading_mid_turn_ends_only_its_connection(self) -> None:
        """A client that shuts its reading side while its turns stream leaves the server up."""
        async with stream_server() as path:
            connection = await trio.open_unix_socket(path)
            runs = b"".join(
                frame(encode_msgpack(Run(turn_id=f"r{n}", ask=f"hi {n}", conversation_id=f"x{n}")))
                for n in range(20)
            )
            connection.socket.shutdown(socket.SHUT_RD)
            await connection.send_all(runs)
            await trio.testing.wait_all_tasks_blocked()
            await still_serving(path)
            await connection.aclose()


# ---------------------------------------------------------------- what the server sends


def _hostile_output(kind: str, size: int) -> Any:
    """A tool output the server must carry, or refuse for that request only."""
    match kind:
        case "wide-int":
            return {"wei": 2**70, "debt": -(2**70), "nested": [{"n": 2**64}]}
        case "huge-digits":
            return {"n": 10**size}
        case "big-text":
            return "x" * (size * 1024)
        case "many-items":
            return [{"i": n, "s": "y" * 16} for n in range(size * 100)]
        case "deep":
            value: Any = "bottom"
            for _ in range(size):
                value = {"d": value}
            return value
    return {"ok": True}


def _producing_agent(memory: dict[str, MemoryState] | None = None) -> Agent:
    """Plans `produce` once per turn; the tool builds the output the run's context names."""

    def reply(request: GenerateRequest) -> dict[str, Any]:
        if request.label == "conductor":
            if "produce(" not in request.prompt:
                return {"json": {"call": "produce"}}
            return {"json": {"call": "answer_the_user"}}
        if request.label == "scribe":
            return {"text": "Goal: chat"}
        return {"text": "done"}

    @tool
    def produce(ctx: ToolContext) -> Any:
        """Produce an output."""
        context = ctx.context if isinstance(ctx.context, dict) else {}
        return _hostile_output(str(context.get("kind")), int(context.get("size", 1)))

    states = memory or {}
    return Agent(
        FakeModel(reply),
        tools=[produce],
        memory=lambda cid: InMemory(states.get(cid or "")),
    )


@asynccontextmanager
async def frames_of(agent: Agent) -> AsyncIterator[str]:
    with tempfile.TemporaryDirectory(prefix="gl", dir="/tmp") as folder:
        path = str(Path(folder) / "frames.sock")
        async with agent, trio.open_nursery() as nursery:
            await nursery.start(functools.partial(serve_stream, agent.runtime, path=path))
            yield path
            nursery.cancel_scope.cancel()


async def _one_run(connection: trio.SocketStream, run: Run) -> list[Outbound]:
    """Send ``run`` and read its replies up to its end (every frame must decode)."""
    await connection.send_all(frame(encode_msgpack(run)))
    received: list[Outbound] = []
    with trio.fail_after(30):
        while True:
            payload = await read_frame(connection)
            assert payload is not None, f"the server closed the connection after {received}"
            reply = _outbound.decode(payload)
            received.append(reply)
            if reply.turn_id == run.turn_id and reply.type in ("result", "failure"):
                return received


class TestReplies:
    """Send-side fuzzing: a reply too big or unencodable fails its request, never the server."""

    async def test_memory_over_the_frame_limit_fails_that_request_and_the_connection_goes_on(
        self,
    ) -> None:
        """`get_memory` of a 2 MiB memory answers `too_large`; the same connection still works."""
        big = MemoryState(
            summary="s",
            recent=[Exchange(ask=f"q{n}", answer="a" * (700 * 1024), at=0.0) for n in range(3)],
        )
        async with frames_of(_producing_agent({"big": big})) as path:
            async with await trio.open_unix_socket(path) as connection:
                await connection.send_all(
                    frame(encode_msgpack(GetMemory(turn_id="m1", conversation_id="big")))
                )
                with trio.fail_after(10):
                    payload = await read_frame(connection)
                assert payload is not None
                reply = _outbound.decode(payload)
                assert isinstance(reply, Failure) and reply.turn_id == "m1"
                assert reply.code == "too_large"
                assert "memory" in reply.message and f"{MAX_FRAME_BYTES:,}" in reply.message
                replies = await _one_run(
                    connection, Run(turn_id="r1", ask="go", conversation_id="small")
                )
                assert replies[-1].type == "result"
            await still_serving_frames(path)

    async def test_an_integer_beyond_64_bits_travels_as_decimal_text(self) -> None:
        """A tool output holding 2**70 reaches the client (as text) instead of killing the server."""
        async with frames_of(_producing_agent()) as path:
            async with await trio.open_unix_socket(path) as connection:
                replies = await _one_run(
                    connection,
                    Run(turn_id="w1", ask="go", conversation_id="c", context={"kind": "wide-int"}),
                )
            end = replies[-1]
            assert isinstance(end, ResultMessage)
            [step] = [s for s in end.result.steps if s.kind == "tool"]
            assert step.output == {
                "wei": str(2**70),
                "debt": str(-(2**70)),
                "nested": [{"n": str(2**64)}],
            }
            await still_serving_frames(path)

    @settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(
        outputs=st.lists(
            st.tuples(
                st.sampled_from(["wide-int", "huge-digits", "big-text", "many-items", "deep"]),
                st.integers(1, 2000),
            ),
            min_size=1,
            max_size=3,
        )
    )
    async def test_whatever_a_tool_returns_every_reply_decodes_and_each_run_ends_once(
        self, outputs: list[tuple[str, int]]
    ) -> None:
        """Hostile outputs (wide ints, 2 MB texts, 200,000 items, deep nesting): every frame
        decodes, each run ends with exactly one result or failure, and the server serves on."""
        async with frames_of(_producing_agent()) as path:
            async with await trio.open_unix_socket(path) as connection:
                for n, (kind, size) in enumerate(outputs):
                    run = Run(
                        turn_id=f"h{n}",
                        ask="go",
                        conversation_id=f"h{n}",
                        context={"kind": kind, "size": size},
                    )
                    replies = await _one_run(connection, run)
                    ends = [r for r in replies if r.type in ("result", "failure")]
                    assert len(ends) == 1
                    if isinstance(ends[0], Failure):
                        assert ends[0].code in ("too_large", "error"), ends[0]
            await still_serving_frames(path)


async def still_serving_frames(path: str) -> None:
    with trio.fail_after(10):
        async with Client.stream(path=path) as client:
            result = await client.run("hello", conversation_id="probe")
    assert result.text == "done"
