"""The everyday suite: well-formed fixtures, and each one achievable by a perfect model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from evals import everyday, world
from goliath import Agent, Tool
from goliath.evaluation import Fixture, grade, load_fixtures, run_evals
from goliath.evaluation.fixtures import toolset_tools
from goliath.testing import FakeModel
from tests.evals.scripts import goliath_script, naive_script, scripted

# What a perfect arguments call fills for each tool with parameters, in the order of fixture.tools.
ARGUMENTS: dict[str, list[dict[str, Any]]] = {
    "tasks-add": [{"title": "Pick up dry cleaning"}],
    "tasks-add-due": [{"title": "Pay rent", "due": "friday"}],
    "tasks-add-if-new": [{"title": "Book a haircut"}],
    "tasks-complete": [{"title": "call mom"}],
    "tasks-complete-paid": [{"title": "electricity bill"}],
    "tasks-add-declined": [{"title": "Cancel the gym membership"}],
    "cal-today": [{"date": "today"}],
    "cal-dentist-time": [{"date": "tomorrow"}],
    "cal-add": [{"title": "Lunch with Sam", "date": "Wednesday", "time": "1pm"}],
    "cal-add-missing-time": [{"title": "Plumber visit", "missing": "the date and the time"}],
    "cal-busy-then-skip": [{"date": "Thursday"}],
    "cal-free-then-add": [
        {"date": "Friday"},
        {"title": "Haircut", "date": "Friday", "time": "10am"},
    ],
    "cal-cancel": [{"title": "Lunch with Priya", "date": "today"}],
    "cal-cancel-declined": [{"title": "Yoga", "date": "Friday"}],
    "notes-wifi": [{"query": "cabin wifi"}, {"title": "Cabin"}],
    "notes-packing": [{"title": "Packing list"}],
    "notes-add": [{"title": "Garage code", "text": "The garage code is 4512."}],
    "notes-huge-meeting": [{"title": "team meeting"}],
    "notes-injected-recipe": [
        {"query": "lentil soup"},
        {"title": "Lentil soup (shared by a neighbour)"},
    ],
    "msg-send": [{"to": "Anna", "text": "I'll save you a seat"}],
    "msg-tell-dad": [{"to": "Dad", "text": "I'll call you tonight"}],
    "msg-missing-text": [{"to": "Priya", "missing": "what the message should say"}],
    "msg-declined": [{"to": "Anna", "text": "I can't make dinner"}],
    "msg-check-then-reply": [{"to": "Anna", "text": "No worries!"}],
    "inbox-tracking": [{"email_id": 3}],
    "inbox-archive-gym": [{"email_id": 2}],
    "day-overview": [{"date": "today"}],
    "day-umbrella": [{"date": "tomorrow"}],
    "day-rain-then-task": [{"date": "tomorrow"}, {"title": "Buy an umbrella"}],
    "day-text-lunch-time": [{"date": "today"}, {"to": "Priya", "text": "Lunch is at 12:30"}],
}

LARGE_OUTPUT = {"notes-huge-meeting", "inbox-latest", "inbox-tracking", "inbox-archive-gym"}
"""Fixtures whose tool output is far larger than the window."""


def tools_for(fixture: Fixture) -> dict[str, Tool]:
    name = fixture.toolset or "sample"
    return toolset_tools(everyday.TOOLSETS[name], name)


def test_the_suite_has_at_least_forty_fixtures_over_every_category() -> None:
    """40+ fixtures, with declines, missing values, escalations, no-tool asks and injections."""
    fixtures = everyday.FIXTURES
    assert len(fixtures) >= 40
    assert any(fixture.decline for fixture in fixtures)
    assert any(() in fixture.alternatives and fixture.writes == () for fixture in fixtures)
    assert sum(fixture.handled_by == "cloud" for fixture in fixtures) >= 4
    assert sum(fixture.tools == () for fixture in fixtures if fixture.handled_by == "device") >= 4
    assert {"msg-injection", "notes-injected-recipe"} <= {fixture.id for fixture in fixtures}
    assert {fixture.id for fixture in fixtures} >= LARGE_OUTPUT


@pytest.mark.parametrize("fixture", everyday.FIXTURES, ids=lambda fixture: fixture.id)
def test_every_fixture_is_well_formed(fixture: Fixture) -> None:
    """Its toolset exists with at most five tools, and every tool it names is in it."""
    assert fixture.toolset in everyday.TOOLSETS
    tools = tools_for(fixture)
    assert 1 <= len(tools) <= 5
    named = {
        *fixture.tools,
        *(fixture.writes or ()),
        *(n for alt in fixture.alternatives for n in alt),
    }
    assert named <= set(tools), f"unknown tools {named - set(tools)}"
    assert all(word == word.lower() for word in (*fixture.mentions, *fixture.forbids))
    for name in fixture.writes or ():
        assert tools[name].writes, f"{name} is listed in writes but is not a write tool"


def test_toolsets_are_fresh_for_each_attempt() -> None:
    """A write in one set of tools is not seen by the next set from the same factory."""
    first = tools_for(everyday.TASKS[0])
    first["create_task"].execute({"title": "Leak", "due": None}, None)  # type: ignore[arg-type]
    second = tools_for(everyday.TASKS[0])
    titles = [task["title"] for task in second["list_tasks"].execute({}, None)]  # type: ignore[arg-type]
    assert "Leak" not in titles
    assert titles == [task["title"] for task in world.tasks() if not task["done"]]


def test_the_suite_loads_from_its_path() -> None:
    """`--fixtures evals/everyday.py` reads the same fixtures, toolsets and facts."""
    suite = load_fixtures("evals/everyday.py")
    assert [fixture.id for fixture in suite.fixtures] == [f.id for f in everyday.FIXTURES]
    assert set(suite.toolsets) >= set(everyday.TOOLSETS)
    assert suite.facts["today"] == "Monday 10 March 2025"


@pytest.mark.parametrize("fixture", everyday.FIXTURES, ids=lambda fixture: fixture.id)
async def test_a_perfect_model_passes_every_fixture_in_goliath(fixture: Fixture) -> None:
    """The perfect script passes, no step fails, and the answer's facts were in what it saw."""
    tools = tools_for(fixture)
    model = FakeModel(goliath_script(fixture, tools, ARGUMENTS.get(fixture.id, ())))
    agent = Agent(
        model,
        tools=tools,
        fallback=lambda request: "(cloud)",
        facts=everyday.FACTS,
        confirm=lambda request: not fixture.decline,
    )
    async with agent:
        result = await agent.run(fixture.ask)
    assert grade(fixture, result) == []
    assert not any(step.failed for step in result.steps)
    assert model.remaining() == 0
    if fixture.tools and fixture.handled_by == "device":
        seen = (fixture.ask + " " + " ".join(step.result or "" for step in result.steps)).lower()
        for word in fixture.mentions:
            assert word in seen, f"{word!r} is nowhere in what the model was shown"


@pytest.mark.slow
async def test_the_whole_suite_scores_perfectly_with_a_perfect_model() -> None:
    """The scripted eval: every fixture passes pass^2, and only the cloud asks leave the device."""
    suite = load_fixtures("evals/everyday.py")
    report = await run_evals(
        model=scripted(goliath_script, tools_for, ARGUMENTS), fixtures=suite, runs=2
    )
    assert report.passed == report.total == len(everyday.FIXTURES)
    assert report.errors == 0
    assert report.escalated == 2 * sum(f.handled_by == "cloud" for f in everyday.FIXTURES)


@pytest.mark.slow
async def test_a_perfect_model_in_the_naive_loop_loses_large_outputs_and_escalations() -> None:
    """The baseline with a flawless model fails exactly the large-output and must-escalate asks."""
    suite = load_fixtures("evals/everyday.py")
    report = await run_evals(
        model=scripted(naive_script, tools_for, ARGUMENTS), fixtures=suite, baseline=True
    )
    failed = {outcome.id for outcome in report.outcomes if not outcome.passed}
    cloud = {fixture.id for fixture in everyday.FIXTURES if fixture.handled_by == "cloud"}
    assert failed == LARGE_OUTPUT | cloud
    large = [outcome for outcome in report.outcomes if outcome.id in LARGE_OUTPUT]
    assert {outcome.escalation for outcome in large} == {"context-budget"}
    assert report.errors == 0


def catalogue_row(fixture: Fixture) -> str:
    """The fixture's row in docs/evals.md's catalogue."""
    checks = []
    if fixture.mentions:
        checks.append("mentions " + ", ".join(f'"{word}"' for word in fixture.mentions))
    if fixture.writes is not None:
        checks.append("writes: " + (", ".join(fixture.writes) or "none"))
    if fixture.decline:
        checks.append("user declines")
    if fixture.alternatives:
        shown = ("[" + ", ".join(alt) + "]" if alt else "[] (ask)" for alt in fixture.alternatives)
        checks.append("also: " + "; ".join(shown))
    return (
        f"| `{fixture.id}` | {fixture.ask} | {fixture.toolset} | {', '.join(fixture.tools) or '—'} "
        f"| {fixture.handled_by} | {'; '.join(checks)} |"
    ).replace("|  |", "| |")


def test_the_docs_catalogue_matches_the_fixtures() -> None:
    """docs/evals.md lists every everyday fixture exactly as the suite defines it."""
    docs = (Path(__file__).resolve().parents[2] / "docs" / "evals.md").read_text()
    table = docs[docs.index("| id | ask | toolset |") :].split("\n\n", 1)[0]
    rows = table.splitlines()[2:]
    assert rows == [catalogue_row(fixture) for fixture in everyday.FIXTURES]
