"""A clock time said in words, kept to its minutes: "quarter past six" is 6:15, not 6:30.

"Wake me up at quarter past six tomorrow" was filled ``time: "06:30"``, and "change the work
alarm so it goes off at ten past seven" ``"07:30"`` (dev, second wordings): the 1.5B model
gets the hour from the words and guesses the minutes. Reading "quarter past", "half past",
"ten to" is not a job for a language model. Here the harness reads the spoken times of the
ask, and a filled ``HH:MM`` whose hour is the spoken one (on either half of the day, so the
model's choice of morning or evening stands) gets the spoken minutes
(docs/design.md, "A clock time said in words").

Only where it can decide: one spoken time per hour in the ask, a value in ``H:MM`` form
whose hour is that time's hour and which the ask does not write out itself ("move the 6:30
call to quarter past six" keeps the 6:30 that names the call); anything else is left as
filled.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

__all__ = ["spoken_minutes", "spoken_times"]

_HOURS = {
    word: number
    for number, word in enumerate(
        [
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
        ],
        start=1,
    )
}
_MINUTES = {
    "five": 5,
    "ten": 10,
    "quarter": 15,
    "a quarter": 15,
    "twenty": 20,
    "twenty five": 25,
    "twenty-five": 25,
    "half": 30,
}
_HOUR = r"(?P<hour>one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|1[0-2]|[1-9])"
_SPOKEN = re.compile(
    r"\b(?P<minutes>a quarter|quarter|half|twenty[ -]five|twenty|ten|five|[1-5]?[0-9])"
    r"(?: minutes?)? (?P<way>past|after|to|before) " + _HOUR + r"\b(?!:|\.\d)"
)
_RANGE = re.compile(r"\b(?:from|between)\s+$")
_CLOCK = re.compile(r"(?<![\d:])(?P<hour>[01]?\d|2[0-3]):(?P<minute>[0-5]\d)(?![\d])")


def spoken_times(ask: str) -> dict[int, int]:
    """The ask's clock times said in words, as ``{hour on a 12-hour dial: minutes}``; an hour
    said twice with other minutes is left out (no way to tell which is meant)."""
    text = re.sub(r"\s+", " ", ask.lower().replace("\u2019", "'"))
    found: dict[int, set[int]] = {}
    for match in _SPOKEN.finditer(text):
        said = match["minutes"]
        minutes = _MINUTES.get(said) if not said.isdigit() else int(said)
        if minutes is None or not 0 < minutes < 60:
            continue
        backwards = match["way"] in ("to", "before")
        if backwards and (said == "half" or said.isdigit()):
            continue  # "half to" is no time; "2 to 4" is a range
        if _RANGE.search(text[: match.start()]):
            continue  # "from ten to four", "between five past and ..."
        hour = _HOURS.get(match["hour"]) or int(match["hour"])
        if backwards:
            hour, minutes = hour - 1 or 12, 60 - minutes
        found.setdefault(hour % 12, set()).add(minutes)
    return {hour: minutes.pop() for hour, minutes in found.items() if len(minutes) == 1}


def spoken_minutes(values: Mapping[str, Any], ask: str) -> dict[str, Any]:
    """``values`` with each ``H:MM`` time whose hour the ask said in words given the minutes
    the ask said ("quarter past six": ``06:30`` → ``06:15``, ``18:30`` → ``18:15``)."""
    times = spoken_times(ask)
    if not times:
        return dict(values)
    written = {(int(m["hour"]) % 12, int(m["minute"])) for m in _CLOCK.finditer(ask)}

    def fixed(match: re.Match[str]) -> str:
        hour = int(match["hour"])
        minutes = times.get(hour % 12)
        if minutes is None or (hour % 12, int(match["minute"])) in written:
            return match.group()  # "move the 6:30 call to quarter past six": the item's time
        return f"{match['hour']}:{minutes:02d}"

    def mend(value: Any) -> Any:
        if isinstance(value, str):
            return _CLOCK.sub(fixed, value)
        if isinstance(value, Mapping):
            return {key: mend(item) for key, item in value.items()}
        if isinstance(value, list):
            return [mend(item) for item in value]
        return value

    return {name: mend(value) for name, value in values.items()}
