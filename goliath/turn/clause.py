"""Where an ask states its condition, and which way the change depends on it.

The harness decides some conditions itself — a number ("if it's under 19 degrees"), a state
("if the front door is unlocked"), a day ("if it's Noor's birthday today") — and each of them
needs the same reading first: the clause that makes the condition, and whether the change goes
when it holds ("if", "if so") or when it does not ("unless", "if not", "if it isn't"). One
reader here, so the three rules never disagree on one ask.

A condition is one of two forms:

- a clause opened by a connective: "if ...", "unless ...", "when ...", "provided ...", "as
  long as ..." ("unless" turns it round);
- a question followed by its answer: "Is the porch light on? Turn it off if so.", "front door
  unlocked? lock it then", "Check whether the study is under 18 and heat it if it is" — the
  answer ("if so", "then", "if not", "if it isn't") says which way; without one it is no
  condition.
"""

from __future__ import annotations

import re

import attrs

__all__ = ["Clause", "asks_then_acts", "condition_at", "hangs_on_condition", "spoken"]

_CLAUSE_BREAK = re.compile(r"[,;:.?!](?:\s|$)|\bif (?:so|yes)\b|\bthen\b|\s[-\u2013\u2014]\s")
_SENTENCE_BREAK = re.compile(r"[.?!](?:\s|$)")
_CONNECTIVE = re.compile(r"\b(?:if|unless|when|provided|providing|as long as|so long as)\b")
_WHETHER = re.compile(r"\bwhether\b|\bcheck (?:if|that)\b")
_WHETHER_END = re.compile(r"[,;:.?!](?:\s|$)|\b(?:and|then|if)\b")
_UNLESS = re.compile(r"^unless\b")
_NOT_A_CONDITION = re.compile(
    r"\b(?:sure|know|knows|ask|asks|asking|wonder|wondering|remember|even|see|tell me|find out)"
    r"(?:\s+\S+){0,3}\s*$"
)
_ELSE = re.compile(r"\belse\b|\botherwise\b.*\botherwise\b")
_ANSWER = re.compile(
    r"\bif (?P<so>so|yes)\b"  # "if yes kill it": a whole answer, whatever follows
    r"|\bif (?:(?P<no>not|no)"
    r"|(?:it|they|i|you|he|she|that|there|one|we)\s*"
    r"(?:'s|'re|'m|'ve|is|are|am|was|were|has|have|had|did|does|do)(?P<neg>n't|\s+not)?)"
    r"(?=\s*(?:$|[,;:.?!-]|(?:already|yet|then|please)\b))"
    r"|\b(?P<then>then)\b|\b(?P<otherwise>otherwise)\b"
)


@attrs.frozen
class Clause:
    """The sentence that holds a condition, the condition's own words, and whether the change
    goes when the condition holds (``False`` for "unless", "if not")."""

    sentence: str
    text: str
    go_when_true: bool


def spoken(ask: str) -> str:
    """The ask as the rules read it: lower case, one kind of apostrophe and minus, single
    spaces."""
    return re.sub(r"\s+", " ", ask.lower().replace("\u2019", "'").replace("\u2212", "-")).strip()


def condition_at(text: str, start: int, end: int) -> Clause | None:
    """The condition that holds ``text[start:end]`` (``text`` as :func:`spoken` gives it), or
    ``None`` when those words are not in a condition."""
    sentence_start = 0
    for brk in _SENTENCE_BREAK.finditer(text, 0, start):
        sentence_start = brk.end()
    sentence_end = _SENTENCE_BREAK.search(text, end)
    sentence = text[sentence_start : sentence_end.end() if sentence_end else len(text)]
    clause_start = sentence_start
    for brk in _CLAUSE_BREAK.finditer(text, sentence_start, start):
        clause_start = brk.end()
    clause_end = _CLAUSE_BREAK.search(text, end)
    stop = clause_end.start() if clause_end else len(text)
    connectives = [
        found
        for found in _CONNECTIVE.finditer(text, clause_start, start)
        if not (found.group() == "when" and sentence.rstrip().endswith("?"))
    ]  # "When is Mum's birthday?" asks; it states no condition
    whether = list(_WHETHER.finditer(text, clause_start, start))
    opener = None
    if connectives and not (whether and whether[-1].start() > connectives[-1].start()):
        opener = connectives[-1]
    elif whether:
        opener = whether[-1]
    if opener is not None and _NOT_A_CONDITION.search(
        text[max(0, opener.start() - 40) : opener.start()]
    ):
        return None  # "not sure if ...", "ask him if ...", "even if ..."
    if _ELSE.search(text):
        return None  # two branches: which one a write belongs to is not read here
    if connectives and opener is connectives[-1]:
        condition = text[opener.start() : stop]
        if False in _answers(text[stop:]):
            return None  # "if it's done, tick it off; if not, move it"
        return Clause(sentence.strip(), condition.strip(), not _UNLESS.match(condition))
    if whether:  # "check whether the door is locked and lock it if it isn't"
        cut = _WHETHER_END.search(text, end)
        stop = cut.start() if cut else len(text)
        condition = text[whether[-1].end() : stop]
        answers = _answers(text[stop:])
    elif sentence.rstrip().endswith("?"):  # "Is it colder than 18 in here? If so, ..."
        condition = text[clause_start:stop]
        answers = _answers(text[sentence_end.end() :] if sentence_end else "")
    else:
        return None
    if len(answers) != 1:
        return None  # no answer, or "if so ... if not ...": no single way
    return Clause(sentence.strip(), condition.strip(), answers.pop())


def asks_then_acts(ask: str) -> bool:
    """Whether the ask puts a question and makes the change hang on its answer ("front door
    unlocked? lock it then", "check whether it's locked and lock it if it isn't")."""
    text = spoken(ask)
    for brk in _SENTENCE_BREAK.finditer(text):
        if text[brk.start()] == "?" and _answer(text[brk.end() :]) is not None:
            return True
    whether = _WHETHER.search(text)
    if whether is None:
        return False
    cut = _WHETHER_END.search(text, whether.end())
    return cut is not None and _answer(text[cut.start() :]) is not None


_STRICT_CONDITION = re.compile(r"\b(?:if|unless|provided|as long as|so long as)\b")


def hangs_on_condition(ask: str) -> bool:
    """Whether the ask makes its change hang on a condition said with "if", "unless",
    "provided" or "as long as", or on a question ("front door unlocked? lock it then"); a
    "whether" alone ("check whether I'm free") asks, it sets no condition."""
    return bool(_STRICT_CONDITION.search(ask.lower())) or asks_then_acts(ask)


def _answers(rest: str) -> set[bool]:
    """Which ways the answers after a question go: "if so", "then", "if it is" (``True``);
    "if not", "if it isn't", "otherwise" (``False``); empty with no answer."""
    return {
        not (match["no"] or match["neg"] or match["otherwise"]) for match in _ANSWER.finditer(rest)
    }


def _answer(rest: str) -> bool | None:
    """The one way the answers after a question go, or ``None``."""
    answers = _answers(rest)
    return answers.pop() if len(answers) == 1 else None
