"""An agent's options and a run's, each checked once: what the facade builds and the turn reads."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import attrs
import pydantic

from .budget import DEFAULT_WINDOW, Budgets, TokenCounter
from .durable import Checkpoint, TurnProgress
from .errors import ConfigError
from .events import EventCallback
from .extensions import check_extensions
from .ids import check_conversation_id
from .models import TextSink
from .records import ConfirmRequest, Decision, FallbackRequest
from .snapshot import DEFAULT_RAW_OUTPUT_BYTES
from .tools import Tool, ToolErrors, tools_by_name

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
WindowSource = int | Callable[[], "int | Awaitable[int]"]
FactsSource = Mapping[str, str] | Callable[[], "Mapping[str, str] | Awaitable[Mapping[str, str]]"]


def _checked_window(window: WindowSource) -> WindowSource:
    if isinstance(window, bool) or (
        not callable(window) and (not isinstance(window, int) or window <= 0)
    ):
        raise ConfigError(f"window must be a positive integer token count, got {window!r}.")
    return window


def _flag(name: str, value: object, *, derived: bool = True) -> bool:
    """An on/off option checked; ``derived``: its ``None`` means "on for a model that scores
    options", which the agent settles before the config is built."""
    if not isinstance(value, bool):
        allowed = (
            "True, False or None (on for a model that scores options)"
            if derived
            else "True or False"
        )
        raise ConfigError(f"{name} must be {allowed}, got {value!r}.")
    return value


def _checked_hand_off_check(value: bool) -> bool:
    return _flag("hand_off_check", value)


def _checked_world_check(value: bool) -> bool:
    return _flag("world_check", value)


def _checked_write_intent_check(value: bool) -> bool:
    return _flag("write_intent_check", value)


def _checked_condition_check(value: bool) -> bool:
    return _flag("condition_check", value)


def _checked_answer_check(value: bool) -> bool:
    return _flag("answer_check", value)


def _checked_pick_check(value: bool) -> bool:
    return _flag("pick_check", value)


def _checked_named_pick_check(value: bool) -> bool:
    return _flag("named_pick_check", value, derived=False)


def _checked_cloud_needs(value: str | None) -> str | None:
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise ConfigError(
            f"cloud_needs must be None or a non-empty description of what needs the cloud, "
            f"got {value!r}."
        )
    return value


def _margin(name: str, value: object) -> float | None:
    """A check's margin: ``None`` (the tuned default) or a number."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise ConfigError(f"{name} must be None or a number (log-probability), got {value!r}.")
    return float(value)


def _checked_hand_off_margin(value: float | None) -> float | None:
    return _margin("hand_off_margin", value)


def _checked_world_margin(value: float | None) -> float | None:
    return _margin("world_margin", value)


def _checked_tool_retrieval(value: int | None) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(
            f"tool_retrieval must be None or a positive number of tools, got {value!r}."
        )
    return value


def _checked_max_steps(max_steps: int) -> int:
    if isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 0:
        raise ConfigError(f"max_steps must be a nonnegative integer, got {max_steps!r}.")
    return max_steps


def _checked_instructions(instructions: str) -> str:
    if not isinstance(instructions, str):
        raise ConfigError(f"instructions must be a string, got {instructions!r}.")
    return instructions


def _checked_output_schema(
    output_schema: type[pydantic.BaseModel] | None,
) -> type[pydantic.BaseModel] | None:
    if output_schema is not None and not (
        isinstance(output_schema, type) and issubclass(output_schema, pydantic.BaseModel)
    ):
        raise ConfigError(f"output_schema must be a pydantic model class, got {output_schema!r}.")
    return output_schema


def _seconds(name: str, value: float | None) -> float | None:
    if value is not None and (not isinstance(value, (int, float)) or value < 0):
        raise ConfigError(f"{name} must be a number of seconds ≥ 0 or None, got {value!r}.")
    return value


def _checked_confirm_timeout(value: float | None) -> float | None:
    return _seconds("confirm_timeout", value)


def _checked_session_retry_after(value: float | None) -> float | None:
    return _seconds("session_retry_after", value)


def _checked_model_timeout(value: float | None) -> float | None:
    return _seconds("model_timeout", value)


def _checked_tool_timeout(value: float | None) -> float | None:
    return _seconds("tool_timeout", value)


def _checked_raw_output_bytes(value: int | None) -> int | None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
        raise ConfigError(
            f"raw_output_bytes must be a number of bytes ≥ 0 or None (no cap), got {value!r}."
        )
    return value


def _checked_auto_approve(value: bool) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"auto_approve must be True or False, got {value!r}.")
    return value


def _checked_tool_errors(value: ToolErrors) -> ToolErrors:
    if value not in ("report", "raise"):
        raise ConfigError(
            f"tool_errors must be 'report' (a failed step the model reads) or 'raise' (the run "
            f"raises the tool's exception, for tests); got {value!r}."
        )
    return value


def _checked_extensions(extensions: Sequence[Any]) -> tuple[Any, ...]:
    return check_extensions(list(extensions))


def _check_ask(_request: Any, _field: Any, ask: str) -> None:
    if not isinstance(ask, str):
        raise ConfigError(f"ask must be a string, got {type(ask).__name__}.")


def _check_conversation_id(_request: Any, _field: Any, conversation_id: str | None) -> None:
    check_conversation_id(conversation_id)


@attrs.frozen(kw_only=True)
class AgentConfig:
    """Every option of an agent that its turns read, each checked once, here.

    ``Agent(...)`` takes exactly these options (plus ``model`` and the runtime's ``memory``,
    ``runtime_limits``, ``store`` and ``cluster``) and builds this once; a bad value is a
    :class:`~goliath.errors.ConfigError` saying what was expected. The fields are in the order
    they are checked.
    """

    window: WindowSource = attrs.field(default=DEFAULT_WINDOW, converter=_checked_window)
    max_steps: int = attrs.field(default=DEFAULT_MAX_STEPS, converter=_checked_max_steps)
    instructions: str = attrs.field(default=DEFAULT_INSTRUCTIONS, converter=_checked_instructions)
    output_schema: type[pydantic.BaseModel] | None = attrs.field(
        default=None, converter=_checked_output_schema
    )
    confirm_timeout: float | None = attrs.field(
        default=DEFAULT_CONFIRM_TIMEOUT, converter=_checked_confirm_timeout
    )
    session_retry_after: float | None = attrs.field(
        default=DEFAULT_SESSION_RETRY_AFTER, converter=_checked_session_retry_after
    )
    model_timeout: float | None = attrs.field(
        default=DEFAULT_MODEL_TIMEOUT, converter=_checked_model_timeout
    )
    tool_timeout: float | None = attrs.field(
        default=DEFAULT_TOOL_TIMEOUT, converter=_checked_tool_timeout
    )
    raw_output_bytes: int | None = attrs.field(
        default=DEFAULT_RAW_OUTPUT_BYTES, converter=_checked_raw_output_bytes
    )
    tools: Mapping[str, Tool] = attrs.field(factory=dict, converter=tools_by_name)
    extensions: tuple[Any, ...] = attrs.field(default=(), converter=_checked_extensions)
    count_tokens: TokenCounter | None = None
    budgets: Budgets | None = None
    fallback: Fallback | None = None
    confirm: ConfirmHandler | None = None
    auto_approve: bool = attrs.field(default=False, converter=_checked_auto_approve)
    on_event: EventCallback | None = None
    facts: FactsSource | None = None
    examples: Sequence[Mapping[str, Any]] | None = None
    tool_retrieval: int | None = attrs.field(default=None, converter=_checked_tool_retrieval)
    hand_off_check: bool = attrs.field(default=False, converter=_checked_hand_off_check)
    cloud_needs: str | None = attrs.field(default=None, converter=_checked_cloud_needs)
    hand_off_margin: float | None = attrs.field(default=None, converter=_checked_hand_off_margin)
    world_check: bool = attrs.field(default=False, converter=_checked_world_check)
    world_margin: float | None = attrs.field(default=None, converter=_checked_world_margin)
    write_intent_check: bool = attrs.field(default=False, converter=_checked_write_intent_check)
    condition_check: bool = attrs.field(default=False, converter=_checked_condition_check)
    answer_check: bool = attrs.field(default=False, converter=_checked_answer_check)
    pick_check: bool = attrs.field(default=False, converter=_checked_pick_check)
    named_pick_check: bool = attrs.field(default=False, converter=_checked_named_pick_check)
    tool_errors: ToolErrors = attrs.field(default="report", converter=_checked_tool_errors)


RUNTIME_FIELDS = frozenset({"progress", "resume"})
"""Fields of :class:`TurnRequest` that only the runtime sets (not options of ``Agent.run``)."""


@attrs.frozen(kw_only=True)
class TurnRequest:
    """One run: the ask and the per-run options that override the agent's (checked here).

    ``progress`` and ``resume`` are the runtime's (:data:`RUNTIME_FIELDS`): where the turn
    reports checkpoints and writes, and the checkpoint a paused turn resumes from.
    """

    ask: str = attrs.field(validator=_check_ask)
    turn_id: str
    conversation_id: str | None = attrs.field(default=None, validator=_check_conversation_id)
    context: Any = None
    confirm: ConfirmHandler | None = None
    output_schema: type[pydantic.BaseModel] | None = attrs.field(
        default=None, converter=_checked_output_schema
    )
    on_event: EventCallback | None = None
    on_token: TextSink | None = None
    """Receives the prose answer's text as the model writes it (a streaming run)."""
    progress: TurnProgress | None = None
    """Where the turn reports checkpoints and writes (the runtime's ticket)."""
    resume: Checkpoint | None = None
    """Resume a turn paused at a write: its steps so far and the call awaiting approval."""
