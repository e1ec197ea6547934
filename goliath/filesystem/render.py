"""How tool results look to the model, and fitting them to the result budget.

``glob``/``grep`` results are compact JSON; a ``read_file`` result is a one-line JSON header,
a newline, then the literal content. The tools fit their own results to
``ToolContext.result_budget`` before returning, counting exactly the text these functions
render, so the harness never has to cut a result (and break its JSON) afterwards.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

from ..budget import ResultBudget
from .errors import FilesystemError

__all__ = ["fit_prefix", "render_json", "render_read", "render_search"]


def render_json(value: Any) -> str:
    """Compact JSON, non-ASCII kept as is (a tokenizer reads it better than ``\\u`` escapes)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def render_search(result: dict[str, Any]) -> str:
    """A ``glob`` or ``grep`` result as the model sees it."""
    return render_json({"matches": result["matches"], "next_cursor": result["next_cursor"]})


def render_read(result: dict[str, Any]) -> str:
    """A ``read_file`` result: the JSON header line, then the content verbatim."""
    header = {key: result[key] for key in ("path", "revision", "line", "continued", "next_cursor")}
    return render_json(header) + "\n" + str(result["content"])


async def fit_prefix(text: str, render: Callable[[str], str], budget: ResultBudget) -> int:
    """The length of the longest prefix of ``text`` whose rendering fits the budget.

    Raises:
        FilesystemError: even an empty prefix does not fit (the budget cannot hold the
            metadata).
    """
    if await budget.count(render("")) > budget.max_tokens:
        raise FilesystemError(
            f"The tool result budget ({budget.max_tokens} tokens) is too small even for the "
            "result's metadata; raise budgets.tool_result_tokens"
        )
    low, high = 0, len(text)
    if budget.count_tokens is None:
        # The estimator charges every character at least 1.15/4 of a token: a cheap upper bound.
        high = min(high, math.ceil(budget.max_tokens * 4 / 1.15) + 1)
    if high == len(text) and await budget.count(render(text)) <= budget.max_tokens:
        return high
    while low < high:
        middle = (low + high + 1) // 2
        if await budget.count(render(text[:middle])) <= budget.max_tokens:
            low = middle
        else:
            high = middle - 1
    return low
