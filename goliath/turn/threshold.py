"""A condition that compares a number, decided by the harness: "if it's under 19 degrees".

"If my sleep score was under 80, remind me to go to bed early", "if the study is below 18
degrees, set it to 19.5": asked whether the change should be made, the 1.5B model said "no"
to every one of these on the 2026-12-04 runs (sleep score 78, study 17.4, flat 18.5 — each
below the line), so the write the user asked for was never made. Comparing two numbers is not
a job for a language model. Here the ask's comparison ("under", "more than", "at least" and a
number) is read by the harness, the value it is about is taken from what the turn's reads
found (by the words the two share; the model picks, under a closed list, only when several
values are left), and the harness compares (docs/design.md, "A comparison the harness makes").

Only where the number is the condition's: a number the write itself carries ("alert me if
fares drop below 150") is the change's content, and the yes/no condition check keeps it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import attrs

from ..models import Generation
from ..records import StepRecord
from .generation import ModelCaller
from .words import singular, words

__all__ = [
    "PICK_SYSTEM",
    "Comparison",
    "Found",
    "compare",
    "found_values",
    "narrowed",
    "pick_request_parts",
    "stated_comparison",
    "threshold_met",
]

Operator = Literal["<", ">", "<=", ">="]

_NUMBER = r"[-+]?(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:[.,]\d+)?)"
_THOUSANDS = re.compile(r"[-+]?\d{1,3}(?:,\d{3})+(?:\.\d+)?")
_MONEY = r"[€£$]?\s?"
_COMPARISONS: tuple[tuple[str, Operator], ...] = (
    (r"no more than|not more than|at most", "<="),
    (r"at least|no less than|not less than", ">="),
    (
        r"under|below|less than|fewer than|lower than|colder than|cheaper than|smaller than"
        r"|shorter than|beneath",
        "<",
    ),
    (
        r"over|above|more than|greater than|higher than|warmer than|hotter than|bigger than"
        r"|longer than|exceeds?|exceeding",
        ">",
    ),
)
_PATTERN = re.compile(
    r"\b(?P<phrase>"
    + "|".join(f"(?:{phrases})" for phrases, _ in _COMPARISONS)
    + rf")\s+{_MONEY}(?P<number>{_NUMBER})(?![\d:])"
)
_CLAUSE_BREAK = re.compile(r"[,;.?!]\s|[,;.?!]$|\bif (?:so|it is|it was|yes)\b|\bthen\b")
_UNLESS = re.compile(r"\bunless\b")
_STOP = frozenset(
    """a an the and or of to on in at for from by with my me i it is are be was were this that
    its it's if unless only than then so please can could would you your do does did there
    here has have had got i've under below over above more less at least most still""".split()  # noqa: SIM905
)

PICK_SYSTEM = (
    "You read one value for a condition an assistant must check. The request states a "
    "condition with a number; reply with the found value that condition is about."
)
"""The pick's rules, the same for every write (byte-stable)."""

_FIELD = "value"
_MAX_CHOICES = 12
_PLAIN_NUMBER = re.compile(
    rf"^{_MONEY}(?P<number>{_NUMBER})\s?(?:%|°\s?[cf]?|[a-z]{{1,5}})?$", re.IGNORECASE
)


@attrs.frozen
class Comparison:
    """What the ask compares: ``operator`` and ``number``, the clause that says it, and
    whether the change goes when the comparison holds (``if``) or when it does not
    (``unless``)."""

    operator: Operator
    number: float
    clause: str
    go_when_true: bool = True


@attrs.frozen
class Found:
    """One number a read returned: the row it sits in (for a list), its key and its value."""

    row: str
    key: str
    value: float
    text: str

    @property
    def line(self) -> str:
        """How the pick lists it: ``Study current_c: 17.4``."""
        return f"{self.row} {self.key}: {self.text}".strip()


def _number(text: str) -> float:
    """``18.5``, ``18,5`` (a decimal comma) or ``1,204.50`` (thousands)."""
    if _THOUSANDS.fullmatch(text):
        return float(text.replace(",", ""))
    return float(text.replace(",", "."))


def stated_comparison(ask: str) -> Comparison | None:
    """The one comparison with a number the ask states, or ``None`` (none, or more than one:
    the harness does not guess which is the condition)."""
    spoken = re.sub(r"\s+", " ", ask.lower().replace("\u2019", "'"))
    found = list(_PATTERN.finditer(spoken))
    if len(found) != 1:
        return None
    match = found[0]
    phrase = match.group("phrase")
    operator = next(op for phrases, op in _COMPARISONS if re.fullmatch(phrases, phrase))
    start = 0
    for brk in _CLAUSE_BREAK.finditer(spoken, 0, match.start()):
        start = brk.end()
    end_break = _CLAUSE_BREAK.search(spoken, match.end())
    clause = spoken[start : end_break.start() if end_break else len(spoken)].strip()
    return Comparison(
        operator=operator,
        number=_number(match.group("number")),
        clause=clause,
        go_when_true=not _UNLESS.search(clause),
    )


def compare(value: float, comparison: Comparison) -> bool:
    """Whether ``value`` meets the comparison (not yet turned round for ``unless``)."""
    limit = comparison.number
    if comparison.operator == "<":
        return value < limit
    if comparison.operator == ">":
        return value > limit
    if comparison.operator == "<=":
        return value <= limit
    return value >= limit


def _rows(result: str) -> list[tuple[str, list[tuple[str, str]]]]:
    """A read's result as rows of ``(key, value)`` pairs, each with its label (the row's
    first value that is not a number, its name as a rule, for matching the condition's
    item)."""
    text = result.strip()
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict):
        data = [data]
    if isinstance(data, list) and all(isinstance(item, dict) for item in data):
        return [
            (
                next((v for v in item.values() if isinstance(v, str)), ""),
                [(str(k), _flat(v)) for k, v in item.items()],
            )
            for item in data
        ]
    rows: list[tuple[str, list[tuple[str, str]]]] = []
    single: list[tuple[str, str]] = []
    for line in text.split("\n"):
        listed = re.match(r"^\s*\d+\.\s+(.*)$", line)
        if listed:
            pairs = [_pair(part) for part in re.split(r",\s+(?=[\w ]+:\s)", listed.group(1))]
            kept = [pair for pair in pairs if pair is not None]
            label = next((value for _key, value in kept if not _PLAIN_NUMBER.match(value)), "")
            rows.append((label, kept))
        else:
            pair = _pair(line)
            if pair is not None:
                single.append(pair)
    if single:
        rows.insert(0, ("", single))
    return rows


def _flat(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _pair(text: str) -> tuple[str, str] | None:
    key, sep, value = text.partition(": ")
    if not sep or not key.strip():
        return None
    return key.strip(), value.strip()


def found_values(steps: Sequence[StepRecord]) -> list[Found]:
    """Every plain number the reads returned (a time, a date or an id is not one)."""
    values: list[Found] = []
    for step in steps:
        rows = _rows(step.result or "")
        listed = len(rows) > 1
        for label, pairs in rows:
            for key, text in pairs:
                plain = _PLAIN_NUMBER.match(text)
                if plain:
                    row = label if listed else ""
                    values.append(Found(row, key, _number(plain.group("number")), text))
    return values


def _content(text: str) -> set[str]:
    return {singular(word) for word in words(text) if word not in _STOP and not word.isdigit()}


def narrowed(values: Sequence[Found], comparison: Comparison, ask: str) -> list[Found]:
    """The values the comparison may be about: not a number the ask itself says (the
    threshold, the new setting), in the rows whose words the condition names most (the
    study's row, the groceries budget), and, among those, the keys it names (``score``)."""
    said = {_number(n) for n in re.findall(_NUMBER, ask)}
    left = [value for value in values if value.value not in said] or list(values)
    clause = _content(comparison.clause)
    by_row = {value.row: len(_content(value.row) & clause) for value in left}
    best = max(by_row.values(), default=0)
    if best:
        left = [value for value in left if by_row[value.row] == best]
    named = [value for value in left if _content(value.key) & clause]
    return named or left


def pick_request_parts(ask: str, choices: Sequence[Found]) -> tuple[str, dict[str, Any]]:
    """The pick's prompt and schema: the request and the values, one of them to name."""
    lines = [f"Request: {ask}", "Found:", *(f"- {value.line}" for value in choices)]
    lines.append("Which found value is the condition about?")
    schema = {
        "type": "object",
        "properties": {_FIELD: {"type": "string", "enum": [value.line for value in choices]}},
        "required": [_FIELD],
        "additionalProperties": False,
    }
    return "\n".join(lines), schema


def _picked(generation: Generation, choices: Sequence[Found]) -> Found | None:
    try:
        reply = json.loads(generation.text)
    except ValueError:
        return None
    line = reply.get(_FIELD) if isinstance(reply, Mapping) else None
    return next((value for value in choices if value.line == line), None)


async def threshold_met(
    caller: ModelCaller,
    arguments: Mapping[str, Any],
    ask: str,
    reads: Sequence[StepRecord],
) -> tuple[bool, Found] | None:
    """Whether the write goes, by the ask's comparison over what was found, and the value it
    was decided on; ``None`` when the harness cannot decide (no comparison, the number is the
    write's own, nothing found to compare), and the yes/no check then runs."""
    comparison = stated_comparison(ask)
    if comparison is None or _carries(arguments, comparison.number):
        return None
    values = narrowed(found_values(reads), comparison, ask)
    if not values:
        return None
    if len(values) == 1:
        chosen: Found | None = values[0]
    else:
        choices = values[:_MAX_CHOICES]
        prompt, schema = pick_request_parts(ask, choices)
        generation = await caller.call(
            "comparison", PICK_SYSTEM, lambda _compact: prompt, schema, compactable=False
        )
        chosen = _picked(generation, choices)
    if chosen is None:
        return None
    holds = compare(chosen.value, comparison)
    return holds == comparison.go_when_true, chosen


def _carries(arguments: Mapping[str, Any], number: float) -> bool:
    """Whether the write's own values hold the number (it is the change, not its condition)."""
    text = json.dumps(dict(arguments), ensure_ascii=False, default=str)
    return any(_number(found) == number for found in re.findall(_NUMBER, text))
