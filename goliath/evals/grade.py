"""Grading one attempt: a list of reasons it failed; no reasons means it passed.

The grader reads only the :class:`~goliath.records.RunResult` (text, where it finished, step
records, trace), so it grades Goliath and the naive-loop baseline by the same rules. (The turn's
own judge, which catches a lost model during a run, is :mod:`goliath.turn.judge`.)
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..records import RunResult, StepRecord
from ..turn.grounding import ungrounded_numbers
from .fixtures import Fixture

__all__ = [
    "argument_problems",
    "executed_writes",
    "grade",
    "last_escalation",
    "tool_sequence",
    "ungrounded_numbers",
]

_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")
_WORD = re.compile(r"[a-z0-9']+")


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


def _text_of(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, default=str)


def argument_problems(fixture: Fixture, steps: Sequence[StepRecord]) -> list[str]:
    """Arguments of calls that ran which lack a word the fixture wants, or copy the whole ask.

    A write's free-text value that restates the ask ("Add 'X' to my list, unless ...") is not
    the value the user gave; it is caught here however the rest of the run went.
    """
    problems: list[str] = []
    ran = [s for s in steps if s.kind == "tool" and not (s.skipped or s.cached or s.failed)]
    for key, words in fixture.arg_mentions.items():
        tool, field = key.split(".")
        for step in ran:
            if step.tool != tool:
                continue
            value = str((step.input or {}).get(field, "")).lower()
            for word in words:
                if word.lower() not in value:
                    problems.append(f'{tool} {field} {value[:60]!r} lacks "{word}"')
    ask_words = _WORD.findall(fixture.ask.lower())
    for step in ran:
        if not step.writes:
            continue
        for field, value in (step.input or {}).items():
            if not isinstance(value, str):
                continue
            value_words = _WORD.findall(value.lower())
            if len(ask_words) >= 7 and len(value_words) >= 0.8 * len(ask_words):
                shared = sum(1 for word in ask_words if word in value_words)
                if shared >= 0.8 * len(ask_words):
                    problems.append(f"{step.tool} {field} copies the ask")
    return problems


def grade(
    fixture: Fixture, result: RunResult, *, facts: Mapping[str, str] | None = None
) -> list[str]:
    """Why ``result`` does not meet ``fixture``; an empty list means the attempt passed.

    Beyond the tool sequence, writes and words: arguments must hold the fixture's words and not
    copy the ask, and an answer to a data ask (one whose good run uses tools) may state only
    numbers that a step returned, the ask or the history held, or ``facts`` gave.
    """
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
    reasons.extend(argument_problems(fixture, result.steps))
    if fixture.tools and result.handled_by == "device" and result.text.strip():
        known = [fixture.ask, *(f"{a} {b}" for a, b in fixture.history), *(facts or {}).values()]
        invented = ungrounded_numbers(result.text, result.steps, known)
        if invented:
            reasons.append(f"answer states {', '.join(invented)}, which no step returned")
    reason = last_escalation(result)
    if fixture.expected_reason is not None and reason != fixture.expected_reason:
        reasons.append(f"escalation reason {reason or 'none'}, wanted {fixture.expected_reason}")
    if not result.text.strip() and fixture.expected_reason is None:
        reasons.append("empty answer without an expected escalation reason")
    return reasons
