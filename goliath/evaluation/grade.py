"""Grading one attempt: a list of reasons it failed; no reasons means it passed.

The grader reads only the :class:`~goliath.records.RunResult` (text, where it finished, step
records, trace), so it grades Goliath and the naive-loop baseline by the same rules. (The turn's
own judge, which catches a lost model during a run, is :mod:`goliath.turn.judge`.)
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..records import RunResult, StepRecord
from ..turn.grounding import ungrounded_numbers
from ..turn.judge import found_nothing
from .fixtures import Fixture

__all__ = [
    "argument_problems",
    "call_problems",
    "executed_writes",
    "grade",
    "judged_sequence",
    "last_escalation",
    "repeated_items",
    "tool_sequence",
    "ungrounded_numbers",
    "value_problems",
]

_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")
_WORD = re.compile(r"[a-z0-9']+")


def tool_sequence(steps: Sequence[StepRecord]) -> list[str]:
    """The tool steps in order, skipped and cached ones included."""
    return [step.tool or "" for step in steps if step.kind == "tool"]


def judged_sequence(steps: Sequence[StepRecord]) -> list[str]:
    """The tool steps the path is judged on: :func:`tool_sequence` less each call that failed,
    or read and found nothing, and was followed at once by a call of the same function — a
    retry, which changed nothing ("no light matches 'hallway light'" then ``Hallway``; a
    search in one folder, then in all). Skipped calls stay: a declined or unfilled write is a
    decision, not a retry. (Judged this way since 2026-12-04, fourth session: the stricter
    judge failed a light turned on or a deposit found because the first try missed;
    docs/evals.md says what moved.)"""
    calls = [step for step in steps if step.kind == "tool"]
    kept = []
    for at, step in enumerate(calls):
        following = calls[at + 1] if at + 1 < len(calls) else None
        missed = step.failed or found_nothing(step)
        if missed and following is not None and following.tool == step.tool:
            continue
        kept.append(step.tool or "")
    return kept


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


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _as_number(word: str) -> float | None:
    try:
        number = float(word)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def _same_text(a: str, b: str) -> bool:
    return " ".join(a.lower().split()) == " ".join(b.lower().split())


def _key(item: Any) -> str:
    """How list items are compared: strings without case or outer spaces, others as JSON."""
    if isinstance(item, str):
        return " ".join(item.lower().split())
    if _is_number(item):
        return repr(float(item))
    return json.dumps(item, sort_keys=True, default=str)


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:59] + "…"


def value_problems(wanted: Any, value: Any, where: str) -> list[str]:
    """Why ``value`` is not ``wanted``, type included; an empty list when it is.

    A number must be a number of the same value (21.5 is not 21, 21.50 is 21.5, "21.5" is a
    string), a bool a bool, a string the same words (case and spacing aside: a value copied
    with extra words is a different value), a list the same items in any order with none
    repeated, an object the wanted keys with the wanted values (other keys are not checked),
    and ``None`` a value left out.
    """
    if wanted is None:
        return [] if value is None else [f"{where} is {_shown(value)}, wanted it left out"]
    if isinstance(wanted, bool):
        if value is wanted:
            return []
        return [f"{where} is {_shown(value)}, wanted {_shown(wanted)}"]
    if _is_number(wanted):
        if _is_number(value) and math.isclose(float(value), float(wanted), rel_tol=1e-9):
            return []
        kind = "" if _is_number(value) or value is None else f" (a {type(value).__name__})"
        return [f"{where} is {_shown(value)}{kind}, wanted the number {_shown(wanted)}"]
    if isinstance(wanted, str):
        if isinstance(value, str) and _same_text(value, wanted):
            return []
        return [f"{where} is {_shown(value)}, wanted {_shown(wanted)}"]
    if isinstance(wanted, (list, tuple)):
        if not isinstance(value, (list, tuple)):
            return [f"{where} is {_shown(value)}, wanted the list {_shown(list(wanted))}"]
        problems = repeated_items(value, where)
        given = {_key(item) for item in value}
        expected = {_key(item) for item in wanted}
        problems += [f"{where} lacks {item}" for item in sorted(expected - given)]
        problems += [f"{where} has {item}, not asked for" for item in sorted(given - expected)]
        return problems
    if isinstance(wanted, Mapping):
        if not isinstance(value, Mapping):
            return [f"{where} is {_shown(value)}, wanted an object {_shown(wanted)}"]
        problems = []
        for name, inner in wanted.items():
            problems += value_problems(inner, value.get(name), f"{where}.{name}")
        return problems
    return [f"{where}: cannot compare with {_shown(wanted)}"]  # pragma: no cover - validated


def repeated_items(value: Any, where: str) -> list[str]:
    """Strings that a list (at any depth) holds more than once: "milk", "Milk" is a repeat."""
    problems: list[str] = []
    if isinstance(value, (list, tuple)):
        seen: set[str] = set()
        for item in value:
            if isinstance(item, str):
                key = _key(item)
                if key in seen:
                    problems.append(f'{where} repeats "{item}"')
                seen.add(key)
            else:
                problems += repeated_items(item, where)
    elif isinstance(value, Mapping):
        for name, inner in value.items():
            problems += repeated_items(inner, f"{where}.{name}")
    return problems


def call_problems(fixture: Fixture, tool: str, values: Mapping[str, Any]) -> list[str]:
    """What is wrong with the typed values of one call: the fixture's ``arg_values`` for this
    tool, and any list argument with an item repeated (whatever the fixture says)."""
    problems: list[str] = []
    for key, wanted in fixture.arg_values.items():
        name, field = key.split(".")
        if name == tool:
            problems += value_problems(wanted, values.get(field), f"{tool} {field}")
    for field, value in values.items():
        if isinstance(value, (list, tuple, Mapping)):
            problems += repeated_items(value, f"{tool} {field}")
    return list(dict.fromkeys(problems))


def _lacks(raw: Any, word: str) -> bool:
    """Whether an argument lacks a wanted word; a number is compared as a number (21.5 is in
    21.5, not in 121.5 or 21.55)."""
    wanted = _as_number(word)
    if _is_number(raw) and wanted is not None:
        return not math.isclose(float(raw), wanted, rel_tol=1e-9)
    return word.lower() not in str(raw if raw is not None else "").lower()


def argument_problems(fixture: Fixture, steps: Sequence[StepRecord]) -> list[str]:
    """Arguments of calls that ran which lack a word the fixture wants, hold another value
    than its ``arg_values``, repeat a list item, or copy the whole ask.

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
            raw = (step.input or {}).get(field, "")
            value = str(raw).lower()
            for word in words:
                if _lacks(raw, word):
                    problems.append(f'{tool} {field} {value[:60]!r} lacks "{word}"')
    for step in ran:
        if isinstance(step.input, Mapping):
            problems.extend(call_problems(fixture, step.tool or "", step.input))
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

    Beyond the tool sequence, writes and words: arguments must hold the fixture's words and
    typed values, repeat no list item and not copy the ask, and an answer to a data ask (one whose good run uses tools) may state only
    numbers that a step returned, the ask or the history held, or ``facts`` gave.
    """
    reasons: list[str] = []
    escalation = fixture.effective_escalation
    if escalation == "forbidden" and result.handled_by == "cloud":
        reasons.append("escalated, but escalation is forbidden")
    if escalation == "expected" and result.handled_by != "cloud":
        reasons.append("stayed on device, but escalation was expected")
    tools = judged_sequence(result.steps)
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
