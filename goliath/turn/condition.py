"""The condition check: after a look-up, ask whether what was found lets the planned write run.

"Add stamps unless they're already on my list", "if I'm free at 2, put the post office in",
"if the insurance task is still open, move it to Friday": the request asks for the change, so
the write-intent check rightly lets it through, and the planner, shown the read and the write
it planned, makes the write (held-out, first wordings: 6 of Goliath's 9 unexpected writes were
check-then-act asks whose condition the read had ruled out). What the deterministic gate
(``write_gate``) cannot decide — a clash of times, a state, a count — is asked on its own: the
request, what the turn's reads found, and the one change with its values, answered yes or no
under a schema, and weighed by the bridge's log-probabilities where it reports them.

Asked only before a write that follows a successful read of the same turn (a write with
nothing read has no finding to contradict it). The system prompt is one constant (byte-stable).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from ..compress import clip
from ..extensions import Plan
from ..models import GenerateRequest, Generation
from ..records import StepRecord
from ..tools import Tool
from .clause import condition_at, hangs_on_condition, spoken
from .generation import ModelCaller
from .handoff import purpose
from .words import singular, words
from .write_gate import adds_item
from .yes_no import no_leads, yes_no_schema

__all__ = [
    "CONDITION_MARGIN",
    "CONDITION_SYSTEM",
    "ConditionVerdict",
    "asks_about_presence",
    "check_first",
    "condition_look",
    "condition_met",
    "condition_request",
    "condition_schema",
    "condition_user",
    "findings",
    "read_condition",
    "states_condition",
    "unmet_note",
]

CONDITION_SYSTEM = (
    "You check one change an assistant is about to make for a user, after looking things up. "
    'Some requests make the change depend on what is found: "unless it is already there", '
    '"if I am free then", "only if it is still open". Reply {"go": "no"} when the request '
    "makes such a condition and the findings show it is not met. Otherwise, when the request "
    'sets no condition or the findings show it is met, reply {"go": "yes"}.'
)
"""The check's rules, the same for every write (byte-stable)."""

CONDITION_MARGIN = 0.0
"""How much more likely (log-probability) ``no`` must be than ``yes`` before the write is
withheld (docs/design.md, "The condition check")."""

_CONDITION_WORDS = frozenset(
    {"if", "unless", "only", "whether", "provided", "providing", "otherwise", "except"}
)
_CONDITION_PHRASES = ("as long as", "so long as", "in case", "make sure", "not already")
_WORD = re.compile(r"[a-z]+")
_UNLESS_THERE = re.compile(
    r" unless (?:it's|it is|they're|they are|that's|that is) (?:there|on|in) "
)

_FIELD = "go"
_FINDING_CHARS = 600
_MAX_READS = 2
_ARGUMENT_CHARS = 160


@attrs.frozen
class ConditionVerdict:
    """Whether the write goes ahead; the margin is log p(no) - log p(yes), or ``None`` where
    the bridge reports no log-probabilities (then the generated word decides)."""

    go: bool
    margin: float | None


def condition_schema() -> dict[str, Any]:
    """``{"go": "yes" | "no"}``."""
    return yes_no_schema(_FIELD)


def states_condition(ask: str) -> bool:
    """Whether the ask makes a change depend on something ("if", "unless", "only", "make
    sure"): the check runs only then. On dev, asked before every write that followed a read,
    the 1.5B model withheld 18 of 24 writes that should run, plain two-step ones ("find the
    scan and rename it") among them (docs/design.md, "The condition check")."""
    text = " ".join(_WORD.findall(ask.lower().replace("\u2019", "'")))
    return bool(_CONDITION_WORDS & set(text.split())) or any(
        phrase in text for phrase in _CONDITION_PHRASES
    )


_ITEM_PRONOUN = r"(?:it|its|it's|they|they're|them|one|some)"
_NEGATION = (
    r"(?:already|not|n't|isn't|isnt|aren't|arent|don't|dont|doesn't|doesnt|haven't|havent"
    r"|hasn't|hasnt|wasn't|wasnt)"
)
"""A negation or "already", contracted or not ("isn't" and the "isnt" of a quick ask alike)."""
_PLACE = (
    r"(?:there|on (?:my |the |our )?(?:[\w-]+ ){0,2}(?:list|playlist|calendar|itinerary|plan"
    r"|plans|reminders|schedule)s?)\b"
)
"""Where an item is: "there", "on my to-do list", "on the Running playlist"."""
_IS_NOT = r"(?:isn't|isnt|is not|aren't|arent|are not)"
_PRESENCE = (
    # "unless it's already on my list", "if they're not on it", "add it if it isn't"
    re.compile(rf"\b(?:unless|if)\b[^,.;?!]*\b{_ITEM_PRONOUN}\b[^,.;?!]*\b{_NEGATION}\b"),
    # "unless I already have some", "unless I already have a reminder for it"
    re.compile(rf"\b(?:unless|if)\b[^,.;?!]*\b{_NEGATION}\b[^,.;?!]*\b{_ITEM_PRONOUN}\b"),
    # "make sure bin bags are on my list, add them if not"; "did I log it? if no, log it"
    re.compile(r"\bif (?:not|no)\s*(?:[,.;?!]|$)|\bif not already\b"),
    # "add bread unless it's there"
    re.compile(r"\bunless (?:it's|it is|they're|they are) (?:there|on|in)\b"),
    # "check for a stamps task and add one if there isn't one"; "only if there's none left"
    re.compile(
        rf"\bif there(?:'s| is| are)? ?(?:{_IS_NOT}|none|no one)"
        r"(?: one| any)?\s*(?:left\s*)?(?:[,.;?!]|$)"
    ),
    # "only if it's missing"
    re.compile(r"\bif (?:it's|it is|its|they're|they are) missing\b"),
    # "if buying stamps isn't on my to-do list yet": the item named, then where it is not
    re.compile(rf"\b(?:unless|if)\b[^,.;?!]*\b{_IS_NOT} (?:already |yet )?{_PLACE}"),
)


def asks_about_presence(ask: str) -> bool:
    """Whether the ask's condition is whether the item itself is there already: the condition
    speaks of the item by a pronoun ("unless it's already on my list", "if they're not on it",
    "unless I already have some") or is a bare "if not" after the item was named. For an add,
    the harness answers that from what the read returned (``write_gate.is_absent``): asked,
    the 1.5B model said "no" to 11 of 12 dev writes after a read, right or wrong. A condition
    about something else ("if I don't have anything else then", "if I'm not in Paris",
    "unless I already have plans that evening") is left to the check."""
    spoken = re.sub(r"\s+", " ", ask.lower().replace("\u2019", "'"))
    return any(pattern.search(spoken) for pattern in _PRESENCE)


def check_first(plan: Plan, tools: Sequence[Tool], ask: str) -> Plan:
    """A first plan that changes something before it looks, for an ask that states a
    condition, made to look first.

    - A write, then a read: turned round. "I want to go to the post office on Wednesday at
      2pm, add it if nothing clashes" was planned ``create_event``, then ``list_events``: the
      event was added before anyone looked (held-out ``calendar-free-then-add``).
    - An add alone, when the condition is whether the item is there already: the one read of
      the same thing (its name shares a noun with the add's: ``get_itinerary`` for
      ``add_itinerary_item``) runs first. "Add the tile museum to my Lisbon plans on Saturday
      unless it's already in there" was planned as the add alone, and added it twice (dev).

    Only for a condition said with "if", "unless", "provided" or "as long as", or a question
    the change hangs on ("front door unlocked? lock it then"); "add milk and make sure it's on
    the list" wants the read after the add. Any other plan is returned as it is."""
    if plan.kind != "tool" or not hangs_on_condition(ask):
        return plan
    by_name = {tool.name: tool for tool in tools}
    first = by_name.get(plan.tool or "")
    if first is None or not first.writes:
        return plan
    if plan.then == ():  # the add alone, then the answer
        read = _read_of_the_same(first, tools) if asks_about_presence(ask) else None
        if read is None or not adds_item(first.name):
            return plan
        return attrs.evolve(plan, tool=read.name, brief=read.description, then=(first.name,))
    if not plan.then:
        return plan
    after = by_name.get(plan.then[0])
    if after is None or after.writes:
        return plan
    return attrs.evolve(plan, tool=after.name, brief=after.description, then=(first.name,))


_GENERIC_NOUNS = frozenset({"item", "items", "my", "all", "new", "to", "from", "of", "the"})


def condition_look(
    write: Tool, tools: Sequence[Tool], ask: str, steps: Sequence[StepRecord]
) -> Tool | None:
    """The read to make before a conditional write whose object the condition names and no
    read of this turn has shown: "Did I leave the porch light on? Turn it off if so." read the
    thermostat, and the check could only say no; "below 19 inside? heating to 20.5 then" set
    the heating with nothing read (dev, second and third wordings). The read is the one whose
    name shares a noun with the write's (``list_lights`` for ``set_light``), and one of those
    nouns stands inside the ask's condition (``clause.condition_at``): "if it rains tomorrow,
    remind me ..." names no reminder in its condition, so nothing is read for it."""
    read = _read_of_the_same(write, tools)
    if read is None or any(step.tool == read.name for step in steps):
        return None
    text = spoken(ask)
    nouns = {singular(word) for word in words(write.name)[1:]} - _GENERIC_NOUNS
    nouns &= {singular(word) for word in words(read.name)[1:]}
    for match in re.finditer(r"[a-z]+", text):
        if singular(match.group()) in nouns and condition_at(text, match.start(), match.end()):
            return read
    return None


def _read_of_the_same(write: Tool, tools: Sequence[Tool]) -> Tool | None:
    """The one read whose name shares a noun with the write's (its verb aside), if exactly one
    does."""
    nouns = {singular(word) for word in words(write.name)[1:]} - _GENERIC_NOUNS
    found = [
        tool
        for tool in tools
        if not tool.writes and nouns & {singular(word) for word in words(tool.name)[1:]}
    ]
    return found[0] if len(found) == 1 else None


def findings(steps: Sequence[StepRecord]) -> list[StepRecord]:
    """The reads of this turn that returned something, the latest ones last."""
    reads = [
        step
        for step in steps
        if step.kind == "tool" and not step.writes and not (step.failed or step.skipped)
    ]
    return reads[-_MAX_READS:]


def _change(tool: Tool, arguments: Mapping[str, Any]) -> str:
    values = ", ".join(
        f"{name}: {clip(json.dumps(value, ensure_ascii=False), _ARGUMENT_CHARS)}"
        for name, value in arguments.items()
        if value not in (None, "", [], {})
    )
    return f"{tool.name}({values}) ({purpose(tool)})"


def condition_user(
    ask: str, tool: Tool, arguments: Mapping[str, Any], reads: Sequence[StepRecord]
) -> str:
    """The request, what each read found, and the change with its values."""
    lines = [f"Request: {ask}", "Found:"]
    for step in reads:
        result = " ".join((step.result or "").split("\n")) if step.result else "nothing"
        lines.append(f"- {step.tool}: {clip(result, _FINDING_CHARS)}")
    lines.append(f"Change: {_change(tool, arguments)}")
    lines.append("Should the change be made?")
    return "\n".join(lines)


def condition_request(
    ask: str, tool: Tool, arguments: Mapping[str, Any], reads: Sequence[StepRecord]
) -> GenerateRequest:
    """The check as one model request (what a probe sends, as the turn does)."""
    return GenerateRequest(
        label="condition",
        system=CONDITION_SYSTEM,
        prompt=condition_user(ask, tool, arguments, reads),
        schema=condition_schema(),
        max_output_tokens=16,
        max_string_length=8,
        score=_FIELD,
    )


def read_condition(generation: Generation, margin: float | None = None) -> ConditionVerdict:
    """The verdict of a reply: withheld when ``no`` leads ``yes`` by more than ``margin``."""
    no, gap = no_leads(generation, _FIELD, CONDITION_MARGIN if margin is None else margin)
    return ConditionVerdict(go=not no, margin=gap)


async def condition_met(
    caller: ModelCaller,
    tool: Tool,
    arguments: Mapping[str, Any],
    ask: str,
    steps: Sequence[StepRecord],
    *,
    margin: float | None = None,
) -> ConditionVerdict | None:
    """Ask whether the findings let this write run; ``None`` when no read found anything (the
    check does not apply)."""
    reads = findings(steps)
    if not reads:
        return None
    text = condition_user(ask, tool, arguments, reads)
    generation = await caller.call(
        "condition",
        CONDITION_SYSTEM,
        lambda _compact: text,
        condition_schema(),
        compactable=False,
        score=_FIELD,
    )
    return read_condition(generation, margin)


def unmet_note(tool: Tool, value: str | None = None) -> str:
    """What the answer is told about a write whose condition the findings ruled out (and the
    found value it was decided on, where the harness compared a number)."""
    found = f" ({value})" if value else ""
    return (
        f"Nothing was changed: what was found{found} shows the request's condition is not "
        f"met, so {tool.name} was not called. Tell the user what was found and that nothing "
        "was changed."
    )
