"""Perfect scripts: what a flawless model would reply, for Goliath and for the naive loop."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import pydantic

from goliath import Tool
from goliath.evaluation import Fixture
from goliath.models import GenerateRequest, Generation
from goliath.testing import FakeModel
from goliath.turn.clause import hangs_on_condition
from goliath.turn.handoff import only_thanks
from goliath.turn.threshold import compare, stated_comparison
from goliath.turn.words import singular, words
from tests.helpers import answer, answer_plan, hand_off, use


def perfect_answer(fixture: Fixture) -> str:
    """An answer that says every word the fixture wants and none it forbids."""
    words = " and ".join(fixture.mentions)
    return f"Here you go: {words}." if words else "Hello! All set."


def goliath_script(
    fixture: Fixture, tools: Mapping[str, Tool], arguments: Sequence[dict[str, Any]] = ()
) -> list[dict[str, Any]]:
    """Plans, arguments replies (one per tool with parameters, in order) and the answer."""
    if fixture.handled_by == "cloud":
        return [hand_off()]
    if not fixture.tools and only_thanks(fixture.ask):  # a thank-you: no plan (handoff.py)
        return [answer(perfect_answer(fixture))]
    replies = iter(arguments)
    script: list[dict[str, Any]] = []
    for name in fixture.tools:
        script.append(use(name))
        if tools[name].has_arguments:
            script.append({"json": next(replies)})
    leftover = list(replies)
    assert not leftover, f"{fixture.id}: unused arguments {leftover}"
    return [*script, answer_plan(), *owed_write(fixture, tools), answer(perfect_answer(fixture))]


def owed_write(fixture: Fixture, tools: Mapping[str, Tool]) -> list[dict[str, Any]]:
    """The replies a check-then-act ask's owed write asks for (``run._owed_write``): after its
    reads, an answer with no write tried gets one write planned, here the one the fixture says
    must not be made (``Fixture.withheld``), with its values; the harness must then withhold
    it (where the fixture names none, the worker replies that a value is missing, and the
    harness drops the write unseen). Nothing where the turn writes, reads nothing, or sets no
    condition."""
    writes = [name for name, tool in tools.items() if tool.writes]
    if (
        not hangs_on_condition(fixture.ask)
        or not fixture.tools
        or any(tools[name].writes for name in fixture.tools)
        or not writes
    ):
        return []
    name, values = fixture.withheld[0] if fixture.withheld else (writes[0], {})
    if name not in tools or not _valid(tools[name], values):  # the worker says what it lacks
        name, values = writes[0], {"missing": "the change the request makes depends on"}
    plan = [use(name)] if len(writes) > 1 else []
    return [*plan, {"json": dict(values)}]


def _valid(tool: Tool, values: Mapping[str, Any]) -> bool:
    """Whether ``values`` are whole arguments of ``tool`` (a fixture's ``withheld`` is a
    pattern the judge matches, which may leave out or simplify a value)."""
    try:
        tool.parameters.model_validate(dict(values))
    except pydantic.ValidationError:
        return False
    return bool(values)


class PerfectModel(FakeModel):
    """A scripted model that also names, when the harness asks which found value an ask's
    comparison is about (the ``comparison`` stage), a value that leads to the fixture's own
    outcome: one that meets the comparison when the fixture wants the write, one that does not
    when it wants none. The harness asks only when more than one value is left, so the call is
    not in the fixed script.

    Likewise it picks the other word of a search that found nothing (the ``requery`` stage):
    the harness asks only when the search's tool returned nothing and more than one word is
    left, which the fixed script cannot know."""

    def __init__(self, fixture: Fixture, script: Sequence[dict[str, Any]]) -> None:
        super().__init__(script)
        self.fixture = fixture

    async def generate(self, request: GenerateRequest) -> Generation:
        if request.label == "requery":
            self.calls.append(request)
            return Generation(text=json.dumps({"word": self.requery_word(request)}))
        if request.label != "comparison":
            return await super().generate(request)
        self.calls.append(request)
        comparison = stated_comparison(self.fixture.ask)
        assert comparison is not None and request.schema is not None
        options = request.schema["properties"]["value"]["enum"]
        wanted = bool(self.fixture.writes)
        for line in options:
            number = line.rpartition(": ")[2].split()[0] if ": " in line else ""
            try:
                value = float(number.lstrip("€£$"))
            except ValueError:
                continue
            if (compare(value, comparison) == comparison.go_when_true) == wanted:
                return Generation(text=json.dumps({"value": line}))
        return Generation(text=json.dumps({"value": options[-1]}))

    def requery_word(self, request: GenerateRequest) -> str:
        """The word a perfect model searches for instead: the first word offered that the
        fixture's own arguments hold (a word of the item's name: "coastline" of "Coastline
        Radio"), else the first word offered. A perfect run's search finds nothing only where
        the item is not there (email-check-then-skip-bank, media-coastline-running), so the
        retry finds nothing either and the outcome stays the fixture's."""
        assert request.schema is not None
        choices: list[str] = request.schema["properties"]["word"]["enum"]
        given = {
            singular(word)
            for values in self.fixture.arguments
            for word in words(json.dumps(values))
        }
        return next((choice for choice in choices if choice in given), choices[0])


def naive_script(
    fixture: Fixture, tools: Mapping[str, Tool], arguments: Sequence[dict[str, Any]] = ()
) -> list[dict[str, Any]]:
    """The naive loop's replies: each tool call with its arguments, then the answer.

    A perfect naive model asks for a missing value at once (the fixture's ``[]`` alternative)
    instead of calling the tool; it cannot escalate, so it answers cloud asks itself.
    """
    replies = iter(arguments)
    script: list[dict[str, Any]] = []
    asks_instead = () in fixture.alternatives and fixture.writes == ()
    for name in () if asks_instead or fixture.handled_by == "cloud" else fixture.tools:
        values = dict(next(replies)) if tools[name].has_arguments else {}
        script.append({"json": {"tool": name, "arguments": values}})
    return [*script, {"json": {"answer": perfect_answer(fixture)}}]


def scripted(
    builder: Any, tools_for: Any, arguments: Mapping[str, Sequence[dict[str, Any]]]
) -> Any:
    """A ``model=`` function of the fixture: a fresh FakeModel with its perfect script."""

    def model(fixture: Fixture) -> FakeModel:
        return FakeModel(builder(fixture, tools_for(fixture), arguments.get(fixture.id, ())))

    return model
