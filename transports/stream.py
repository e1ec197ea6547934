"""Length-prefixed MessagePack frames of the runtime's messages, over a Unix socket or TCP.

For apps that embed the daemon locally: each frame is a 4-byte big-endian length and one
msgpack-encoded message (at most :data:`MAX_FRAME_BYTES`). A connection carries many requests
at once, correlated by ``turn_id``. On TCP the first frame must be ``Hello(token=...)``; a Unix
socket is created 0600 and needs no token. A malformed frame gets a ``Failure`` and closes only
that connection. A connection may cancel or confirm only the turns it started.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import logging
import math
import os
import socket as socket_module
import stat
import struct
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

import attrs
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
    nested_too_deeply,
)
from actors.runtime import Access, RequestError, Runtime
from goliath.snapshot import UNSERIALIZABLE

from .base import TERMINAL, Transport, TransportError
from .users import UnknownToken, holder_of

if TYPE_CHECKING:
    from .users import Authenticator

__all__ = [
    "MAX_FRAME_BYTES",
    "SocketPathError",
    "StreamTransport",
    "read_frame",
    "serve_stream",
    "write_frame",
]

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
        raise FrameError(nested_too_deeply("the message")) from None


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

logger = logging.getLogger("goliath.stream")
"""Where the frame server logs a connection that failed for a reason of its own (a bug)."""

OUTBOX_MESSAGES = 1024
"""Replies that may wait for one connection's reader; one more and the connection is dropped
(a client that never reads must not hold the daemon's memory)."""
SEND_SECONDS = 30.0
"""Seconds a connection may take to accept one frame before it is dropped."""
CLAIMS_KEPT = 10_000
"""Turns a connection remembers having started (for its cancels and confirmations)."""
_INT_RANGE = (-(2**63), 2**64 - 1)
_ENDS = frozenset({"result", "failure"})


def _encode(message: Outbound) -> tuple[bytes, bool]:
    """The frame payload for one reply; a reply that cannot travel becomes its request's Failure.

    MessagePack has no integers beyond 64 bits: those in a reply's free-form values (tool
    outputs, inputs, contexts) travel as decimal text. A reply still unencodable, or larger than
    :data:`MAX_FRAME_BYTES`, is replaced by a ``Failure`` of its turn naming what was wrong, so
    one reply can fail its own request but never the connection or the server.
    """
    try:
        try:
            payload = encode_msgpack(message)
        except OverflowError:
            payload = msgspec.msgpack.encode(_wide_ints_as_text(msgspec.to_builtins(message)))
    except UNSERIALIZABLE as exc:
        return _failure_payload(
            Failure(
                turn_id=message.turn_id,
                code="error",
                message=f"the {_reply_name(message)} could not be encoded as MessagePack "
                f"({type(exc).__name__}: {exc})",
            )
        )
    if len(payload) > MAX_FRAME_BYTES:
        return _failure_payload(
            Failure(
                turn_id=message.turn_id,
                code="too_large",
                message=f"the {_reply_name(message)} is {len(payload):,} bytes; a frame carries "
                f"at most {MAX_FRAME_BYTES:,}. The request was carried out on the daemon; only "
                "this reply could not be sent",
            )
        )
    return payload, False


def _failure_payload(failure: Failure) -> tuple[bytes, bool]:
    return encode_msgpack(failure), True


def _reply_name(message: Outbound) -> str:
    names = {
        "result": "turn's result",
        "memory": "conversation's memory",
        "event": "turn's event",
        "confirm_request": "confirmation request",
        "turn_status": "turn's status",
    }
    return names.get(message.type, f"{message.type} reply")


def _wide_ints_as_text(value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        low, high = _INT_RANGE
        return value if low <= value <= high else str(value)
    if isinstance(value, dict):
        return {key: _wide_ints_as_text(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_wide_ints_as_text(item) for item in value]
    return value


@attrs.define(eq=False)
class _Claim:
    """A turn this connection asked to run: whether the runtime accepted it as ours."""

    settled: trio.Event = attrs.field(factory=trio.Event)
    accepted: bool = False


class _Connection:
    """One client connection: its requests, its bounded outbox, the turns it started."""

    def __init__(self, runtime: Runtime, stream: trio.abc.Stream) -> None:
        self.runtime = runtime
        self.stream = stream
        self.lock = trio.Lock()
        self.outbox, self._replies = trio.open_memory_channel[Outbound](OUTBOX_MESSAGES)
        self.claims: collections.OrderedDict[str, _Claim] = collections.OrderedDict()
        self.cut_short: set[str] = set()  # turns whose reply was replaced by a Failure
        self.scope = trio.CancelScope()
        self.closed = False
        self.access: Access | None = None

    def sign_in(self, given: str, token: str | None, users: Authenticator | None) -> bool:
        """A ``Hello``: the daemon's token opens everything, a user's token that user's
        conversations; any other token opens nothing."""
        try:
            self.access = holder_of(given, token, users)
        except UnknownToken:
            return False
        return True

    async def refuse(self) -> None:
        await self.last_word(
            Failure(
                turn_id="",
                code="unauthorized",
                message="send Hello(token=...) with a valid token first",
            )
        )

    async def last_word(self, failure: Failure) -> None:
        """Tell the client why its connection ends, if it still listens (within a second)."""
        with trio.move_on_after(1):
            try:
                await self.write(encode_msgpack(failure))
            except (trio.BrokenResourceError, trio.ClosedResourceError, trio.BusyResourceError):
                pass  # it left first: there is no one to tell

    def deliver(self, message: Outbound) -> None:
        """The runtime's outbox for this connection: never blocks the turn, never raises."""
        if self.closed:
            return
        try:
            self.outbox.send_nowait(message)
        except trio.WouldBlock:
            self.close()  # the client stopped reading: drop it, not the daemon's memory
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            self.close()

    def close(self) -> None:
        self.closed = True
        self.scope.cancel()

    async def write(self, payload: bytes) -> None:
        async with self.lock:
            await write_frame(self.stream, payload)

    async def pump(self) -> None:
        """Send the outbox's replies in order; a slow or vanished client ends the connection."""
        try:
            async for message in self._replies:
                turn_id = message.turn_id
                if turn_id in self.cut_short:
                    if message.type in _ENDS:
                        self.cut_short.discard(turn_id)
                    continue  # its request already ended with a Failure
                payload, replaced = _encode(message)
                if replaced and message.type in ("event", "confirm_request"):
                    self.cut_short.add(turn_id)
                with trio.move_on_after(SEND_SECONDS) as slow:
                    await self.write(payload)
                if slow.cancelled_caught:
                    self.close()
                    return
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            self.close()  # the client went away: end only this connection

    def claim(self, turn_id: str) -> tuple[_Claim, bool]:
        claim = self.claims.get(turn_id)
        if claim is not None:
            return claim, False
        claim = self.claims[turn_id] = _Claim()
        while len(self.claims) > CLAIMS_KEPT:
            self.claims.popitem(last=False)
        return claim, True

    async def handle(self, message: Inbound) -> None:
        """Carry out one request; its refusal or failure is its reply, never the connection's."""
        try:
            await self.runtime.handle(message, self.deliver, self.access)
        except RequestError as exc:
            self.deliver(Failure(turn_id=message.turn_id, code=exc.code, message=exc.message))
        except Exception as exc:  # one request's failure never ends the connection
            self.deliver(
                Failure(
                    turn_id=message.turn_id,
                    code="error",
                    message=f"{type(exc).__name__}: {exc}",
                )
            )

    async def run(self, message: Run, claim: _Claim, new: bool) -> None:
        """A run: the turn becomes this connection's only once the runtime accepted it."""
        try:
            await self.runtime.handle(message, self.deliver, self.access)
        except RequestError as exc:
            if new:
                self.claims.pop(message.turn_id, None)
            self.deliver(Failure(turn_id=message.turn_id, code=exc.code, message=exc.message))
        except Exception as exc:
            if new:
                self.claims.pop(message.turn_id, None)
            self.deliver(
                Failure(
                    turn_id=message.turn_id, code="error", message=f"{type(exc).__name__}: {exc}"
                )
            )
        else:
            claim.accepted = True
        finally:
            claim.settled.set()

    async def touch(self, message: Cancel | ConfirmReply) -> None:
        """A cancel or confirmation: only for a turn this connection started."""
        claim = self.claims.get(message.turn_id)
        if claim is not None:
            await claim.settled.wait()
        if claim is None or not claim.accepted:
            self.deliver(
                Failure(
                    turn_id=message.turn_id,
                    code="forbidden",
                    message="this connection did not start that turn",
                )
            )
            return
        await self.handle(message)


async def _serve_connection(
    runtime: Runtime,
    stream: trio.abc.Stream,
    *,
    token: str | None,
    users: Authenticator | None = None,
    need_hello: bool = True,
) -> None:
    connection = _Connection(runtime, stream)
    try:
        async with stream, trio.open_nursery() as nursery:
            with connection.scope:
                nursery.start_soon(connection.pump)
                try:
                    await _serve_requests(connection, nursery, token, users, need_hello)
                finally:
                    connection.closed = True
                    nursery.cancel_scope.cancel()  # the pump and handlers end with the connection
    except Exception:  # whatever one connection does, it ends that connection, never the daemon
        logger.exception("a frame connection failed")


async def _serve_requests(
    connection: _Connection,
    nursery: trio.Nursery,
    token: str | None,
    users: Authenticator | None,
    need_hello: bool,
) -> None:
    """Read the connection's frames until it ends; bad frames end it with a failure."""
    stream = connection.stream
    try:
        first = True
        while True:
            payload = await read_frame(stream)
            if payload is None:
                break
            message = _decode(_inbound, payload)
            if first:
                first = False
                if isinstance(message, Hello) and (token or users) is not None:
                    if not connection.sign_in(message.token, token, users):
                        await connection.refuse()
                        return
                    continue
                if need_hello:
                    await connection.refuse()
                    return
            if isinstance(message, Hello):
                continue  # who a connection is never changes after its first frame
            try:
                connection.runtime.admit(message, connection.access)  # before a claim
            except RequestError as exc:
                connection.deliver(
                    Failure(turn_id=message.turn_id, code=exc.code, message=exc.message)
                )
                continue
            if isinstance(message, Run):
                claim, new = connection.claim(message.turn_id)
                nursery.start_soon(connection.run, message, claim, new)
            elif isinstance(message, (Cancel, ConfirmReply)):
                nursery.start_soon(connection.touch, message)
            else:
                nursery.start_soon(connection.handle, message)
    except (FrameError, msgspec.DecodeError, msgspec.ValidationError) as exc:
        await connection.last_word(Failure(turn_id="", code="invalid", message=f"bad frame: {exc}"))
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        pass


class SocketPathError(TransportError, FileExistsError):
    """The stream socket's path holds something that must not be replaced."""


def _take_socket_path(path: str) -> None:
    """Make ``path`` free for a new socket: only a stale socket of an earlier run is removed.

    A regular file, a folder or a link is never deleted, and a socket another process still
    serves on is left alone: both are a :class:`SocketPathError` naming what is there.
    """
    try:
        found = os.lstat(path)
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(found.st_mode):
        raise SocketPathError(
            f"{path} exists and is not a socket; refusing to replace it. "
            "Remove it yourself or choose another --stream-socket path."
        )
    probe = socket_module.socket(socket_module.AF_UNIX, socket_module.SOCK_STREAM)
    probe.settimeout(1.0)
    try:
        probe.connect(path)
    except ConnectionRefusedError:
        os.unlink(path)  # nobody listens: a stale socket from an earlier run
        return
    except FileNotFoundError:
        return
    except OSError as exc:
        raise SocketPathError(f"{path} is a socket that cannot be checked ({exc})") from exc
    finally:
        probe.close()
    raise SocketPathError(
        f"another process is serving on {path}; stop it first or choose another path"
    )


async def serve_stream(
    runtime: Runtime,
    *,
    path: str | os.PathLike[str] | None = None,
    host: str = "127.0.0.1",
    port: int | None = None,
    token: str | None = None,
    users: Authenticator | None = None,
    require_hello: bool | None = None,
    task_status: trio.TaskStatus[Any] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve frames on a Unix socket ``path`` (mode 0600) or on TCP ``host``/``port``.

    Reports the bound address (the path, or ``(host, port)``) through ``task_status``.
    A TCP listener requires ``token``: every connection's first frame is a ``Hello`` with it,
    or with a token of ``users`` (that user's conversations only). On a Unix socket a
    ``Hello`` is required when ``token`` is given, unless ``require_hello=False``: then a
    connection without one reaches everything (the socket is 0600), and a first ``Hello``
    with ``token`` does too, one with a user's token narrows the connection to that user, and
    one with any other token is refused.

    Raises:
        SocketPathError: ``path`` holds a file that is not a stale socket (it is never deleted).

    Cancellation: cancel the caller's scope to stop; open connections end with it, and the
    socket file is removed if it is still the one this call created.
    """
    bound: os.stat_result | None = None
    if path is not None:
        path = os.fspath(path)
        _take_socket_path(path)
        sock = trio.socket.socket(trio.socket.AF_UNIX, trio.socket.SOCK_STREAM)
        old = os.umask(0o177)
        try:
            await sock.bind(path)
        finally:
            os.umask(old)
        bound = os.lstat(path)
        sock.listen(128)
        listeners = [trio.SocketListener(sock)]
        address: Any = path
        need_hello = token is not None if require_hello is None else require_hello
    else:
        if token is None:
            raise ValueError("a TCP stream listener needs a token")
        listeners = await trio.open_tcp_listeners(port or 0, host=host)
        address = listeners[0].socket.getsockname()[:2]
        need_hello = True
    try:
        async with trio.open_nursery() as nursery:
            task_status.started(address)
            await trio.serve_listeners(
                functools.partial(
                    _serve_connection, runtime, token=token, users=users, need_hello=need_hello
                ),
                listeners,
                handler_nursery=nursery,
            )
    finally:
        if path is not None and bound is not None:
            with contextlib.suppress(OSError):
                now = os.lstat(path)
                if (now.st_dev, now.st_ino) == (bound.st_dev, bound.st_ino):
                    os.unlink(path)  # still ours: another daemon may have replaced it


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
