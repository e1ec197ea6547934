"""The judge: rules that catch a lost small model before it wastes the turn.

Pure functions over the turn's step records: the step cap, prerequisites, repeated calls (with
a read cache that writes invalidate) and consecutive tool errors. Each rule that fires becomes
an escalation reason; none of them costs a model call.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from .._util import canonical_json
from ..records import StepRecord
from ..tools import Tool

__all__ = [
    "Verdict",
    "cap_reached",
    "duplicate_verdict",
    "found_nothing",
    "last_two_failed",
    "prerequisites_met",
    "same_input",
]

Verdict = Literal["execute", "cached", "repeat"]


def found_nothing(step: StepRecord) -> bool:
    """Whether a read that ran returned nothing: an empty value, shown to the model as "none"
    (a failed or skipped call did not return at all)."""
    return (
        not step.writes
        and not (step.failed or step.skipped)
        and step.result is not None
        and step.output in (None, "", [], {})
        and step.result.strip().lower() in ("", "none", "[]", "{}")
    )


def cap_reached(steps: Sequence[StepRecord], max_steps: int) -> bool:
    """Every step counts toward the cap: executed, failed, cached and skipped alike."""
    return len(steps) >= max_steps


def prerequisites_met(tool: Tool, steps: Sequence[StepRecord]) -> bool:
    """Each required tool has an earlier step in this turn that neither failed nor was skipped."""
    succeeded = {
        step.tool for step in steps if step.kind == "tool" and not step.failed and not step.skipped
    }
    return all(required in succeeded for required in tool.requires)


def same_input(left: Any, right: Any) -> bool:
    """Canonical comparison: keys sorted, arrays element-wise; key order never matters."""
    return canonical_json(left) == canonical_json(right)


def duplicate_verdict(
    steps: Sequence[StepRecord], tool: Tool, tool_input: Any
) -> tuple[Verdict, StepRecord | None]:
    """What to do with a call identical to an earlier one in this turn.

    A repeated read of a successful result is served from the earlier step ("cached") unless a
    write ran since; anything else identical — a write, or a read whose earlier twin was cached,
    failed or skipped — is a loop, and the turn escalates ``repeated-tool-call``.
    """
    earlier_index = None
    for position in range(len(steps) - 1, -1, -1):
        step = steps[position]
        if step.kind == "tool" and step.tool == tool.name and same_input(step.input, tool_input):
            earlier_index = position
            break
    if earlier_index is None:
        return "execute", None
    earlier = steps[earlier_index]
    if not tool.writes:
        later = steps[earlier_index + 1 :]
        if any(step.writes and not step.skipped for step in later):
            return "execute", None  # a write since then may have changed what the read returns
        if not (earlier.cached or earlier.failed or earlier.skipped):
            return "cached", earlier
    return "repeat", earlier


def last_two_failed(steps: Sequence[StepRecord]) -> bool:
    return len(steps) >= 2 and steps[-1].failed and steps[-2].failed
