"""A yes/no question under a schema, read by its log-probabilities where the bridge has them.

The write-intent check and the condition check ask the model one such question each; both
read the reply the same way: ``no`` wins when it leads ``yes`` by more than a margin, and an
unscored reply (Apple's bridge) is read as the word it generated.
"""

from __future__ import annotations

import json
from typing import Any

from ..models import Generation

__all__ = ["no_leads", "yes_no_schema"]


def yes_no_schema(field: str) -> dict[str, Any]:
    """``{field: "yes" | "no"}``."""
    return {
        "type": "object",
        "properties": {field: {"type": "string", "enum": ["yes", "no"]}},
        "required": [field],
        "additionalProperties": False,
    }


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
