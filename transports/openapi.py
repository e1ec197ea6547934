"""The OpenAPI 3.1 document of the daemon's HTTP API (served at ``/openapi.json``).

Built from the same msgspec Structs the server decodes and encodes, so the document cannot
drift from the code; ``docs/openapi.json`` is the checked-in copy, pinned by a test.
"""

from __future__ import annotations

from typing import Any, get_args

import msgspec

from goliath.events import Event
from goliath.ids import URL_SAFE_ID
from goliath.records import MemoryState, RunResult

from .wire import (
    MAX_EVENT_ID_DIGITS,
    CancelRequestBody,
    ConfirmAnswerBody,
    Error,
    Health,
    Me,
    RunRequest,
    TurnInfo,
)

__all__ = ["openapi_document"]

_REF = "#/components/schemas/{name}"


def _error(description: str) -> dict[str, Any]:
    return {
        "description": description,
        "content": {"application/json": {"schema": {"$ref": _REF.format(name="Error")}}},
    }


def _json(name: str, description: str) -> dict[str, Any]:
    return {
        "description": description,
        "content": {"application/json": {"schema": {"$ref": _REF.format(name=name)}}},
    }


def _body(name: str, required: bool = True) -> dict[str, Any]:
    return {
        "required": required,
        "content": {"application/json": {"schema": {"$ref": _REF.format(name=name)}}},
    }


ID_SCHEMA = {"type": "string", "pattern": URL_SAFE_ID.pattern}
STREAM_EVENTS = [
    "turn",
    *(member.__struct_config__.tag for member in get_args(Event)),
    "token",
    "confirm_request",
    "result",
    "error",
]
SSE_EVENT = {
    "type": "object",
    "description": (
        "One Server-Sent Event of the stream (OpenAPI 3.1 describes each event of a "
        "text/event-stream): `event` names it, `data` is its JSON, `id` numbers it within the "
        "turn (1, 2, 3, ...) so a client can resume with `Last-Event-ID`."
    ),
    "required": ["event", "data"],
    "properties": {
        "event": {"type": "string", "enum": STREAM_EVENTS},
        "data": {"type": "string", "contentMediaType": "application/json"},
        "id": {"type": "string", "pattern": "^[0-9]+$"},
    },
}
LAST_EVENT_ID = {
    "name": "Last-Event-ID",
    "in": "header",
    "required": False,
    "description": (
        "Resume: only the events after this id (the last one the client saw); empty or absent: "
        "from the start."
    ),
    "schema": {"type": "string", "pattern": "^[0-9]*$", "maxLength": MAX_EVENT_ID_DIGITS},
}
UNAUTHORIZED = _error("missing or wrong bearer token")
FORBIDDEN = _error("the token is a user's, and the conversation is not theirs")


def openapi_document() -> dict[str, Any]:
    """The API as OpenAPI 3.1, with schemas generated from the wire types the server decodes
    (the longest ask included: :data:`actors.admission.MAX_ASK_CHARS`, through
    :data:`~transports.wire.Ask`)."""
    _, components = msgspec.json.schema_components(
        [
            Error,
            RunRequest,
            ConfirmAnswerBody,
            CancelRequestBody,
            TurnInfo,
            MemoryState,
            Health,
            Me,
            RunResult,
        ],
        ref_template=_REF,
    )
    conversation = {"name": "conversation_id", "in": "path", "required": True, "schema": ID_SCHEMA}
    turn = {"name": "turn_id", "in": "path", "required": True, "schema": ID_SCHEMA}
    security: list[dict[str, list[str]]] = [{"bearer": []}]
    paths: dict[str, Any] = {
        "/v1/conversations/{conversation_id}/runs": {
            "post": {
                "summary": "Start a turn and stream its events",
                "description": (
                    "Server-Sent Events: `turn` first ({turn_id, conversation_id}), then one event "
                    "per trace event (`event:` is its type, `data:` its JSON), `token` ({text}) "
                    "pieces of the answer while the model writes it, `confirm_request` "
                    "({turn_id, call_id, tool, input, brief, after_tool, fingerprint}) while a "
                    "write waits, and a last `result` (the RunResult) or `error` ({code, "
                    "message}). Every event has an `id:`; the same request again (same "
                    "`turn_id`) with `Last-Event-ID` resumes the stream after that event; a retry "
                    "while a write waits gets its `confirm_request` again."
                ),
                "operationId": "startRun",
                "parameters": [conversation, LAST_EVENT_ID],
                "requestBody": _body("RunRequest"),
                "security": security,
                "responses": {
                    "200": {
                        "description": "the turn's events",
                        "content": {"text/event-stream": {"schema": SSE_EVENT}},
                    },
                    "400": _error("malformed body or id"),
                    "401": UNAUTHORIZED,
                    "403": FORBIDDEN,
                    "409": _error(
                        "the turn id belongs to another conversation, or names another request"
                    ),
                    "413": _error("the body or the ask is too large"),
                    "429": _error("the conversation already has too many runs queued"),
                    "503": _error("the daemon is draining, or the conversation was stopped"),
                },
            }
        },
        "/v1/turns/{turn_id}/confirm": {
            "post": {
                "summary": "Answer a pending confirmation",
                "operationId": "confirmTurn",
                "parameters": [turn],
                "requestBody": _body("ConfirmAnswerBody"),
                "security": security,
                "responses": {
                    "204": {"description": "delivered"},
                    "400": _error("malformed body or id"),
                    "401": UNAUTHORIZED,
                    "404": _error("unknown turn or call (or a turn of another conversation)"),
                    "409": _error(
                        "already answered, answered too late (the write was declined at its "
                        "deadline), the turn already ended, or the fingerprint is another write's"
                    ),
                    "413": _error("the body is too large"),
                },
            }
        },
        "/v1/turns/{turn_id}/cancel": {
            "post": {
                "summary": "Cancel a turn",
                "operationId": "cancelTurn",
                "parameters": [turn],
                "requestBody": _body("CancelRequestBody", required=False),
                "security": security,
                "responses": {
                    "202": {"description": "the turn stops at its next checkpoint"},
                    "400": _error("malformed body or id"),
                    "401": UNAUTHORIZED,
                    "404": _error("unknown turn (or a turn of another conversation)"),
                    "409": _error("the turn already ended"),
                    "413": _error("the body is too large"),
                },
            }
        },
        "/v1/turns/{turn_id}/events": {
            "get": {
                "summary": "Resume a turn's event stream",
                "description": (
                    "The turn's Server-Sent Events after `Last-Event-ID` (all of them without "
                    "it), then the rest as they happen; for a turn whose events are no longer "
                    "kept, just its last event (`result` or `error`)."
                ),
                "operationId": "turnEvents",
                "parameters": [turn, LAST_EVENT_ID],
                "security": security,
                "responses": {
                    "200": {
                        "description": "the turn's events",
                        "content": {"text/event-stream": {"schema": SSE_EVENT}},
                    },
                    "400": _error("malformed id or Last-Event-ID"),
                    "401": UNAUTHORIZED,
                    "404": _error("unknown turn"),
                },
            }
        },
        "/v1/turns/{turn_id}": {
            "get": {
                "summary": "Where a turn stands",
                "operationId": "getTurn",
                "parameters": [turn],
                "security": security,
                "responses": {
                    "200": _json(
                        "TurnInfo",
                        "status, the result when done, the pending call while a write waits",
                    ),
                    "400": _error("malformed id"),
                    "401": UNAUTHORIZED,
                    "404": _error("unknown turn"),
                },
            }
        },
        "/v1/conversations/{conversation_id}/memory": {
            "get": {
                "summary": "A conversation's memory",
                "operationId": "getMemory",
                "parameters": [conversation],
                "security": security,
                "responses": {
                    "200": _json("MemoryState", "the rolling brief and the recent exchanges"),
                    "400": _error("malformed id"),
                    "401": UNAUTHORIZED,
                    "403": FORBIDDEN,
                },
            },
            "delete": {
                "summary": "Forget a conversation",
                "operationId": "deleteMemory",
                "parameters": [conversation],
                "security": security,
                "responses": {
                    "204": {"description": "forgotten"},
                    "400": _error("malformed id"),
                    "401": UNAUTHORIZED,
                    "403": FORBIDDEN,
                },
            },
        },
        "/v1/me": {
            "get": {
                "summary": "Who the token belongs to",
                "operationId": "me",
                "security": security,
                "responses": {
                    "200": _json("Me", "the user and their conversation-id prefix"),
                    "401": UNAUTHORIZED,
                },
            }
        },
        "/healthz": {
            "get": {
                "summary": "Alive",
                "operationId": "health",
                "responses": {"200": _json("Health", "the process is alive")},
            }
        },
        "/readyz": {
            "get": {
                "summary": "Ready for runs",
                "operationId": "ready",
                "responses": {
                    "200": _json("Health", "accepting runs"),
                    "503": _error("starting or draining"),
                },
            }
        },
    }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Goliath daemon",
            "version": "1",
            "description": (
                "Agent turns for small on-device models, for many users at once. Over TCP a "
                "request whose Host is not an IP address, localhost or an allowed name is "
                "refused with 421 (DNS rebinding); a user's token reaches only conversations "
                "whose id starts with the user's prefix (403 otherwise, and 404 for their turns)."
            ),
        },
        "paths": paths,
        "components": {
            "schemas": components,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
    }


if __name__ == "__main__":  # python -m transports.openapi > docs/openapi.json
    import json

    print(json.dumps(openapi_document(), indent=2, sort_keys=True))
