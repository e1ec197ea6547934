"""Runtime messages: a closed, tagged family that round-trips through JSON and MessagePack."""

from __future__ import annotations

import msgspec
import pytest

from actors.messages import (
    Cancel,
    ConfirmAsk,
    ConfirmReply,
    EventMessage,
    Failure,
    Generate,
    Message,
    ResultMessage,
    Run,
    TurnStatus,
    decode_json,
    decode_msgpack,
    encode_json,
    encode_msgpack,
)
from goliath.events import PlanEvent, ToolEvent
from goliath.models import GenerateRequest
from goliath.records import RunResult, StepRecord

SAMPLES: list[Message] = [
    Run(turn_id="t1", ask="what's on my list?", conversation_id="alice", context={"user": 7}),
    Cancel(turn_id="t1", reason="user pressed stop"),
    ConfirmReply(turn_id="t1", call_id="call-1", approved=False, reason="not now"),
    ConfirmAsk(
        turn_id="t1",
        call_id="call-1",
        tool="create_task",
        input={"title": "eggs"},
        brief="add eggs",
    ),
    EventMessage(
        turn_id="t1", event=PlanEvent(index=0, kind="tool", tool="list_tasks", brief="list")
    ),
    EventMessage(turn_id="t1", event=ToolEvent(tool="list_tasks", input={}, result="none", ms=1.5)),
    ResultMessage(
        turn_id="t1",
        result=RunResult(
            text="Done.",
            handled_by="device",
            steps=[StepRecord(index=0, kind="answer", brief="reply", text="Done.")],
            trace=[PlanEvent(index=0, kind="answer", brief="reply")],
            turn_id="t1",
        ),
    ),
    Failure(turn_id="t1", code="busy", message="try later"),
    Generate(
        turn_id="t1",
        request=GenerateRequest(
            label="arguments",
            system="s",
            prompt="p",
            schema={"type": "object"},
            max_output_tokens=512,
        ),
    ),
    TurnStatus(turn_id="t1", conversation_id=None, status="running"),
]


@pytest.mark.parametrize("message", SAMPLES, ids=lambda m: m.type)
def test_every_message_round_trips_through_json_and_msgpack(message: Message) -> None:
    """Decoding an encoded message gives back an equal value of the same type."""
    assert decode_json(encode_json(message)) == message
    assert decode_msgpack(encode_msgpack(message)) == message


def test_every_message_says_what_it_is() -> None:
    """The JSON form carries the tag in `type`, the same as the attribute."""
    for message in SAMPLES:
        assert msgspec.json.decode(encode_json(message))["type"] == message.type


def test_an_unknown_type_is_refused_with_the_allowed_tags() -> None:
    """A frame with an unknown tag raises a validation error naming the field."""
    with pytest.raises(msgspec.ValidationError, match="type"):
        decode_json(b'{"type": "launch_missiles", "turn_id": "t"}')


def test_a_missing_field_is_named_in_the_error() -> None:
    """Validation errors carry the path of what is wrong."""
    with pytest.raises(msgspec.ValidationError, match="ask"):
        decode_json(b'{"type": "run", "turn_id": "t"}')
