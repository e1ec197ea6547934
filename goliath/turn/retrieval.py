"""Tool retrieval: the few functions whose names and descriptions best match the ask.

A phone-wide assistant has 30–40 functions; listed whole they fill a small model's first-plan
prompt and its pick drifts to a neighbour. With ``Agent(tool_retrieval=k)`` the first plan is
shown only the ``k`` functions that share the most words with the ask (a name's words count
double: they are what the model picks), plus the functions those require first. Lexical on
purpose: no second model, no embedding index, the same on every bridge; ties keep the app's
order. The later steps of the turn see every function (a plan's names are checked against
all of them).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..tools import Tool
from .words import words

__all__ = ["retrieve_tools"]

_STOP = frozenset(
    """a an the and or of to on in at for from by with my me i it is are be was this that
    please can could would you your do does did if not what whats what's when where who how
    get set show tell give""".split()  # noqa: SIM905
)


def _words(text: str) -> list[str]:
    return [_stem(word) for word in words(text) if word not in _STOP]


def _stem(word: str) -> str:
    for suffix in ("ing", "es", "s", "ed"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def retrieve_tools(tools: Sequence[Tool], ask: str, k: int) -> list[Tool]:
    """The ``k`` tools that best match ``ask`` (all of them when there are ``k`` or fewer), in
    the app's order, with every tool a kept one ``requires``."""
    if k <= 0 or len(tools) <= k:
        return list(tools)
    asked = set(_words(ask))
    documents = [(_words(tool.name), _words(tool.description)) for tool in tools]
    frequency: dict[str, int] = {}
    for name_words, description_words in documents:
        for word in set(name_words) | set(description_words):
            frequency[word] = frequency.get(word, 0) + 1
    count = len(tools)

    def weight(word: str) -> float:
        return math.log(1 + count / frequency.get(word, count))

    scores = []
    for position, (name_words, description_words) in enumerate(documents):
        score = 2 * sum(weight(w) for w in set(name_words) & asked)
        score += sum(weight(w) for w in set(description_words) & asked)
        scores.append((-score, position))
    kept = {position for _, position in sorted(scores)[:k]}
    by_name = {tool.name: position for position, tool in enumerate(tools)}
    for position in list(kept):
        for required in tools[position].requires:
            if required in by_name:
                kept.add(by_name[required])
    return [tool for position, tool in enumerate(tools) if position in kept]
