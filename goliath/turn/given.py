"""What the user gave: a write's values come from the user or a result, never from the model
alone; a read is not narrowed by a guess.

The rules here: a write's number nobody gave (:func:`unsaid_values`), a write that only
copies the item's current state (:func:`unchanged_values`), a message nobody dictated
(:func:`undictated_texts`), a value that copies the request (:func:`copied_ask`), and a read's
filter nobody named (:func:`unnamed_filters`). The first is told at length below.

"Preheat the oven" names no temperature, yet the 1.5B model fills ``temperature_c: 200`` and
the oven heats; "wake me up tomorrow" becomes an alarm at ``07:00``, "add Omar to my contacts"
a made-up phone number. The worker's ``missing`` field stays blank for these: the value *looks*
given. So the harness checks it: a write's required value that holds a number — a number
parameter, digits in a string (a time, a phone number, a date), a number inside a list or an
object — is *unsaid* when the number appears nowhere the turn has seen (the ask, the
conversation, the facts, the steps' results) **and** the user's words give no number at all
(no digit, no number word such as "twenty", "half" or "noon"; for a date, no day word such as
"tomorrow" or "Friday"). An unsaid value makes the call :class:`~.arguments.Missing`: the step is
skipped and the user is asked (docs/design.md, "What missing means").

The test is lenient on purpose. Any number in the user's words lets the call run, because
the model may rightly convert it ("two hours" → 120 minutes, "7pm" → ``19:00``, "170 lb" →
77.1 kg); what it stops is a value conjured from nothing. Ids are left to the look-up rule
(``lookup.py``), booleans and enums are the model's to choose, optional values keep their
defaults when left out.
"""

from __future__ import annotations

import datetime
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic_core import PydanticUndefined

from ..records import StepRecord
from ..tools import Tool
from .arguments import Missing, named_parameters
from .dates import calendar_day, day_parameters
from .grounding import ungrounded_numbers
from .lookup import id_parameters
from .words import DAY_WORDS, singular, words
from .write_gate import NAMING_PARAMETERS, adds_item, changes_item, sets_anew, sets_anything

__all__ = [
    "copied_ask",
    "copied_search",
    "copy_note",
    "cut_request",
    "gives_day",
    "gives_number",
    "repeated_filters",
    "search_note",
    "self_as_other",
    "sets_anew",
    "unchanged_values",
    "undictated_texts",
    "unknown_item_values",
    "unnamed_filters",
    "unsaid_choices",
    "unsaid_today",
    "unsaid_values",
    "widened_filters",
]

_DIGIT = re.compile(r"\d")
_LETTER = re.compile(r"[^\W\d_]")
_WORD = re.compile(r"[a-z]+")
_NUMBER_WORDS = frozenset(
    _WORD.findall(
        """
zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen
fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy
eighty ninety hundred thousand million dozen half quarter couple pair few several once
twice single double triple noon midday midnight first second third fourth fifth hour
hours minute minutes
"""
    )
)
"""Words that give a number: a value converted from one of them is the user's, not invented.
("an hour" gives 60 minutes, "noon" 12:00, "a dozen" 12.)"""
_ISO_DAY = re.compile(r"\b\d{4}-\d{1,2}-(\d{1,2})\b")
"""An ISO date is grounded by its day of the month: "Saturday 22 March" grounds ``2025-03-22``."""
_DATE = re.compile(r"\b\d{4}-\d{1,2}-\d{1,2}\b|\b\d{1,2}[./]\d{1,2}(?:[./]\d{2,4})?\b")


def _numbers_in(value: Any) -> list[str]:
    """The number-bearing leaves of a value, as text (booleans are not numbers)."""
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, (int, float)):
        return [str(value)]
    if isinstance(value, str):  # a time, a phone number, a date; not a token such as "r3f9a"
        return [value] if _DIGIT.search(value) and not _LETTER.search(value) else []
    if isinstance(value, Mapping):
        return [text for item in value.values() for text in _numbers_in(item)]
    if isinstance(value, (list, tuple)):
        return [text for item in value for text in _numbers_in(item)]
    return []


def gives_number(words: str) -> bool:
    """Whether the user's words say a number, in digits or in words."""
    text = words.lower()
    return bool(_DIGIT.search(text)) or any(word in _NUMBER_WORDS for word in _WORD.findall(text))


def gives_day(words: str) -> bool:
    """Whether the user's words name a day ("tomorrow", "Friday", "next week", "12 May"): a
    date computed from one of them ("Friday" → 2025-03-14) is the user's."""
    return any(word in DAY_WORDS for word in _WORD.findall(words.lower()))


def unsaid_values(
    tool: Tool,
    values: Mapping[str, Any],
    steps: Sequence[StepRecord],
    seen: Iterable[str],
    said: str,
    *,
    optional: bool = False,
) -> list[str]:
    """The required parameters of the write ``tool`` whose numbers nobody gave (with
    ``optional``, the optional ones instead: they are left out, so the tool's default applies —
    "switch the reading light on" filled ``brightness: 50``).

    ``seen`` is everything the turn has seen besides its steps (the ask, the conversation, the
    facts); ``said`` is the user's own words (this ask and the recent ones). A value is unsaid
    when a number in it is in neither the steps nor ``seen``, and ``said`` gives no number (no
    day either, for a date).
    """
    if not tool.writes:
        return []
    schema = tool.schema if isinstance(tool.schema, dict) else {}
    required = list(schema.get("required") or [])
    names = (
        [name for name in schema.get("properties") or {} if name not in required]
        if optional
        else required
    )
    ids = set(id_parameters(tool))
    known = list(seen)
    number_said, day_said = gives_number(said), gives_day(said)
    unsaid = []
    for name in names:
        if name in ids or name not in values:
            continue
        for text in _numbers_in(values[name]):
            dated = _DATE.search(text) is not None
            if not ungrounded_numbers(_ISO_DAY.sub(r"\1", text), steps, known):
                continue
            if number_said or (day_said and dated):
                continue
            unsaid.append(name)
            break
    return unsaid


_COPY_WORDS = 5
"""An ask this long or longer can be copied whole; a shorter one may be the value itself."""
_VERBS = frozenset(
    {"add", "create", "new", "make", "set", "send", "put", "save", "schedule", "start", "log"}
)


_COMMANDS = _VERBS | {
    "put",
    "message",
    "text",
    "email",
    "remind",
    "tell",
    "write",
    "note",
    "take",
    "book",
    "change",
    "move",
    "update",
    "please",
    "can",
    "could",
    "would",
}
"""First words of a request (not of its content: "Water twice a day now" is the new text)."""
_FILLER = frozenset({"a", "an", "the", "my", "me", "new", "for", "to", "please", "some", "one"})
_PLACEHOLDERS = frozenset(
    {"something", "anything", "thing", "things", "stuff", "whatever", "someone", "somebody"}
)
"""Words that stand for a value the user has not said yet ("add something to my list")."""
_GLUE_WORDS = frozenset({"on", "in", "at", "of", "into", "onto", "and", "it", "this", "that"})


def copied_ask(
    tool: Tool, values: Mapping[str, Any], ask: str, *, optional: bool = False
) -> list[str]:
    """The required text parameters of the write ``tool`` that copy the request instead of
    saying the value: the request itself, verb and all ("put dish soap on my shopping list" as
    the task's title, "Message Yuki for me, please." as the text), or only the request's words
    naming the kind of thing the tool makes and nothing else ("set a reminder", "Create a
    task"; not "Reading light" for ``set_light``); for a write that adds, one such word is
    enough ("Reminder" as the title, when "can you add a reminder? tomorrow at 7" gave none).

    With ``optional``, the optional ones that copy the request whole (a timer labelled "set a
    timer for 7 minutes for the eggs"): those are left out, so the tool's default applies.
    """
    if not tool.writes:
        return []
    schema = tool.schema if isinstance(tool.schema, dict) else {}
    asked = words(ask)
    if not asked:
        return []
    nouns = {word for word in words(tool.name) if word not in _VERBS and len(word) > 2}
    nouns |= {word + "s" for word in nouns}
    required = list(schema.get("required") or [])
    names = (
        [n for n in schema.get("properties") or {} if n not in required] if optional else required
    )
    copied = []
    for name in names:
        value = values.get(name)
        if not isinstance(value, str) or not value.strip():
            continue
        said = words(value)
        whole = (
            len(asked) >= _COPY_WORDS
            and asked[0] in _COMMANDS  # the request's verb, copied with it
            and asked[0] in said
            and sum(1 for word in asked if word in said) >= 0.8 * len(asked)
        )
        kind = (
            not optional
            and (len(said) >= 2 or adds_item(tool.name))  # "Reminder" for add_reminder
            and set(said) <= set(asked)
            and bool(nouns & set(said))
            and set(said) <= nouns | _VERBS | _FILLER  # "set a reminder", not "Reading light"
        )
        if whole or kind or _placeholder(said, asked, tool, nouns):
            copied.append(name)
    return copied


def _placeholder(said: list[str], asked: list[str], tool: Tool, nouns: set[str]) -> bool:
    """Whether a value is the request's own words around a placeholder and nothing else: "add
    something to my list" as the task's title (dev `tasks-add-missing-title-1` added that task;
    the user had not said what). Besides the placeholder, only the request's verbs, glue words,
    the kind of thing the tool makes and the words of its parameters' names may be left."""
    if not (_PLACEHOLDERS & set(said)) or not set(said) <= set(asked):
        return False
    schema = tool.schema if isinstance(tool.schema, dict) else {}
    named = {word for parameter in schema.get("properties") or {} for word in words(parameter)}
    spare = _COMMANDS | _FILLER | _PLACEHOLDERS | _GLUE_WORDS | nouns | named
    return set(said) <= spare


_LEADING = re.compile(
    r"^(?:(?:please|can you|could you|would you|will you)\s+)*(?P<verb>[a-z]+)\s+", re.IGNORECASE
)
_PLACE = re.compile(r"\s+(?:on|to|onto|into|in|for)\s+(?:my|the|our)\s+", re.IGNORECASE)
_LIST_TAIL = re.compile(r"^[^,.;!?]*?\w*list\b[^,.;!?]*$", re.IGNORECASE)
_PLACE_WORDS = 5
"""A list's name is short ("my weekly shopping list"); more words after "on my" are content."""


def cut_request(value: str) -> str | None:
    """The item a copied request names, once its frame is cut: the request's verb before it
    and the list it goes on after it ("put dish soap on my shopping list" → "dish soap", "add
    buy stamps to my to-do list" → "buy stamps"). Asked twice for the title alone, the 1.5B
    model copied the request both times (dev ``tasks-add-to-list-1``). ``None`` unless both
    ends are there, or when what is left is empty or only a placeholder ("add something to
    my list") — the user has not said it, and is asked."""
    text = " ".join(value.split()).rstrip(" .!")
    lead = _LEADING.match(text)
    if lead is None or lead["verb"].lower() not in _COMMANDS:
        return None
    rest = text[lead.end() :]
    places = [  # the last "to my ... list": "get milk for the kids" keeps its "for the kids"
        place
        for place in _PLACE.finditer(rest)
        if _LIST_TAIL.match(rest[place.end() :]) and len(words(rest[place.end() :])) <= _PLACE_WORDS
    ]
    if not places:
        return None
    item = rest[: places[-1].start()].strip(" ,")
    said = words(item)
    if not said or set(said) <= _PLACEHOLDERS | _FILLER | _GLUE_WORDS:
        return None
    return item


def copied_search(tool: Tool, values: Mapping[str, Any], ask: str) -> list[str]:
    """The search texts of the read ``tool`` that are the request itself: "what time is my
    flight to Porto?" as ``search_emails``'s query found every email with "time" or "my" in
    it, and the answer was made from the wrong hits (dev ``email-two-step-flight-1``). A
    free-text search parameter (``query``, ``q``, ``search``, ``keywords`` ...) holding five
    words or more, four in five of them the ask's and three in five of the ask's, with a
    question word in it, in an ask that is a question (a question mark, or a question word
    or auxiliary first), is the question copied; the worker is asked once more for the words
    to search for. "wifi password at the Porto flat"
    for "what's the wifi password at the Porto flat?" has no question word and is searched as
    written."""
    asked = words(ask)
    if tool.writes or len(asked) < _COPY_WORDS:
        return []
    if not (ask.rstrip().endswith("?") or asked[0] in _FRAME_WORDS | _AUXILIARIES):
        return []  # not a question: "play Where Is My Mind by the Pixies" is a title
    schema = tool.schema if isinstance(tool.schema, dict) else {}
    properties = schema.get("properties") or {}
    copied = []
    for name, value in values.items():
        if not isinstance(value, str) or not (set(words(name)) & _SEARCH_TEXT):
            continue
        if not free_text(properties.get(name)):
            continue
        said = words(value)
        if len(said) < _COPY_WORDS:
            continue
        mine = sum(1 for word in said if word in asked)
        theirs = sum(1 for word in asked if word in said)
        if set(said) & _FRAME_WORDS and mine >= 0.8 * len(said) and theirs >= 0.6 * len(asked):
            copied.append(name)
    return copied


_FRAME_WORDS = frozenset(["what", "when", "where", "who", "whom", "which", "why", "how", "whether"])
"""Question words: a request's frame, never what it searches for ("what time is my flight")."""
_AUXILIARIES = frozenset(["is", "are", "do", "does", "did", "can", "could", "will", "have", "has"])
"""Words a question may open with besides the question words ("do I have a dentist email")."""


def search_note(names: Sequence[str]) -> str:
    """The retry's note for a search that copied the request."""
    shown = ", ".join(names)
    return (
        f"Your previous reply copied the whole request into {shown}. Give only the few words "
        "to search for (a name, a subject, a thing), not the question."
    )


def copy_note(names: Sequence[str]) -> str:
    """The retry's note: which values repeated the request."""
    shown = ", ".join(names)
    return (
        f"Your previous reply copied the request into {shown}. Give only the value itself, "
        f"taken from the request; if the request does not say it, leave {shown} empty and name "
        "it in missing."
    )


_ITEM = re.compile(r"\n(?=\d+\. )")
_GLUE = frozenset({"a", "an", "the", "my", "of", "in", "on", "at", "to", "for", "and", "or"})


def unnamed_filters(
    tool: Tool,
    values: Mapping[str, Any],
    steps: Sequence[StepRecord],
    seen: Iterable[str],
) -> list[str]:
    """The optional text filters of the read ``tool`` that nobody named: left out, so the read
    returns everything it would.

    "Which lights are on?" became ``list_lights(room="Living room")`` and the answer missed the
    porch; "what does F28 mean in my boiler manual?" searched ``folder="Documents/Home"`` and
    found nothing. A filter — an optional value whose default is none, so that leaving it out
    reads everything — narrows what the user asked about; one whose words appear nowhere
    the turn has seen (``seen``: the ask, the conversation, the facts; and the steps' inputs
    and results) was the model's guess. A free string only: enums are the model's to choose,
    and a value with a digit or a day word ("Monday 10 March", "tomorrow") is a date the
    model resolved, left to the number rule.
    """
    if tool.writes:
        return []
    schema = tool.schema if isinstance(tool.schema, dict) else {}
    required = set(schema.get("required") or [])
    properties = schema.get("properties") or {}
    texts = [*seen, *(step.result or "" for step in steps)]
    texts += [
        str(value)
        for step in steps
        if isinstance(step.input, Mapping)
        for value in step.input.values()
    ]
    known = {singular(word) for text in texts for word in words(text)}
    unnamed = []
    for name, value in values.items():
        spec = properties.get(name)
        if name in required or not isinstance(spec, Mapping) or "enum" in spec:
            continue
        if _has_default(tool, name, spec):  # a selector ("Groceries" unless told): not a filter
            continue
        if not isinstance(value, str) or _DIGIT.search(value) or gives_day(value):
            continue
        said = {singular(word) for word in words(value)} - _GLUE
        if said and not any(_known(word, known) for word in said):
            unnamed.append(name)
    return unnamed


_SEARCH_TEXT = frozenset({"query", "q", "search", "keyword", "keywords", "text", "term", "terms"})
"""Words of a parameter that holds free search text (``query``, ``search_text``): the filter
the model writes in its own words, not a structured one such as an album or a sender."""


def repeated_filters(tool: Tool, values: Mapping[str, Any]) -> list[str]:
    """The optional free-text filters of the read ``tool`` that only repeat the call's other
    values or the function's own name: left out, since they can only narrow the read further.

    "What vegan recipes do I have?" became ``search_recipes(query="vegan recipes",
    diet="vegan")``, and no recipe has "vegan" in its name: the search found nothing, though
    the diet alone finds two. A text filter whose every word is a word of another value the
    call sets (``diet="vegan"``) or of the function's name (``recipes``) adds no meaning of
    its own, only another condition the items must meet.
    """
    if tool.writes:
        return []
    schema = tool.schema if isinstance(tool.schema, dict) else {}
    required = set(schema.get("required") or [])
    properties = schema.get("properties") or {}
    texts = {
        name: {singular(word) for word in words(value)} - _GLUE
        for name, value in values.items()
        if name not in required
        and free_text(properties.get(name))
        and isinstance(value, str)
        and set(words(name)) & _SEARCH_TEXT
    }
    repeated: list[str] = []
    for name in sorted(texts, key=lambda name: -len(texts[name])):  # the wordier one goes
        others = {singular(word) for word in words(tool.name)}
        for other, given in values.items():
            if other != name and other not in repeated and given is not None:
                others |= {singular(word) for word in words(json.dumps(given, default=str))}
        if texts[name] and texts[name] <= others:
            repeated.append(name)
    return repeated


def _known(word: str, known: set[str]) -> bool:
    """Whether ``word`` was seen, or its start or a longer form ("eur" of "euros", "veg" of
    "vegetables")."""
    if word in known:
        return True
    return len(word) >= 3 and any(
        len(other) >= 3 and (other.startswith(word) or word.startswith(other)) for other in known
    )


def free_text(spec: Any) -> bool:
    """A string parameter the model writes freely (not one of an enum's choices)."""
    return (
        isinstance(spec, Mapping)
        and spec.get("type") == "string"
        and "enum" not in spec
        and "const" not in spec
    )


def widened_filters(tool: Tool, values: Mapping[str, Any], said: str) -> list[str]:
    """The optional filters of a read that found nothing which the user did not name: the read
    runs once more without them (``run.py``, ``_widen``).

    "What does F28 mean in my boiler manual?" searched ``kind="document"`` and found nothing;
    the manual is a PDF. A filter set to something other than its default — a free string or
    one of an enum — none of whose words the user said (``said``: the ask and the
    conversation) was the model's guess, and an empty result is the sign it guessed wrong.
    A value with a digit or a day word is a date or number the model resolved from the ask
    ("today" → "2025-03-10"): dropping it would answer about other days, so it stays, as do
    booleans and required parameters. A list of texts with an item nobody named, and a number
    nobody said, are guesses too (a recipe search with ``ingredients: [..., flour, eggs]`` and
    ``max_minutes: 30`` for "how much feta for the spinach pie?")."""
    if tool.writes:
        return []
    schema = tool.schema if isinstance(tool.schema, dict) else {}
    required = set(schema.get("required") or [])
    properties = schema.get("properties") or {}
    heard = {singular(word) for word in words(said)}
    dropped = []
    for name, value in values.items():
        spec = properties.get(name)
        if name in required or not isinstance(spec, Mapping):
            continue
        if value == spec.get("default", _default_of(tool, name)):
            continue
        if _guessed_list(value, heard) or _guessed_number(name, value, said):
            dropped.append(name)  # "ingredients: [spinach, feta, flour, eggs]", "max_minutes: 30"
            continue
        if not isinstance(value, str):
            continue
        if not value.strip() or _DIGIT.search(value) or gives_day(value):
            continue
        named = {singular(word) for word in words(value)} - _GLUE
        if named and not named & heard:
            dropped.append(name)
    return dropped


def _guessed_list(value: Any, heard: set[str]) -> bool:
    """A list of texts most of whose items the user did not name: "how much feta do I need for
    the spinach pie?" searched recipes with ``ingredients: [spinach, feta cheese, flour, eggs,
    butter, ...]`` and found nothing (dev `typed-feta-for-six-1`). A list with half or more
    of its items said ("groceries and eating out" as ``[Groceries, Restaurants]``) stays."""
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        return False
    unheard = [
        item
        for item in value
        if (named := {singular(word) for word in words(item)} - _GLUE) and not named & heard
    ]
    return len(unheard) * 2 > len(value)


_DATED = re.compile(r"year|month|week|day|date", re.IGNORECASE)


def _guessed_number(name: str, value: Any, said: str) -> bool:
    """A number the user did not say ("max_minutes: 30" for a recipe search): not in their
    digits, with no number in words beside them ("under thirty minutes" may be it), and not a
    window of days or a year worked out from "last year" or "this month"."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or _DATED.search(name):
        return False
    text = said.lower().replace(",", "")
    if any(word in _NUMBER_WORDS for word in _WORD.findall(text)):
        return False
    number = f"{value:g}" if isinstance(value, float) else str(value)
    return re.search(rf"(?<![\d.]){re.escape(number)}(?![\d])", text) is None


def _default_of(tool: Tool, name: str) -> Any:
    """The default the tool's own parameters model gives ``name`` (``None`` when none)."""
    field = getattr(tool.parameters, "model_fields", {}).get(name)
    default = getattr(field, "default", None)
    return None if default is PydanticUndefined else default


def _has_default(tool: Tool, name: str, spec: Mapping[str, Any]) -> bool:
    """Whether the optional parameter ``name`` has a default other than none."""
    return spec.get("default") is not None or _default_of(tool, name) is not None


def unchanged_values(
    tool: Tool, values: Mapping[str, Any], steps: Sequence[StepRecord], said: str
) -> list[str]:
    """The required number-bearing values of the write ``tool`` that only copy the item's
    current state: the call would change nothing.

    "Reschedule the expense report task" gives no new date; the 1.5B model, shown the task's
    line ("title: Submit expense report, due: 2025-03-11"), writes ``due: 2025-03-11``, a
    number the result grounds — the item's own. The call copies when the user's words
    (``said``) give no number, and one item a read returned (a numbered line of a list, or a
    single record whole) holds, as whole tokens, every new value the call sets (a parameter
    that is one by its name or description: "new_time", "The new due date"; required or not)
    and another of its values (the item it names). A call that changes any new value is a
    change; a tool that adds (``add_*``, ``create_*``) makes a new item, copying nothing.
    """
    if not tool.writes or adds_item(tool.name) or gives_number(said):
        return []
    schema = tool.schema if isinstance(tool.schema, dict) else {}
    properties = schema.get("properties") or {}
    ids = set(id_parameters(tool))
    anew = {
        name: value
        for name, value in values.items()
        if name not in ids
        and isinstance(value, (str, int, float))
        and not isinstance(value, bool)
        and sets_anew(name, properties.get(name))
    }
    changing = [name for name in schema.get("required") or [] if _numbers_in(anew.get(name))]
    if not changing:
        return []
    naming = [
        str(value)
        for name, value in values.items()
        if name not in anew and isinstance(value, (str, int)) and not isinstance(value, bool)
    ]
    naming = [text for text in naming if len(text) > 1]
    for step in steps:
        if step.kind != "tool" or step.writes or step.failed:
            continue
        for item in _ITEM.split(step.result or ""):
            if all(_holds(item, str(value)) for value in anew.values()) and any(
                _holds(item, text) for text in naming
            ):
                return changing
    return []


def _holds(item: str, text: str) -> bool:
    """Whether ``item`` holds ``text`` as a whole token ("2" is not in "2025-03-02")."""
    edge = r"[\w.:/-]"
    pattern = rf"(?<!{edge}){re.escape(text.lower())}(?!{edge})"
    return re.search(pattern, item.lower()) is not None


_ASKING = (
    _COMMANDS
    | _FILLER
    | frozenset(
        re.findall(
            r"[a-z]+",
            """say saying tell reply respond answer send sms it this that him her them us back
        something quick just you pls plz s with""",
        )
    )
)
"""Words that ask for a message without saying what it says ("can you message my sister")."""
_NAME = re.compile(r"\b[A-Z][a-z]+\b")
"""A capitalised word of what the turn found: a name ("Hannah Weber" in a search's hits)."""
_WHOM_WORDS = 3
"""A value taken from the ask this short names whom or what (``to="my sister"``); a longer one
is the content itself."""
_OWNER = re.compile(r"\b([A-Za-z]+)['\u2019]s\b")
"""Whose thing the ask names ("reply to hannah's email"): a name, not what to say."""


def undictated_texts(
    tool: Tool,
    values: Mapping[str, Any],
    steps: Sequence[StepRecord],
    seen: Iterable[str],
    said: str,
) -> list[str]:
    """The required texts of the write ``tool`` that the model wrote when the user dictated
    nothing: the request only names the act and whom it is for.

    "Email Diego" became ``send_email(to="Diego", subject="Hello", body="Hi Diego, I hope
    ...")`` and the email went; "take a note" a note the model made up. When the user's words
    (``said``), past the words that ask for a message ("send", "text", "reply", "please", the
    tool's own name words), names (whose thing it is, "Hannah's email"; a capitalised word of
    what the turn found, "Hannah Weber") and the words the call took from them
    (``to="Diego"``), say nothing, a required free text (not an enum's choice) whose words are
    mostly nowhere the turn has seen (``seen``, the steps' results) was not the user's: the
    turn asks what it should say.
    """
    if not tool.writes:
        return []
    schema = tool.schema if isinstance(tool.schema, dict) else {}
    properties = schema.get("properties") or {}
    ids = set(id_parameters(tool))
    asked = {singular(word) for word in words(said)}
    texts = {
        name: {singular(word) for word in words(value)} - _GLUE
        for name in schema.get("required") or []
        if name not in ids
        and isinstance(value := values.get(name), str)
        and not (_DIGIT.search(value) and len(value.split()) < 4)  # a date, a time: numbers'
        and free_text(properties.get(name))
    }
    taken = set().union(  # whom or what it is for ("Diego", "my sister"), not its content
        *(found for found in texts.values() if found <= asked and len(found) <= _WHOM_WORDS)
    )
    tool_words = {singular(word) for word in words(tool.name)}
    shown = [*seen, *(f"{step.result or ''} {step.input or ''}" for step in steps)]
    others = [text for text in shown if text not in said]  # not the user's own words
    names = {singular(word.lower()) for text in others for word in _NAME.findall(text)}
    names |= {singular(word.lower()) for word in _OWNER.findall(said)}
    if asked - taken - tool_words - names - {singular(word) for word in _ASKING}:
        return []  # the user said what it is about
    known = {
        singular(word) for text in _past_item(shown, values, ids, steps) for word in words(text)
    }
    return [
        name
        for name, found in texts.items()
        if found and not found <= asked and len(found & known) * 2 < len(found)
    ]


def _past_item(
    shown: Sequence[str], values: Mapping[str, Any], ids: set[str], steps: Sequence[StepRecord]
) -> list[str]:
    """``shown`` less what the turn read of the item a write acts on (``email_id=2``): the
    results of the steps given the same id, and the result lines that carry it ("id: 2,
    from: Hannah").

    "Reply to Hannah's email" dictates nothing; the 1.5B model wrote the reply out of Hannah's
    own email ("Hi Jordan, ... share a first draft ... Thanks, Hannah") and it went. Text the
    user saw earlier may be what they mean to pass on ("text it to Yuki"); the item being
    answered never is what they say back.
    """
    keys = {str(value) for name in ids if (value := values.get(name)) not in (None, "")}
    if not keys:
        return list(shown)
    own = re.compile(
        r"\bid\W+(?:" + "|".join(re.escape(key) for key in keys) + r")\b", re.IGNORECASE
    )
    read = {
        f"{step.result or ''} {step.input or ''}"
        for step in steps
        if isinstance(step.input, Mapping)
        and any(str(step.input.get(name)) in keys for name in ids if name in step.input)
    }
    return [
        "\n".join(line for line in text.splitlines() if not own.search(line))
        for text in shown
        if text not in read
    ]


def unsaid_today(
    tool: Tool,
    values: Mapping[str, Any],
    today: datetime.date | None,
    said: str,
    *,
    optional: bool = False,
) -> list[str]:
    """The required day parameters of the write ``tool`` (with ``optional``, the optional ones:
    they are left out) set to today when the user named no day and said no number: "add
    dinner with the Almeidas to my Lisbon trip" became ``day: "2025-03-10"``, today's date
    from the facts, and the dinner went on a day the trip does not have (dev
    ``travel-dinner-missing-day-1``). The date is "seen" — the facts hold it — so the rule for
    numbers nobody gave lets it pass; but the user's words hold no day ("today", "Friday",
    "12 May") and no number (a time, "at 5pm", says today without naming it), so today is
    the model's default, not the user's choice: the turn asks for the day. Only a day the
    write sets — of an item it adds (``add_*``, ``create_*``) or a new day (``new_date``) —
    never the day that names an existing item: "lunch w noor is off" cancels today's lunch by
    its date; nor when the user said today another way ("right now", "later", "after work")
    or the tool records what happened (a journal entry, a logged expense). ``said`` holds
    the last answer too: "yes please" after "shall I add it for today?" took today."""
    if not tool.writes or today is None or gives_day(said) or gives_number(said):
        return []
    if set(words(said)) & _NOW_WORDS:
        return []  # "book a taxi right now", "drinks after work": today, said another way
    schema = tool.schema if isinstance(tool.schema, dict) else {}
    description = str(schema.get("description") or tool.description or "")
    if set(words(f"{tool.name} {description}")) & _RECORD_WORDS:
        return []  # a journal entry, a logged expense: today is when it happened
    required = set(schema.get("required") or [])
    properties = schema.get("properties") or {}
    flagged = []
    for name in day_parameters(tool):
        value = values.get(name)
        if not isinstance(value, str) or (name in required) == optional:
            continue
        if not (adds_item(tool.name) or sets_anew(name, properties.get(name))):
            continue  # the day an existing item is on names it ("lunch w noor is off")
        text = value.strip().lower()
        day = calendar_day(text)
        if text == "today" or (
            day is not None and day[1:] == (today.month, today.day) and day[0] in (None, today.year)
        ):
            flagged.append(name)
    return flagged


_NOW_WORDS = frozenset(
    "now asap later soon currently immediately tonight today after right away".split()  # noqa: SIM905
)
"""Words that name today without a day ("right now", "later on", "after work")."""
_RECORD_WORDS = frozenset(
    "log logs journal diary entry record records mood expense expenses spent track".split()  # noqa: SIM905
)
"""Words of a tool that records what happened, whose day is today unless said."""


def _choices(spec: Any) -> list[Any]:
    """The choices of an enum parameter (directly or in an ``anyOf``), else ``[]``."""
    if not isinstance(spec, Mapping):
        return []
    if isinstance(spec.get("enum"), list):
        return list(spec["enum"])
    for option in spec.get("anyOf") or spec.get("oneOf") or []:
        if isinstance(option, Mapping) and isinstance(option.get("enum"), list):
            return list(option["enum"])
    return []


def unsaid_choices(
    tool: Tool, values: Mapping[str, Any], said: str, seen: Iterable[str]
) -> list[str]:
    """The values of the write ``tool`` when every value it sets is an enum's choice that no
    one said: "change the temperature on the thermostat" names no temperature, and the 1.5B
    model set ``mode: "heat"`` (no target) and the heating changed (dev
    ``home-thermostat-missing-1``, an unexpected write). A write whose every given value is a
    choice the user's words (``said``) and what the turn has seen (``seen``) never name sets
    nothing the user asked for — when the ask names a value the call left out (a parameter
    not a choice, whose name or description shares a word with the ask: "temperature" for
    ``target_c``, "The temperature to heat to"): the turn asks. One value that is not a
    choice, a choice said ("switch the heating to eco") or a form of one ("heating"), or an
    ask naming no value left out ("turn on the AC" → ``mode: cool``, "arm the alarm" →
    ``away``: the choice is the model's reading of the ask), and the call stands."""
    if not tool.writes:
        return []
    schema = tool.schema if isinstance(tool.schema, dict) else {}
    properties = schema.get("properties") or {}
    given = {name: value for name, value in values.items() if value is not None}
    if not given:
        return []
    heard = {singular(word) for text in [said, *seen] for word in words(text)}
    for name, value in given.items():
        if not isinstance(value, str) or value not in _choices(properties.get(name)):
            return []
        if any(_known(singular(word), heard) for word in words(value)):
            return []  # said, or a form of a word said ("lock up" for "locked")
    asked = {singular(word) for word in words(said)} - _GLUE - _COMMANDS
    asked -= {singular(word) for word in words(tool.name)}
    left_out = [  # a value the ask names and the call left out: "temperature" for target_c
        name
        for name, spec in properties.items()
        if name not in given
        and not _choices(spec)
        and asked
        & {
            singular(word)
            for word in words(f"{name} {spec.get('description', '')}")
            if len(word) > 3
        }
    ]
    return sorted(given) if left_out else []


_USER_KEYS = frozenset({"user", "user name", "username", "user_name", "my name"})
"""Fact keys an app gives the user's own name under (``facts={"user": "Jordan"}``)."""
_SELF_WORDS = frozenset({"me", "myself", "mine", "us", "ourselves", "self"})
"""Words by which the user names themselves as whom a change is for ("send it to me")."""


def self_as_other(
    tool: Tool, values: Mapping[str, Any], facts: Mapping[str, str], said: str
) -> list[str]:
    """The values of the write ``tool`` that name the user themselves where the user named
    nobody: "share the Iceland album" names no one to share it with, and the 1.5B model
    took the one name it had, the user's own from the facts (``person="Jordan"``) — the
    album was shared with its owner. A text (or a list of texts) that is only the user's
    name, when the user's words (``said``) hold neither that name nor "me"/"myself", was
    not given: the turn asks whom it is for. A name beside others (``attendees=["Hannah",
    "Jordan"]``) is the model adding the user to a group, and stands. Only a parameter naming
    another party (``person``, ``recipient``, ``to``, ``attendees``, ``share_with`` ...)."""
    if not tool.writes:
        return []
    mine = {
        value.strip().lower()
        for key, value in facts.items()
        if key.strip().lower() in _USER_KEYS and isinstance(value, str) and value.strip()
    }
    if not mine:
        return []
    heard = set(words(said))
    if heard & _SELF_WORDS or any(set(words(name)) <= heard for name in mine):
        return []

    def only_mine(value: Any) -> bool:
        if isinstance(value, str):
            return value.strip().lower() in mine
        if isinstance(value, list) and value:
            return all(isinstance(item, str) and item.strip().lower() in mine for item in value)
        return False

    return [
        name
        for name, value in values.items()
        if set(words(name)) & _OTHER_PARTY and only_mine(value)
    ]


_OTHER_PARTY = frozenset(
    """person people recipient recipients to with invitee invitees attendee attendees contact
    friend member members share shared""".split()  # noqa: SIM905
)
"""Words of a parameter naming whom a change is for or shared with, never the user acting: a
booking's ``name``, a task's ``assignee`` or an email's ``signature`` may rightly be the
user's own name ("I'll take the bins", "book a table under my name")."""


def unknown_item_values(tool: Tool, missing: Missing) -> list[str]:
    """The required values a change to an existing item lacks that the item itself holds, to be
    looked up rather than asked for: only for a change that sets nothing new (``cancel_*``,
    ``delete_*``, ``complete_*``, ``archive_*`` ...; not ``move_*`` or ``reschedule_*``, whose
    other values are the user's to give), and only a value that does not name the item (a
    missing title is the user's to say: "delete the note" — which one?). "Cancel my eye test"
    left ``cancel_event``'s date empty, and the turn asked the user for a day the calendar
    knew."""
    if not tool.writes or not changes_item(tool.name) or sets_anything(tool.name):
        return []
    schema = tool.schema if isinstance(tool.schema, dict) else {}
    properties = schema.get("properties") or {}
    named = named_parameters(tool, missing.what)
    lacking = []
    for name in schema.get("required") or []:
        given = missing.values.get(name)
        blank = given is None or (isinstance(given, str) and not given.strip()) or given == []
        if name in NAMING_PARAMETERS or sets_anew(name, properties.get(name)):
            continue
        if blank or name in named:
            lacking.append(name)
    return lacking
