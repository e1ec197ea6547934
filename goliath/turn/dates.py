"""A day written with more than it needs is written plainly before the call.

The 1.5B model fills a day parameter with what it read: "Monday 10 March 2025" copied from the
facts, "Saturday 22 March" from a result, "Wednesday evening" from the ask. A tool's parser that
reads "2025-03-14", "14 March" or "Wednesday" refuses each of them ("cannot read the day
'Saturday 22 March'"), and the turn answers from the failure or writes nothing. Each rewrite here
keeps the day the value names and drops only what a day does not need:

- a weekday beside a date ("Saturday 22 March" → "22 March"): the date decides the weekday;
- a day, month and year ("10 March 2025", "March 10th, 2025") → ISO 8601 ("2025-03-10"), the
  form every date parser reads;
- a part of the day after a day ("Wednesday evening" → "Wednesday", "tomorrow morning" →
  "tomorrow") — only for a parameter named as a day (``date``, ``day``, ``night``) whose
  description names no time; a ``due`` or ``deadline`` may hold one.

A parameter holds a day when its name says so (``date``, ``day``, ``due``, ``night``,
``deadline``: ``new_date``, ``dueDate``) or its description opens by saying so ("The day:
today, a weekday ..."), it is a string, and neither its name nor its format says it holds a
time (``start_time``, ``format: date-time``). A weekday beside a date is trusted to be the
date's own: the person confirms a write with the date as rewritten. Nothing else is touched: an ISO date, "14 March", "tomorrow",
a value the rules do not recognise whole (it may be a range, a time, a name) stay as written.
No model call; the person confirms a write with the value as rewritten.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Mapping
from typing import Any

from ..tools import Tool
from .words import words
from .write_gate import adds_item, sets_anew, sets_anything

__all__ = [
    "calendar_day",
    "day_of_month",
    "day_parameters",
    "next_weekday",
    "plain_day",
    "plain_days",
]

_MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_MONTH = r"(?P<month>sept|" + "|".join(m[:3] + f"(?:{m[3:]})?" for m in _MONTHS) + r")\.?"
_WEEKDAY = r"(?:tues|thurs|" + "|".join(d[:3] + f"(?:{d[3:]})?" for d in _WEEKDAYS) + r")\.?"
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>\d{4})"
_PART = r"(?:morning|afternoon|evening|night|lunchtime|noon)"
_SEP = r"[\s,]+"

_DATE = re.compile(
    rf"^(?:(?P<weekday>{_WEEKDAY}){_SEP})?(?:the{_SEP})?"
    rf"(?:{_DAY}(?:{_SEP}of)?{_SEP}{_MONTH}|{_MONTH.replace('month>', 'month2>')}{_SEP}"
    rf"{_DAY.replace('day>', 'day2>')})"
    rf"(?:{_SEP}{_YEAR})?(?:{_SEP}(?P<weekday2>{_WEEKDAY}))?$",
    re.IGNORECASE,
)
_DAY_WITH_PART = re.compile(
    rf"^(?:on{_SEP})?(?P<day>today|tomorrow|{_WEEKDAY}){_SEP}{_PART}$|^this{_SEP}{_PART}$",
    re.IGNORECASE,
)
_DAY_WITH_CLOCK = re.compile(
    r"^(?:on\s+)?(?P<day>.+?)(?:[\s,]+(?:at|@))?[\s,]+"
    r"(?P<clock>\d{1,2}:\d{2}(?:\s*[ap]\.?m\.?)?|\d{1,2}\s*[ap]\.?m\.?|noon|midnight)$",
    re.IGNORECASE,
)
"""A day with a clock time after it ("Thursday 19:00", "Friday at 9pm"): only a clock with a
colon or am/pm, so "March 14" keeps its day."""
_ONE_DAY = re.compile(
    rf"^(?:on\s+|this\s+|next\s+)?(?:today|tonight|tomorrow|{_WEEKDAY})$", re.IGNORECASE
)
_DAY_NAME_WORDS = frozenset({"date", "day", "due", "night", "deadline"})
_PART_NAME_WORDS = frozenset({"date", "day", "night"})
"""Names of a parameter that holds a day and nothing finer: only these lose a part of the day
("due" and "deadline" may hold a time too: "due tomorrow morning")."""
_TIME_WORDS = frozenset(
    {"time", "hour", "hours", "minute", "minutes", "datetime", "timestamp", "am", "pm", "when"}
)
_TIME_FORMATS = frozenset({"date-time", "time", "duration"})
_CLOCK = re.compile(r"\d\s*(?:am|pm)\b|\d:\d", re.IGNORECASE)


def _is_string(spec: Mapping[str, Any]) -> bool:
    kind = spec.get("type")
    if kind == "string" or (isinstance(kind, list) and "string" in kind):
        return True
    options = spec.get("anyOf") or spec.get("oneOf") or []
    return any(isinstance(option, Mapping) and option.get("type") == "string" for option in options)


def day_parameters(tool: Tool) -> list[str]:
    """The tool's string parameters that hold a day: by their name (``date``, ``due_date``,
    ``night``), or a description that opens by saying so ("The day: ...", "Date of the
    event"); never one whose format or name says it holds a time."""
    schema = tool.schema if isinstance(tool.schema, dict) else {}
    found = []
    for name, spec in (schema.get("properties") or {}).items():
        if not isinstance(spec, Mapping) or not _is_string(spec) or "enum" in spec:
            continue
        if spec.get("format") in _TIME_FORMATS or set(words(name)) & _TIME_WORDS:
            continue
        opening = set(words(str(spec.get("description", "")))[:4])
        if set(words(name)) & _DAY_NAME_WORDS or {"date", "day"} & opening:
            found.append(name)
    return found


def _holds_a_time(name: str, spec: Any) -> bool:
    """Whether a day parameter may also hold a time of day, so a part of the day matters."""
    if not isinstance(spec, Mapping):
        return True
    description = str(spec.get("description", ""))
    return (
        not set(words(name)) & _PART_NAME_WORDS
        or bool(set(words(description)) & _TIME_WORDS)
        or bool(_CLOCK.search(description))
    )


def plain_day(value: str, *, allow_part: bool = True, allow_clock: bool = False) -> str:
    """``value`` with what a day does not need dropped (the module's rules); unchanged when no
    rule recognises it whole."""
    text = " ".join(value.split())
    match = _DATE.match(text)
    if match:
        month_text = (match["month"] or match["month2"]).lower()[:3]
        month = next(i for i, m in enumerate(_MONTHS, start=1) if m.startswith(month_text))
        day = int(match["day"] or match["day2"])
        if match["year"]:
            try:
                return datetime.date(int(match["year"]), month, day).isoformat()
            except ValueError:
                return value
        if match["weekday"] or match["weekday2"]:
            named = _MONTHS[month - 1].capitalize()
            return f"{named} {day}" if match["month2"] else f"{day} {named}"
        return value
    if allow_part:
        timed = allow_clock and _DAY_WITH_CLOCK.match(text)  # "Thursday 19:00": a time field
        if timed and (
            _DATE.match(timed["day"]) or _ISO.match(timed["day"]) or _ONE_DAY.match(timed["day"])
        ):
            return plain_day(timed["day"], allow_part=allow_part)
        part = _DAY_WITH_PART.match(text)
        if part and part["day"]:
            return part["day"]
        if part:
            return "today"
    return value


_ISO = re.compile(
    r"^(?P<year>\d{4})-(?P<month>\d{2})-(?P<day>\d{2})(?:[t ]\d{2}:\d{2}(?::\d{2})?\S*)?$",
    re.IGNORECASE,
)


def calendar_day(value: str) -> tuple[int | None, int, int] | None:
    """The ``(year, month, day)`` a value names whole ("2025-03-13", "13 March 1992",
    "March 13", a weekday beside it or a time after an ISO date), the year ``None`` where it
    gives none; ``None`` for anything else."""
    text = " ".join(value.split())
    iso = _ISO.match(text)
    if iso:
        return int(iso["year"]), int(iso["month"]), int(iso["day"])
    match = _DATE.match(text)
    if not match:
        return None
    month_text = (match["month"] or match["month2"]).lower()[:3]
    month = next(i for i, m in enumerate(_MONTHS, start=1) if m.startswith(month_text))
    return (
        (int(match["year"]) if match["year"] else None),
        month,
        int(match["day"] or match["day2"]),
    )


_DAY_OF_MONTH = re.compile(
    r"^(?:on\s+)?(?:the\s+)?(?P<day>\d{1,2})(?:st|nd|rd|th)(?:\s+of\s+the\s+month)?$",
    re.IGNORECASE,
)


def day_of_month(value: str, today: datetime.date | None) -> str:
    """A day named only by its day of the month ("the 15th", "1st") as the next such day on
    or after ``today``, in ISO 8601 ("2025-03-15"): "make it due on the 15th" has no month,
    and a parser that reads "14 March" refuses "15th". Unchanged without ``today``, for a
    number with no ordinal ("15" may be a count), or a day no month holds."""
    match = _DAY_OF_MONTH.match(" ".join(value.split()))
    if match is None or today is None:
        return value
    day = int(match["day"])
    year, month = today.year, today.month
    for _ in range(12):  # the 31st: the next month that has one
        if (year, month) != (today.year, today.month) or day >= today.day:
            try:
                return datetime.date(year, month, day).isoformat()
            except ValueError:
                pass
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return value


_WEEKDAY_ONLY = re.compile(rf"^(?:on\s+)?(?:next\s+)?(?P<weekday>{_WEEKDAY})$", re.IGNORECASE)


def next_weekday(value: str, said: str, today: datetime.date | None) -> str:
    """Today's weekday, when the user said "next" before it, as the date a week from today:
    "what do I have next Monday?" asked on a Monday became ``day="monday"``, which a tool
    reads as today. Said on another day, "next Monday" is left to the tool (people differ on
    whether it is the coming one); a weekday the user did not say "next" before stays."""
    match = _WEEKDAY_ONLY.match(" ".join(value.split()))
    if match is None or today is None:
        return value
    named = match["weekday"].lower()[:3]
    weekday = next(i for i, day in enumerate(_WEEKDAYS) if day.startswith(named))
    if weekday != today.weekday():
        return value
    full = _WEEKDAYS[weekday]
    forms = "|".join(
        sorted({full, full[:3], *(f for f in ("tues", "thurs") if full.startswith(f))})
    )
    mentions = list(re.finditer(rf"\b(next\s+)?(?:{forms})\b", said, re.IGNORECASE))
    if not mentions or not all(mention.group(1) for mention in mentions):
        return value  # "from monday to next monday": the value may be either
    return (today + datetime.timedelta(days=7)).isoformat()


def plain_days(
    tool: Tool,
    values: Mapping[str, Any],
    *,
    today: datetime.date | None = None,
    said: str = "",
) -> dict[str, Any]:
    """``values`` with every day parameter written plainly (a part of the day is dropped only
    where the parameter's description names no time; a day of the month alone is dated from
    ``today``, and so is "next Monday" said on a Monday — ``said`` is the user's words)."""
    out = dict(values)
    schema = tool.schema if isinstance(tool.schema, dict) else {}
    properties = schema.get("properties") or {}
    for name in day_parameters(tool):
        value = out.get(name)
        if isinstance(value, str) and value.strip():
            if _sets_a_day(tool, name, properties.get(name)):
                value = day_of_month(value, today)
            value = next_weekday(value, said, today)
            out[name] = plain_day(
                value,
                allow_part=not _holds_a_time(name, properties.get(name)),
                allow_clock=not tool.writes or _has_a_time(properties),
            )
    return out


def _has_a_time(properties: Mapping[str, Any]) -> bool:
    """Whether the call has a parameter of its own for the time of day (``time``,
    ``start_time``, a ``time`` format): only then does a write lose a clock written after a
    day (a read of the day's items loses nothing by it)."""
    return any(
        set(words(name)) & {"time", "hour", "clock"}
        or (isinstance(spec, Mapping) and spec.get("format") == "time")
        for name, spec in properties.items()
    )


_EVERY = re.compile(r"month|every|each|recur|repeat", re.IGNORECASE)


def _sets_a_day(tool: Tool, name: str, spec: Any) -> bool:
    """Whether a day parameter sets a day to come: of an item a write adds or moves
    (``create_task(due)``, ``reschedule_task(due)``, a ``new_date``). A read's day, or a
    logged one, may be past ("what did I spend on the 3rd?"), and a day of every month
    (``day_of_month``, "on the 1st of every month") is no one date."""
    description = str(spec.get("description", "")) if isinstance(spec, Mapping) else ""
    if _EVERY.search(name) or _EVERY.search(description):
        return False
    return tool.writes and (
        adds_item(tool.name) or sets_anything(tool.name) or sets_anew(name, spec)
    )
