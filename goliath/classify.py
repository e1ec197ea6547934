"""Classification of model failures: which escalation reason a provider error becomes.

A small model's failures mean different things: a guardrail refusal stays on the device (the
cloud must not be used to get around it), an overflow is a budget problem, an unavailable model
is an installation problem, and anything else is a model error that may trip the session's
circuit breaker. The classification reads types and provider codes, never only message text,
except for the guardrail phrases that providers put in messages.
"""

from __future__ import annotations

import re
from typing import Literal

from .errors import (
    ContextWindowError,
    GuardrailError,
    InvalidOutputError,
    ModelUnavailableError,
)

__all__ = ["Classification", "classify_model_error", "is_invalid_output"]

Classification = Literal["guardrail", "context-budget", "model-unavailable", "model-error"]

_MAX_CHAIN = 8
_GUARDRAIL = re.compile(
    r"guardrail|content.?filter|safety|detected content likely to be unsafe", re.IGNORECASE
)
_GENERABLE = "failed to deserialize a generable type from model output"


def _chain(exc: BaseException) -> list[BaseException]:
    seen: set[int] = set()
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and id(current) not in seen and len(chain) < _MAX_CHAIN:
        seen.add(id(current))
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain


def _code(exc: BaseException) -> str:
    code = getattr(exc, "code", None)
    return code if isinstance(code, str) else ""


def classify_model_error(exc: BaseException) -> Classification:
    """Classify a failure raised by a model call, walking ``__cause__``/``__context__``."""
    chain = _chain(exc)
    if any(isinstance(link, GuardrailError) for link in chain) or any(
        _GUARDRAIL.search(f"{_code(link)} {link}") for link in chain
    ):
        return "guardrail"
    codes = {_code(link).upper() for link in chain}
    if "CONTEXT_WINDOW_EXCEEDED" in codes or any(isinstance(x, ContextWindowError) for x in chain):
        return "context-budget"
    if codes & {"MODEL_UNAVAILABLE", "UNSUPPORTED_OS"} or any(
        isinstance(link, ModelUnavailableError) for link in chain
    ):
        return "model-unavailable"
    return "model-error"


def is_invalid_output(exc: BaseException) -> bool:
    """Whether a failure is a malformed reply, eligible for the bounded retries."""
    if classify_model_error(exc) != "model-error":
        return False
    chain = _chain(exc)
    return any(isinstance(link, InvalidOutputError) for link in chain) or any(
        _GENERABLE in str(link).lower() for link in chain
    )
