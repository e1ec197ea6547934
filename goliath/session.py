"""Per-conversation state that outlives a turn: memory, window, and the fallback breaker.

The breaker (design.md, D4) opens after three consecutive ``model-error`` turns when a fallback is
configured: turns then go straight to the cloud. After ``session_retry_after`` seconds the next
turn probes the device again; a device turn without ``model-error`` closes the breaker.
"""

from __future__ import annotations

import time
from typing import Any

import attrs

__all__ = ["SESSION_FALLBACK_AFTER", "Session", "now"]

SESSION_FALLBACK_AFTER = 3
"""Consecutive ``model-error`` turns that open the session breaker."""


def now() -> float:
    """Monotonic seconds for the breaker's cool-down (tests may patch this)."""
    return time.monotonic()


@attrs.define(kw_only=True)
class Session:
    memory: Any
    conversation_id: str | None = None
    consecutive_model_errors: int = 0
    opened_at: float | None = None
    last_window: int | None = None

    def hands_over(self, *, has_fallback: bool, retry_after: float | None) -> bool:
        """Whether the next turn goes straight to the fallback (the breaker is open)."""
        if not has_fallback or self.consecutive_model_errors < SESSION_FALLBACK_AFTER:
            return False
        if retry_after is None or self.opened_at is None:
            return True
        return now() - self.opened_at < retry_after

    def record_turn(self, *, model_error: bool) -> None:
        """Count a completed device turn (not stopped, not handed over by the breaker)."""
        if not model_error:
            self.consecutive_model_errors = 0
            self.opened_at = None
            return
        self.consecutive_model_errors += 1
        if self.consecutive_model_errors >= SESSION_FALLBACK_AFTER:
            self.opened_at = now()
