"""The everyday suite (evals/suite): well-formed cases, four wordings each, a fixed split, and
every wording achievable by a perfect model."""

from __future__ import annotations

import collections
from typing import Any

import pytest

from evals import suite
from evals.suite.case import CATEGORIES
from goliath import Agent, Tool
from goliath.evaluation import Fixture, grade
from goliath.evaluation.fixtures import split_of, toolset_tools
from goliath.quarantine import REMOVED
from goliath.testing import FakeModel
from tests.evals.scripts import PerfectModel, goliath_script, naive_script

FIXTURES = suite.FIXTURES


def tools_for(fixture: Fixture) -> dict[str, Tool]:
    name = fixture.toolset or "sample"
    return toolset_tools(suite.TOOLSETS[name], name)


def test_the_suite_has_320_asks_over_27_toolsets_each_in_four_wordings() -> None:
    """320+ asks over 27+ toolsets, every ask in at least four wordings, every category present."""
    assert len(suite.CASES) >= 320
    assert len({case.toolset for case in suite.CASES}) >= 27
    assert all(len(case.asks) >= 4 for case in suite.CASES)
    assert {case.category for case in suite.CASES} == set(CATEGORIES)
    assert len({case.id for case in suite.CASES}) == len(suite.CASES)


def test_the_split_keeps_every_wording_of_an_ask_on_one_side_and_is_near_half() -> None:
    """All wordings of a case share one half; each half holds 40-60% of the cases."""
    halves = collections.defaultdict(set)
    for fixture in FIXTURES:
        halves[fixture.group_id].add(fixture.split)
    assert all(len(sides) == 1 for sides in halves.values())
    dev = sum(split_of(case.id) == "dev" for case in suite.CASES)
    assert 0.4 <= dev / len(suite.CASES) <= 0.6


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda fixture: fixture.id)
def test_every_fixture_is_well_formed(fixture: Fixture) -> None:
    """Its toolset exists, every tool it names is in it, and writes are write tools."""
    tools = tools_for(fixture)
    assert 1 <= len(tools) <= (40 if fixture.toolset == "assistant" else 8)
    named = {
        *fixture.tools,
        *(fixture.writes or ()),
        *(n for alt in fixture.alternatives for n in alt),
    }
    assert named <= set(tools), f"unknown tools {named - set(tools)}"
    assert all(word == word.lower() for word in (*fixture.mentions, *fixture.forbids))
    for name in fixture.writes or ():
        assert tools[name].writes, f"{name} is listed in writes but is not a write tool"
    if fixture.handled_by == "device":
        assert fixture.writes is not None, "a device ask says what may be written"
    for key in (*fixture.arg_mentions, *fixture.arg_values):
        tool_name, field = key.split(".")
        assert tool_name in tools and field in tools[tool_name].schema["properties"]


def _kinds(schema: dict[str, Any]) -> set[str]:
    """The JSON-schema kinds a parameter uses: number, integer, boolean, enum, array of
    strings, array of enums, object (nested)."""
    kinds = {"enum"} if "enum" in schema else {str(schema.get("type"))}
    if schema.get("type") == "array":
        items = schema.get("items", {})
        kinds.add("array of enums" if "enum" in items else f"array of {items.get('type')}s")
    if schema.get("type") == "object":
        for inner in schema.get("properties", {}).values():
            kinds |= _kinds(inner)
    return kinds


def test_the_typed_toolsets_use_every_kind_of_parameter_and_check_the_values() -> None:
    """Numbers, integers, booleans, enums, arrays, nested objects and optional parameters with
    defaults all appear; every typed write and every typed read with arguments checks values."""
    from evals.suite import typed

    kinds: set[str] = set()
    optional = 0
    for name, factory in typed.TOOLSETS.items():
        for item in toolset_tools(factory, name).values():
            properties = item.schema.get("properties", {})
            for inner in properties.values():
                kinds |= _kinds(inner)
            optional += len(set(properties) - set(item.schema.get("required", [])))
    wanted = {"number", "integer", "boolean", "enum", "array of strings", "array of enums"}
    assert wanted | {"object"} <= kinds
    assert optional >= 10
    assert len(typed.CASES) >= 20
    for case in typed.CASES:
        if case.writes or (case.arguments and case.category == "read"):
            assert case.arg_values, f"{case.id} checks no typed value"


def test_the_assistant_offers_30_to_40_functions_and_each_ask_needs_at_most_one() -> None:
    """One phone-wide toolset of 30-40 functions from every domain; each of its asks is found
    by one function (or none, for knowledge and the cloud)."""
    from evals.suite import assistant

    tools = toolset_tools(assistant.assistant_tools, "assistant")
    assert 30 <= len(tools) <= 40
    assert len(assistant.CASES) >= 12
    assert all(len(case.tools) <= 1 for case in assistant.CASES)
    assert sum(len(case.tools) == 1 for case in assistant.CASES) >= 12


QUARANTINED = {("contacts-injected-unknown-number", "hannah")}
"""Words a case wants that stand only inside a text addressed to the AI assistant, which the
model never reads (docs/design.md, "Instructions to the assistant are removed from results"):
an accepted loss, counted in every run, the case left as it was written (docs/evals.md)."""


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda fixture: fixture.id)
async def test_a_perfect_model_passes_every_fixture_in_goliath(fixture: Fixture) -> None:
    """The perfect script passes, no step fails, and the answer's words were in what it saw."""
    tools = tools_for(fixture)
    model = PerfectModel(fixture, goliath_script(fixture, tools, fixture.arguments))
    from goliath.evaluation.runner import history_memory

    memory = history_memory(fixture.history)
    agent = Agent(
        model,
        tools=tools,
        fallback=lambda request: "(cloud)",
        facts=suite.FACTS,
        confirm=lambda request: not fixture.decline,
        **({"memory": memory} if memory is not None else {}),
    )
    async with agent:
        result = await agent.run(fixture.ask)
    assert grade(fixture, result, facts=suite.FACTS) == []
    assert not any(step.failed for step in result.steps)
    assert model.remaining() == 0
    if fixture.tools and fixture.handled_by == "device":
        seen = " ".join([fixture.ask, *(step.result or "" for step in result.steps)]).lower()
        for word in fixture.mentions:
            if word not in seen and (fixture.group_id, word) in QUARANTINED:
                raw = " ".join(str(step.output) for step in result.steps).lower()
                assert word in raw and REMOVED.lower() in seen
                continue
            assert word in seen, f"{word!r} is nowhere in what the model was shown"


@pytest.mark.parametrize(
    "fixture",
    [
        f
        for f in FIXTURES
        if f.handled_by == "device" and not (() in f.alternatives and f.writes == ())
    ],
    ids=lambda fixture: fixture.id,
)
async def test_a_perfect_model_in_the_naive_loop_runs_every_device_fixture(
    fixture: Fixture,
) -> None:
    """The baseline's perfect script runs without a failed step (its tools take the arguments)."""
    from goliath.evaluation import NaiveLoop

    tools = tools_for(fixture)
    model = FakeModel(naive_script(fixture, tools, fixture.arguments))
    loop = NaiveLoop(
        model,
        tools,
        fallback=lambda request: "(cloud)",
        confirm=lambda request: not fixture.decline,
        facts=suite.FACTS,
        window=1_000_000,
    )
    result = await loop.run(fixture.ask, history=fixture.history)
    assert not any(step.failed for step in result.steps)
