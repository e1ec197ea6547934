"""A condition on a yes/no state, decided by the harness: "if the front door is unlocked".

"If the front door is unlocked, lock it", "if the porch light is still on, switch it off",
"only if I haven't done the car insurance yet, move it to Friday": the read returns the state
as a flag (``locked: false``, ``on: true``, ``done: false``), and the condition names it. Asked
yes or no, the 1.5B model withheld the write the user asked for (dev, 2026-12-04: the front
door's ``locked: false`` and the model said "no", +0.64; on the held-out halves it said "no" to
8 of 9 writes that should go). Reading a flag is not a job for a language model: here the
condition's state word is matched to a flag the reads returned, the flag's row is found by the
write's own values or the condition's words, and the harness decides
(docs/design.md, "A state or a day the harness checks").

A state word is the flag's key ("locked", "charging", "armed"), its ``un-`` form
("unlocked"), or a common opposite ("off" for ``on``, "closed" for ``open``, "open" or
"pending" for ``done``); a status in words ("status: taken at 07:31", "status: not logged
yet") is read as ``done``, which "taken", "logged", "done", "completed" name; "on" and "off" count only where they end the clause ("if it's still
on", "left on all night"), never as a preposition ("on Tuesday"). No decision — the yes/no
check runs as before — with two flags or two states named, more than one negation, "and" or
"or" in the condition, or no single row the condition is about.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from ..records import StepRecord
from .clause import Clause, condition_at, spoken
from .threshold import carried_texts, content_words, result_rows
from .words import DAY_WORDS, words

__all__ = ["Flag", "StateCondition", "flag_met", "found_flags", "other_row", "stated_state"]

_TRUE = frozenset({"true", "yes"})
_FALSE = frozenset({"false", "no"})
_SWITCH_KEYS = frozenset({"state", "status", "power", "switch"})
_DONE = (
    "done",
    "completed",
    "complete",
    "finished",
    "ticked off",
    "checked off",
    "taken",
    "take",
    "took",
    "logged",
    "log",
)
_COMPLETION = r"(?:done|completed|complete|finished|taken|logged|paid)"
_DONE_STATUS = re.compile(rf"{_COMPLETION}(?:\s+(?:at|on)\s+[\w:./-]+)?")
_NOT_DONE_STATUS = re.compile(
    rf"not\s+(?:yet\s+)?{_COMPLETION}(?:\s+yet)?|skipped|missed|pending|overdue|to ?do"
)
_STATUS_PART = re.compile(r"[,;(]|\s[-\u2013\u2014]\s")
_AUXILIARIES = frozenset({"is", "has", "was", "are", "were", "been"})
_SOME = re.compile(r"\b(?:any|some)\b")
"""The quantifiers that ask whether at least one row is so: each row in that state is one the
change is for ("are any doors unlocked? lock them if so")."""
_QUANTIFIERS = re.compile(
    r"\b(?:nobody|no one|nothing|none|anyone|anybody|anything|everyone|everybody|everything"
    r"|any|all|every|each|some|someone|somebody|something)\b"
)
_LATER = frozenset(DAY_WORDS - {"today", "tonight", "morning", "evening", "afternoon", "night"})
_NOT_DONE = ("open", "pending", "outstanding", "undone", "unfinished", "incomplete", "to do")
_OPPOSITES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "on": (("on",), ("off",)),
    "open": (("open",), ("closed", "shut")),
    "closed": (("closed", "shut"), ("open",)),
    "done": (_DONE, _NOT_DONE),
    "completed": (_DONE, _NOT_DONE),
    "complete": (_DONE, _NOT_DONE),
    "finished": (_DONE, _NOT_DONE),
    "enabled": (("enabled",), ("disabled",)),
    "armed": (("armed",), ("disarmed",)),
    "connected": (("connected",), ("disconnected",)),
    "online": (("online",), ("offline",)),
    "active": (("active",), ("inactive",)),
}
_SWITCH_WORD = r"(?=\s*(?:$|[,;:.?!-]|(?:all|still|now|right now|again|at the moment|anymore)\b))"
_NEGATION = re.compile(r"\b(?:not|never|no longer)\b|n't\b")
_NAMED = re.compile(r"^(?![^:]*\d:\d)[^@]*[a-z]{3}", re.IGNORECASE)
_JOINED = re.compile(r"\b(?:and|or|but|either|both)\b")


@attrs.frozen
class Flag:
    """One yes/no value a read returned: its row's name (for a list), key and value, the
    line as the read wrote it, and the row's other values (to find the row a write or the
    condition names)."""

    row: str
    key: str
    value: bool
    written: str = ""
    others: tuple[str, ...] = ()
    keyed: tuple[tuple[str, str], ...] = ()
    """The row's other values with their keys, as written (to name the row in a write)."""

    @property
    def line(self) -> str:
        """How a withheld write's note names it: ``Front door locked: false``."""
        written = self.written or f"{self.key}: {'true' if self.value else 'false'}"
        return f"{self.row} {written}".strip()


@attrs.frozen
class StateCondition:
    """The flag key a condition names, the value that makes the condition true, and the
    clause (its words find the row; ``go_when_true`` is turned round for "unless")."""

    key: str
    holds_when: bool
    clause: Clause
    quantified: bool = False
    """The condition asks whether any row is so ("are any doors unlocked?"): the row is the
    one the write names outright, never one the condition's words point at."""


def found_flags(steps: Sequence[StepRecord]) -> list[Flag]:
    """Every ``true``/``false`` (or ``yes``/``no``) value the reads returned, and a switch
    written as ``state: on``/``off`` (read as ``on: true``/``false``)."""
    flags: list[Flag] = []
    for step in steps:
        rows = result_rows(step.result or "")
        for label, pairs in rows:
            for place, (key, text) in enumerate(pairs):
                low = text.strip().lower()
                keyed = tuple((k, v) for i, (k, v) in enumerate(pairs) if i != place)
                others = tuple(v.lower() for _k, v in keyed)
                name = "" if label == text else label
                if not name:  # "medication: Vitamin D3 1000 IU" names the row well enough
                    name = next(
                        (v for i, (_k, v) in enumerate(pairs) if i != place and _NAMED.search(v)),
                        "",
                    )
                if low in _TRUE or low in _FALSE:
                    flags.append(Flag(name, key, low in _TRUE, "", others, keyed))
                elif low in ("on", "off") and set(words(key)) & _SWITCH_KEYS:
                    flags.append(Flag(name, "on", low == "on", f"{key}: {text}", others, keyed))
                elif set(words(key)) & _SWITCH_KEYS:
                    done = _done_status(low)
                    if done is not None:
                        flags.append(Flag(name, "done", done, f"{key}: {text}", others, keyed))
    return flags


def _done_status(status: str) -> bool | None:
    """A status written as words, read as done or not, from its first part alone: "taken at
    07:31", "paid, not yet cleared" (done); "not logged yet", "skipped" (not done); ``None``
    for anything else ("logged out", "completed with errors", "in progress")."""
    first = _STATUS_PART.split(status.strip().lower(), maxsplit=1)[0].strip()
    if _DONE_STATUS.fullmatch(first):
        return True
    if _NOT_DONE_STATUS.fullmatch(first):
        return False
    return None


def _forms(key: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The words that say a flag is set, and those that say it is not (``key`` as
    :func:`_key_word` gives it)."""
    if key in _OPPOSITES:
        return _OPPOSITES[key]
    return (key,), ((f"un{key}",) if " " not in key else ())


def _pattern(form: str) -> re.Pattern[str]:
    switch = _SWITCH_WORD if form in ("on", "off") else ""
    return re.compile(rf"\b{re.escape(form)}\b{switch}")


def stated_state(ask: str, keys: Sequence[str]) -> StateCondition | None:
    """The one state the ask's condition names among the flags' ``keys``, or ``None``."""
    text = spoken(ask)
    found: dict[tuple[str, bool], Clause] = {}
    for key in dict.fromkeys(_key_word(key) for key in keys):
        set_forms, unset_forms = _forms(key)
        for forms, holds in ((set_forms, True), (unset_forms, False)):
            for form in forms:
                for match in _pattern(form).finditer(text):
                    clause = condition_at(text, match.start(), match.end())
                    if clause is not None:
                        found[(key, holds)] = clause
    if len(found) != 1:
        return None
    (key, holds), clause = next(iter(found.items()))
    negations = len(_NEGATION.findall(clause.text))
    quantifiers = _QUANTIFIERS.findall(clause.text)
    some = len(quantifiers) == 1 and _SOME.fullmatch(quantifiers[0]) is not None and not negations
    if negations > 1 or _JOINED.search(clause.text) or (quantifiers and not some):
        return None  # "if nobody's home": whose state is not the row's
    if set(words(clause.text)) & _LATER:
        return None  # "if Tasca is open on Sunday": a flag says how things are now
    return StateCondition(key, holds != bool(negations), clause, quantified=some)


def _key_word(key: str) -> str:
    """The key as the condition would say it: ``is_locked`` → "locked", ``all_day`` → "all
    day" (never "day" alone)."""
    said = words(key) or [key]
    while len(said) > 1 and said[0] in _AUXILIARIES:
        said = said[1:]
    return " ".join(said)


def _row_of(
    flags: Sequence[Flag], condition: StateCondition, arguments: Mapping[str, Any]
) -> Flag | None:
    """The flag the condition is about. A row the condition names (by its other values,
    never by the state words) is that one, and the write must not name another; with none
    named ("if it's unlocked, lock it"), the row the write names by an id or name. A listed
    row neither names is no answer; a single record with no name is its own subject."""
    carried = carried_texts(arguments)
    exact = [flag for flag in flags if set(carried) & set(flag.others)]
    if condition.quantified:  # "any doors unlocked?": the door the write names, by its id
        return exact[0] if len(exact) == 1 else None
    set_forms, unset_forms = _forms(condition.key)
    state = content_words(" ".join((*set_forms, *unset_forms)))
    by_condition = _best(flags, content_words(condition.clause.text) - state)
    by_write = exact[0] if len(exact) == 1 else _best(flags, content_words(" ".join(carried)))
    named = content_words(" ".join(carried))
    unrelated = not any(named & content_words(" ".join(flag.others)) for flag in flags)
    if named and unrelated and any(flag.row for flag in flags):
        return None  # the write is about something no row is: "also turn off the porch light"
    if by_condition is not None:
        return (
            by_condition
            if by_write in (None, by_condition) and not _names_other(carried, by_condition, flags)
            else None
        )
    if by_write is not None:
        return by_write
    if len(flags) == 1 and not flags[0].row:
        return flags[0]
    return None


def _best(flags: Sequence[Flag], said: set[str]) -> Flag | None:
    """The one flag whose row's other values share most words with ``said`` (at least one)."""
    scores = [len(content_words(" ".join(flag.others)) & said) for flag in flags]
    best = max(scores, default=0)
    chosen = [flag for flag, score in zip(flags, scores, strict=True) if score == best]
    return chosen[0] if best and len(chosen) == 1 else None


def _names_other(carried: Sequence[str], chosen: Flag, flags: Sequence[Flag]) -> bool:
    """Whether the write names a row other than ``chosen`` outright (by a whole value)."""
    return any(flag is not chosen and set(carried) & set(flag.others) for flag in flags)


def _stated_rows(ask: str, reads: Sequence[StepRecord]) -> tuple[StateCondition, list[Flag]] | None:
    """The state the ask's condition names and the flags the reads returned of that state."""
    flags = found_flags(reads)
    if not flags:
        return None
    condition = stated_state(ask, [flag.key for flag in flags])
    if condition is None:
        return None
    return condition, [flag for flag in flags if _key_word(flag.key) == condition.key]


def flag_met(
    arguments: Mapping[str, Any], ask: str, reads: Sequence[StepRecord]
) -> tuple[bool, Flag] | None:
    """Whether the write goes, by the state the ask's condition names over the flag the
    reads returned, and that flag; ``None`` when the harness cannot decide."""
    stated = _stated_rows(ask, reads)
    if stated is None:
        return None
    condition, about = stated
    flag = _row_of(about, condition, arguments)
    if flag is None:
        return None
    holds = flag.value == condition.holds_when
    return holds == condition.clause.go_when_true, flag


def other_row(
    arguments: Mapping[str, Any], ask: str, reads: Sequence[StepRecord]
) -> dict[str, Any] | None:
    """The write's arguments moved to the one row the ask's condition is true of, when it asks
    whether any row is so and the write names a row it is not true of; else ``None``.

    "Are any doors unlocked? Lock them if so": the read showed the front door ``locked:
    false``, and the worker filled ``set_lock`` for the back door, already locked; the check
    then withheld the write the user asked for (dev, second wording). The condition is about
    whichever row is so, and the read says which: with exactly one such row, each value of the
    write that is a value of the named row (its id, its name) becomes that row's value under the
    same key. Two or more such rows, a value it cannot move, or an ask that names one row more
    than the others ("is the front door unlocked by any chance? lock it if so"; "are any doors
    unlocked? if so, lock the front door") leave the write as it was."""
    stated = _stated_rows(ask, reads)
    if stated is None or not stated[0].quantified:
        return None
    condition, about = stated
    set_forms, unset_forms = _forms(condition.key)
    said = content_words(spoken(ask)) - content_words(" ".join((*set_forms, *unset_forms)))
    if _best(about, said) is not None:
        return None  # "is the front door unlocked by any chance?": the ask names its row
    named = _row_of(about, condition, arguments)

    def goes(flag: Flag) -> bool:
        return (flag.value == condition.holds_when) == condition.clause.go_when_true

    if named is None or goes(named):
        return None
    rows = [flag for flag in about if flag is not named and goes(flag)]
    if len(rows) != 1:
        return None

    def shares(flag: Flag) -> int:
        return len(content_words(" ".join(flag.others)) & said)

    if shares(rows[0]) < shares(named):
        return None  # "any doors unlocked?" when only the shed window is: not a door
    target = dict(rows[0].keyed)
    moved = dict(arguments)
    for key, value in named.keyed:
        for parameter, given in arguments.items():
            if isinstance(given, str) and given.strip().lower() == value.strip().lower():
                if key not in target:
                    return None
                moved[parameter] = target[key]
    return moved if moved != dict(arguments) else None
