"""A write only when the ask asks for that change: the checks the harness can decide alone.

After a read in the same turn, a small model still adds what the read shows is already there
("add it unless it's on the list", answered by adding a second copy) and completes or moves an
item the ask never named (the one the read listed first). Both are visible without a model:
the read's raw output holds the items, and the write's target is one of its string arguments.

- A write that **adds** (its name starts with a verb like ``add``, ``create``, ``new``) whose
  target's words all appear in the same field of an item the turn already read (a task's
  ``title`` for ``create_task(title)``) is withheld: the item is there.
- A write that **changes an existing item** (its name starts with ``complete``, ``delete``,
  ``cancel``, ``move`` ...) is withheld when no item the read returned shares a word with its
  target: there is nothing of that name to change.

- A write that **ends an item** (``complete``, ``delete``, ``cancel``, ``archive`` ...) whose
  target is the item a write of this same turn just added is withheld: "New task: renew the
  swim pass by Friday. Mark it as high priority." was created with its priority and then
  completed, the 1.5B model reading "mark" as "mark done". An ask that adds an item asks
  for it to exist; ending it in the same breath undoes the ask. A done-marker named by
  another verb (``mark_done``, ``set_status``) is not recognised as an end.

A write of any other verb (``log``, ``send``, ``set`` ...) is not judged here. Nor is a change
whose target exists but is not what the ask meant: an ask may pick its item by a property
("whatever is due today", "all the lights that are on"), not by name, so the harness cannot
tell that from a wrong pick.

Each check applies only when it can decide: the write has a required string argument naming
its item, and a read of this turn returned items with a field of that name (items of the same
kind), or, for the end of an item, an add of this turn ran with the same name. Otherwise the write goes
ahead to the person's confirmation as before. A withheld write runs no tool and adds no step;
the answer is told why (docs/design.md, "Writes the ask did not ask for").
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..records import StepRecord
from ..tools import Tool
from .judge import found_nothing
from .words import FUNCTION_WORDS, name_nouns, singular, words

__all__ = [
    "ADDING_VERBS",
    "ENDING_VERBS",
    "NAMING_PARAMETERS",
    "adds_item",
    "changes_item",
    "is_absent",
    "names_the_place",
    "read_nothing",
    "sets_anew",
    "sets_anything",
    "withheld_write",
]

ADDING_VERBS = frozenset({"add", "create", "new", "make", "insert", "save", "put", "schedule"})
"""First words of a write's name that mean it makes a new item (``create_task``, ``addItem``)."""
CHANGING_VERBS = frozenset(
    {"complete", "finish", "delete", "remove", "cancel", "reschedule", "move", "rename"}
    | {"archive", "update", "edit", "mark", "check", "tick", "close", "reopen", "snooze"}
)
"""First words of a write's name that mean it changes an item that must already exist."""

ENDING_VERBS = frozenset({"complete", "finish", "delete", "remove", "cancel", "archive", "close"})
"""First words of a change that ends an item (it is done, gone or closed afterwards)."""

_STOP = FUNCTION_WORDS | frozenset(
    """a an or of to on in at by i its be were these those our we us do done if not unless
    already still there here yet any some all one as so up out off just also then task
    tasks item items list lists note notes event events thing things""".split()  # noqa: SIM905
)
"""Words that say nothing about which item is meant (articles, pronouns, the item's kind)."""
_WORD = re.compile(r"[a-z0-9]+")
_MAX_ITEMS = 500


def withheld_write(
    tool: Tool,
    arguments: Mapping[str, Any],
    steps: Sequence[StepRecord],
) -> str | None:
    """Why this write must not run (a note for the answer), or ``None`` to go on."""
    if not tool.writes:
        return None
    found = _target(tool, arguments)
    if found is None:
        return None
    parameter, target = found
    if _verb(tool.name) in ENDING_VERBS and (
        made := _added_here(tool, parameter, arguments, steps)
    ):
        return (
            f'"{made[:80]}" was just added by this request, so {tool.name} was not called: '
            "the new item was left as it is. Tell the user it was added."
        )
    values = _read_values(steps, parameter, _destinations(arguments, parameter))
    wanted = _words(target)
    if not values or not wanted:
        return None  # no read of this kind of item ran: nothing to decide by
    if adds_item(tool.name):
        same = [value for value in values if wanted <= _words(value)]
        if same:
            return (
                f'"{same[0][:80]}" is already there, so {tool.name} was not called: nothing was '
                "added. Tell the user it is already there."
            )
        return None
    if not changes_item(tool.name):
        return None
    if not any(wanted & _words(value) for value in values):
        return (
            f'No {parameter} like "{target}" is among the items found, so {tool.name} was not '
            "called: nothing was changed. Tell the user it was not found."
        )
    return None


def is_absent(tool: Tool, arguments: Mapping[str, Any], steps: Sequence[StepRecord]) -> bool:
    """Whether a write that adds is plainly new: a read of this turn returned items of its kind
    (the same naming field), and none of them shares a word with the write's target. Partly
    shared words ("save passport number" beside a note titled "Passport") are not plain: the
    item may be there under another wording."""
    if not tool.writes or not adds_item(tool.name):
        return False
    found = _target(tool, arguments)
    if found is None:
        return False
    parameter, target = found
    values = _read_values(steps, parameter, _destinations(arguments, parameter))
    wanted = _words(target)
    if not values or not wanted:
        return False
    return not any(wanted & _words(value) for value in values)


def read_nothing(steps: Sequence[StepRecord]) -> bool:
    """Whether the turn's reads ran and every one of them found nothing: "add Coastline Radio to
    my Running playlist unless it's already on it" read the playlist searched for the song and
    got no items, so nothing there can be the item; asked, the 1.5B model withheld the add
    (dev, 2026-12-05; docs/design.md, "An add 'unless it's already there' goes ahead when every
    read found nothing"). A read that failed or was skipped saw nothing either way: then this
    says nothing."""
    reads = [step for step in steps if step.kind == "tool" and not step.writes]
    if not reads or any(step.failed or step.skipped for step in reads):
        return False
    return all(found_nothing(step) for step in reads)


_ALREADY_THERE = re.compile(
    r"\balready\b|\b(?:there|on it|in it|on them|in them)\b"
    r"|\bon (?:my |the |our )?(?:[a-z]+ )?(?:list|playlist|calendar)\b"
)


def names_the_place(ask: str) -> bool:
    """Whether a presence condition speaks of the item being somewhere ("unless it's already
    on it", "if it's not on my list", "unless they're there"), not of something else that is
    or is not so ("if it's not going to rain")."""
    return _ALREADY_THERE.search(ask.lower().replace("\u2019", "'")) is not None


def _verb(name: str) -> str:
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()
    return re.split(r"[_\-\s.]+", spaced.strip("_"))[0]


def adds_item(name: str) -> bool:
    """Whether the function ``name`` makes a new item (``add_*``, ``create_*``, ``save_*``)."""
    return _verb(name) in ADDING_VERBS


SETTING_VERBS = frozenset(
    {"reschedule", "move", "rename", "update", "edit", "snooze", "change", "set", "reopen"}
)
"""First words of a change that sets new values on an item (a time, a name), which only the
user can give."""


def sets_anything(name: str) -> bool:
    """Whether the function ``name`` sets new values on the item it changes (``move_*``,
    ``reschedule_*``, ``rename_*``), not only acts on it (``cancel_*``, ``delete_*``)."""
    return _verb(name) in SETTING_VERBS


def sets_anew(name: str, spec: Any) -> bool:
    """Whether a parameter is a new value, by its name or description ("new_time", "The new
    due date"), not one naming the item (``cancel_event(title, date)``)."""
    description = spec.get("description", "") if isinstance(spec, Mapping) else ""
    return "new" in words(name) or "new" in words(str(description))


def changes_item(name: str) -> bool:
    """Whether the function ``name`` changes an item that must exist (``complete_*``,
    ``cancel_*``, ``move_*``)."""
    return _verb(name) in CHANGING_VERBS


NAMING_PARAMETERS = ("title", "name", "item", "song", "track", "subject")
"""Parameter names that say "this is the item" (preferred over the first required string)."""


def _target(tool: Tool, arguments: Mapping[str, Any]) -> tuple[str, str] | None:
    """The parameter that names the item the write adds or changes, and its value: a naming
    parameter, else the first required free string."""
    schema = tool.schema if isinstance(tool.schema, dict) else {}
    properties = schema.get("properties") or {}
    strings = [
        name
        for name in schema.get("required") or []
        if (properties.get(name) or {}).get("type") == "string"
        and "enum" not in (properties.get(name) or {})
        and isinstance(arguments.get(name), str)
        and arguments[name].strip()
    ]
    if not strings:
        return None
    named = [name for name in NAMING_PARAMETERS if name in strings]
    parameter = named[0] if named else strings[0]
    return parameter, str(arguments[parameter]).strip()


def _added_here(
    tool: Tool, parameter: str, arguments: Mapping[str, Any], steps: Sequence[StepRecord]
) -> str | None:
    """The name of the item a write of this turn added and that ``tool`` would now end, or
    ``None``. The same item: the add ran, its function is about the same kind of thing
    (``create_task`` and ``complete_task`` share "task"), its naming value has the words of
    the end's target, no more and no fewer ("call mom about the trip" is not "call mom"), and
    every other string both calls give is the same (eggs added to Shopping are not the eggs
    removed from Pantry)."""
    wanted = _words(str(arguments[parameter]))
    nouns = name_nouns(tool.name)
    if not wanted:
        return None
    for step in steps:
        if not (step.kind == "tool" and step.writes and step.tool and adds_item(step.tool)):
            continue
        if step.failed or step.skipped or not isinstance(step.input, Mapping):
            continue
        if not name_nouns(step.tool) & nouns:
            continue
        keys = [parameter, *NAMING_PARAMETERS]
        named = next((key for key in keys if isinstance(step.input.get(key), str)), None)
        if named is None or _words(step.input[named]) != wanted:
            continue
        if all(
            str(value).strip().lower() == str(step.input[key]).strip().lower()
            for key, value in arguments.items()
            if key not in (parameter, named)
            and isinstance(value, str)
            and isinstance(step.input.get(key), str)
        ):
            return str(step.input[named]).strip()
    return None


def _destinations(arguments: Mapping[str, Any], parameter: str) -> set[str]:
    """The write's other string values (``list_name`` of ``add_item(name, list_name)``)."""
    return {
        value.strip().lower()
        for key, value in arguments.items()
        if key != parameter and isinstance(value, str) and value.strip()
    }


def _read_values(steps: Sequence[StepRecord], key: str, destinations: set[str]) -> list[str]:
    """The ``key`` field of every item that a read of this turn returned: items of the kind
    the write names (a task's ``title`` for ``complete_task(title)``), none for another kind.

    A read whose items include one of ``destinations`` listed where the write goes, not what
    is in it: ``list_lists`` names the lists ("Groceries") in the same ``name`` field that
    ``add_item(name, list_name="Groceries")`` fills, and cannot say whether chickpeas are on
    one. Its items are not counted."""
    found: list[str] = []
    for step in steps:
        if step.kind != "tool" or step.writes or step.failed or step.skipped:
            continue
        values = [
            value
            for item in _items(step.output)
            if isinstance(value := item.get(key), str) and value.strip()
        ]
        if destinations & {value.strip().lower() for value in values}:
            continue
        found.extend(values)
    return found[:_MAX_ITEMS]


def _items(output: Any) -> list[Mapping[str, Any]]:
    if isinstance(output, list):
        return [item for item in output if isinstance(item, Mapping)]
    if isinstance(output, Mapping):  # {"tasks": [...]} or {"items": [...], "count": 3}
        lists = [value for value in output.values() if isinstance(value, list)]
        if len(lists) == 1:
            return [item for item in lists[0] if isinstance(item, Mapping)]
        return [output]  # one item: a contact, a note
    return []


def _words(text: str) -> set[str]:
    return {singular(word) for word in _WORD.findall(text.lower()) if word not in _STOP}
