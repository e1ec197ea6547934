"""A call filled again after it failed: when a "not found" names something like the value asked.

The 1.5B model names an item as the user said it — "hallway light", "Marrakech trip", "can of
WD-40" — where the tool knows "Hallway", "Marrakech", "WD-40", and the tool's error lists what
there is. Such a near miss is the form of a value gone wrong, like "cannot read the day
'Monday 10 March 2025'", and the turn fills the call again once with the error in view
(``run.py``, ``_repair``). A write filled again must still name the same item: a text that
shares no word with what the failed call had names another one, and the write is withheld
(docs/design.md, "A read that failed on the form of a value is filled again").
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..tools import Tool
from .words import REQUEST_VERBS, singular, stem, words

__all__ = [
    "drift_note",
    "drifted_values",
    "names_a_near_match",
    "names_an_empty_value",
    "near_match_values",
    "not_found_parameters",
    "unmatched_items",
    "unmatched_note",
]

_FILLER_WORDS = frozenset({"a", "an", "the", "my", "of", "to", "in", "on", "at", "for", "and"})


def names_a_near_match(exc: Exception, tool: Tool, tool_input: Mapping[str, Any]) -> bool:
    """Whether a call's "not found" (a ``LookupError``, not a ``KeyError`` or ``IndexError``
    from the tool's own code) names something like what was asked: the error quotes one of
    the call's values, and after the quote — where a tool lists what there is — a word of that
    value appears, other than the parameter's, the function's or the error's own words before
    the quote ("no trip matches 'Marrakech trip'; there are: Lisbon long weekend, Marrakech"). Then the value was close
    and its form was wrong. A message naming nothing like it after the value ("no trip
    matches 'Japan trip'; there are: Lisbon long weekend, Marrakech"), or not quoting any
    value, is a true "not found"."""
    if not isinstance(exc, LookupError) or isinstance(exc, (KeyError, IndexError)):
        return False
    return any(
        wanted & {singular(w) for w in words(after)}
        for _, _, wanted, after in _quoted_values(str(exc), tool, tool_input)
    )


def not_found_parameters(
    exc: Exception, tool: Tool, tool_input: Mapping[str, Any]
) -> tuple[str, ...] | None:
    """For a write's "not found" (a ``LookupError``, not a ``KeyError`` or ``IndexError`` from
    the tool's own code): the parameters whose values the error quotes, else the required ones
    — what a look-up must find before the write is asked again ("no open task matches
    'high-priority work'": the title of the task the user described). A near miss is filled
    again first (``run.py``, ``_repair``); the look-up follows only if that changed nothing.
    ``None`` for any other failure."""
    if (
        not tool.writes
        or not isinstance(exc, LookupError)
        or isinstance(exc, (KeyError, IndexError))
    ):
        return None
    message = str(exc).lower()
    quoted = tuple(
        name
        for name, value in tool_input.items()
        if isinstance(value, (str, int))
        and not isinstance(value, bool)
        and str(value).strip()
        and str(value).lower() in message
    )
    schema = tool.schema if isinstance(tool.schema, dict) else {}
    return quoted or tuple(schema.get("required") or ())


_ITEM_START = re.compile(r"^\s*\d+\.\s")


def _items(text: str) -> list[str]:
    """A result's items: each numbered line with the lines under it, or the whole result."""
    items: list[str] = []
    for line in text.splitlines():
        if _ITEM_START.match(line) or not items:
            items.append(line)
        else:
            items[-1] += "\n" + line
    return items


def unmatched_items(
    tool: Tool, before: Any, after: Mapping[str, Any], found: Sequence[str], ask: str
) -> list[str]:
    """The parameters whose value a write filled again after its look-up names an item the
    user did not describe. A changed value must come from an item of the look-up's results
    (``found``) that holds more than half of the failed value's own words ("high-priority
    work" → the task whose line says "priority: high, list: Work"); a failed value with no
    words of its own (an invented id, "s-12345") needs an item that holds a word of the ask
    ("Coastline Radio"). "Mark buy stamps done" when only "Buy milk" is listed names another
    task: withheld, never changed (docs/design.md, "A write that found nothing looks it up
    once")."""
    if not isinstance(before, Mapping):
        return []
    own = _own_words(tool) | {singular(w) for w in REQUEST_VERBS}
    asked = {singular(w) for w in words(ask)} - own
    items = [item for text in found for item in _items(text)]
    unmatched = []
    for name, new in after.items():
        old = before.get(name)
        if isinstance(new, bool) or not isinstance(new, (str, int)) or not str(new).strip():
            continue
        if str(new).strip().lower() == str(old if old is not None else "").strip().lower():
            continue
        mine = {singular(w) for w in words(name)}
        was = {singular(w) for w in words(str(old or "")) if w.isalpha() and len(w) > 2}
        was -= own | mine
        held = [
            {singular(w) for w in words(item)} for item in items if str(new).lower() in item.lower()
        ]
        if not any(
            (was and len(words_of & was) * 2 > len(was)) or (not was and words_of & (asked - mine))
            for words_of in held
        ):
            unmatched.append(name)
    return unmatched


def unmatched_note(tool: Tool, names: list[str]) -> str:
    """What the answer is told when the write after a look-up would change another item."""
    return _not_found_note(tool, f"nothing found matches it ({', '.join(names)})")


def names_an_empty_value(exc: Exception, tool: Tool, tool_input: Mapping[str, Any]) -> bool:
    """Whether a write's ``ValueError`` names, by its own name, a parameter the call left
    empty ("give a target temperature (target_c) or a mode" after ``target_c: null``): the
    value was in the ask and the worker did not write it, so the call is filled again once,
    with the error in view (docs/design.md, "A read that failed on the form of a value is
    filled again"). An error about a value the call did give ("cannot read the day '15th'",
    "target_c 35 is above the maximum; use mode 'boost'") is not this: every parameter the
    error names must be empty. Shown a value it gave, the 1.5B model wrote it again."""
    if not isinstance(exc, ValueError):
        return False
    schema = tool.schema if isinstance(tool.schema, dict) else {}
    message = str(exc)
    named = [
        name
        for name in schema.get("properties") or {}
        if re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", message)
    ]
    return bool(named) and all(_empty(tool_input.get(name)) for name in named)


def _empty(value: Any) -> bool:
    return value is None or (isinstance(value, (str, list, dict)) and not value)


def _copies_the_verb(value: str, ask: str) -> bool:
    """Whether ``value`` opens with the request's own verb, copied from the ask: the ask opens
    with that verb, and the value has it in lower case with more after it ("move the Porto
    flights" from "move the Porto flights task to Thursday"). An item whose name opens with
    such a word ("Book dentist", "Mark Davies", "Take Five") keeps it."""
    named, asked = words(value), words(ask)
    return (
        len(named) > 1
        and bool(asked)
        and named[0] == asked[0]
        and named[0] in REQUEST_VERBS
        and value.lstrip()[:1].islower()
    )


def _quoted_values(
    message: str, tool: Tool, tool_input: Mapping[str, Any], ask: str = ""
) -> list[tuple[str, str, set[str], str]]:
    """Each text value the error quotes: its parameter, the value, the value's own words
    (the function's, the parameter's and the error's words before the quote — "no trip" —
    aside) and what the error says after it."""
    lowered = message.lower()
    own = _own_words(tool)
    quoted = []
    for name, value in tool_input.items():
        if not isinstance(value, str) or not value.strip():
            continue
        at = lowered.find(value.lower())
        if at < 0:
            continue
        said = {singular(w) for w in words(message[:at])}
        named = words(value)
        if _copies_the_verb(value, ask):  # "move the Porto flights": the request's verb,
            named = named[1:]  # copied with the item, names no item
        wanted = {singular(w) for w in named} - own - said
        wanted -= {singular(w) for w in words(name)}
        quoted.append((name, value, wanted, message[at + len(value) :]))
    return quoted


def near_match_values(
    exc: Exception, tool: Tool, tool_input: Mapping[str, Any], ask: str = ""
) -> dict[str, str]:
    """The values a near miss's error itself names, by parameter: the one item the tool
    lists after the quoted value whose words hold all of the value's own words, or are all
    among them ("hallway light" → "Hallway", "can of WD-40" → "WD-40", "Lisbon trip" →
    "Lisbon long weekend"; in another form, two words at least: "booking the Porto flights" →
    "Book flights for Porto"). Asked to fill the call again with the error in view, the 1.5B
    model mostly wrote the same value again (held-out: 3 of 3 such writes ended unmade), so
    the harness takes the item the tool named when exactly one fits; none fits, or two do,
    and the model fills the call again as before. A value that is none of the ask's words
    (a code the worker made up: "RKY") takes the one listed item the ask names instead
    ("KEF (Reykjavik)" for "to Reykjavik"). For a write, an item that only shares a
    word with the value ("bedroom lamp" against "Bedside lamp") is not taken: a write must
    not land on an item the user did not name. A read, which changes nothing and whose
    result the answer sees, opens the one item sharing the most words ("train to Berlin" →
    "Berlin work trip")."""
    if not isinstance(exc, LookupError) or isinstance(exc, (KeyError, IndexError)):
        return {}
    own = _own_words(tool)
    found: dict[str, str] = {}
    for name, value, wanted, after in _quoted_values(str(exc), tool, tool_input, ask):
        if not wanted:
            continue
        listed = {item: {singular(w) for w in words(item)} - own for item in _listed(after)}
        stems = {stem(w) for w in wanted}  # "booking the Porto flights": "Book flights for Porto"
        fits = [
            item
            for item, named in listed.items()
            if named
            and (
                named <= wanted
                or wanted <= named
                or (  # the same words in another form: two at least ("parking" is not
                    # "Park day"), and at most one word more on either side
                    len((kept := {stem(w) for w in named}) & stems) >= 2 and len(kept ^ stems) <= 1
                )
            )
        ]
        if not fits and not tool.writes:  # a read may open the one item sharing the most words
            shared = {item: len(named & wanted) for item, named in listed.items()}
            best = max(shared.values(), default=0)
            fits = [item for item, count in shared.items() if best and count == best]
        if not fits and re.search(rf"['\"]{re.escape(value)}['\"]", str(exc)):
            fits = _named_by_ask(name, value, listed, tool_input, ask)  # "RKY": "to Reykjavik"
        if len(fits) == 1 and _value_of(fits[0]) != value:
            found[name] = _value_of(fits[0])
    return found


def _named_by_ask(
    name: str,
    value: str,
    listed: Mapping[str, set[str]],
    tool_input: Mapping[str, Any],
    ask: str,
) -> list[str]:
    """The listed items the ask names by a word, when the failed value is none of the ask's
    words (the worker's own code for a place: "RKY" for "flights from Amsterdam to Reykjavik",
    "BAR" for Barcelona, where the tool lists "KEF (Reykjavik)" and "BCN (Barcelona)"); an
    item another argument already holds ("AMS", the origin) is not this one. Only for the
    value the error quotes ("no event on 2025-03-10 matches 'push climbing'" lists events, not
    dates). Empty unless the ask names exactly one: the user named that item, so even a write
    may take it."""
    asked = {singular(word) for word in words(ask) if len(word) >= 3 and word.isalpha()}
    asked -= _FILLER_WORDS
    if not asked or {singular(word) for word in words(value)} & asked:
        return []
    first = value.strip()[:1].lower()  # a code begins as its place does: "RKY", "Reykjavik"
    held = {
        str(other).strip().lower()
        for key, other in tool_input.items()
        if key != name and isinstance(other, str)
    }
    return [
        item
        for item, named in listed.items()
        if any(word.startswith(first) for word in named & asked)
        and _value_of(item).lower() not in held
    ]


def _value_of(item: str) -> str:
    """What the tool takes for a listed item: "acc-1 (Everyday checking)" lists an id with
    its name in brackets, and the id is the value ("there is no account 'checking'; accounts:
    acc-1 (Everyday checking), acc-2 (Savings)")."""
    head, bracket, _ = item.partition(" (")
    return head.strip() if bracket and item.endswith(")") and head.strip() else item


_LIST_SPLIT = re.compile(r",\s*|;\s*|\s+or\s+|\s+and\s+")


def _listed(after: str) -> list[str]:
    """The items a "not found" lists after the quoted value: what follows its colon ("...;
    there are: A, B, C."), up to the end of that sentence, split at commas, semicolons and
    "or". Without a colon, nothing is listed."""
    _, colon, rest = after.partition(":")
    if not colon:
        return []
    rest = re.split(r"\.\s+(?=[A-Z])|\.$", rest.strip(), maxsplit=1)[0]
    items = (item.strip().strip("'\"").strip() for item in _LIST_SPLIT.split(rest))
    return [item for item in items if item]


def _own_words(tool: Tool) -> set[str]:
    return {singular(word) for word in words(tool.name)} | _FILLER_WORDS


def drifted_values(tool: Tool, before: Any, after: Mapping[str, Any]) -> list[str]:
    """The parameters whose text a repaired write changed to name something else: most of the
    new text's words (the function's and the parameter's own words aside) were not in what
    the failed call had. "hallway light" → "Hallway", "move the Porto flights" → "Book
    flights for Porto" name the same thing as the tool knows it; "Call mom" → "Call dentist"
    or "bedroom lamp" → "Kitchen lamp" name another."""
    if not isinstance(before, Mapping):
        return []
    own = _own_words(tool)
    drifted = []
    for name, old in before.items():
        new = after.get(name)
        if not isinstance(old, str) or not isinstance(new, str) or not old.strip() or new == old:
            continue
        mine = {singular(w) for w in words(name)}
        was = {singular(w) for w in words(old)} - own - mine
        now = {singular(w) for w in words(new)} - own - mine
        if was and now and len(now & was) * 2 <= len(now):
            drifted.append(name)
    return drifted


def drift_note(tool: Tool, names: list[str]) -> str:
    """What the answer is told when a repaired write would have changed another item."""
    return _not_found_note(tool, f"no item like it ({', '.join(names)}) was there")


def _not_found_note(tool: Tool, why: str) -> str:
    return (
        f"Nothing was changed: {tool.name} failed because what it names was not found, and "
        f"{why}. Tell the user it was not found."
    )
