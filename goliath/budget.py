"""Token budgets: estimating, clipping, per-call limits and content budgets.

Small windows fail late and badly (an overflow can kill a native session just under the
limit), so every prompt is counted before it is sent and kept within 70% of the window, and
every model call has an output cap (each stage's is in ``goliath/turn/stages.py``). The
estimator is deliberately pessimistic (+15% on ASCII, UTF-8 bytes for everything else); a real
tokenizer replaces it when the model offers one.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable

import attrs

from ._util import maybe_await
from .errors import ConfigError

__all__ = [
    "DEFAULT_WINDOW",
    "PROMPT_OVERHEAD_TOKENS",
    "Budgets",
    "ContentBudgets",
    "ResultBudget",
    "TokenCounter",
    "clip_tokens",
    "estimate_tokens",
    "input_limit",
]

DEFAULT_WINDOW = 4096
"""Apple's on-device window, input and output together; Goliath's conservative default."""

PROMPT_OVERHEAD_TOKENS = 8
"""Added to every counted prompt for the chat template's own tokens."""

INPUT_SHARE = 0.7
RESERVE_SHARE = 0.1
RESERVE_MIN = 128
ELLIPSIS = "…"

TokenCounter = Callable[[str], "int | Awaitable[int]"]


def estimate_tokens(text: str) -> int:
    """A pessimistic token estimate: ``ceil(ascii/4 × 1.15)`` + UTF-8 bytes of the rest."""
    ascii_chars = 0
    other_bytes = 0
    for char in text:
        code = ord(char)
        if code <= 0x7F:
            ascii_chars += 1
        elif code <= 0x7FF:
            other_bytes += 2
        elif code <= 0xFFFF:
            other_bytes += 3
        else:
            other_bytes += 4
    return math.ceil(ascii_chars / 4 * 1.15) + other_bytes


def clip_tokens(text: str, budget: int) -> str:
    """The longest prefix of ``text`` that fits ``budget`` estimated tokens, marked with ``…``."""
    if estimate_tokens(text) <= budget:
        return text
    if budget < estimate_tokens(ELLIPSIS):
        return ""
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if estimate_tokens(text[:middle] + ELLIPSIS) <= budget:
            low = middle
        else:
            high = middle - 1
    return text[:low] + ELLIPSIS


def input_limit(window: int, output_tokens: int) -> int:
    """The largest prompt, in tokens, a call whose reply may take ``output_tokens`` may send:
    ``min(70% of W, W − cap − reserve)``."""
    reserve = max(RESERVE_MIN, math.ceil(window * RESERVE_SHARE))
    return min(math.floor(window * INPUT_SHARE), window - output_tokens - reserve)


def brief_allowance(window: int) -> int:
    """Tokens allowed for the rolling brief and, separately, the recent-conversation block."""
    return window // 8


@attrs.frozen
class Budgets:
    """Token budgets for content-mode tool results (literal excerpts such as file reads).

    Attributes:
        tool_result_tokens: the most one result may use (default ``min(800, W/8)``).
        retrieved_context_tokens: the most all excerpts in one prompt may use
            (default ``min(2000, W/4)``); older excerpts are left out of prompts first.
    """

    tool_result_tokens: int | None = None
    retrieved_context_tokens: int | None = None


@attrs.frozen
class ContentBudgets:
    """Budgets resolved for one turn's window."""

    tool_result_tokens: int
    retrieved_context_tokens: int

    @classmethod
    def resolve(cls, window: int, budgets: Budgets | None) -> ContentBudgets:
        per_result = max(1, min(800, window // 8))
        aggregate = max(1, min(2000, window // 4))
        if budgets is not None:
            if budgets.tool_result_tokens is not None:
                per_result = _positive(budgets.tool_result_tokens, "tool_result_tokens")
            if budgets.retrieved_context_tokens is not None:
                aggregate = _positive(budgets.retrieved_context_tokens, "retrieved_context_tokens")
        if per_result > aggregate:
            raise ConfigError(
                f"budgets.tool_result_tokens ({per_result}) must not exceed "
                f"budgets.retrieved_context_tokens ({aggregate})."
            )
        return cls(tool_result_tokens=per_result, retrieved_context_tokens=aggregate)


def _positive(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ConfigError(f"budgets.{name} must be a positive integer token count, got {value!r}.")
    return value


@attrs.frozen
class ResultBudget:
    """What a content-mode tool may return, in tokens, and how they are counted."""

    max_tokens: int
    count_tokens: TokenCounter | None = None

    async def count(self, text: str) -> int:
        """Count ``text`` with the run's tokenizer, or the estimator when there is none."""
        return await count_text(self.count_tokens, text)


async def count_text(counter: TokenCounter | None, text: str) -> int:
    """Count with ``counter`` (sync or async) or estimate; a bad count raises ValueError."""
    if counter is None:
        return estimate_tokens(text)
    tokens = await maybe_await(counter(text))
    if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 0:
        raise ValueError(f"count_tokens returned {tokens!r}; expected a non-negative integer")
    return tokens


EXCERPT_TRUNCATED = "\n[excerpt truncated]"
EXCERPT_OMITTED = "(earlier excerpt omitted; read the file again if needed)"


async def fit_excerpt(text: str, max_tokens: int, counter: TokenCounter | None) -> str:
    """Keep the longest prefix of ``text`` that fits with the ``[excerpt truncated]`` marker."""
    if await count_text(counter, text) <= max_tokens:
        return text
    if await count_text(counter, EXCERPT_TRUNCATED) > max_tokens:
        raise ConfigError(
            f"A content budget of {max_tokens} tokens cannot hold even the truncation marker; "
            "raise budgets.tool_result_tokens."
        )
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if await count_text(counter, text[:middle] + EXCERPT_TRUNCATED) <= max_tokens:
            low = middle
        else:
            high = middle - 1
    return text[:low] + EXCERPT_TRUNCATED
