"""Lenient parsing and matching shared by the reminders … phone domains (suite writer B).

Real assistant apps accept what people say: "tomorrow", "yesterday", "last Friday", "the 14th",
"14 March", "2025-03-14", "7.30pm", "half past six". These helpers read those against the fixed
world of :mod:`evals.world` (Monday 10 March 2025) and fail, like a real app, with an error that
says what was wrong and what would work.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Sequence
from typing import Any

from .. import world

__all__ = [
    "TODAY",
    "find_one",
    "iso",
    "parse_day",
    "parse_past_day",
    "parse_time",
    "weekday",
]

TODAY = world.TODAY
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_MONTHS = (
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
)
_WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
}


def iso(day: datetime.date) -> str:
    return day.isoformat()


def weekday(day: datetime.date) -> str:
    """``Mon``, ``Tue`` …: the short weekday apps print next to a date."""
    return _WEEKDAYS[day.weekday()][:3].capitalize()


def _weekday_index(word: str) -> int | None:
    for index, name in enumerate(_WEEKDAYS):
        if word in (name, name[:3], name[:4], name + "s"):
            return index
    return None


def _month_day(cleaned: str) -> datetime.date | None:
    match = re.fullmatch(
        r"(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)?(?:\s+of)?\s+([a-z]+)(?:\s+(\d{4}))?"
        r"|([a-z]+)\s+(\d{1,2})(?:st|nd|rd|th)?(?:,?\s+(\d{4}))?",
        cleaned,
    )
    if not match:
        return None
    if match[1]:
        day, month, year = match[1], match[2], match[3]
    else:
        day, month, year = match[5], match[4], match[6]
    for index, name in enumerate(_MONTHS):
        if month in (name, name[:3], name[:4]):
            return datetime.date(int(year or TODAY.year), index + 1, int(day))
    return None


def _common(cleaned: str) -> datetime.date | None:
    """ISO dates, ``14 March``, ``March 14``, ``the 14th``, ``14/03``, ``Friday the 14th``;
    ``None`` otherwise."""
    lead = re.fullmatch(r"([a-z]+),?\s+(?:the\s+)?(\d.*)", cleaned)
    if lead and _weekday_index(lead[1]) is not None:
        cleaned = lead[2]
    try:
        return datetime.date.fromisoformat(cleaned)
    except ValueError:
        pass
    found = _month_day(cleaned)
    if found is not None:
        return found
    match = re.fullmatch(r"(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)", cleaned)
    if match:
        return datetime.date(TODAY.year, TODAY.month, int(match[1]))
    match = re.fullmatch(r"(\d{1,2})[/.](\d{1,2})(?:[/.](\d{2,4}))?", cleaned)
    if match:
        year = int(match[3]) if match[3] else TODAY.year
        return datetime.date(year + 2000 if year < 100 else year, int(match[2]), int(match[1]))
    return None


def _clean(text: str) -> str:
    return re.sub(r"\s+", " ", text.strip().lower()).strip(" .,!?")


_HINT = "use today, tomorrow, a weekday, 2025-03-14 or 14 March"


def parse_day(text: str | None) -> datetime.date:
    """A day on or after today: ``today``, ``tomorrow``, ``friday`` (the coming one, today
    included), ``next monday`` (a week on when today is Monday), ``in 3 days``, ``the 14th``,
    ``14 March``, ``March 14``, ``2025-03-14``."""
    cleaned = _clean(text or "")
    cleaned = re.sub(r"^on\s+", "", cleaned)
    if cleaned in ("", "today", "tonight", "this morning", "this afternoon", "this evening", "now"):
        return TODAY
    if cleaned in ("tomorrow", "tmrw", "tomorow", "tommorow", "tomorrow morning", "tomorrow night"):
        return TODAY + datetime.timedelta(days=1)
    if cleaned in ("day after tomorrow", "the day after tomorrow"):
        return TODAY + datetime.timedelta(days=2)
    if cleaned in ("this weekend", "weekend", "the weekend"):
        return TODAY + datetime.timedelta(days=(5 - TODAY.weekday()) % 7)
    match = re.fullmatch(r"in (\d+|[a-z]+) (day|days|week|weeks)", cleaned)
    if match:
        count = int(match[1]) if match[1].isdigit() else _WORDS.get(match[1], 0)
        if count:
            return TODAY + datetime.timedelta(days=count * (7 if "week" in match[2] else 1))
    match = re.fullmatch(
        r"(this|next|coming|this coming)?\s*([a-z]+)(?: (?:morning|evening|night))?", cleaned
    )
    if match:
        index = _weekday_index(match[2])
        if index is not None:
            ahead = (index - TODAY.weekday()) % 7
            if match[1] == "next" and ahead == 0:
                ahead = 7
            return TODAY + datetime.timedelta(days=ahead)
    found = _common(cleaned)
    if found is not None:
        return found
    raise ValueError(f"cannot read the day {text!r}; {_HINT}")


def parse_past_day(text: str | None) -> datetime.date:
    """A day on or before today, for logs: ``today``, ``yesterday``, ``last night`` (the night
    that ended this morning is dated yesterday), ``saturday`` (the latest one), ``last friday``,
    ``3 days ago``, ``8 March``, ``2025-03-08``."""
    cleaned = _clean(text or "")
    cleaned = re.sub(r"^on\s+", "", cleaned)
    if cleaned in ("", "today", "this morning", "now"):
        return TODAY
    if cleaned in ("yesterday", "yday", "yesterdy", "last night", "yesterday evening"):
        return TODAY - datetime.timedelta(days=1)
    if cleaned in ("day before yesterday", "the day before yesterday"):
        return TODAY - datetime.timedelta(days=2)
    match = re.fullmatch(r"(\d+|[a-z]+) (day|days|week|weeks) ago", cleaned)
    if match:
        count = int(match[1]) if match[1].isdigit() else _WORDS.get(match[1], 0)
        if count:
            return TODAY - datetime.timedelta(days=count * (7 if "week" in match[2] else 1))
    match = re.fullmatch(r"(last|this|on|past)?\s*([a-z]+)(?: (?:morning|evening|night))?", cleaned)
    if match:
        index = _weekday_index(match[2])
        if index is not None:
            back = (TODAY.weekday() - index) % 7
            if match[1] == "last" and back == 0:
                back = 7
            return TODAY - datetime.timedelta(days=back)
    found = _common(cleaned)
    if found is not None:
        if found > TODAY:
            raise ValueError(f"{text!r} is in the future; the log runs up to today ({iso(TODAY)})")
        return found
    raise ValueError(f"cannot read the day {text!r}; use today, yesterday, a weekday or 8 March")


def parse_time(text: str) -> str:
    """``HH:MM`` from ``13:00``, ``1pm``, ``1:30 pm``, ``7.30pm``, ``0730``, ``noon``,
    ``midnight``, ``half past 6 pm``, ``7 in the evening``."""
    cleaned = _clean(text).replace("a.m", "am").replace("p.m", "pm").replace("o'clock", "")
    cleaned = cleaned.strip()
    if cleaned in ("noon", "midday", "12 noon"):
        return "12:00"
    if cleaned == "midnight":
        return "00:00"
    suffix = ""
    for words, marker in (
        (" in the morning", "am"),
        (" in the evening", "pm"),
        (" in the afternoon", "pm"),
        (" at night", "pm"),
        (" tonight", "pm"),
    ):
        if cleaned.endswith(words):
            cleaned, suffix = cleaned[: -len(words)].strip(), marker
    match = re.fullmatch(r"(half|quarter) past (\d{1,2})\s*(am|pm)?", cleaned)
    if match:
        minute = 30 if match[1] == "half" else 15
        cleaned = f"{match[2]}:{minute}{match[3] or ''}"
    cleaned = re.sub(r"(\d)[.h](\d{2})", r"\1:\2", cleaned)
    match = re.fullmatch(r"(\d{1,2})(?::(\d{2}))?\s*(am|pm)?", cleaned) or re.fullmatch(
        r"(\d{2})(\d{2})()", cleaned
    )
    if match:
        hour, minute = int(match[1]), int(match[2] or 0)
        half = match[3] or suffix
        if half == "pm" and hour < 12:
            hour += 12
        if half == "am" and hour == 12:
            hour = 0
        if hour < 24 and minute < 60:
            return f"{hour:02d}:{minute:02d}"
    raise ValueError(f"cannot read the time {text!r}; use 13:00, 1pm or 1:30 pm")


def find_one(
    items: Sequence[dict[str, Any]], key: str, wanted: str, what: str, *, keys: Sequence[str] = ()
) -> dict[str, Any]:
    """The one item whose ``key`` (or id, or one of ``keys``) matches ``wanted``, leniently.

    An exact (case-insensitive) match wins; otherwise every word of ``wanted`` must appear in the
    item's name. None or several is an error that lists what there is.
    """
    needle = _clean(wanted)
    if not needle:
        raise ValueError(f"say which {what}; there are: {_names(items, key)}")
    fields = (key, "id", *keys)
    exact = [item for item in items if any(_clean(str(item.get(f, ""))) == needle for f in fields)]
    if len(exact) == 1:
        return exact[0]
    words = [w for w in re.findall(r"[a-z0-9']+", needle) if w not in _FILLER] or [needle]
    found = [
        item
        for item in items
        if all(
            any(_loose(word) in _loose(str(item.get(f, ""))) for f in (key, *keys))
            for word in words
        )
    ]
    if len(found) == 1:
        return found[0]
    if not found:
        raise LookupError(f"no {what} matches {wanted!r}; there are: {_names(items, key)}")
    raise LookupError(
        f"{len(found)} {what}s match {wanted!r} ({_names(found, key)}); say which one"
    )


_FILLER = {"the", "a", "an", "my", "of", "to", "for", "and", "on", "in", "list", "one"}


def _loose(text: str) -> str:
    """Lower case without apostrophes, hyphens or a plural ``s``, for forgiving matches."""
    text = text.lower().replace("'", "").replace("’", "").replace("-", " ")
    return re.sub(r"(\w{3,})s\b", r"\1", text)


def _names(items: Sequence[dict[str, Any]], key: str) -> str:
    return ", ".join(str(item.get(key)) for item in items) or "none"
