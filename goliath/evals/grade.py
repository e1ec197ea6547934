"""Grading one attempt: a list of reasons it failed; no reasons means it passed.

The grader reads only the :class:`~goliath.records.RunResult` (text, where it finished, step
records, trace), so it grades Goliath and the naive-loop baseline by the same rules. (The turn's
own judge, which catches a lost model during a run, is :mod:`goliath.turn.judge`.)
"""

from __future__ import annotations

from collections.abc import Sequence

from ..records import RunResult, StepRecord
from .fixtures import Fixture

__all__ = ["executed_writes", "grade", "last_escalation", "tool_sequence"]


def tool_sequence(steps: Sequence[StepRecord]) -> list[str]:
    """The tool steps in order, skipped and cached ones included."""
    return [step.tool or "" for step in steps if step.kind == "tool"]


def executed_writes(steps: Sequence[StepRecord]) -> list[str]:
    """The write steps that really ran: not declined, skipped, cached or failed."""
    return [
        step.tool or ""
        for step in steps
        if step.kind == "tool" and step.writes and not (step.skipped or step.cached or step.failed)
    ]


def last_escalation(result: RunResult) -> str | None:
    """The reason of the run's last ``escalate`` event, if there was one."""
    reasons = [getattr(event, "reason", None) for event in result.trace if event.type == "escalate"]
    return reasons[-1] if reasons else None


def _listed(names: Sequence[str]) -> str:
    return f"[{','.join(names)}]"


def grade(fixture: Fixture, result: RunResult) -> list[str]:
    """Why ``result`` does not meet ``fixture``; an empty list means the attempt passed."""
    reasons: list[str] = []
    escalation = fixture.effective_escalation
    if escalation == "forbidden" and result.handled_by == "cloud":
        reasons.append("escalated, but escalation is forbidden")
    if escalation == "expected" and result.handled_by != "cloud":
        reasons.append("stayed on device, but escalation was expected")
    tools = tool_sequence(result.steps)
    if tuple(tools) not in fixture.accepted_tools:
        wanted = " or ".join(_listed(option) for option in fixture.accepted_tools)
        reasons.append(f"tools {_listed(tools)}, wanted {wanted}")
    if fixture.writes is not None:
        writes = executed_writes(result.steps)
        if tuple(writes) != fixture.writes:
            reasons.append(f"writes {_listed(writes)}, wanted {_listed(fixture.writes)}")
    answer = result.text.lower()
    for word in fixture.mentions:
        if word.lower() not in answer:
            reasons.append(f'answer lacks "{word}"')
    for word in fixture.forbids:
        if word.lower() in answer:
            reasons.append(f'answer contains "{word}"')
    reason = last_escalation(result)
    if fixture.expected_reason is not None and reason != fixture.expected_reason:
        reasons.append(f"escalation reason {reason or 'none'}, wanted {fixture.expected_reason}")
    if not result.text.strip() and fixture.expected_reason is None:
        reasons.append("empty answer without an expected escalation reason")
    return reasons
