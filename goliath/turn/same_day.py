"""A condition on a day, decided by the harness: "if it's Noor's birthday today".

"If it's Noor's birthday today, text her happy birthday": the contact's ``birthday: 13 March
1992`` was read, today is 10 March, and asked yes or no the 1.5B model let the message go
(held-out, 2026-12-05, both wordings: the only unexpected writes of their kind). Whether a date
is today is arithmetic. Here a condition that says "today", "tomorrow" or "yesterday" and names
a key the reads returned a date under ("birthday", "due") is decided by the harness: the date
on the row the condition (or the write) names, against today's date (docs/design.md, "A state
or a day the harness checks"). A key for a day that comes back each year ("birthday",
"anniversary") or a date with no year compares the day and month only.

Today is what the app's facts say (a fact named "today" or "date" holding a date), else the
machine's clock. No decision — the yes/no check runs as before — with two days named, a
negation beyond one, "and"/"or" in the condition, no key the condition names, or no single
row it is about.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from ..records import StepRecord
from .clause import condition_at, spoken
from .dates import calendar_day
from .threshold import carried_texts, content_words, result_rows
from .words import words

__all__ = ["FoundDay", "day_met", "found_days", "today_from"]

_DAY_WORD = re.compile(r"\b(?P<word>today|tonight|tomorrow|tmrw|yesterday)\b")
_OFFSET = {"today": 0, "tonight": 0, "tomorrow": 1, "tmrw": 1, "yesterday": -1}
_SAID = {
    "today": "today",
    "tonight": "today",
    "tomorrow": "tomorrow",
    "tmrw": "tomorrow",
    "yesterday": "yesterday",
}
_YEARLY = frozenset({"birthday", "bday", "anniversary"})
_NEGATION = re.compile(r"\b(?:not|never)\b|n't\b")
_JOINED = re.compile(r"\b(?:and|or|but|either|both)\b")
_SPAN = re.compile(
    r"\b(?:from|within|by|before|after|until|till|since|than|ago|past|next|last|week|weeks"
    r"|days|months|nobody|no one|anyone|everyone)\b"
)
_TODAY_FACTS = frozenset({"today", "date", "now", "datetime"})


@attrs.frozen
class FoundDay:
    """One date a read returned: its row's name, key, the value as written and as a day."""

    row: str
    key: str
    text: str
    year: int | None
    month: int
    day: int
    row_values: tuple[str, ...] = ()
    against: str = ""

    @property
    def line(self) -> str:
        """How a withheld write's note names it, with the day it was compared with:
        ``Noor Haddad birthday: 13 March 1992; today is 10 March 2025`` (the answer is told
        both, so it does not call the found day today)."""
        found = f"{self.row} {self.key}: {self.text}".strip()
        return f"{found}; {self.against}" if self.against else found


def found_days(steps: Sequence[StepRecord]) -> list[FoundDay]:
    """Every value the reads returned that is a date whole."""
    days: list[FoundDay] = []
    for step in steps:
        rows = result_rows(step.result or "")
        for label, pairs in rows:
            values = tuple(value.lower() for _key, value in pairs)
            for key, text in pairs:
                day = calendar_day(text)
                if day is not None:
                    days.append(FoundDay(label, key, text, *day, row_values=values))
    return days


def today_from(facts: Mapping[str, str] | None) -> datetime.date | None:
    """Today: the app's fact named "today", "date" or "now" where it holds a whole date with a
    year; ``None`` where such a fact holds anything else (a weekday, a date with no year: the
    app's today is not the machine's); the machine's clock where the app gives none."""
    given = False
    for name, value in (facts or {}).items():
        if set(words(name)) & _TODAY_FACTS and isinstance(value, str):
            given = True
            day = calendar_day(value)
            if day is not None and day[0] is not None:
                try:
                    return datetime.date(day[0], day[1], day[2])
                except ValueError:
                    continue
    return None if given else datetime.date.today()


def _row_of(
    named: Sequence[FoundDay], said: set[str], arguments: Mapping[str, Any]
) -> FoundDay | None:
    """The date the condition is about: the row its words name (the write must not name
    another outright), else the row the write names, else the only one."""
    carried = set(carried_texts(arguments))
    scores = [len(content_words(day.row) & said) for day in named]
    best = max(scores)
    by_condition = [day for day, score in zip(named, scores, strict=True) if score == best]
    by_write = [day for day in named if carried & set(day.row_values)]
    if best:
        if len(by_condition) != 1 or any(day is not by_condition[0] for day in by_write):
            return None
        return by_condition[0]
    if len(by_write) == 1:
        return by_write[0]
    return named[0] if len(named) == 1 else None


def day_met(
    arguments: Mapping[str, Any],
    ask: str,
    reads: Sequence[StepRecord],
    facts: Mapping[str, str] | None = None,
) -> tuple[bool, FoundDay] | None:
    """Whether the write goes, by the day the ask's condition names against the date the
    reads returned under the key it names, and that date; ``None`` when the harness cannot
    decide."""
    text = spoken(ask)
    conditions = []
    for match in _DAY_WORD.finditer(text):
        clause = condition_at(text, match.start(), match.end())
        if clause is not None:
            conditions.append((match["word"], clause))
    if len(conditions) != 1:
        return None
    word, clause = conditions[0]
    if (
        len(_NEGATION.findall(clause.text)) > 1
        or _JOINED.search(clause.text)
        or _SPAN.search(clause.text)
    ):
        return None  # "more than a week from today", "due by today": not the day itself
    said = content_words(clause.text)
    named = [day for day in found_days(reads) if content_words(day.key) & said]
    if not named:
        return None
    found = _row_of(named, said, arguments)
    today = today_from(facts)
    if found is None or today is None:
        return None
    target = today + datetime.timedelta(days=_OFFSET[word])
    found = attrs.evolve(found, against=f"{_SAID[word]} is {target.day} {target:%B %Y}")
    yearly = found.year is None or bool(set(words(found.key)) & _YEARLY)
    same = (found.month, found.day) == (target.month, target.day) and (
        yearly or found.year == target.year
    )
    holds = same != bool(_NEGATION.search(clause.text))
    return holds == clause.go_when_true, found
