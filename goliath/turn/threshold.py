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

from .._origin import origin_of
from ..classify import is_invalid_output
from ..models import Generation
from ..records import StepRecord
from .clause import condition_at, spoken
from .generation import ModelCaller
from .words import FUNCTION_WORDS, singular, words
from .yes_no import choice_schema

__all__ = [
    "PICK_SYSTEM",
    "Comparison",
    "Found",
    "carried_texts",
    "compare",
    "content_words",
    "found_values",
    "leaves",
    "narrowed",
    "pick_request_parts",
    "result_rows",
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
    + rf")\s+{_MONEY}(?P<number>{_NUMBER})"
    + r"(?![\d:]|[.,\s/-]\d|\s?(?:k|m|bn|million|thousand|grand)\b)"
)
_NEGATION = re.compile(r"\b(?:not|no|never|nothing|none|otherwise|dont|don)\b|n't\b")
_JOINED = re.compile(r"\b(?:and|or|but|than|either|both)\b")
_STOP = FUNCTION_WORDS | frozenset(
    """a an or of to on in at by i be were its it's if unless only than then so do there
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
    """What the ask compares: ``operator`` and ``number``, the sentence that says it (its
    words find the value), and whether the change goes when the comparison holds (``if``)
    or when it does not (``unless``)."""

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
    """The one comparison with a number the ask makes its condition, or ``None``.

    ``None`` — the harness does not decide — for no comparison or two; one that is not a
    condition ("book a table for over 4 people if nothing clashes": no "if" opens its own
    clause); one with a negation, "and", "or" or a second "than" in its condition ("if it is
    not above 20", "if it is over 18 and I am home", "2 degrees colder than yesterday"); a
    number with more after it ("2k", "1 000", a date). A yes/no question that makes the
    comparison ("Is it colder than 18 in here? If so, ...") is a condition too."""
    text = spoken(ask)
    found = list(_PATTERN.finditer(text))
    if len(found) != 1:
        return None
    match = found[0]
    operator = next(op for phrases, op in _COMPARISONS if re.fullmatch(phrases, match["phrase"]))
    clause = condition_at(text, match.start(), match.end())
    if clause is None:
        return None
    condition = clause.text
    if _NEGATION.search(clause.sentence) or _JOINED.search(condition.replace(match.group(0), " ")):
        return None
    return Comparison(
        operator=operator,
        number=_number(match.group("number")),
        clause=clause.sentence,
        go_when_true=clause.go_when_true,
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


_NAME_KEYS = ("name", "title", "zone", "room", "category", "label", "account", "item", "device")
_ID_LIKE = re.compile(r"\d|^[a-z]{1,4}-|@")
_LABEL_CHARS = 40


def _label(pairs: Sequence[tuple[str, str]]) -> str:
    """A row's name, for matching the condition's item: a value under a name-like key
    (``name``, ``zone``, ``category`` ...), else the first value that is no number, id or
    date."""
    for key, value in pairs:
        if any(part in _NAME_KEYS for part in words(key)) and not _PLAIN_NUMBER.match(value):
            return value[:_LABEL_CHARS]
    for _key, value in pairs:
        if not _PLAIN_NUMBER.match(value) and not _ID_LIKE.search(value.lower()):
            return value[:_LABEL_CHARS]
    return ""


def result_rows(result: str) -> list[tuple[str, list[tuple[str, str]]]]:
    """A read's result as rows of ``(key, value)`` pairs, each with its label (``_label``)."""
    text = result.strip()
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict):
        data = [data]
    if isinstance(data, list) and all(isinstance(item, dict) for item in data):
        rows = []
        for item in data:
            pairs = [(str(k), _flat(v)) for k, v in item.items()]
            rows.append((_label(pairs), pairs))
        return rows
    rows = []
    single: list[tuple[str, str]] = []
    for line in text.split("\n"):
        listed = re.match(r"^\s*\d+\.\s+(.*)$", line)
        if listed:
            parts = re.split(r",\s+(?=[\w ]+:\s)", listed.group(1))
            pairs = [pair for pair in map(_pair, parts) if pair is not None]
            rows.append((_label(pairs), pairs))
        else:
            pair = _pair(line)
            if pair is not None:
                single.append(pair)
    if single:
        rows.insert(0, (_label(single), single))
    return rows


def _flat(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _pair(text: str) -> tuple[str, str] | None:
    key, sep, value = text.partition(": ")
    if not sep or not key.strip():
        return None
    return key.strip(), value.strip()


def found_values(steps: Sequence[StepRecord]) -> list[Found]:
    """Every plain number the reads returned (a time, a date or an id is not one), each
    line told apart from the others (a row's place where two would read the same)."""
    values: list[Found] = []
    for step in steps:
        rows = result_rows(step.result or "")
        listed = len(rows) > 1
        for place, (label, pairs) in enumerate(rows, start=1):
            for key, text in pairs:
                plain = _PLAIN_NUMBER.match(text)
                if plain:
                    row = (label or f"#{place}") if listed else ""
                    values.append(Found(row, key, _number(plain.group("number")), text))
    seen: dict[str, int] = {}
    unique = []
    for value in values:
        count = seen[value.line] = seen.get(value.line, 0) + 1
        unique.append(value if count == 1 else attrs.evolve(value, row=f"{value.row} ({count})"))
    return unique


def content_words(text: str) -> set[str]:
    """The words that name things (singular), not the little ones or the numbers."""
    return {singular(word) for word in words(text) if word not in _STOP and not word.isdigit()}


def _named(value: Found, said: set[str]) -> bool:
    return bool((content_words(value.key) | content_words(value.row)) & said)


def narrowed(
    values: Sequence[Found], comparison: Comparison, arguments: Mapping[str, Any] | None = None
) -> list[Found] | None:
    """The values the comparison may be about, or ``None`` when the harness must not decide.

    Left out: a number the write carries (the new setting) and one equal to the threshold
    whose key the condition does not name (a target the model would copy) — but for "at
    most" or "at least", where a value on the line decides, such a value leaves the
    decision to the yes/no check. Kept: the rows whose name the condition names most (the
    study's row, the groceries budget), and, among those, the keys it names (``score``)."""
    said = content_words(comparison.clause)
    carried = _numbers_in(arguments or {})
    left = [value for value in values if value.value not in carried]
    on_the_line = [
        v for v in left if v.value == comparison.number and not (content_words(v.key) & said)
    ]
    if on_the_line and comparison.operator in ("<=", ">="):
        return None
    left = [value for value in left if value not in on_the_line]
    by_row = {value.row: len(content_words(value.row) & said) for value in left}
    best = max(by_row.values(), default=0)
    if best:
        left = [value for value in left if by_row[value.row] == best]
    named = [value for value in left if content_words(value.key) & said]
    return named or left


_NONE = "none of these"


def pick_request_parts(ask: str, choices: Sequence[Found]) -> tuple[str, dict[str, Any]]:
    """The pick's prompt and schema: the request and the values, one of them (or none) to
    name."""
    lines = [f"Request: {ask}", "Found:", *(f"- {value.line}" for value in choices)]
    lines.append("Which found value is the condition about?")
    options = [value.line for value in choices] + [_NONE]
    return "\n".join(lines), choice_schema(_FIELD, options)


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
    was decided on; ``None`` when the harness cannot decide (no comparison it can read, the
    number is the write's own, nothing found to compare, the model names none), and the
    yes/no check then runs.

    One value left whose key or row the condition names is compared with no model call; any
    other case asks the model to name one under a closed list with "none of these" ("unless
    I have at least 3 items" over a list of quantities names none)."""
    comparison = stated_comparison(ask)
    if comparison is None or comparison.number in _numbers_in(arguments):
        return None
    values = narrowed(found_values(reads), comparison, arguments)
    if not values:
        return None
    said = content_words(comparison.clause)
    if len(values) == 1 and _named(values[0], said):
        chosen: Found | None = values[0]
    else:
        choices = values[:_MAX_CHOICES]
        prompt, schema = pick_request_parts(ask, choices)
        try:
            generation = await caller.call(
                "comparison", PICK_SYSTEM, lambda _compact: prompt, schema, compactable=False
            )
        except Exception as exc:
            if origin_of(exc) == "model" and is_invalid_output(exc):
                return None  # a reply cut short: the yes/no check decides
            raise
        chosen = _picked(generation, choices)
    if chosen is None:
        return None
    holds = compare(chosen.value, comparison)
    return holds == comparison.go_when_true, chosen


_CARRIED = re.compile(r"(?<![\w:.,-])" + _NUMBER + r"(?![\w:]|[.,-]\d)")


def _numbers_in(arguments: Mapping[str, Any]) -> set[float]:
    """The standalone numbers the write's values hold (not a time's, a date's or an id's)."""
    found: set[float] = set()
    for value in leaves(arguments):
        if isinstance(value, bool):
            continue
        if isinstance(value, (int, float)):
            found.add(float(value))
        elif isinstance(value, str):
            found.update(_number(text) for text in _CARRIED.findall(value))
    return found


def carried_texts(arguments: Mapping[str, Any]) -> list[str]:
    """The write's text values, lower case, for finding the row it names."""
    return [v.strip().lower() for v in leaves(arguments) if isinstance(v, str) and v.strip()]


def leaves(value: Any) -> list[Any]:
    """Every value inside ``value``, nested mappings and lists opened."""
    if isinstance(value, Mapping):
        return [leaf for item in value.values() for leaf in leaves(item)]
    if isinstance(value, (list, tuple)):
        return [leaf for item in value for leaf in leaves(item)]
    return [value]
