"""A condition that something was found, decided by the harness when the reads show it.

"Did Hannah email about the onboarding guide? If so, tell her it's coming Wednesday": the
search returned ``from: Hannah Weber, subject: Onboarding guide``, and asked yes or no the
1.5B model withheld the reply (held-out, 2026-12-05, both wordings). Here, when the condition
names a person or thing by name (a capitalised word: "Hannah", "Noor") and one row the reads
returned holds that name and another word of the condition ("onboarding", "lunch"), the thing
the condition asks about was found: the change goes for "if so", and is withheld for "unless"
or "if not" (docs/design.md, "A state or a day the harness checks").

Only found, never missing: a row that is not there may be a search that looked in the wrong
place ("if Mum hasn't texted me today" over a read of her contact card), so nothing found is
left to the yes/no check, as is a condition with no name, "and"/"or", two negations, a
number (the comparison's) or a state word ("if the Front door is unlocked": the flag's).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..records import StepRecord
from .clause import Clause, condition_at, spoken
from .flag import found_flags, stated_state
from .threshold import content_words, result_rows
from .words import DAY_WORDS

__all__ = ["evidence_met", "named_condition"]

_NAME = re.compile(r"(?<![\w'])[A-Z][a-z]+(?:'s)?\b")
_NEGATION = re.compile(r"\b(?:not|never|no|nothing|none|nobody|no one)\b|n't\b")
_DIGIT = re.compile(r"\d")
_JOINED = re.compile(r"\b(?:and|or|but|either|both)\b")
_SENTENCE_START = re.compile(r"(?:^|[.?!:;]\s+|\n)$")


def _names(ask: str) -> list[str]:
    """The capitalised words not at a sentence's start ("Hannah", "Noor"), lower case."""
    found = []
    for match in _NAME.finditer(ask):
        if _SENTENCE_START.search(ask[: match.start()]):
            continue
        word = match.group(0).lower().removesuffix("'s")
        if word not in DAY_WORDS:
            found.append(word)
    return list(dict.fromkeys(found))


def named_condition(ask: str) -> tuple[Clause, list[str]] | None:
    """The one condition clause the ask's names sit in, and those names; ``None`` when no
    name is in a condition or the names sit in different clauses."""
    text = spoken(ask)
    clauses: dict[str, tuple[Clause, list[str]]] = {}
    for name in _names(ask):
        for match in re.finditer(rf"\b{re.escape(name)}\b", text):
            clause = condition_at(text, match.start(), match.end())
            if clause is not None:
                clauses.setdefault(clause.text, (clause, []))[1].append(name)
                break
    if len(clauses) != 1:
        return None
    return next(iter(clauses.values()))


def evidence_met(ask: str, reads: Sequence[StepRecord]) -> tuple[bool, str] | None:
    """Whether the write goes because a row the reads returned shows what the condition asks
    about, and that row; ``None`` when no such row was found or the harness cannot read the
    condition."""
    named = named_condition(ask)
    if named is None:
        return None
    clause, names = named
    negations = len(_NEGATION.findall(clause.text))
    if negations > 1 or _JOINED.search(clause.text) or _DIGIT.search(clause.text):
        return None  # a number is the comparison's to decide
    if stated_state(ask, [flag.key for flag in found_flags(reads)]) is not None:
        return None  # "if the Front door is unlocked": a state, not a thing found
    who = content_words(" ".join(names))
    topic = content_words(clause.text) - who - DAY_WORDS
    for step in reads:
        for _label, pairs in result_rows(step.result or ""):
            row = " ".join(value for _key, value in pairs)
            said = content_words(row)
            if who <= said and topic & said:
                exists_holds = not negations
                return exists_holds == clause.go_when_true, row
    return None
