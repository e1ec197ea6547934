"""The words of a name or a sentence, split one way for every rule that compares them.

The harness compares words in many places — a tool's name with the ask, a value with the
request, a search with the read that follows it — and each comparison must split
``search_notes``, ``searchNotes`` and "search notes" alike, or two rules disagree on one ask.
"""

from __future__ import annotations

import re

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_WORD = re.compile(r"[a-z0-9]+")


DAY_WORDS = frozenset(
    """today tonight tomorrow tmrw yesterday monday tuesday wednesday thursday friday saturday
    sunday mon tue tues wed thu thur thurs fri sat sun weekend week month year next last
    january february march april may june july august september october november december
    jan feb mar apr jun jul aug sep sept oct nov dec morning evening afternoon night""".split()  # noqa: SIM905
)
"""Words that name a day or a part of one ("Friday", "tomorrow", "next week", "12 May"),
for every rule that tells when from what."""


REQUEST_VERBS = frozenset(
    """add create make set send put save schedule start log remind tell write take book change
    move update mark tick complete finish remove delete cancel rename archive reschedule
    please""".split()  # noqa: SIM905
)
"""Words a request opens with, naming the change and not the item ("move the Porto flights"
names the task "Porto flights"), for every rule that takes a copied value for the item."""


FUNCTION_WORDS = frozenset(
    """the and for from with is are was did does can could would please it this that me my
    you your""".split()  # noqa: SIM905
)
"""Words no comparison of an ask with a name, a value or a result counts (articles, pronouns,
the auxiliaries of a request): every module's own list of words to skip is these and the
words its comparison needs skipped besides."""

WRITTEN_WORDS = frozenset(
    {"body", "text", "message", "content", "note", "notes", "comment", "reply"}
)
"""Words of a parameter's name that carry what a write says (``body``, ``message_text``),
for the rules that treat that text apart from an address, a title or a number."""

_PREPOSITIONS = frozenset({"to", "into", "from", "on", "onto", "in", "of"})


def words(text: str) -> list[str]:
    """The lower-case runs of letters and digits in ``text``, a camelCase or snake_case name
    split into its words."""
    return _WORD.findall(_CAMEL.sub(" ", text).lower())


def singular(word: str) -> str:
    """A crude singular, so "bags" finds "bag" and "stamps" finds "stamp"."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def stem(word: str) -> str:
    """A crude stem, so "booking" finds "book" and "flights" finds "flight": the task the user
    calls "booking the Porto flights" is listed as "Book flights for Porto"."""
    for suffix in ("ing", "es", "s", "ed"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def name_nouns(name: str) -> frozenset[str]:
    """What a function's name is about: its words after the first, the verb, singular and
    without prepositions (``list_events`` is about events, ``append_to_note`` about a note);
    a one-word name is about itself."""
    said = words(name)
    return frozenset(singular(word) for word in (said[1:] or said) if word not in _PREPOSITIONS)
