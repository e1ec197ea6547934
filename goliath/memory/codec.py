"""Encoding and validation of stored memory, shared by the persistent adapters."""

from __future__ import annotations

import math

import msgspec

from ..records import MemoryState

_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(MemoryState)


def encode_state(state: MemoryState) -> str:
    return _encoder.encode(state).decode()


def decode_state(text: str | bytes | None) -> MemoryState:
    """Decode stored memory; anything missing, corrupt or malformed reads as empty memory."""
    if not text:
        return MemoryState()
    try:
        state = _decoder.decode(text)
    except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError):
        return MemoryState()
    for exchange in state.recent:
        if not math.isfinite(exchange.at) or any(step.index < 0 for step in exchange.steps):
            return MemoryState()
    return state


def copy_state(state: MemoryState) -> MemoryState:
    """A deep copy, so neither the caller nor the store can change the other's data."""
    return _decoder.decode(_encoder.encode(state))
