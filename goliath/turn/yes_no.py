"""A yes/no question under a schema, read by its log-probabilities where the bridge has them.

The write-intent check and the condition check ask the model one such question each; both
read the reply the same way: ``no`` wins when it leads ``yes`` by more than a margin, and an
unscored reply (Apple's bridge) is read as the word it generated. Every check whose reply
names one option (these two, the hand-off, the world, the pick, the requery, the comparison)
builds its schema with ``choice_schema``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..models import Generation

__all__ = ["choice_schema", "no_leads", "yes_no_schema"]


def choice_schema(field: str, options: Sequence[str]) -> dict[str, Any]:
    """``{field: one of options}``: the reply of every check that names one option."""
    return {
        "type": "object",
        "properties": {field: {"type": "string", "enum": list(options)}},
        "required": [field],
        "additionalProperties": False,
    }


def yes_no_schema(field: str) -> dict[str, Any]:
    """``{field: "yes" | "no"}``."""
    return choice_schema(field, ["yes", "no"])


def no_leads(generation: Generation, field: str, margin: float) -> tuple[bool, float | None]:
    """Whether the reply says no, and log p(no) - log p(yes) (``None`` when unscored; then
    only a generated ``no`` counts, and an unreadable reply is not a no)."""
    scores = generation.scores or {}
    if "yes" in scores and "no" in scores:
        gap = scores["no"] - scores["yes"]
        return gap > margin, gap
    try:
        chosen = json.loads(generation.text).get(field)
    except (ValueError, AttributeError):
        chosen = None
    return chosen == "no", None
