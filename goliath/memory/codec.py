"""Encoding and validation of stored memory, shared by the persistent adapters."""

from __future__ import annotations

import math

import msgspec

from ..records import Exchange, MemoryState

UNFOLDED_LIMIT = 16
"""Exchanges memory may hold before the scribe has folded the oldest (see :func:`appended`)."""
PLAIN_FOLD_CHARS = 4_000
"""The most a brief grows by plain lines before a turn's scribe rewrites it (oldest go first)."""

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


def appended(state: MemoryState, exchange: Exchange) -> MemoryState:
    """``state`` with ``exchange`` added to its recent history, nothing evicted.

    Used where no model may be called (a crash's recovery, a cancel): instead of trimming
    the recent window — which would drop an exchange unsummarised — the next turn's scribe
    folds every exchange beyond the window into the brief, as it folds any evicted one. A
    history past :data:`UNFOLDED_LIMIT` (many cancels or crashes in a row, no turn between)
    has its oldest folded as a plain line, so memory stays bounded and still says what was
    asked.
    """
    recent = [*state.recent, exchange]
    summary = state.summary
    while len(recent) > UNFOLDED_LIMIT:
        oldest = recent.pop(0)
        said = oldest.answer.strip() or ("(cut off)" if oldest.interrupted else "(no answer)")
        line = f"Earlier: asked {oldest.ask[:200]!r}; answered {said[:200]!r}."
        summary = f"{summary}\n{line}" if summary else line
    if len(summary) > PLAIN_FOLD_CHARS:
        summary = summary[-PLAIN_FOLD_CHARS:].partition("\n")[2] or summary[-PLAIN_FOLD_CHARS:]
    return MemoryState(summary=summary, recent=recent)
