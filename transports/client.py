"""A Python client for the daemon: async under Trio, plus a sync wrapper for scripts.

``Client`` speaks the runtime's messages over any :class:`~transports.base.Transport`: HTTP
(``Client.http(url, token=...)``), the MessagePack stream (``Client.stream(path=...)``) or
in-process (``Client(InProcTransport(agent))``). A write waiting for approval calls your
``confirm`` function and sends the reply back, so the person decides. How the messages travel
over HTTP is :mod:`transports.http_transport`'s.
"""

from __future__ import annotations

import contextlib
import inspect
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

import trio

from actors.messages import (
    Cancel,
    ConfirmAsk,
    ConfirmReply,
    DeleteMemory,
    EventMessage,
    Failure,
    GetMemory,
    GetTurn,
    Inbound,
    MemoryReply,
    Outbound,
    ResultMessage,
    Run,
    Token,
    TurnStatus,
)
from goliath.errors import GoliathError
from goliath.events import EventCallback
from goliath.records import ConfirmRequest, Decision, MemoryState, RunResult

from .base import Transport, TransportError
from .http_transport import HttpTransport

__all__ = ["Client", "HttpTransport", "RemoteError", "SyncClient"]


class RemoteError(GoliathError):
    """The daemon refused a request or a turn failed there; ``code`` says which way."""

    def __init__(self, code: str, message: str, status: int | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.status = status


ConfirmCallback = Callable[[ConfirmRequest], Any]


class Client:
    """Run turns on a Goliath daemon and answer their confirmations."""

    def __init__(self, transport: Transport) -> None:
        self.transport = transport

    @classmethod
    def http(
        cls,
        base_url: str = "http://127.0.0.1:8765",
        *,
        token: str | None = None,
        uds: str | None = None,
        timeout: float = 300.0,
    ) -> Client:
        """A client over HTTP (``uds``: an HTTP-over-Unix-socket path)."""
        return cls(HttpTransport(base_url, token=token, uds=uds, timeout=timeout))

    @classmethod
    def stream(
        cls,
        *,
        path: str | None = None,
        host: str | None = None,
        port: int | None = None,
        token: str | None = None,
    ) -> Client:
        """A client over MessagePack frames (Unix socket ``path``, or TCP ``host``/``port``)."""
        from .stream import StreamTransport

        return cls(StreamTransport(path=path, host=host, port=port, token=token))

    async def __aenter__(self) -> Client:
        await self.transport.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self.transport.aclose()

    async def run(
        self,
        ask: str,
        *,
        conversation_id: str | None = None,
        turn_id: str | None = None,
        context: Any = None,
        confirm: ConfirmCallback | None = None,
        on_event: EventCallback | None = None,
        on_token: Callable[[str], Any] | None = None,
    ) -> RunResult:
        """Run one turn and return its result.

        ``confirm`` (sync or async) decides each write; without one, writes are declined.
        ``on_event`` receives each trace event, ``on_token`` each piece of the answer's text
        as the model writes it (sync or async).
        Raises :class:`RemoteError` when the daemon refuses the run or the turn fails.
        """
        message = Run(
            turn_id=turn_id or uuid.uuid4().hex,
            ask=ask,
            conversation_id=conversation_id,
            context=context,
        )
        async with _closing(self.transport.send(message)) as replies:
            async for reply in replies:
                match reply:
                    case EventMessage(event=event):
                        if on_event is not None:
                            await _settled(on_event(event))
                    case Token(text=text):
                        if on_token is not None:
                            await _settled(on_token(text))
                    case ConfirmAsk():
                        decision = await self._decide(reply, confirm)
                        await self._one(
                            ConfirmReply(
                                turn_id=reply.turn_id,
                                call_id=reply.call_id,
                                approved=decision.approved,
                                reason=decision.reason,
                                conversation_id=conversation_id,
                                fingerprint=reply.fingerprint or None,
                            )
                        )
                    case ResultMessage(result=result):
                        return result
                    case Failure(code=code, message=text):
                        raise RemoteError(code, text)
        raise TransportError("the connection ended before the turn's result arrived")

    async def _decide(self, ask: ConfirmAsk, confirm: ConfirmCallback | None) -> Decision:
        if confirm is None:
            return Decision(approved=False, reason="this client has no way to ask")
        request = ConfirmRequest(
            tool=ask.tool,
            input=dict(ask.input),
            brief=ask.brief,
            conversation_id=ask.conversation_id,
            turn_id=ask.turn_id,
            call_id=ask.call_id,
            after_tool=ask.after_tool,
            fingerprint=ask.fingerprint,
        )
        raw = await _settled(confirm(request))
        if isinstance(raw, Decision):
            return raw
        return Decision(approved=bool(raw))

    async def _one(self, message: Inbound) -> Outbound:
        async with _closing(self.transport.send(message)) as replies:
            async for reply in replies:
                if isinstance(reply, Failure):
                    raise RemoteError(reply.code, reply.message)
                return reply
        raise TransportError(f"no reply to {message.type}")

    async def cancel(self, turn_id: str, *, conversation_id: str | None = None) -> None:
        await self._one(Cancel(turn_id=turn_id, conversation_id=conversation_id))

    async def confirm(
        self,
        turn_id: str,
        call_id: str,
        approved: bool,
        reason: str | None = None,
        *,
        conversation_id: str | None = None,
    ) -> None:
        await self._one(
            ConfirmReply(
                turn_id=turn_id,
                call_id=call_id,
                approved=approved,
                reason=reason,
                conversation_id=conversation_id,
            )
        )

    async def turn(self, turn_id: str) -> TurnStatus:
        reply = await self._one(GetTurn(turn_id=turn_id))
        assert isinstance(reply, TurnStatus)
        return reply

    async def memory(self, conversation_id: str) -> MemoryState:
        reply = await self._one(
            GetMemory(turn_id=uuid.uuid4().hex, conversation_id=conversation_id)
        )
        assert isinstance(reply, MemoryReply)
        return reply.state

    async def forget(self, conversation_id: str) -> None:
        await self._one(DeleteMemory(turn_id=uuid.uuid4().hex, conversation_id=conversation_id))


class SyncClient:
    """The same calls from synchronous code; each call runs its own short Trio loop."""

    def __init__(self, make_client: Callable[[], Client]) -> None:
        self._make = make_client

    @classmethod
    def http(cls, base_url: str = "http://127.0.0.1:8765", **options: Any) -> SyncClient:
        return cls(lambda: Client.http(base_url, **options))

    def _call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        async def main() -> Any:
            async with self._make() as client:
                return await getattr(client, method)(*args, **kwargs)

        return trio.run(main)

    def run(self, ask: str, **options: Any) -> RunResult:
        result: RunResult = self._call("run", ask, **options)
        return result

    def cancel(self, turn_id: str, **options: Any) -> None:
        self._call("cancel", turn_id, **options)

    def turn(self, turn_id: str) -> TurnStatus:
        status: TurnStatus = self._call("turn", turn_id)
        return status

    def memory(self, conversation_id: str) -> MemoryState:
        state: MemoryState = self._call("memory", conversation_id)
        return state

    def forget(self, conversation_id: str) -> None:
        self._call("forget", conversation_id)


@contextlib.asynccontextmanager
async def _closing(replies: AsyncIterator[Outbound]) -> AsyncIterator[AsyncIterator[Outbound]]:
    """Close a transport's reply iterator when the caller stops early (a refusal raised, the
    result returned): its route is released at once, not when it is garbage-collected."""
    try:
        yield replies
    finally:
        close = getattr(replies, "aclose", None)
        if close is not None:
            await close()


async def _settled(value: Any) -> Any:
    """The value of a callback that may be sync or async."""
    if inspect.isawaitable(value):
        return await value
    return value
