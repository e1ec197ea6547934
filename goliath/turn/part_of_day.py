"""The part of the day an ask names, told to the answer as the rows that fall in it.

"Have I got anything on Wednesday night?" read Wednesday's events — a team sync at 10:00 and
climbing at 19:30 — and the 1.5B model answered "an event ... at 10:00 PM" (dev, second
wording). Which clock times are the evening is arithmetic. When the ask names one part of the
day (morning, afternoon, evening, night, tonight) and the last read's rows carry clock times
on both sides of it, the answer is told which rows fall in that part, or that none does
(docs/design.md, "The part of the day the ask names").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..records import StepRecord
from .grounding import last_ran
from .threshold import result_rows

__all__ = ["part_of_day_note"]

_PARTS: dict[str, tuple[int, int, str]] = {
    "morning": (5, 12, "in the morning"),
    "afternoon": (12, 17, "in the afternoon"),
    "evening": (17, 24, "in the evening"),
    "tonight": (17, 24, "in the evening"),
    "night": (18, 24, "at night"),
}
"""Each part of the day: the hours it spans (from, to) and how the note says it."""
_PART_WORD = re.compile(r"\b(" + "|".join(_PARTS) + r")\b")
_GREETING = re.compile(r"\bgood (?:morning|afternoon|evening|night)\b|^\W*morning\b")
_CLOCK = re.compile(r"^(\d{1,2}):(\d{2})$")
_TIME_KEYS = ("start", "starts", "time", "at", "from")
"""The keys a row's clock time is read from, first found first."""


def part_of_day_note(ask: str, steps: Sequence[StepRecord]) -> str | None:
    """The note for the answer, or ``None``: the ask names no part of the day or two, the last
    read is no list of rows with clock times, or all of them fall on one side."""
    spoken = _GREETING.sub(" ", ask.lower())  # "good morning, what's on today?"
    named = set(_PART_WORD.findall(spoken))
    if len(named) != 1:
        return None
    start, end, said = _PARTS[named.pop()]
    last = last_ran(steps)
    if last is None or last.writes:
        return None
    inside: list[str] = []
    outside = 0
    for label, pairs in result_rows(last.result or ""):
        clock = _clock(dict(pairs))
        if clock is None:
            continue
        if start <= int(clock[:2]) < end:
            inside.append(f"{label} at {clock}" if label else clock)
        else:
            outside += 1
    if not outside:
        return None
    span = f"{start:02d}:00 to {end % 24:02d}:00"
    if not inside:
        return f"None of the results above is {said} ({span})."
    return f"Of the results above, {said} ({span}): " + "; ".join(inside) + "."


def _clock(row: dict[str, str]) -> str | None:
    """The row's clock time as ``HH:MM`` (the first of ``_TIME_KEYS`` that holds one)."""
    for key in _TIME_KEYS:
        match = _CLOCK.match(row.get(key, "").strip())
        if match and int(match.group(1)) < 24:
            return f"{int(match.group(1)):02d}:{match.group(2)}"
    return None
