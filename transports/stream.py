"""Length-prefixed MessagePack frames of the runtime's messages, over a Unix socket or TCP.

For apps that embed the daemon locally: each frame is a 4-byte big-endian length and one
msgpack-encoded message (at most :data:`MAX_FRAME_BYTES`). A connection carries many requests
at once, correlated by ``turn_id``. On TCP the first frame must be ``Hello(token=...)``; a Unix
socket is created 0600 and needs no token. A malformed frame gets a ``Failure`` and closes only
that connection. A connection may cancel or confirm only the turns it started.
"""

from __future__ import annotations

import contextlib
import functools
import hmac
import math
import os
import struct
from collections.abc import AsyncIterator
from typing import Any

import msgspec
import trio

from actors.messages import (
    Cancel,
    ConfirmReply,
    Failure,
    Hello,
    Inbound,
    Outbound,
    Run,
    encode_msgpack,
)
from actors.runtime import RequestError, Runtime

from .base import TERMINAL, Transport, TransportError

__all__ = ["MAX_FRAME_BYTES", "StreamTransport", "read_frame", "serve_stream", "write_frame"]

MAX_FRAME_BYTES = 1 << 20
"""1 MiB: the largest frame either side accepts."""
_HEADER = struct.Struct(">I")
_inbound = msgspec.msgpack.Decoder(Inbound)
_outbound = msgspec.msgpack.Decoder(Outbound)


class FrameError(TransportError):
    """A frame was truncated, oversized or not a valid message."""


def _decode(decoder: msgspec.msgpack.Decoder[Any], payload: bytes) -> Any:
    """Decode one frame's message; nesting past Python's recursion limit is a bad frame."""
    try:
        return decoder.decode(payload)
    except RecursionError:
        raise FrameError("the message is nested too deeply") from None


async def _read_exactly(stream: trio.abc.ReceiveStream, size: int) -> bytes | None:
    data = bytearray()
    while len(data) < size:
        chunk = await stream.receive_some(size - len(data))
        if not chunk:
            if data:
                raise FrameError(
                    f"the connection closed inside a frame ({len(data)} of {size} bytes)"
                )
            return None
        data += chunk
    return bytes(data)


async def read_frame(stream: trio.abc.ReceiveStream) -> bytes | None:
    """One frame's payload, or ``None`` at a clean end of stream."""
    header = await _read_exactly(stream, _HEADER.size)
    if header is None:
        return None
    (size,) = _HEADER.unpack(header)
    if size > MAX_FRAME_BYTES:
        raise FrameError(f"a frame of {size} bytes exceeds the limit of {MAX_FRAME_BYTES}")
    payload = await _read_exactly(stream, size)
    if payload is None:
        raise FrameError("the connection closed before the frame's payload")
    return payload


async def write_frame(stream: trio.abc.SendStream, payload: bytes) -> None:
    if len(payload) > MAX_FRAME_BYTES:
        raise FrameError(f"a frame of {len(payload)} bytes exceeds the limit of {MAX_FRAME_BYTES}")
    await stream.send_all(_HEADER.pack(len(payload)) + payload)


# ---------------------------------------------------------------- server


async def _serve_connection(
    runtime: Runtime, stream: trio.abc.Stream, *, token: str | None
) -> None:
    lock = trio.Lock()
    started: set[str] = set()

    async def reply(message: Outbound) -> None:
        async with lock:
            await write_frame(stream, encode_msgpack(message))

    async with stream, trio.open_nursery() as nursery:
        outbox_send, outbox = trio.open_memory_channel[Outbound](math.inf)

        async def pump() -> None:
            try:
                async for message in outbox:
                    await reply(message)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                nursery.cancel_scope.cancel()  # the client went away: end only this connection

        nursery.start_soon(pump)

        async def handle(message: Inbound) -> None:
            try:
                await runtime.handle(message, outbox_send.send_nowait)
            except RequestError as exc:
                outbox_send.send_nowait(
                    Failure(turn_id=message.turn_id, code=exc.code, message=exc.message)
                )
            except Exception as exc:  # one request's failure never ends the connection
                outbox_send.send_nowait(
                    Failure(
                        turn_id=message.turn_id,
                        code="error",
                        message=f"{type(exc).__name__}: {exc}",
                    )
                )

        try:
            if token is not None:
                first = await read_frame(stream)
                hello = _decode(_inbound, first) if first is not None else None
                if not (
                    isinstance(hello, Hello)
                    and hmac.compare_digest(hello.token.encode(), token.encode())
                ):
                    await reply(
                        Failure(
                            turn_id="",
                            code="unauthorized",
                            message="send Hello(token=...) with the right token first",
                        )
                    )
                    return
            while True:
                payload = await read_frame(stream)
                if payload is None:
                    break
                message = _decode(_inbound, payload)
                if isinstance(message, Run):
                    started.add(message.turn_id)
                elif isinstance(message, (Cancel, ConfirmReply)) and message.turn_id not in started:
                    outbox_send.send_nowait(
                        Failure(
                            turn_id=message.turn_id,
                            code="forbidden",
                            message="this connection did not start that turn",
                        )
                    )
                    continue
                elif isinstance(message, Hello):
                    continue
                nursery.start_soon(handle, message)
        except (FrameError, msgspec.DecodeError, msgspec.ValidationError) as exc:
            with trio.move_on_after(1):
                await reply(Failure(turn_id="", code="invalid", message=f"bad frame: {exc}"))
        except trio.BrokenResourceError:
            pass
        nursery.cancel_scope.cancel()


async def serve_stream(
    runtime: Runtime,
    *,
    path: str | os.PathLike[str] | None = None,
    host: str = "127.0.0.1",
    port: int | None = None,
    token: str | None = None,
    task_status: trio.TaskStatus[Any] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve frames on a Unix socket ``path`` (mode 0600) or on TCP ``host``/``port``.

    Reports the bound address (the path, or ``(host, port)``) through ``task_status``.
    A TCP listener requires ``token``.
    """
    if path is not None:
        path = os.fspath(path)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)  # a stale socket from an earlier run
        sock = trio.socket.socket(trio.socket.AF_UNIX, trio.socket.SOCK_STREAM)
        old = os.umask(0o177)
        try:
            await sock.bind(path)
        finally:
            os.umask(old)
        sock.listen(128)
        listeners = [trio.SocketListener(sock)]
        address: Any = path
        need = token
    else:
        if token is None:
            raise ValueError("a TCP stream listener needs a token")
        listeners = await trio.open_tcp_listeners(port or 0, host=host)
        address = listeners[0].socket.getsockname()[:2]
        need = token
    try:
        async with trio.open_nursery() as nursery:
            task_status.started(address)
            await trio.serve_listeners(
                functools.partial(_serve_connection, runtime, token=need),
                listeners,
                handler_nursery=nursery,
            )
    finally:
        if path is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)


# ---------------------------------------------------------------- client side


class StreamTransport(Transport):
    """A client connection: requests out, replies routed back by ``turn_id``."""

    def __init__(
        self,
        *,
        path: str | None = None,
        host: str | None = None,
        port: int | None = None,
        token: str | None = None,
    ) -> None:
        if path is None and (host is None or port is None):
            raise ValueError("give a Unix socket path, or a host and a port")
        self._path, self._host, self._port, self._token = path, host, port, token
        self._stream: trio.abc.Stream | None = None
        self._routes: dict[str, trio.MemorySendChannel[Outbound]] = {}
        self._lock = trio.Lock()
        self._nursery_manager: Any = None
        self._nursery: trio.Nursery | None = None
        self._error: BaseException | None = None

    async def __aenter__(self) -> StreamTransport:
        if self._path is not None:
            self._stream = await trio.open_unix_socket(self._path)
        else:
            assert self._host is not None and self._port is not None
            self._stream = await trio.open_tcp_stream(self._host, self._port)
        if self._token is not None:
            await write_frame(self._stream, encode_msgpack(Hello(turn_id="", token=self._token)))
        self._nursery_manager = trio.open_nursery()
        self._nursery = await self._nursery_manager.__aenter__()
        self._nursery.start_soon(self._read)
        return self

    async def aclose(self) -> None:
        if self._nursery is not None:
            self._nursery.cancel_scope.cancel()
            await self._nursery_manager.__aexit__(None, None, None)
            self._nursery = None
        if self._stream is not None:
            await self._stream.aclose()
            self._stream = None

    async def _read(self) -> None:
        assert self._stream is not None
        try:
            while True:
                payload = await read_frame(self._stream)
                if payload is None:
                    break
                message = _decode(_outbound, payload)
                route = self._routes.get(message.turn_id)
                if route is not None:
                    route.send_nowait(message)
                elif isinstance(message, Failure) and not message.turn_id:
                    self._error = TransportError(f"{message.code}: {message.message}")
                    break
        except (
            trio.BrokenResourceError,
            trio.ClosedResourceError,
            FrameError,
            msgspec.DecodeError,
        ) as exc:
            self._error = TransportError(f"the stream connection failed: {exc}")
        finally:
            for route in self._routes.values():
                route.close()

    async def send(self, message: Inbound) -> AsyncIterator[Outbound]:
        if self._stream is None:
            raise TransportError(
                "open the transport first: `async with Client.stream(...) as client:`"
            )
        is_run = isinstance(message, Run)
        own_route = is_run or message.turn_id not in self._routes
        send, receive = trio.open_memory_channel[Outbound](math.inf)
        if own_route:
            self._routes[message.turn_id] = send
        else:  # a cancel or confirmation for a running turn: its reply shares the turn's route
            original = self._routes[message.turn_id]
            self._routes[message.turn_id] = _Tee(original, send)  # type: ignore[assignment]
        try:
            async with self._lock:
                await write_frame(self._stream, encode_msgpack(message))
            async for reply in receive:
                yield reply
                if reply.type in TERMINAL:
                    return
            raise self._error or TransportError("the stream connection closed")
        finally:
            if own_route:
                self._routes.pop(message.turn_id, None)
            else:
                self._routes[message.turn_id] = original


_SIDE_CODES = frozenset({"not_found", "conflict", "forbidden", "invalid", "unauthorized"})


class _Tee:
    """Splits a running turn's replies from those of a cancel or confirmation sent for it.

    The answer to a side request is an ``Ack``, or a ``Failure`` refusing it (unknown call,
    already answered, not this connection's turn); everything else belongs to the run.
    """

    def __init__(
        self, run: trio.MemorySendChannel[Outbound], side: trio.MemorySendChannel[Outbound]
    ) -> None:
        self.first, self.second = run, side

    def send_nowait(self, message: Outbound) -> None:
        refusal = isinstance(message, Failure) and message.code in _SIDE_CODES
        (self.second if message.type == "ack" or refusal else self.first).send_nowait(message)

    def close(self) -> None:
        self.first.close()
        self.second.close()
