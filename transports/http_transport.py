"""The runtime's messages over the daemon's HTTP API: the transport :class:`Client.http
<transports.client.Client>` uses.

A run is a ``POST`` whose Server-Sent Events become the turn's replies (events, answer tokens,
confirmation asks, then its result or failure); a cancel, a confirmation reply, a status or a
memory request is one plain request and one reply. An error answer becomes a ``Failure`` with
the daemon's code and words. httpx (and httpx-sse) run under Trio.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import msgspec
from httpx_sse import EventSource

from actors.messages import (
    Ack,
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
from goliath.durable import PendingCall
from goliath.errors import GoliathError
from goliath.events import Event
from goliath.records import MemoryState, RunResult, StepRecord

from .base import Transport, TransportError

__all__ = ["HttpTransport"]

_event_decoder = msgspec.json.Decoder(Event)
_result_decoder = msgspec.json.Decoder(RunResult)
_memory_decoder = msgspec.json.Decoder(MemoryState)


class HttpTransport(Transport):
    """The daemon's HTTP API, through httpx (which runs under Trio)."""

    def __init__(
        self,
        base_url: str,
        *,
        token: str | None = None,
        uds: str | None = None,
        timeout: float = 300.0,
        client: httpx.AsyncClient | None = None,
    ) -> None:
        headers = {"authorization": f"Bearer {token}"} if token else {}
        transport = httpx.AsyncHTTPTransport(uds=uds) if uds else None
        self._http = client or httpx.AsyncClient(
            base_url=base_url, headers=headers, timeout=timeout, transport=transport
        )

    async def aclose(self) -> None:
        await self._http.aclose()

    async def send(self, message: Inbound) -> AsyncIterator[Outbound]:
        match message:
            case Run():
                async for reply in self._run(message):
                    yield reply
                return
            case Cancel(turn_id=turn_id):
                body: dict[str, Any] = {
                    "conversation_id": message.conversation_id,
                    "reason": message.reason,
                }
                response = await self._http.post(f"/v1/turns/{turn_id}/cancel", json=body)
            case ConfirmReply(turn_id=turn_id):
                body = {
                    "call_id": message.call_id,
                    "approved": message.approved,
                    "reason": message.reason,
                    "conversation_id": message.conversation_id,
                    "fingerprint": message.fingerprint,
                }
                response = await self._http.post(f"/v1/turns/{turn_id}/confirm", json=body)
            case GetTurn(turn_id=turn_id):
                response = await self._http.get(f"/v1/turns/{turn_id}")
                if response.is_success:
                    data = response.json()
                    result = data.get("result")
                    yield TurnStatus(
                        turn_id=data["turn_id"],
                        conversation_id=data["conversation_id"],
                        status=data["status"],
                        result=msgspec.convert(result, RunResult) if result else None,
                        pending=msgspec.convert(data["pending"], PendingCall)
                        if data.get("pending")
                        else None,
                        steps=msgspec.convert(data.get("steps") or [], list[StepRecord]),
                    )
                    return
            case GetMemory(conversation_id=conversation_id):
                response = await self._http.get(
                    f"/v1/conversations/{_required(conversation_id)}/memory"
                )
                if response.is_success:
                    yield MemoryReply(
                        turn_id=message.turn_id,
                        conversation_id=conversation_id,
                        state=_memory_decoder.decode(response.content),
                    )
                    return
            case DeleteMemory(conversation_id=conversation_id):
                response = await self._http.delete(
                    f"/v1/conversations/{_required(conversation_id)}/memory"
                )
            case _:
                raise TransportError(f"{message.type} cannot be sent over HTTP")
        if response.is_success:
            yield Ack(turn_id=message.turn_id)
        else:
            yield _failure(message.turn_id, response)

    async def _run(self, message: Run) -> AsyncIterator[Outbound]:
        body = {"ask": message.ask, "turn_id": message.turn_id, "context": message.context}
        path = f"/v1/conversations/{_required(message.conversation_id)}/runs"
        async with self._http.stream("POST", path, json=body) as response:
            if not response.is_success:
                await response.aread()
                yield _failure(message.turn_id, response)
                return
            async for event in EventSource(response).aiter_sse():
                if not event.data:  # not dispatched, as the SSE standard says
                    continue
                reply = _from_sse(message.turn_id, event.event, event.data)
                if reply is not None:
                    yield reply
                    if isinstance(reply, (ResultMessage, Failure)):
                        return


def _required(conversation_id: str | None) -> str:
    if not conversation_id:
        raise GoliathError("Over HTTP every run needs a conversation_id (the URL names it).")
    return conversation_id


def _failure(turn_id: str, response: httpx.Response) -> Failure:
    try:
        detail = response.json()["error"]
        code, text = detail["code"], detail["message"]
    except (ValueError, KeyError, TypeError):
        code, text = "error", f"HTTP {response.status_code}"
    return Failure(turn_id=turn_id, code=code, message=text)


def _from_sse(turn_id: str, event: str, data: str) -> Outbound | None:
    if event == "turn":
        return None
    if event == "token":
        return Token(turn_id=turn_id, text=msgspec.json.decode(data)["text"])
    if event == "confirm_request":
        payload = msgspec.json.decode(data)
        return ConfirmAsk(
            turn_id=payload["turn_id"],
            call_id=payload["call_id"],
            tool=payload["tool"],
            input=payload["input"],
            brief=payload["brief"],
            conversation_id=payload.get("conversation_id"),
            after_tool=payload.get("after_tool"),
            fingerprint=payload.get("fingerprint") or "",
        )
    if event == "result":
        return ResultMessage(turn_id=turn_id, result=_result_decoder.decode(data))
    if event == "error":
        payload = msgspec.json.decode(data)
        return Failure(
            turn_id=turn_id, code=payload.get("code", "error"), message=payload.get("message", "")
        )
    return EventMessage(turn_id=turn_id, event=_event_decoder.decode(data))
