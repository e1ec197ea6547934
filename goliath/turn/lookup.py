"""Ids come from a look-up: a call that needs an id nothing has shown first gets the read that
finds it.

A user never says an email's id, an episode's or a recipe's; only a function returns one. The
1.5B model still plans ``read_email`` or ``play_episode`` first, and its worker then writes an
id that no step returned (or says it is missing, and the turn asks the user for it). When the
id the worker gives (or lacks) appears nowhere the turn has seen — the ask, the steps, the
recent exchanges, the facts — the harness plans one look-up among the reads before the call,
then asks for the call again with the look-up's result in view (docs/design.md, "Ids come
from a look-up"). Once per function per turn: a look-up that still shows no id leaves the
call to its worker, as before.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

from ..records import StepRecord
from ..tools import Tool
from .words import words

__all__ = [
    "LookUp",
    "id_parameters",
    "lookup_hint",
    "unfound_note",
    "ungrounded_ids",
    "unshown_ids",
    "unshown_note",
]

_ID = re.compile(r"(^|_)(id|ids)$|[a-z0-9](Id|Ids)$")
_NAME_WORD = re.compile(r"(?<![\w-])[a-z]{2,}(?![\w-])")
"""A word of letters: two in a value with spaces make it a name, even beside digits."""


@attrs.frozen
class LookUp:
    """The call ``tool`` needs ``parameters`` that no step has shown: look them up first."""

    tool: str
    parameters: tuple[str, ...]
    failed: bool = False
    """The call already ran and found nothing by the values it had (``run.py``, ``_recovery``)."""
    read: str | None = None
    """The read to make, where the harness knows it (the condition's own look, ``condition.py``,
    ``condition_look``): no model call picks it."""


def id_parameters(tool: Tool) -> list[str]:
    """The required parameters that name an id (``id``, ``email_id``, ``itemId``, ``tag_ids``)."""
    schema = tool.schema if isinstance(tool.schema, dict) else {}
    return [name for name in schema.get("required") or [] if _ID.search(name)]


def _texts(value: Any) -> Iterable[str]:
    if value is None:
        return
    if isinstance(value, str):
        yield value
        return
    try:
        yield json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        yield str(value)


def _given(value: Any) -> list[str]:
    if isinstance(value, (list, tuple)):
        return [text for item in value for text in _given(item)]
    if value is None or (isinstance(value, str) and not value.strip()):
        return []
    return [str(value).strip()]


def ungrounded_ids(
    tool: Tool,
    values: Mapping[str, Any],
    steps: Sequence[StepRecord],
    seen: Iterable[str],
) -> list[str]:
    """The id parameters of ``tool`` whose value is absent, is a name of words rather than an
    id, or appears as a whole token in nothing the turn has seen (the steps' results and
    outputs, and ``seen``: the ask, the recent exchanges, the facts)."""
    names = id_parameters(tool)
    if not names:
        return []
    said = "\n".join(seen).lower().replace("\u2019", "'")
    found = "\n".join(
        text
        for step in steps
        if step.kind == "tool"
        for text in (*_texts(step.result), *_texts(step.output))
    ).lower()
    corpus = f"{said}\n{found}"
    missing = []
    for name in names:
        given = _given(values.get(name))
        if not given or any(
            not (_named_number(text, said, _id_words(tool, name)) or _shown(text, found))
            if text.isdigit()
            else not _shown(text, corpus)
            for text in given
        ):
            missing.append(name)
    return missing


def unshown_ids(
    tool: Tool,
    values: Mapping[str, Any],
    steps: Sequence[StepRecord],
    seen: Iterable[str],
) -> list[str]:
    """The id parameters of ``tool`` given an id that nothing shown to the model holds, after
    a read: a value with a digit, not a name of words, found as a whole token in no result
    the steps recorded and nowhere the turn has seen (the ask, the conversation, the facts),
    and not said as an item's number ("email 4").

    After a read, :func:`ungrounded_ids` leaves the id to the read's result, and the 1.5B
    model wrote ids no result held: ``reply_to_email(email_id=1995)`` after a search that
    showed 9 and 12 (the reply went to another email), ``read_email(1999)`` after a list of
    the first emails, ``get_recipe("r-103")`` after two searches that found nothing (and the
    answer read out the wrong recipe). Only what the model was shown counts: a result's full
    output may hold the id, but a guess that lands on it is still a guess. A name ("tile
    museum") goes to the function, whose refusal the turn recovers from."""
    said = "\n".join(seen).lower().replace("\u2019", "'")
    shown = "\n".join(
        text for step in steps if step.kind == "tool" for text in _texts(step.result)
    ).lower()
    corpus = f"{said}\n{shown}"
    unshown = []
    for name in id_parameters(tool):
        for text in _given(values.get(name)):
            if not any(char.isdigit() for char in text) or _a_name(text):
                continue  # no number, or a name of words: the function decides
            if text.isdigit() and _named_number(text, said, _id_words(tool, name)):
                continue
            if not _shown(text, corpus):
                unshown.append(name)
                break
    return unshown


def unshown_note(values: Mapping[str, Any], parameters: Sequence[str]) -> str:
    """The arguments' retry note: which id no result holds."""
    given = ", ".join(f"{name} {values.get(name)!r}" for name in parameters)
    return (
        f"Your previous reply gave {given}, which no result above shows. Copy the id of the "
        f"item the ask means from a result line; if no result shows it, leave it empty and "
        f"name it in missing."
    )


def unfound_note(tool: Tool, parameters: str) -> str:
    """What the answer is told about a conditional write whose item no read found: as for a
    condition not met, nothing was changed (no step, no question)."""
    return (
        f"Nothing was changed: no result showed the item {tool.name} needs ({parameters}), so "
        f"it was not called. Tell the user what was found and that nothing was changed."
    )


def _id_words(tool: Tool, name: str) -> set[str]:
    """Words that may stand before an item's number in what the user says: "id", "number",
    and the parameter's and function's own nouns ("email 4" for ``reply_to_email``'s
    ``email_id``)."""
    own = {word for word in (*words(name), *words(tool.name)) if len(word) > 2}
    return (own - {"ids"}) | {"id", "number", "no", "num", "item"}


def _named_number(value: str, said: str, id_words: set[str]) -> bool:
    """Whether the user's (or the app's) words give the number as an item's, after one of
    ``id_words`` or "#" ("email 4", "task #104", "id: 7"). Any other number there is a time, a
    count or an amount: "reply to Noor's email saying Baan Thai at 1 is perfect" let the
    worker's ``email_id: 1`` pass as said, and the reply went to whichever email was number 1
    (dev, 2026-12-05; docs/design.md, "Ids come from a look-up")."""
    before = "|".join(re.escape(word) for word in sorted(id_words))
    pattern = rf"(?:#\s*|\b(?:{before})s?\b\.?\s*[:#]?\s*){re.escape(value)}(?![\w-])"
    return re.search(pattern, said) is not None


def _a_name(value: str) -> bool:
    """Whether a value is a name of words ("tile museum", "CV Jordan 2019.docx" copied from the
    last answer): what the user calls the item, not its id."""
    text = value.lower()
    return " " in text.strip() and (
        not any(char.isdigit() for char in text) or len(_NAME_WORD.findall(text)) >= 2
    )


def _shown(value: str, corpus: str) -> bool:
    """Whether an id value appears in ``corpus`` as a whole token (``1`` is not in ``10 March``),
    and looks like an id: a name of words is what the user calls the item, and the id is
    still to be found."""
    text = value.lower()
    if _a_name(text):
        return False
    return re.search(rf"(?<![\w-]){re.escape(text)}(?![\w-])", corpus) is not None


def lookup_hint(tool: Tool, parameters: Sequence[str], *, failed: bool = False) -> str:
    """What the next plan is told: which call waits, and for what."""
    wanted = ", ".join(parameters)
    if failed:
        return (
            f"{tool.name} found nothing by the {wanted} it was given. Call the function that "
            f"shows what there is first."
        )
    return (
        f"{tool.name} needs the {wanted}, which only a function's result gives, and none shown "
        f"above has it. Call the function that finds it first."
    )
