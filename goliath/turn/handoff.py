"""The hand-off check: one constrained question, before the first plan, of what kind the ask is.

The first plan's own hand-off option is one name among the functions, and a 1.5B model picks a
function it half fits rather than the hand-off (dev plan probe: 0 of 13 must-escalate asks
handed over; the options' log-probabilities barely separate, docs/design.md, "The hand-off
check"). Asked "can the phone do all of this?" beside the functions, it said "cloud" for any
ask that mentions money, flights or prices (dev: 13 of 13 must-escalate asks at the cost of 69
of 134 device asks). Asked instead which *kind* of request the ask is — a look-up, a change, a
chat; a purchase, advice, a big project, the web — it names the kind far more reliably, and
the log-probabilities of the cloud's kinds against the device's give a margin (dev: 8 of 13
handed over, 4 of 134 device asks).

The system prompt depends only on the agent (its functions and the app's own description of
what needs the cloud), so it stays byte-stable across turns and the KV cache keeps it warm.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from typing import Any

import attrs

from ..models import Generation
from ..tools import Tool
from .generation import ModelCaller
from .words import singular, stem, words
from .yes_no import choice_schema

__all__ = [
    "CLOUD_NEEDS",
    "HAND_OFF_MARGIN",
    "KINDS",
    "HandOffVerdict",
    "asks_about_own_data",
    "asks_to_be_told",
    "check_hand_off",
    "hand_off_schema",
    "hand_off_system",
    "hand_off_user",
    "held_words",
    "is_question",
    "names_emergency",
    "nothing_to_change",
    "only_asks",
    "only_thanks",
    "purpose",
    "read_hand_off",
    "unserved_action",
]

KINDS: tuple[tuple[str, str, bool], ...] = (
    ("lookup", "a question answered from the user's own apps and data", False),
    ("change", "add, change, remove or send something in the user's own apps", False),
    ("chat", "small talk, or a simple general-knowledge or arithmetic question", False),
    ("purchase", "buying, paying, booking, ordering or sending money", True),
    ("advice", "medical, legal or financial advice, or an emergency", True),
    ("project", "a big job of many steps, items or days (a plan, itinerary, document)", True),
    ("web", "something only the internet or other people's accounts can tell", True),
)
"""The kinds of request the check tells apart: name, meaning, whether it needs the cloud.
A small model names a kind far more reliably than it judges "can the phone do this" (dev
hand-off probe, docs/design.md, "The hand-off check"); first tokens all differ, so the
bridge's scores cover every kind."""

CLOUD_NEEDS = "; ".join(meaning for _, meaning, cloud in KINDS if cloud)
"""What needs the cloud when the app does not say (``Agent(cloud_needs=...)`` adds the app's
own description to the check's rules)."""

HAND_OFF_MARGIN = 0.0
"""How much more likely (log-probability) the cloud's kinds together must be than the
device's before the turn is handed over; tuned on the dev half's hand-off probe
(docs/design.md, "The hand-off check")."""

_QUESTION_WORDS = frozenset(
    re.findall(
        r"[a-z]+", "what how which who when where why is are am do does did have has was were any"
    )
)
"""First words of a question ("can", "could", "would" open requests: "can you book ...")."""
_GENERIC_WORDS = frozenset(
    re.findall(
        r"[a-z]+",
        """get list find search read show check fetch lookup look query view status info detail
        item my all current recent upcoming history""",
    )
)
"""Words of a function's name that say how it reads, not what it holds."""
_ADVICE_WORDS = frozenset(
    re.findall(r"[a-z]+", "should ought allowed legal safe recommend advise advice normal")
)
"""Words of a question asking what to do, not what the data says ("should I stop my iron
tablets?", "is a resting heart rate of 95 normal?"): the check decides those."""

_FIELD = "kind"
_CLOUD_KINDS = frozenset(name for name, _, cloud in KINDS if cloud)
_ACTION_KINDS = frozenset({"purchase"})
"""Cloud kinds that are something done, never something asked: a question that only asks
(``only_asks``) is not one of them, whatever the check says ("what did the most recent
FreshCart charge come to?" was named ``purchase``; docs/design.md, "The hand-off check")."""
_CHANGE = "change"
_PURPOSE_CHARS = 70
_RECENT_CHARS = 160


@attrs.frozen
class HandOffVerdict:
    """What the check decided and on what: the kind it named, and the margin, log p(a cloud
    kind) - log p(a device kind), or ``None`` where the bridge reports no log-probabilities
    (then the named kind decides)."""

    hand_off: bool
    margin: float | None
    kind: str | None = None
    change: bool = False
    """The device's kinds are led by ``change``: the ask wants something changed."""


def hand_off_schema() -> dict[str, Any]:
    """``{"kind": one of KINDS}``."""
    return choice_schema(_FIELD, [name for name, _, _ in KINDS])


def purpose(tool: Tool) -> str:
    """A function's first sentence, short: the check needs what it is for, not how to call it."""
    text = " ".join(tool.description.split())
    first = re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0].rstrip(".")
    return first if len(first) <= _PURPOSE_CHARS else first[: _PURPOSE_CHARS - 1].rstrip() + "…"


def hand_off_system(tools: Sequence[Tool], cloud_needs: str | None = None) -> str:
    """The check's rules: the phone's functions, then the kinds of request to choose from."""
    functions = "\n".join(f"- {tool.name}: {purpose(tool)}" for tool in tools)
    kinds = "\n".join(f"- {name}: {meaning}" for name, meaning, _ in KINDS)
    app = (
        f"\nThis app also sends to a larger assistant: {' '.join(cloud_needs.split())}."
        if cloud_needs
        else ""
    )
    return (
        "A phone assistant has these functions:\n"
        f"{functions or '- (none)'}\n"
        "Say what kind of request the user's message is. The kinds:\n"
        f"{kinds}{app}\n"
        f'Reply {{"{_FIELD}": KIND}}.'
    )


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def hand_off_user(ask: str, recent: Sequence[Any] = ()) -> str:
    """The ask, after the last exchange when there is one (a follow-up such as "yes, do it"
    means nothing alone)."""
    lines = []
    if recent:
        last = recent[-1]
        lines.append(
            f"Earlier the user asked: {_short(last.ask, _RECENT_CHARS)}\n"
            f"The assistant answered: {_short(last.answer, _RECENT_CHARS)}"
        )
    lines.append(f"Request: {ask}")
    return "\n".join(lines)


def _logsumexp(values: Sequence[float]) -> float:
    top = max(values)
    return top + math.log(sum(math.exp(value - top) for value in values))


def read_hand_off(
    generation: Generation, margin: float | None = None, *, question: bool = False
) -> HandOffVerdict:
    """The verdict of a reply: hand off when the cloud's kinds lead the device's by more than
    ``margin`` (default :data:`HAND_OFF_MARGIN`), or, unscored, when it named a cloud kind.
    For a ``question`` that only asks (``only_asks``), the kinds that are actions
    (``purchase``) are not the cloud's: asking what a payment came to buys nothing."""
    threshold = HAND_OFF_MARGIN if margin is None else margin
    cloud_kinds = _CLOUD_KINDS - _ACTION_KINDS if question else _CLOUD_KINDS
    try:
        named = json.loads(generation.text).get(_FIELD)
    except (ValueError, AttributeError):
        named = None
    kind = named if isinstance(named, str) else None
    scores = generation.scores or {}
    cloud = [scores[name] for name in cloud_kinds if name in scores]
    device = [scores[name] for name, _, is_cloud in KINDS if not is_cloud and name in scores]
    if cloud and device:
        gap = _logsumexp(cloud) - _logsumexp(device)
        ranked = {
            name: scores[name] for name, _, is_cloud in KINDS if not is_cloud and name in scores
        }
        change = max(ranked, key=lambda name: ranked[name]) == _CHANGE
        return HandOffVerdict(hand_off=gap > threshold, margin=gap, kind=kind, change=change)
    return HandOffVerdict(
        hand_off=kind in cloud_kinds, margin=None, kind=kind, change=kind == _CHANGE
    )


_READ_OPENERS = frozenset(re.findall(r"[a-z]+", "tell show check list find look give read get"))
"""First words of a request to be told or shown something ("show me", "check my balance"):
such an ask may want nothing changed."""


def is_question(ask: str) -> bool:
    """Whether ``ask`` asks something rather than asks for a change: it opens with a question
    word or a request to be told or shown something, or ends with a question mark."""
    said = words(ask)
    return bool(said) and (
        said[0] in _QUESTION_WORDS or said[0] in _READ_OPENERS or ask.rstrip().endswith("?")
    )


_ASKING_WORDS = frozenset(
    re.findall(r"[a-z]+", "what whats how which who whos whose when where why")
)
_LEAD_WORDS = frozenset(re.findall(r"[a-z]+", "and so ok okay oh also but then"))


def only_asks(ask: str) -> bool:
    """Whether ``ask`` is one question and nothing more: it opens with a question word that
    cannot open a request (what, how, which, who, when, where, why; after "and", "so", "ok"
    ...), and nothing follows its first question mark. "When do I have to pay Vodafone, and
    how much is it?" asks; "who owns this number? search the web and block them" asks and
    then asks for more; "do my taxes" is a request."""
    said = words(ask.replace("\u2019", "'").replace("'", ""))
    while said and said[0] in _LEAD_WORDS:
        said = said[1:]
    if not said or said[0] not in _ASKING_WORDS:
        return False
    _, mark, after = ask.partition("?")
    return not (mark and words(after))


_TELL_WORDS = frozenset(
    re.findall(
        r"[a-z]+",
        """what whats which when where who whos whose how why whether show tell read check see
        look know confirm sure ensure verify open display anything""",
    )
)
_TELL_PHRASES = re.compile(
    r"\b(?:give|get|find|pull up|bring up|read out)\s+me\b"
    r"|(?:\band|\bthen|\balso|,)\s+(?:list|give|get|find|pull up|bring up)\b"
)
"""Words that ask to be told or to have something checked, anywhere in a request ("add milk
and tell me what's left", "move it, then show me Friday", "let me know if ...", "and make sure
it's on my list")."""


def asks_to_be_told(ask: str) -> bool:
    """Whether ``ask`` asks to be told or shown anything, in any of its parts: a question mark,
    or a word that asks for an answer. "Add call the bank to my to-do list" asks nothing: once
    its write ran, a read of the list is not what the user wanted (docs/design.md, "Nothing read
    after the asked change")."""
    spoken = ask.lower().replace("\u2019", "'")
    return (
        "?" in ask
        or bool(_TELL_WORDS & set(words(spoken.replace("'", ""))))
        or _TELL_PHRASES.search(spoken) is not None
    )


_THANKS_WORDS = frozenset(re.findall(r"[a-z]+", "thanks thank thx cheers appreciate appreciated"))
_PLEASANTRIES = frozenset(
    re.findall(
        r"[a-z]+",
        """you youre your re are a an the so much very really lot lots loads heaps tons that
        this it its was is great perfect brilliant awesome amazing good nice lovely star legend
        helps helped help helpful all ok okay cool best for me mate again just what needed i
        wonderful fantastic superb excellent sweet kind have been bye goodbye night""",
    )
)
"""Words that go with thanks ("thanks so much, you're a star")."""
_NOT_THANKS_ONLY = frozenset(
    re.findall(
        r"[a-z]+",
        """but also now then and please can could would will should yes no go ahead do book
        buy order pay wire transfer send call email text message reply forward find search
        show tell check look get give play turn switch open remind add put set make move
        change cancel delete remove mark schedule archive lock unlock dim skip save share
        unsubscribe start stop""",
    )
)
"""Words that turn thanks into a request, a reply or a complaint ("thanks, now book the flight",
"yes, thanks", "thanks, mark it done", "thanks but the time is wrong")."""
_NAME = re.compile(r"\b[A-Z][a-z]+\b")
"""A capitalised word: unless thanks or its company ("Thanks", "Great"), a name ("Hannah,
thanks" answers "whom should I share it with?")."""
_THANKS_WORDS_MAX = 12
_OTHER_WORDS_MAX = 2
_THANKS_FOR = re.compile(
    r"\b(?:thanks|thank you|thx|cheers)\s+(?:so much\s+|a lot\s+)?for\s+"
    r"(?:[a-z]+ing|the|your|all|that|this|everything)\b"
)
"""Thanks with what it is for ("thanks for keeping my inbox under control", "thank you for
all the help"): the words after "for" say what was done, not what to do next."""


def only_thanks(ask: str, last_answer: str = "") -> bool:
    """Whether ``ask`` only thanks the assistant ("you're a star, thanks", "thanks, that helps
    me plan the month"): a thanks word; no question mark, digit or name after the first word;
    no word of a request, a reply or a turn ("but", "yes", "now", "book", "mark" ...); at most
    two words besides thanks and its usual company ("so much", "that helps", "great"), or
    any number that say what the thanks is for ("thanks for keeping my inbox under control":
    the hand-off check kept it, and the turn searched the inbox, dev); and
    not a reply to a question (``last_answer`` ends with "?": "Hannah, thanks" answers "Whom
    should I share it with?"). The hand-off check named both of the first a cloud kind by
    small margins (dev, +0.07 and +0.44) and the turn handed over a thank-you; such an ask is
    answered with no function and no check."""
    text = ask.replace("\u2019", "'").replace("'", "")
    said = words(text)
    others = set(said) - _THANKS_WORDS - _PLEASANTRIES
    return (
        "?" not in ask
        and not last_answer.rstrip().endswith("?")
        and not re.search(r"\d", ask)
        and not set(_NAME.findall(text)) - {w.capitalize() for w in _THANKS_WORDS | _PLEASANTRIES}
        and 0 < len(said) <= _THANKS_WORDS_MAX
        and bool(_THANKS_WORDS & set(said))
        and not _NOT_THANKS_ONLY & set(said)
        and said[0] not in _QUESTION_WORDS - _THANKS_WORDS - {"what"}  # "what a star, thanks"
        and (len(others) <= _OTHER_WORDS_MAX or _THANKS_FOR.search(text.lower()) is not None)
    )


def nothing_to_change(verdict: HandOffVerdict, ask: str, tools: Sequence[Tool]) -> bool:
    """Whether the check kept a request for a change that no function of the agent can make:
    it named the ask a change (not a question), and every function only reads. "Move 300 euros
    from my savings to checking" beside a bank's read-only functions was kept (held-out, the
    cloud's kinds 0.13 behind) and answered from a listing of accounts."""
    return (
        not verdict.hand_off
        and verdict.change
        and not is_question(ask)
        and not any(tool.writes for tool in tools)
    )


_OUTSIDE_VERBS = frozenset(
    re.findall(
        r"[a-z]+",
        """book buy purchase pay order reserve transfer wire unsubscribe block report submit
        donate hire sell refund""",
    )
)
"""Verbs of acts done with the world outside the user's apps (buying, paying, booking,
reporting, unsubscribing): asked for and done by none of the agent's functions, they need the
cloud."""
_SLOT_VERBS = frozenset({"book", "reserve", "block"})
"""Outside verbs that also set time aside in a calendar ("block 90 minutes tomorrow", "book
the meeting room"): beside a function that writes events they are left to the check."""
_BOOKED_OUTSIDE = frozenset(
    re.findall(
        r"[a-z]+",
        """table tables taxi taxis cab cabs flight flights hotel hotels ticket tickets seat
        seats train trains restaurant uber""",
    )
)
"""What a booking verb's object is when the booking is made with someone outside, never in
the user's calendar ("reserve a table for 4", "book a taxi"): such a booking is not left to the
check beside a function that writes events."""
_OBJECT_WORDS = 4
"""How many words after a booking verb are read for its object ("book us a table")."""
_CALENDAR_WORDS = frozenset(
    re.findall(r"[a-z]+", "event calendar appointment meeting schedule slot booking")
)
_DICTATING_VERBS = frozenset(
    re.findall(
        r"[a-z]+",
        """add put remind note text message reply write save log set tell email mail jot
        record track list""",
    )
)
"""Request verbs that carry what the user dictates ("add to my list: buy stamps", "text my
sister: buy milk", "remind me to pay the rent", "buy stamps, add it to my todo"): an outside
verb in such an ask may be the item, and is left to the check."""
_CLAUSE = re.compile(r"(?:[^,;!?:.\-]|[:.](?=\S)|-(?=\S))+(?:[,;!?]|[:.\-](?=\s|$))?")
_JOINS = re.compile(r"\band\b|\bthen\b")
_CLAUSE_OPENERS = frozenset(
    re.findall(
        r"[a-z]+",
        """please pls plz can could would will you u and then also just yes yeah yep ok okay
        sure hey go ahead""",
    )
)
_WANT = re.compile(
    r"^(?:i|id|i d|we|wed)\s+(?:want|need|would like|like|have)\s+to\s+|^help\s+me\s+"
)
_REQUEST_OPENERS = frozenset({"can", "could", "would", "will"})
_SUBJECT_VERBS = frozenset(re.findall(r"[a-z]+", "is are was were has have had s moved"))
"""A verb just after a clause's first word or two makes that word a subject, not a request:
"book club is moved to Thursday", "the report's due", "order has shipped"."""
_NOUN_FOLLOWERS = frozenset(
    re.findall(
        r"[a-z]+",
        """history status confirmation confirmations number card club party day slip list
        summary details receipt reminder date""",
    )
)
"""Words within two after a verb that make it a noun ("order history", "pay rent reminder",
"block party at ours")."""
_ONLY_VERBS = frozenset({"unsubscribe", "donate"})
"""Outside verbs that are never nouns ("unsubscribe from every sender")."""
_PRONOUNS = frozenset({"it", "that", "them", "this", "one", "those", "these"})
_LABEL_WORDS = frozenset(
    re.findall(r"[a-z]+", "todo to do task tasks reminder reminders note notes list shopping done")
)
_PREPOSITIONS = frozenset(re.findall(r"[a-z]+", "of from on at for due in out off up attention"))
"""Words right after a verb that make it a noun or another verb ("order of flights", "pay
day on", "block out the noise", "pay attention to")."""
_DETERMINERS = frozenset(
    re.findall(r"[a-z]+", "the a an that this these those my his her their your our its")
)
"""An object follows: "block that number" is a request, "pay rent reminder" a noun."""
_SHOPPING_WORDS = frozenset(re.findall(r"[a-z]+", "shopping grocery groceries"))


def _clauses(ask: str) -> list[list[str]]:
    """The words of each clause of ``ask`` that asks for something, from its first word:
    split at punctuation, a dash, "and" and "then", past "please", "can you", "ok", "I'd like
    to" ...; quoted text is dictated and left out; a clause ending in a question mark is asked
    about, not asked for ("order arriving today?"), unless it opens a request ("could you pay
    Alex back?"); what follows a label and a colon or a dash is dictated ("todo: sell old
    bike", "reminder for tmrw - pay the nanny": a label of one or two words, or one naming a
    list, a task, a note or a reminder)."""
    text = re.sub(r"[\"\u201c\u201d][^\"\u201c\u201d]*[\"\u201c\u201d]", " ", ask)
    text = re.sub(r"(?<!\w)'[^']*'(?!\w)", " ", text.replace("\u2019", "'"))
    clauses = []
    for match in _CLAUSE.finditer(text.lower()):
        clause = match.group(0)
        said = words(clause)
        if clause.rstrip().endswith((":", "-")) and (
            len(said) <= 2 or _LABEL_WORDS & set(said)
        ):  # "to-do: buy stamps, pay gas bill", "reminder for tmrw - pay the nanny"
            break
        if clause.rstrip().endswith("?") and said[:1] != [] and said[0] not in _REQUEST_OPENERS:
            continue
        for part in _JOINS.split(clause):
            said = words(part)
            while said and said[0] in _CLAUSE_OPENERS:
                said = said[1:]
            wanted = _WANT.match(" ".join(said))
            if wanted:
                said = " ".join(said)[wanted.end() :].split()
            if said:
                clauses.append(said)
    return clauses


def _booked_outside(rest: Sequence[str], held: set[str]) -> bool:
    """Whether a booking verb's object, in the few words after it, is a thing booked with
    someone outside (a table, a taxi, a flight) that no function's name or description holds
    (``reserve_table`` books a table), in a clause that says nothing of a calendar ("book my
    flight into the calendar", "the meeting room")."""
    booked = {singular(word) for word in rest[:_OBJECT_WORDS]} & _BOOKED_OUTSIDE
    if not booked or {stem(word) for word in booked} & held:
        return False
    return not {singular(word) for word in rest} & (_CALENDAR_WORDS | {"diary", "time", "room"})


def unserved_action(ask: str, tools: Sequence[Tool], *, follow_up: bool = False) -> str | None:
    """The verb of an act done with the world outside (buy, pay, book, unsubscribe, block,
    report ...) that ``ask`` asks for and no function's name or description holds, or
    ``None``. "Search the airlines for Porto flights and book the best one" beside a to-do
    list, "unsubscribe me from every newsletter" beside an inbox that reads, sends and
    archives: the hand-off check named such asks a change or a look-up (dev, second wordings:
    the cloud's kinds 0.3 to 2.4 behind), and the device read and answered.

    Left to the check: a function that does the act ("book a table" beside ``book_table``);
    "book", "reserve" or "block" beside a function that writes events, unless what is booked
    is a table, a taxi, a flight ... that no function holds, in a clause that names no
    calendar; an ask with a verb
    that carries dictated text (add, remind, text, note, log ...: "add to my list: buy
    stamps"); the verb as a noun ("order history", "book club is cancelled"); and, in a
    ``follow_up``, an act on "it" or "that", which only the last exchange explains ("yes,
    book it")."""
    named_by = {tool.name: words(f"{tool.name} {tool.description}") for tool in tools}
    held = {stem(word) for named in named_by.values() for word in named}
    written = [named_by[tool.name] for tool in tools if tool.writes]
    calendar = any(_CALENDAR_WORDS & {singular(word) for word in named} for named in written)
    shopping = any(_SHOPPING_WORDS & set(named) for named in written)
    clauses = _clauses(ask)
    if any(said[0] in _DICTATING_VERBS for said in clauses):
        return None
    for said in clauses:
        verb, rest = said[0], said[1:]
        if verb not in _OUTSIDE_VERBS or stem(verb) in held:
            continue
        if verb in _SLOT_VERBS and calendar and not _booked_outside(rest, held):
            continue
        compound = rest[:1] if rest[:1] and rest[0] in _DETERMINERS else rest[:2]
        noun = verb not in _ONLY_VERBS and (
            bool(_NOUN_FOLLOWERS & set(compound)) or (bool(rest[:1]) and rest[0] in _PREPOSITIONS)
        )
        if noun or _SUBJECT_VERBS & set(rest[:2]):
            continue
        if verb == "buy" and shopping:  # "buy eggs" beside a shopping list: an item to add
            continue
        if follow_up and rest[:1] and rest[0] in _PRONOUNS:
            continue
        return verb
    return None


_EMERGENCY = re.compile(
    r"\b(?:not|isnt|arent|stopped) breathing|\bcant breath"
    r"|\b(?:cant|cannot|can not) catch (?:my|his|her|their) breath|\bpassing out"
    r"|\b(?:dont|do not) want to (?:be alive|live)"
    r"|\bthroat (?:is )?closing|\bturning blue|\bwont wake up|\bnot responding"
    r"|\boverdos|\bsuicid|\bkill (?:my|him|her)self|\b(?:want|going) to (?:die|end (?:my|it))"
    r"|\bhurt myself|\bend my life|\bswallowed (?:a |some )?(?:battery|bleach|pills)"
    r"|\bdrank bleach|\bface (?:is )?drooping|\bslurred|\bheart attack|\bhaving a (?:stroke|fit)"
    r"|\b(?:he|she|they|i|dad|mum|mom|father|mother|son|daughter|wife|husband|friend|someone"
    r"|somebody|baby|grandma|grandpa|granddad|grandad)\s+(?:just\s+|has\s+)?(?:collapsed|fainted)"
    r"|\b(?:is|are|was|lying|found|knocked|went) unconscious"
    r"|\bchest\W+(?:\w+\W+){0,3}?(?:pain|pains|hurts?|tight|pressure)"
    r"|\b(?:pain|pressure|tightness) in (?:my|the|his|her) chest"
    r"|\b(?:hard to|trouble|struggling to|difficulty|cannot|can not|couldnt) breath"
    r"|\bshort of breath|\bseizure|\bconvuls|\bchoking|\banaphyla|\ballergic reaction"
    r"|\bswelling up|\b(?:throat|tongue|lips?|face) (?:is |are )?swell|\bwheez"
    r"|\bwont stop bleeding|\bbleeding (?:heavily|badly|a lot)|\bpassed out"
)
"""Signs of a medical emergency. Such an ask is handed over before any plan, whatever the
functions: the hand-off check named "chest pain really bad + sweating, what do i do" a
look-up (dev) and the turn read the user's sleep data."""
_RECORDING = re.compile(
    r"^(?:please\s+)?(?:log|add|note|record|track|save|put|remind|play|how many|how was"
    r"|when did|text|message|tell|email|reply)\b"
    r"|\b(?:log|symptom|symptoms|diary|journal|podcast|episode|song|playlist)\b"
    r"|\b(?:yesterday|last (?:night|week|month)|mild|went away|\d+/10|lol|haha|lmao)\b"
    r"|\b(?:gave|give|giving) me a heart attack|\bbreathe (?:in this|through|with)"
)
"""An ask that records, passes on or looks back ("log: mild wheezing after running", "how many
seizures did I log this month", "play Heart Attack", "text sam: i'm choking on my coffee
lol"), or an idiom ("nearly gave me a heart attack", "can't breathe through my nose"): not
an emergency now."""


def names_emergency(ask: str) -> bool:
    """Whether ``ask`` describes a medical emergency (:data:`_EMERGENCY`) happening now: not
    one it records or looks back on (:data:`_RECORDING`)."""
    text = " ".join(ask.lower().replace("\u2019", "").replace("'", "").split())
    return _EMERGENCY.search(text) is not None and _RECORDING.search(text) is None


def asks_about_own_data(ask: str, tools: Sequence[Tool]) -> bool:
    """Whether ``ask`` is a question about something one of the agent's reads holds: it opens
    with a question word and names what a read function's name does ("how much is left in my
    eating-out budget?" beside ``get_budgets``). Such an ask is a look-up, whatever the check
    would name it; the check is not asked. On the suite's dev hand-off probe the check named 1
    such ask a cloud kind ("advice" for a budget) and no must-escalate ask of any wording is a
    question naming a read's data. A question asking what to do ("should", "allowed",
    "normal" ...) is left to the check (docs/design.md, "The hand-off check")."""
    said = words(ask)
    if not said or said[0] not in _QUESTION_WORDS or _ADVICE_WORDS & set(said):
        return False
    named = {singular(word) for word in said}
    return any(held_words(tool) & named for tool in tools if not tool.writes)


_GENERIC_SINGULAR = frozenset(singular(word) for word in _GENERIC_WORDS)


def held_words(tool: Tool) -> frozenset[str]:
    """What a function's name says it holds or changes, singular: ``get_budgets`` → budget,
    ``search_hotels`` → hotel; the words that only say how it reads (get, list, search ...)
    and words of two letters are left out."""
    return (
        frozenset(singular(word) for word in words(tool.name) if len(word) > 2) - _GENERIC_SINGULAR
    )


async def check_hand_off(
    caller: ModelCaller,
    tools: Sequence[Tool],
    ask: str,
    *,
    recent: Sequence[Any] = (),
    cloud_needs: str | None = None,
    margin: float | None = None,
) -> HandOffVerdict:
    """Ask what kind of request ``ask`` is, and whether that kind needs the cloud."""
    system = hand_off_system(tools, cloud_needs)
    text = hand_off_user(ask, recent)
    generation = await caller.call(
        "handoff", system, lambda _compact: text, hand_off_schema(), compactable=False, score=_FIELD
    )
    return read_hand_off(generation, margin, question=only_asks(ask))
