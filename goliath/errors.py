"""Goliath's exceptions, in one tree so callers can pick the right ``except`` level.

::

    GoliathError                      anything Goliath itself raises
    ├── ConfigError (ValueError)      a usage mistake: bad Agent(...) options, tools, arguments
    ├── BudgetError                   a model prompt does not fit its token budget
    ├── ExtensionError                an extension hook raised or returned something invalid
    ├── ModelError                    a model bridge failed; ``code`` carries the provider's code
    │   ├── InvalidOutputError        the reply was not the JSON that was asked for
    │   ├── GuardrailError            the model's safety layer refused
    │   ├── ContextWindowError        the prompt overflowed the model's window
    │   └── ModelUnavailableError     the model cannot run here (not installed, not enabled)
    ├── BusyError                     a conversation's queue of runs is full; try again later
    ├── TurnCancelled                 the turn was cancelled by someone other than the caller
    ├── DrainingError                 the runtime is shutting down and takes no new runs
    └── ConversationFailedError       a conversation's actor crashed too often and was stopped

Errors raised by user code (tools, hooks, memory stores, fallbacks) propagate unchanged: a run
that fails raises the original exception, never a wrapper, so ``except KeyError:`` works.
"""

from __future__ import annotations

__all__ = [
    "BudgetError",
    "BusyError",
    "ConfigError",
    "ContextWindowError",
    "ConversationFailedError",
    "DrainingError",
    "ExtensionError",
    "GoliathError",
    "GuardrailError",
    "InvalidOutputError",
    "ModelError",
    "ModelUnavailableError",
    "TurnCancelled",
]


class GoliathError(Exception):
    """The root of every exception Goliath raises on its own account."""


class ConfigError(GoliathError, ValueError):
    """A usage mistake by the application developer: fix the call that raised it."""


class BudgetError(GoliathError):
    """A model prompt is larger than its stage's input budget.

    Without extensions (or with observer-only ones, such as tracing) the turn escalates
    ``context-budget`` instead of raising this; with an extension that may steer the run the
    budget policy is strict and the run raises it.
    """

    def __init__(self, phase: str, tokens: int, limit: int) -> None:
        self.phase = phase
        self.tokens = tokens
        self.limit = limit
        super().__init__(f"{phase} requires {tokens} estimated tokens; budget is {limit}")


class ExtensionError(GoliathError):
    """An extension hook raised, or returned something its phase does not allow.

    ``cause`` is the original exception (also chained as ``__cause__``).
    """

    def __init__(self, extension: str, phase: str, cause: BaseException) -> None:
        self.extension = extension
        self.phase = phase
        self.cause = cause
        super().__init__(f'Extension "{extension}" failed in {phase}: {_message_of(cause)}')


class ModelError(GoliathError):
    """A model call failed. ``code`` is the provider's error code when it gave one.

    Bridges translate what their SDK raises into this family (``raise ... from exc``) so the
    harness can classify failures by type and code rather than by message text.
    """

    code: str | None = None

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code


class InvalidOutputError(ModelError):
    """The model replied, but not with parseable JSON matching the requested schema.

    The harness treats this as a malformed reply: plans and structured answers get one retry
    with a hint, tool arguments one retry with the validation error (design.md, D1).
    """


class GuardrailError(ModelError):
    """The model's safety layer refused the prompt or the reply. Never handed to the cloud."""

    code = "GUARDRAIL"


class ContextWindowError(ModelError):
    """The prompt and reply did not fit the model's context window."""

    code = "CONTEXT_WINDOW_EXCEEDED"


class ModelUnavailableError(ModelError):
    """The model cannot run on this machine (missing weights, SDK, OS or setting)."""

    code = "MODEL_UNAVAILABLE"


class BusyError(GoliathError):
    """The conversation already has as many runs queued as it accepts; retry later (HTTP 429)."""


class TurnCancelled(GoliathError):
    """The turn was cancelled by a ``Cancel`` message rather than by the caller's own scope."""


class DrainingError(GoliathError):
    """The runtime is shutting down: running turns may finish, new ones are refused (HTTP 503)."""


class ConversationFailedError(GoliathError):
    """The conversation's actor crashed more often than its restart limit allows.

    Other conversations are unaffected; this one answers every request with this error until
    the agent is restarted.
    """


def _message_of(exc: BaseException) -> str:
    return str(exc) or type(exc).__name__
