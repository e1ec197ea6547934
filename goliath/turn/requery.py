"""A search that found nothing is tried once more with one other word of the ask.

The 1.5B model fills a search's free text with a word that is in the ask but not in the item:
"what pressure do my bike tyres take?" searched the notes for "pressure", found nothing, and the
answer said so, though the note about the bike holds the number. Most searches an app exposes
match the text as it is (a substring, or every word), so a phrase or the wrong word finds
nothing where one word of the item would find it. After such a read (and after its guessed
filters were dropped, ``given.widened_filters``), the model picks one word among the ask's
content words it did not search for, under an enum, and the read runs once more with it
(docs/design.md, "A search that found nothing is tried once more").

Only a parameter that holds free search text (``query``, ``keywords``, ``search_text``) is
changed, once per function and turn; the candidates leave out the words that name a
function, a request verb, a day, and the values the call's other parameters already hold.
The question's system prompt is one constant (byte-stable).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ..tools import Tool
from .generation import ModelCaller
from .words import DAY_WORDS, FUNCTION_WORDS, REQUEST_VERBS, singular, words
from .yes_no import choice_schema

__all__ = [
    "REQUERY_SYSTEM",
    "choose_word",
    "query_parameter",
    "requery_schema",
    "requery_user",
    "retry_words",
]

_SEARCH_TEXT = frozenset({"query", "q", "search", "keyword", "keywords", "term", "terms"})
"""Words of a parameter name that holds free search text (``query``, ``search_terms``)."""

_STOP = FUNCTION_WORDS | frozenset(
    """a an mine i im i'm we our us its these those there here what which who whom whose
    when where why how am were be been do done will should shall may might must have has
    had having get got in on at to of about into onto over under by up out off as or but
    not no yes any some all every each one ones thing things stuff something anything
    everything thanks thank just still already again also too very really much many more
    most say said tell show find look need want know take give let see use used keep go
    going if unless then than so answer reply buy pay call phone ring ask write read
    play check make making sure like open whether yet now ever time long old often far
    big late early soon them him her he she they their his hers isn aren wasn weren
    doesn don didn hasn haven hadn won wouldn couldn shouldn""".split()  # noqa: SIM905
)
"""Words that say how the ask is put, or what to do, not what it is about (pronouns, and what
is left of "isn't" and "doesn't" once split into words)."""

MAX_WORDS = 12
"""The most candidates the model picks among (the ask's first content words)."""

REQUERY_SYSTEM = """\
A search of the user's things found nothing. Pick the one word of the user's request that is \
most likely written in the item they mean (a name, a thing, a place), not a word for what \
they want to know about it. Reply {"word": WORD}."""
"""The question's rules, the same for every agent (byte-stable)."""

_FIELD = "word"


def query_parameter(tool: Tool) -> str | None:
    """The parameter of the read ``tool`` that holds free search text, if it has exactly one:
    a string with no choices, dates or formats whose name says it is searched for."""
    if tool.writes:
        return None
    schema = tool.schema if isinstance(tool.schema, dict) else {}
    properties = schema.get("properties") or {}
    found = [
        name
        for name, spec in properties.items()
        if isinstance(spec, Mapping)
        and spec.get("type") == "string"
        and not any(key in spec for key in ("enum", "const", "format", "pattern"))
        and set(words(name)) & _SEARCH_TEXT
    ]
    return found[0] if len(found) == 1 else None


def retry_words(
    ask: str,
    tools: Sequence[Tool],
    parameter: str,
    values: Mapping[str, Any],
    function: Tool | None = None,
) -> list[str]:
    """The words the search may try instead: the ask's content words in the order it says them
    (singular, so "tyres" finds "tyre" and "tyres"), less a single word already searched (a
    phrase's words stay: one of them alone may find the item), the words of the functions'
    names ("notes", "rename"), the words that hold a word of the searched ``function``'s name
    (of any function's, when it is not given) or are part of one ("mail" and "emailed" beside
    ``search_emails``: they say what kind of thing is searched, and a search for "mail"
    matches any text that says "email"; "flight" stays beside another function's
    ``set_light``), question words ("what time", "how long"), request verbs, days, and the
    words the call's other values hold (``folder="Downloads"``; a search text that only
    repeats them is dropped anyway)."""
    searched = values.get(parameter)
    tried = {singular(word) for word in words(searched)} if isinstance(searched, str) else set()
    named = {singular(word) for tool in tools for word in words(tool.name)}
    others = {
        singular(word)
        for name, value in values.items()
        if name != parameter and value is not None
        for word in words(json.dumps(value, default=str))
    }
    inside = named if function is None else {singular(word) for word in words(function.name)}
    skip = _STOP | REQUEST_VERBS | DAY_WORDS | named
    if len(tried - skip) <= 1:  # one word searched: another; a phrase: any one of its words
        skip = skip | tried
    skip = skip | others
    found: list[str] = []
    for word in words(ask):
        if word in _STOP:
            continue
        word = singular(word)
        if word in skip or word in found or (len(word) < 3 and not word.isdigit()):
            continue
        if _names_a_function(word, inside):
            continue
        found.append(word)
    return found[:MAX_WORDS]


def _names_a_function(word: str, named: set[str]) -> bool:
    """Whether ``word`` holds a word of a function's name or is part of one, both of four
    letters or more ("mail" of "email", "emailed"; not "fine" beside "file")."""
    return len(word) >= 4 and any(
        len(name) >= 4 and (word in name or name in word) for name in named
    )


def requery_schema(choices: Sequence[str]) -> dict[str, Any]:
    """``{"word": one of choices}``."""
    return choice_schema(_FIELD, choices)


def requery_user(ask: str, tool: Tool, searched: str, choices: Sequence[str]) -> str:
    """The question's user prompt: the request, what was searched, the words to pick among."""
    return (
        f"Request: {ask}\n"
        f'Searched {tool.name} for "{searched}": nothing found.\n'
        f"Words: {', '.join(choices)}"
    )


async def choose_word(
    caller: ModelCaller, ask: str, tool: Tool, searched: str, choices: Sequence[str]
) -> str | None:
    """The word to search for instead, picked by the model among ``choices`` (the only one, with
    no model call); ``None`` when there is none or the reply names none of them."""
    if len(choices) <= 1:
        return choices[0] if choices else None
    text = requery_user(ask, tool, searched, choices)
    generation = await caller.call(
        "requery", REQUERY_SYSTEM, lambda _compact: text, requery_schema(choices), compactable=False
    )
    try:
        word = json.loads(generation.text).get(_FIELD)
    except (ValueError, AttributeError):
        return None
    return word if word in choices else None
