"""The everyday suite (evals/suite): well-formed cases, four wordings each, a fixed split, and
every wording achievable by a perfect model."""

from __future__ import annotations

import collections

import pytest

from evals import suite
from evals.suite.case import CATEGORIES
from goliath import Agent, Tool
from goliath.evals import Fixture, grade
from goliath.evals.fixtures import split_of, toolset_tools
from goliath.testing import FakeModel
from tests.evals.scripts import goliath_script, naive_script

FIXTURES = suite.FIXTURES


def tools_for(fixture: Fixture) -> dict[str, Tool]:
    name = fixture.toolset or "sample"
    return toolset_tools(suite.TOOLSETS[name], name)


def test_the_suite_has_150_asks_over_8_toolsets_each_in_four_wordings() -> None:
    """150+ asks over 8+ toolsets, every ask in at least four wordings, every category present."""
    assert len(suite.CASES) >= 150
    assert len({case.toolset for case in suite.CASES}) >= 8
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
    assert 1 <= len(tools) <= 8
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
    for key in fixture.arg_mentions:
        tool_name, field = key.split(".")
        assert tool_name in tools and field in tools[tool_name].schema["properties"]


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda fixture: fixture.id)
async def test_a_perfect_model_passes_every_fixture_in_goliath(fixture: Fixture) -> None:
    """The perfect script passes, no step fails, and the answer's words were in what it saw."""
    tools = tools_for(fixture)
    model = FakeModel(goliath_script(fixture, tools, fixture.arguments))
    from goliath.evals.runner import history_memory

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
    from goliath.evals import NaiveLoop

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
