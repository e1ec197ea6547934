"""Property tests: messages round-trip, bad bytes are refused with the documented error, and tool
results are always summarized within the cap."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from actors.messages import (
    AnyMessage,
    Message,
    decode_json,
    decode_msgpack,
    encode_json,
    encode_msgpack,
)
from goliath.compress import RESULT_CHARS, summarize_tool_result

from .strategies import json_values, message_strategy

pytestmark = pytest.mark.slow
FUZZ = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
DEEP_JSON = b'{"type":"run","turn_id":"t","ask":"a","context":' + b"[" * 5000 + b"]" * 5000 + b"}"
DEEP_MSGPACK = (
    b"\x84\xa4type\xa3run\xa7turn_id\xa1t\xa3ask\xa1a\xa7context" + b"\x91" * 5000 + b"\xc0"
)


class TestMessages:
    @FUZZ
    @given(message=message_strategy(AnyMessage))
    def test_every_message_round_trips_through_json_and_msgpack(self, message: Message) -> None:
        """Any message decodes back equal from both of its encodings."""
        assert decode_msgpack(encode_msgpack(message)) == message
        assert decode_json(encode_json(message)) == message

    @FUZZ
    @given(data=st.binary(max_size=512))
    @example(data=DEEP_JSON)
    @example(data=DEEP_MSGPACK)
    @example(data=b"")
    def test_arbitrary_bytes_never_crash_a_decoder(self, data: bytes) -> None:
        """Any bytes decode to a message or raise msgspec.DecodeError, as documented."""
        for decode in (decode_json, decode_msgpack):
            try:
                assert isinstance(decode(data), Message)
            except msgspec.DecodeError:
                pass

    @FUZZ
    @given(message=message_strategy(AnyMessage), data=st.data())
    def test_a_damaged_message_is_refused_or_decoded_never_crashes(
        self, message: Message, data: st.DataObject
    ) -> None:
        """A valid encoding truncated or with bytes changed still decodes or raises DecodeError."""
        for encode, decode in ((encode_json, decode_json), (encode_msgpack, decode_msgpack)):
            raw = bytearray(encode(message))
            cut = data.draw(st.integers(0, len(raw)), label="truncate at")
            damaged = raw[:cut]
            for _ in range(data.draw(st.integers(0, 3), label="bytes changed")):
                if damaged:
                    spot = data.draw(st.integers(0, len(damaged) - 1))
                    damaged[spot] = data.draw(st.integers(0, 255))
            try:
                decode(bytes(damaged))
            except msgspec.DecodeError:
                pass

    def test_nesting_past_the_recursion_limit_is_a_decode_error(self) -> None:
        """A message nested thousands deep is bad input (DecodeError), not a RecursionError."""
        with pytest.raises(msgspec.DecodeError, match="nested too deeply"):
            decode_json(DEEP_JSON)
        with pytest.raises(msgspec.DecodeError, match="nested too deeply"):
            decode_msgpack(DEEP_MSGPACK)


def _self_containing() -> Any:
    value: dict[str, Any] = {"name": "loop"}
    value["self"] = value
    return value


class TestCompression:
    @FUZZ
    @given(value=json_values, cap=st.integers(min_value=1, max_value=2 * RESULT_CHARS))
    def test_any_json_value_is_summarized_within_the_cap(self, value: Any, cap: int) -> None:
        """summarize_tool_result never raises and never exceeds its cap, for any JSON value."""
        text = summarize_tool_result(value, cap)
        assert isinstance(text, str) and len(text) <= cap

    @FUZZ
    @given(value=json_values)
    def test_the_default_cap_holds_for_any_json_value(self, value: Any) -> None:
        """With the default cap a summary is at most 600 characters."""
        assert len(summarize_tool_result(value)) <= RESULT_CHARS

    @pytest.mark.parametrize(
        "value",
        [
            _self_containing(),
            [_self_containing()],
            10**5000,
            {"big": 10**5000},
            object(),
            b"\xff\x00",
            {(1, 2): 3},
            float("nan"),
            iter([1, 2]),
        ],
        ids=[
            "self",
            "list-of-self",
            "huge-int",
            "dict-huge-int",
            "object",
            "bytes",
            "tuple-key",
            "nan",
            "iterator",
        ],
    )
    def test_values_that_are_not_json_are_summarized_without_raising(self, value: Any) -> None:
        """Structures that contain themselves, 5,000-digit numbers and opaque objects too."""
        text = summarize_tool_result(value)
        assert isinstance(text, str) and 0 < len(text) <= RESULT_CHARS
