"""The API's routes for turns and a conversation's memory (``/v1/...``).

A run streams its trace events as they happen; a write waiting for approval sends a
``confirm_request`` event and waits for ``POST /v1/turns/{turn_id}/confirm``. The same turn id
again resumes the stream it names (``Last-Event-ID``). Every rule a request must follow is the
runtime's door's (:mod:`actors.admission`): these routes refuse early with its words only where
they would otherwise do work of their own first (forward a request to the node that owns its
conversation, resume a stream they keep).
"""

from __future__ import annotations

import uuid

from starlette.requests import Request
from starlette.responses import Response

from actors.admission import (
    check_access,
    check_context,
    check_same_request,
    check_turn_id,
    check_url_safe,
    no_turn,
)
from actors.messages import (
    Cancel,
    ConfirmReply,
    DeleteMemory,
    GetMemory,
    GetTurn,
    Inbound,
    MemoryReply,
    Outbound,
    Run,
    TurnStatus,
)
from actors.runtime import Access, RequestError, scoped_turn_id, turn_scope, unscoped
from actors.ticket import Ticket
from goliath.durable import payload_fingerprint

from ..feeds import TurnFeed
from ..wire import CancelRequestBody, ConfirmAnswerBody, RunRequest, TurnInfo
from .api import Api, api_of, decode, last_event_id, read_body
from .door import JSONResponse, access_of
from .streams import WaitingFeed, event_stream

__all__ = ["answer_turn", "get_turn", "memory", "start_run", "turn_events"]


async def start_run(request: Request) -> Response:
    """``POST /v1/conversations/{conversation_id}/runs``: a new turn's stream, or the stream of
    the turn its ``turn_id`` names (from ``Last-Event-ID``)."""
    api = api_of(request)
    cid = request.path_params["conversation_id"]
    check_url_safe(cid, "conversation id")
    access = access_of(request)
    check_access(access, cid)  # before anything else, forwarding too
    raw = await read_body(request, api.bounds.max_body_bytes)
    if api.forwarder is not None and (url := await api.forwarder.owner(request, cid)):
        return api.forwarder.relay(request, url, raw)
    body = decode(raw, RunRequest)
    if body.turn_id is not None:
        check_turn_id(body.turn_id)  # before a kept stream is looked up by it
    check_context(body.context)  # before a kept stream is looked up
    after = last_event_id(request)
    payload = payload_fingerprint(body.ask, body.context)
    resumed = (
        api.feeds.get(scoped_turn_id(access, body.turn_id)) if body.turn_id is not None else None
    )
    if resumed is None and body.turn_id is not None:  # after a restart: its kept events
        live = _live_turn(api, scoped_turn_id(access, body.turn_id), access)
        if live is not None and live.conversation_id == cid and live.payload == payload:
            resumed = _rejoined(api, live, body.turn_id, access)
    if resumed is not None:  # the same turn again: resume its stream
        assert body.turn_id is not None
        check_same_request(
            body.turn_id,
            known_conversation=resumed.conversation_id,
            known_payload=resumed.payload,
            conversation_id=cid,
            payload=payload,
        )
        return event_stream(resumed, after, api.bounds.send_seconds, api.writers)
    turn_id = uuid.uuid4().hex if body.turn_id is None else body.turn_id
    key = scoped_turn_id(access, turn_id)
    feed = api.feeds.open(turn_id, cid, payload, key=key)
    message = Run(turn_id=turn_id, ask=body.ask, conversation_id=cid, context=body.context)
    try:
        await api.runtime().handle(message, feed.outbox, access)  # the door admits it
    except RequestError:
        api.feeds.discard(key)
        raise
    return event_stream(feed, 0, api.bounds.send_seconds, api.writers)


async def turn_events(request: Request) -> Response:
    """``GET /v1/turns/{turn_id}/events``: a turn's stream from the event after
    ``Last-Event-ID`` (a reconnecting client)."""
    api = api_of(request)
    turn = request.path_params["turn_id"]
    check_turn_id(turn)
    after = last_event_id(request)
    access = access_of(request)
    key = scoped_turn_id(access, turn)
    feed = api.feeds.get(key)
    if feed is None and (live := _live_turn(api, key, access)) is not None:
        feed = _rejoined(api, live, turn, access)  # after a restart: its kept events, then on
    if feed is not None:
        if access is not None and not access.allows(feed.conversation_id):
            raise no_turn(turn)  # as for a turn that is not there: nothing leaks
        return event_stream(feed, after, api.bounds.send_seconds, api.writers)
    conversation = request.query_params.get("conversation_id")
    if api.forwarder is not None and (url := await _turn_owner(api, request, key, conversation)):
        return api.forwarder.relay(request, url, b"")
    reply = await api.request_reply(GetTurn(turn_id=turn), access)  # 404 for an unknown turn
    assert isinstance(reply, TurnStatus)
    waiting = WaitingFeed(api.runtime(), key, reply, turn_scope(access))
    return event_stream(waiting, after, api.bounds.send_seconds, api.writers)


async def answer_turn(request: Request) -> Response:
    """``POST /v1/turns/{turn_id}/confirm`` (204) and ``.../cancel`` (202)."""
    api = api_of(request)
    turn = request.path_params["turn_id"]
    check_turn_id(turn)
    action = request.url.path.rsplit("/", 1)[-1]
    raw = await read_body(request, api.bounds.max_body_bytes)
    body: ConfirmAnswerBody | CancelRequestBody = (
        decode(raw, ConfirmAnswerBody) if action == "confirm" else decode(raw, CancelRequestBody)
    )
    conversation = body.conversation_id or request.query_params.get("conversation_id")
    key = scoped_turn_id(access_of(request), turn)
    if api.forwarder is not None and (url := await _turn_owner(api, request, key, conversation)):
        return api.forwarder.relay(request, url, raw)
    message: Inbound
    if isinstance(body, ConfirmAnswerBody):
        message = ConfirmReply(
            turn_id=turn,
            call_id=body.call_id,
            approved=body.approved,
            reason=body.reason,
            conversation_id=conversation,
            fingerprint=body.fingerprint,
        )
    else:
        message = Cancel(turn_id=turn, reason=body.reason, conversation_id=conversation)
    await api.request_reply(message, access_of(request))
    return Response(status_code=204 if action == "confirm" else 202)


async def get_turn(request: Request) -> Response:
    """``GET /v1/turns/{turn_id}``: where the turn stands."""
    turn = request.path_params["turn_id"]
    check_turn_id(turn)
    reply = await api_of(request).request_reply(GetTurn(turn_id=turn), access_of(request))
    assert isinstance(reply, TurnStatus)
    info = TurnInfo(
        turn_id=reply.turn_id,
        conversation_id=reply.conversation_id,
        status=reply.status,
        result=reply.result,
        pending=reply.pending,
        steps=list(reply.steps) if reply.result is None else [],
    )
    return JSONResponse(info)


async def memory(request: Request) -> Response:
    """``GET`` and ``DELETE /v1/conversations/{conversation_id}/memory``."""
    api = api_of(request)
    cid = request.path_params["conversation_id"]
    check_url_safe(cid, "conversation id")
    access = access_of(request)
    check_access(access, cid)  # before forwarding
    if request.method == "DELETE":
        if api.forwarder is not None and (url := await api.forwarder.owner(request, cid)):
            return api.forwarder.relay(request, url, b"")
        await api.request_reply(DeleteMemory(turn_id=uuid.uuid4().hex, conversation_id=cid), access)
        return Response(status_code=204)
    reply = await api.request_reply(
        GetMemory(turn_id=uuid.uuid4().hex, conversation_id=cid), access
    )
    assert isinstance(reply, MemoryReply)
    return JSONResponse(reply.state)


def _live_turn(api: Api, key: str, access: Access | None) -> Ticket | None:
    """A remote turn running (or paused) here that this front door keeps no feed for: one
    resumed after a restart, whose events so far are in its journalled log."""
    ticket = api.runtime().ticket(key)
    if ticket is None or not ticket.is_remote or ticket.done.is_set():
        return None
    if ticket.conversation_id is None:
        return None
    if access is not None and not access.allows(ticket.conversation_id):
        return None
    return ticket


def _rejoined(api: Api, ticket: Ticket, turn_id: str, access: Access | None) -> TurnFeed:
    """A feed for ``ticket`` numbered as its first one was: its ``turn`` event, the events
    and asks it sent so far (from its log, kept in the store across a restart), then what
    comes next — so a client resuming with ``Last-Event-ID`` sees the pending question."""
    assert ticket.conversation_id is not None
    scope = turn_scope(access)
    feed = api.feeds.open(turn_id, ticket.conversation_id, ticket.payload, key=ticket.turn_id)

    def forward(message: Outbound) -> None:
        feed.outbox(unscoped(message, scope))

    for message in ticket.follow(forward):
        forward(message)
    return feed


async def _turn_owner(
    api: Api, request: Request, turn_id: str, conversation_id: str | None
) -> str | None:
    """Where a turn's confirmation, cancel or stream must go (``None``: here)."""
    assert api.forwarder is not None
    live = api.runtime()
    if live.ticket(turn_id) is not None:
        return None
    if conversation_id is None and live.durable:
        record = await live.record(turn_id)
        if record is None:
            return None
        conversation_id = record.conversation_id
    return await api.forwarder.owner(request, conversation_id)
