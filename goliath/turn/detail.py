"""A search's hits are pointers: before answering from them, read the hit.

``search_emails`` returns who wrote and the subject; what the user asked — the tracking number,
the flight's time, the price — is in the email, which ``read_email(email_id)`` returns. The
1.5B model answers from the hit lines instead, and invents what they do not hold ("The tracking
number for your order is 2025-03-09."): on the held-out half, 15 of 16 two-step asks failed,
most of them a search with no read of its hit.

So when a turn is about to answer right after a search — a read named for searching
(``search_*``, ``find_*``, ``query``) or called with a query — whose result is a list of items
with ids, and a read of this toolset takes one such id and nothing else (its one required parameter is an
id of the same kind: ``email_id`` after ``search_emails``, ``recipe_id`` after
``search_recipes``), that read runs first, once per turn; so does a read whose one required
parameter is a ``title`` or ``name`` that every hit carries, when the read's own nouns are
words of the search's name (``read_note(title)`` after ``search_notes``, whose hits are a
title and a preview); its worker picks the hit from the
result lines. The kind is told by the names: the id parameter's word (``email`` of
``email_id``), or the function's own nouns for a bare ``id``, must be a word of the search's
name. A read the turn already made, a write, or a function with other required parameters is
never chosen this way (docs/design.md, "A search's hits are read before answering").

After a plain listing of named things (``list_lists``: each list's name and size), the one the
ask names ("what's on my pharmacy list?") is opened likewise, by the read of the same nouns
that takes one name or title (``get_list(list_name)``). When the ask names exactly one hit by
its whole title or name, the harness fills the read with it (``named_hit``), no model call.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..records import StepRecord
from ..tools import Tool
from .lookup import id_parameters
from .words import FUNCTION_WORDS, name_nouns, singular, words

__all__ = [
    "container_opener",
    "described_hit",
    "hit_reader",
    "named_hit",
    "only_hit",
    "ordinal_ids",
]

_VERBS = frozenset({"get", "read", "open", "show", "fetch", "view", "find", "load", "describe"})
_SEARCH_VERBS = frozenset({"search", "find", "query", "lookup", "look"})
_QUERY_PARAMETERS = frozenset({"query", "q", "search", "keyword", "keywords", "term", "text"})
_ID_SUFFIX = re.compile(r"(_?ids?|Ids?)$")
_NAMING = frozenset({"title", "name"})
"""A reader keyed by one of these, when every hit carries it, opens a hit by its name."""
_GLUE = frozenset({"a", "an", "the", "my", "of", "s", "and"})


def hit_reader(
    available: Sequence[Tool], steps: Sequence[StepRecord], ask: str = ""
) -> Tool | None:
    """The read that opens one of the last step's hits, or ``None`` when there is none."""
    last = _last_read(steps)
    if last is None or last.tool is None:
        return None
    items = _items(last.output)
    ran = {step.tool for step in steps if step.kind == "tool"}
    searched = _name_words(last.tool)
    if not _searched(last):
        return _named_opener(available, ran, name_nouns(last.tool), items, ask)
    for tool in available:
        if tool.writes or tool.name in ran:
            continue
        schema = tool.schema if isinstance(tool.schema, dict) else {}
        required = list(schema.get("required") or [])
        if len(required) != 1:
            continue
        nouns = _name_words(tool.name) - _VERBS
        if id_parameters(tool) == required:
            if not _has_ids(items):
                continue
            kind = _name_words(_ID_SUFFIX.sub("", required[0])) or nouns
        elif required[0] in _NAMING and all(required[0] in item for item in items):
            kind = nouns  # read_note(title) after search_notes, whose hits carry titles
        else:
            continue
        if kind & searched:
            return tool
    return None


def container_opener(
    available: Sequence[Tool], steps: Sequence[StepRecord], ask: str
) -> Tool | None:
    """Before a conditional add, the read that opens the container the ask names, when the
    last step only listed the containers: after ``list_lists`` (names and sizes), "add
    chickpeas to groceries unless they're there" opens ``get_list("Groceries")``, so the
    condition is decided by what is on the list, not by the list of lists."""
    last = _last_read(steps)
    if last is None or _searched(last):
        return None
    ran = {step.tool for step in steps if step.kind == "tool"}
    return _named_opener(available, ran, name_nouns(last.tool or ""), _items(last.output), ask)


def _last_read(steps: Sequence[StepRecord]) -> StepRecord | None:
    """The last step, when it is a read that ran and returned items."""
    last = steps[-1] if steps else None
    if last is None or last.kind != "tool" or last.writes or last.failed or last.skipped:
        return None
    return last if last.tool is not None and _items(last.output) else None


def _named_opener(
    available: Sequence[Tool],
    ran: set[str | None],
    listed: frozenset[str],
    items: Sequence[Mapping[str, Any]],
    ask: str,
) -> Tool | None:
    """After a listing of named things (``list_lists``: each list's name and size), the read
    that opens the one the ask names ("what's on my pharmacy list?" → ``get_list``): a read
    of the same nouns whose one parameter is a name or title."""
    asked = {singular(word) for word in words(ask)}
    named = [item for item in items if any(_said_in(item.get(key), asked) for key in _NAMING)]
    if len(named) != 1:
        return None
    for tool in available:
        if tool.writes or tool.name in ran:
            continue
        schema = tool.schema if isinstance(tool.schema, dict) else {}
        parameters = list(schema.get("properties") or {})
        if len(parameters) != 1 or not _names_a_thing(parameters[0]):
            continue
        if name_nouns(tool.name) & listed:
            return tool
    return None


def named_hit(reader: Tool, last: StepRecord, ask: str) -> dict[str, Any] | None:
    """The reader's arguments for the one hit the ask names by its title or name, or
    ``None``: "what's the next film for film club?" opens the hit titled "Film club", where
    the 1.5B model, left to pick, copied the first hit's whole line into ``title``."""
    schema = reader.schema if isinstance(reader.schema, dict) else {}
    parameters = list(schema.get("properties") or {})
    if len(parameters) != 1:
        return None
    parameter = parameters[0]
    asked = {singular(word) for word in words(ask)}
    named = [
        (item, key)
        for item in _items(last.output)
        for key in _NAMING
        if _said_in(item.get(key), asked)
    ]
    if len({id(item) for item, _ in named}) != 1:
        return None
    item, key = named[0]
    return _arguments_for(reader, parameter, item, key)


def only_hit(reader: Tool, last: StepRecord) -> dict[str, Any] | None:
    """The reader's arguments for the last step's hit when it returned exactly one, or
    ``None``: with one hit there is nothing to pick, and the 1.5B model, left to fill the read,
    copied the hit's whole line, preview and all, into ``read_note(title)``, or wrote the
    search's words ("Payments migration") over the one hit's title ("Quarterly planning 6
    March"): the read failed, and the answer came from the preview."""
    schema = reader.schema if isinstance(reader.schema, dict) else {}
    parameters = list(schema.get("properties") or {})
    items = _items(last.output)
    if len(parameters) != 1 or len(items) != 1:
        return None
    item = items[0]
    key = next((key for key in _NAMING if isinstance(item.get(key), str)), None)
    return _arguments_for(reader, parameters[0], item, key)


_PLAIN_WORDS = FUNCTION_WORDS | frozenset(
    """what when where which who whom whose how why there their they them our should will
    tell show find give get got have has had were been time day date one last next new all
    some any just still yet about its mine""".split()  # noqa: SIM905
)
"""Words an ask says about anything: a hit sharing only these is not described by it."""


def described_hit(reader: Tool, last: StepRecord, ask: str) -> dict[str, Any] | None:
    """The reader's arguments for the one hit that shares a word with the ask, when every
    other hit shares none, or ``None``: "what time is my flight to Porto?" found two emails,
    a sign-in warning first and the airline's booking second, and the 1.5B model read the
    first line's id; only the second says Porto. Words of ids, dates and flags are not
    compared, nor words any ask says ("what", "time"); with two hits described, or none,
    the worker picks as before."""
    schema = reader.schema if isinstance(reader.schema, dict) else {}
    parameters = list(schema.get("properties") or {})
    items = _items(last.output)
    if len(parameters) != 1 or len(items) < 2:
        return None
    asked = _content_words(ask)
    described = [item for item in items if _item_words(item) & asked]
    if len(described) != 1:
        return None
    item = described[0]
    key = next((key for key in _NAMING if isinstance(item.get(key), str)), None)
    return _arguments_for(reader, parameters[0], item, key)


def _content_words(text: str) -> set[str]:
    return {
        singular(word)
        for word in words(text)
        if len(word) >= 3 and word.isalpha() and word not in _PLAIN_WORDS
    }


def _item_words(item: Mapping[str, Any]) -> set[str]:
    """The words of a hit's text values; not of its ids, numbers or flags."""
    found: set[str] = set()
    for key, value in item.items():
        if isinstance(value, str) and key != "id" and not key.endswith(("_id", "_ids", "Id")):
            found |= _content_words(value)
    return found


def ordinal_ids(
    tool: Tool,
    values: Mapping[str, Any],
    steps: Sequence[StepRecord],
    said: str,
    seen: Sequence[str] = (),
) -> dict[str, Any]:
    """The id values the worker took from a result line's number instead of its id, mapped to
    that line's id. Shown "1. id: 2, from: Hannah Weber, subject: Onboarding guide", the 1.5B
    model filled ``read_email(email_id=1)`` and opened another person's email (held-out and
    dev, six stored attempts of four asks). Only where the value is no id any read of the turn
    returned, the last read's result numbers that line and shows its id there, and the user
    did not say the number (an id the user gives is theirs: lookup.py). The line must list
    the parameter's kind of thing: the item has the parameter's own key (``email_id``), or a
    bare ``id`` beside a parameter whose noun is the read's (``email_id`` after
    ``search_emails``); a ``task_id`` is never taken from a list of emails. A number shown
    anywhere else the turn has seen (``seen``: the conversation, an earlier answer) is left
    alone."""
    reads = [step for step in steps if step.kind == "tool" and not step.writes and step.output]
    if not reads:
        return {}
    last = reads[-1]
    items = _items(last.output)
    known = {
        str(value) for step in reads for item in _items(step.output) for value in item.values()
    }
    asked = set(words(" ".join([said, *seen])))
    listed = name_nouns(last.tool or "")
    found: dict[str, Any] = {}
    for name in id_parameters(tool):
        value = values.get(name)
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            continue
        text = str(value).strip()
        if not (text.isascii() and text.isdigit()) or text in known or text in asked:
            continue
        if not 0 < int(text) <= len(items):
            continue
        item = items[int(text) - 1]
        nouns = {singular(word) for word in words(name)} - {"id"}
        if name in item:
            real = item[name]
        elif "id" in item and nouns and nouns <= listed:
            real = item["id"]
        else:
            continue
        if isinstance(real, bool) or not isinstance(real, (int, str)):
            continue
        line = re.compile(rf"^\s*{text}\.\s.*\bid\W+{re.escape(str(real))}\b", re.MULTILINE)
        if line.search(last.result or ""):
            found[name] = real
    return found


def _arguments_for(
    reader: Tool, parameter: str, item: Mapping[str, Any], key: str | None
) -> dict[str, Any] | None:
    """``{parameter: value}`` that opens ``item``: its name or title (``key``) for a reader keyed
    by one, its id for a reader keyed by an id."""
    if _names_a_thing(parameter):
        return None if key is None else {parameter: item[key]}
    if parameter in id_parameters(reader):
        value = item.get(parameter, item.get("id"))
        return None if value is None else {parameter: value}
    return None


def _said_in(name: Any, asked: set[str]) -> bool:
    """Whether every word of ``name`` is a word of the ask ("Noor's party", "Pharmacy")."""
    said = {singular(word) for word in words(name)} - _GLUE if isinstance(name, str) else set()
    return bool(said) and said <= asked


def _names_a_thing(parameter: str) -> bool:
    said = words(parameter)
    return bool(said) and said[-1] in _NAMING


def _searched(step: StepRecord) -> bool:
    """A search, by its name or by a free-text query among its arguments: its hits point at
    items (a plain listing of tasks or events is itself what was asked for)."""
    if _name_words(step.tool or "") & _SEARCH_VERBS:
        return True
    given = step.input if isinstance(step.input, Mapping) else {}
    return any(
        name.lower() in _QUERY_PARAMETERS and isinstance(value, str) and value.strip()
        for name, value in given.items()
    )


def _has_ids(items: Sequence[Mapping[str, Any]]) -> bool:
    return all(any(key == "id" or key.endswith(("_id", "Id")) for key in item) for item in items)


def _items(output: Any) -> list[Mapping[str, Any]]:
    if isinstance(output, list):
        return [item for item in output if isinstance(item, Mapping)]
    if isinstance(output, Mapping):  # {"emails": [...], "count": 3}
        lists = [value for value in output.values() if isinstance(value, list)]
        if len(lists) == 1:
            return [item for item in lists[0] if isinstance(item, Mapping)]
    return []


def _name_words(name: str) -> set[str]:
    return {singular(word) for word in words(name)}
