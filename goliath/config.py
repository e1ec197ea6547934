"""Validated agent configuration and per-run requests, shared by the facade and the turn."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import attrs
import pydantic

from .budget import Budgets, TokenCounter
from .events import Event
from .records import ConfirmRequest, Decision, FallbackRequest
from .tools import Tool

__all__ = [
    "DEFAULT_INSTRUCTIONS",
    "DEFAULT_MAX_STEPS",
    "AgentConfig",
    "ConfirmHandler",
    "Fallback",
    "TurnRequest",
]

DEFAULT_MAX_STEPS = 5
DEFAULT_INSTRUCTIONS = "You are a careful assistant that lives on this device."
DEFAULT_CONFIRM_TIMEOUT = 120.0
DEFAULT_SESSION_RETRY_AFTER = 300.0
DEFAULT_MODEL_TIMEOUT = 300.0
"""Seconds one model call may take once the model started on it (a 1.5B model on two cores
needs ~110 s for a full 2.8k-token prompt and 384 output tokens)."""
DEFAULT_TOOL_TIMEOUT = 120.0
"""Seconds one tool call may take before the step fails as timed out."""

ConfirmHandler = Callable[[ConfirmRequest], "bool | Decision | Awaitable[bool | Decision]"]
Fallback = Callable[[FallbackRequest], "str | dict[str, Any] | Awaitable[str | dict[str, Any]]"]
EventCallback = Callable[[Event], Any]
WindowSource = int | Callable[[], "int | Awaitable[int]"]
FactsSource = Mapping[str, str] | Callable[[], "Mapping[str, str] | Awaitable[Mapping[str, str]]"]


@attrs.frozen(kw_only=True)
class AgentConfig:
    """Everything a turn needs from its agent; built (and validated) once by ``Agent``."""

    tools: Mapping[str, Tool]
    instructions: str = DEFAULT_INSTRUCTIONS
    max_steps: int = DEFAULT_MAX_STEPS
    window: WindowSource = 4096
    count_tokens: TokenCounter | None = None
    budgets: Budgets | None = None
    fallback: Fallback | None = None
    confirm: ConfirmHandler | None = None
    on_event: EventCallback | None = None
    facts: FactsSource | None = None
    examples: Sequence[Mapping[str, Any]] | None = None
    extensions: tuple[Any, ...] = ()
    output_schema: type[pydantic.BaseModel] | None = None
    confirm_timeout: float | None = DEFAULT_CONFIRM_TIMEOUT
    session_retry_after: float | None = DEFAULT_SESSION_RETRY_AFTER
    model_timeout: float | None = DEFAULT_MODEL_TIMEOUT
    tool_timeout: float | None = DEFAULT_TOOL_TIMEOUT


@attrs.frozen(kw_only=True)
class TurnRequest:
    """One run: the ask and the per-run options that override the agent's."""

    ask: str
    turn_id: str
    conversation_id: str | None = None
    context: Any = None
    confirm: ConfirmHandler | None = None
    output_schema: type[pydantic.BaseModel] | None = None
    on_event: EventCallback | None = None
