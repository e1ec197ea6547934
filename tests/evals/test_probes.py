"""Stage probes on a scripted model: what each probe sends to the model and how it scores it."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from goliath import Tool, tool
from goliath.errors import ConfigError
from goliath.evaluation.fixtures import Fixture
from goliath.evaluation.probes import format_probe_report, run_probe
from goliath.models import GenerateRequest
from goliath.schema import DONE
from goliath.testing import FakeModel

READ = Fixture(
    id="read-tasks",
    ask="what's on my list?",
    tools=("list_tasks",),
    handled_by="device",
    mentions=("milk",),
)
ADD = Fixture(
    id="add-task",
    ask="add 'water the plants' to my list",
    tools=("create_task",),
    handled_by="device",
    arguments=({"title": "water the plants"},),
)
CHECK_THEN_ADD = Fixture(
    id="add-unless-there",
    ask="add 'buy milk' unless it's already there",
    tools=("list_tasks",),
    handled_by="device",
    category="check-then-act",
)
CHECK_THEN_ADD_COUNT = Fixture(
    id="add-if-few",
    ask="add 'buy milk' if I have fewer than five tasks",
    tools=("list_tasks",),
    handled_by="device",
    category="check-then-act",
)
CLOUD = Fixture(id="cloud-ask", ask="wire 200 dollars to Sam", tools=(), handled_by="cloud")


def planner(calls: list[str]) -> Any:
    """A model whose first plan is ``calls``; any other call is unexpected."""

    def reply(request: GenerateRequest) -> dict[str, Any]:
        assert request.label == "conductor", f"the probe went past the plan: {request.label}"
        return {"json": {"call": calls[0], "then": calls[1] if len(calls) > 1 else DONE}}

    return FakeModel(reply)


async def probe_plan(fixture: Fixture, calls: list[str]) -> tuple[bool, str, list[str]]:
    report = await run_probe(model=planner(calls), fixtures=[fixture], probe="plan")
    (outcome,) = report.outcomes
    return outcome.passed, outcome.reply, outcome.reasons


async def test_the_plan_probe_passes_a_plan_with_exactly_the_needed_calls() -> None:
    assert await probe_plan(READ, ["list_tasks"]) == (True, "list_tasks", [])


async def test_the_plan_probe_fails_a_call_too_many_that_the_decision_probe_lets_through() -> None:
    passed, reply, reasons = await probe_plan(READ, ["list_tasks", "create_task"])
    assert not passed and reply == "list_tasks,create_task"
    assert reasons == ["planned [list_tasks,create_task], wanted [list_tasks]"]
    decision = await run_probe(
        model=planner(["list_tasks", "create_task"]), fixtures=[READ], probe="decision"
    )
    assert decision.passed == 1


async def test_a_planned_write_after_its_check_passes_when_the_check_alone_is_right() -> None:
    """The turn asks before each planned write, so [check, write] can end as [check]."""
    assert (await probe_plan(CHECK_THEN_ADD, ["list_tasks", "create_task"]))[0]
    assert (await probe_plan(CHECK_THEN_ADD_COUNT, ["list_tasks", "create_task"]))[0]
    assert not (await probe_plan(CHECK_THEN_ADD_COUNT, ["create_task"]))[0]


async def test_an_add_planned_alone_under_unless_its_there_reads_the_list_first() -> None:
    """The presence condition turns the plan round (docs/design.md, "The check comes first")."""
    passed, reply, _ = await probe_plan(CHECK_THEN_ADD, ["create_task"])
    assert passed and reply.startswith("list_tasks")


async def test_the_plan_probe_scores_answers_and_hand_offs() -> None:
    assert (await probe_plan(READ, ["general_knowledge_or_chat"]))[:2] == (False, "answer")
    assert (await probe_plan(CLOUD, ["beyond_these_functions"]))[:2] == (True, "escalate")
    passed, _, reasons = await probe_plan(CLOUD, ["list_tasks"])
    assert not passed and reasons == ["planned list_tasks, wanted escalate"]


async def test_the_answer_probe_shows_the_model_the_perfect_steps_and_scores_its_words() -> None:
    seen: list[GenerateRequest] = []

    def reply(request: GenerateRequest) -> dict[str, Any]:
        seen.append(request)
        return {"text": "You have to buy milk and call mom."}

    report = await run_probe(model=FakeModel(reply), fixtures=[READ], probe="answer")
    assert report.passed == 1 and [r.label for r in seen] == ["answer"]
    assert "Buy milk" in seen[0].prompt  # the list_tasks result of the perfect run

    def invents(request: GenerateRequest) -> dict[str, Any]:
        return {"text": "You have 7 tasks; none is milk."}

    failed = await run_probe(model=FakeModel(invents), fixtures=[READ], probe="answer")
    (outcome,) = failed.outcomes
    assert not outcome.passed and any("7" in reason for reason in outcome.reasons)
    assert "answer: 0/1 passed" in format_probe_report(failed)


async def test_the_arguments_probe_scores_the_arguments_reply_against_the_fixture() -> None:
    def reply(request: GenerateRequest) -> dict[str, Any]:
        return {"json": {"title": "water the plants"}}

    report = await run_probe(model=FakeModel(reply), fixtures=[ADD], probe="arguments")
    assert report.passed == 1 and report.outcomes[0].probe == "arguments"


def heating_tools() -> list[Tool]:
    @tool(writes=True)
    def set_heating(target_c: float, rooms: list[str]) -> dict[str, Any]:
        """Heat rooms to a temperature.

        Args:
            target_c: The temperature in °C.
            rooms: The rooms to heat.
        """
        return {"ok": True, "target_c": target_c, "rooms": rooms}

    return [set_heating]


async def test_the_arguments_probe_judges_typed_values_as_the_tool_gets_them() -> None:
    """ "21.5" as a string becomes 21.5 and passes; 21 or a repeated room fails."""
    fixture = Fixture(
        id="heat-typed",
        ask="heat the kitchen and study to 21.5",
        tools=("set_heating",),
        handled_by="device",
        toolset="heating",
        arguments=({"target_c": 21.5, "rooms": ["Kitchen", "Study"]},),
        arg_values={"set_heating.target_c": 21.5, "set_heating.rooms": ["kitchen", "study"]},
    )

    async def probe(values: dict[str, Any]) -> list[str]:
        def reply(request: GenerateRequest) -> dict[str, Any]:
            return {"json": values}

        report = await run_probe(
            model=FakeModel(reply),
            fixtures=[fixture],
            probe="arguments",
            toolsets={"heating": heating_tools},
        )
        return list(report.outcomes[0].reasons)

    assert await probe({"target_c": "21.5", "rooms": ["Study", "Kitchen"]}) == []
    assert await probe({"target_c": 21, "rooms": ["Kitchen", "Study", "Kitchen"]}) == [
        "target_c is 21.0, wanted the number 21.5",
        'rooms repeats "Kitchen"',
    ]


def condition_model(word: str) -> Any:
    """A model that answers the condition check with ``word``; no other call reaches it."""

    def reply(request: GenerateRequest) -> dict[str, Any]:
        assert request.label == "condition", f"the probe sent {request.label} to the model"
        return {"json": {"go": word}}

    return FakeModel(reply)


GO_AFTER_READ = Fixture(
    id="add-if-few",
    ask="add 'water the plants' if I have fewer than three tasks",
    tools=("list_tasks", "create_task"),
    handled_by="device",
    category="check-then-act",
    writes=("create_task",),
    arguments=({"title": "Water the plants"},),
)
SKIP_AFTER_READ = Fixture(
    id="add-if-none",
    ask="add 'buy eggs' if I have no tasks yet",
    tools=("list_tasks",),
    handled_by="device",
    category="check-then-act",
    writes=(),
    withheld=(("create_task", {"title": "Buy eggs"}),),
)


async def test_the_condition_probe_asks_about_a_good_runs_write_after_its_read() -> None:
    model = condition_model("yes")
    report = await run_probe(model=model, fixtures=[GO_AFTER_READ], probe="condition")
    (outcome,) = report.outcomes
    assert (outcome.passed, outcome.wanted, outcome.reply) == (True, "go", "create_task=go")
    (asked,) = model.calls
    assert "Buy milk" in asked.prompt and "Water the plants" in asked.prompt
    withheld = await run_probe(
        model=condition_model("no"), fixtures=[GO_AFTER_READ], probe="condition"
    )
    assert withheld.outcomes[0].reasons == ["create_task: withheld, wanted go"]
    assert "let through 0/1" in format_probe_report(withheld)


async def test_the_condition_probe_credits_an_add_the_read_shows_is_new() -> None:
    """ "Unless it's already there", and nothing like it was found: the write goes ahead with no
    model call (docs/design.md, "The condition check")."""
    fixture = attrs.evolve(GO_AFTER_READ, ask="add 'water the plants' unless it's already there")
    model = condition_model("no")
    report = await run_probe(model=model, fixtures=[fixture], probe="condition")
    (outcome,) = report.outcomes
    assert (outcome.passed, outcome.reply) == (True, "create_task=go")
    assert model.calls == []


async def test_the_condition_probe_asks_about_the_write_whose_condition_failed() -> None:
    report = await run_probe(
        model=condition_model("no"), fixtures=[SKIP_AFTER_READ], probe="condition"
    )
    (outcome,) = report.outcomes
    assert (outcome.passed, outcome.wanted, outcome.reply) == (
        True,
        "withheld",
        "create_task=withheld",
    )
    assert "condition failed withheld 1/1" in format_probe_report(report)
    let_through = await run_probe(
        model=condition_model("yes"), fixtures=[SKIP_AFTER_READ], probe="condition"
    )
    assert let_through.outcomes[0].reasons == ["create_task: go, wanted withheld"]


async def test_the_condition_probe_credits_the_write_gate_and_skips_asks_with_no_condition() -> (
    None
):
    already = Fixture(
        id="add-milk-unless-there",
        ask="add 'buy milk' unless it's already there",
        tools=("list_tasks",),
        handled_by="device",
        writes=(),
        withheld=(("create_task", {"title": "Buy milk"}),),
    )
    plain = Fixture(
        id="look-then-add",
        ask="look at my list, then add 'water the plants'",
        tools=("list_tasks", "create_task"),
        handled_by="device",
        writes=("create_task",),
        arguments=({"title": "Water the plants"},),
    )
    model = condition_model(
        "no"
    )  # never asked: the gate decides one, the other states no condition
    report = await run_probe(model=model, fixtures=[already, plain], probe="condition")
    assert [(o.reply, o.passed) for o in report.outcomes] == [
        ("create_task=withheld by the gate", True),
        ("create_task=go", True),
    ]
    assert model.calls == []


def test_a_fixtures_withheld_write_is_a_tool_and_its_arguments() -> None:
    with pytest.raises(ConfigError, match="withheld must be"):
        Fixture(id="x", ask="y", tools=(), handled_by="device", withheld=[("create_task",)])


class _ScoringModel(FakeModel):
    """A scripted model that, like llama.cpp, scores options: the turn's checks are on."""

    scores_options = True


async def test_a_later_stage_is_probed_past_the_checks_a_scoring_model_turns_on() -> None:
    """The hand-off and write-intent checks run for a model that scores options; the perfect
    script holds no entry for them, and they pass as a perfect run passes them, so the answer
    after the write is still reached (on 2026-12-05, 35 of 49 dev answer probes never were)."""
    seen: list[str] = []

    def reply(request: GenerateRequest) -> dict[str, Any]:
        seen.append(request.label)
        return {"text": "Added 'water the plants' to your list."}

    report = await run_probe(model=_ScoringModel(reply), fixtures=[ADD], probe="answer")
    (outcome,) = report.outcomes
    assert outcome.reasons != ["never reached"] and seen == ["answer"]


def test_the_perfect_script_plans_twice_where_the_named_pick_check_asks_again() -> None:
    """With ``named_pick_check`` on, a first function the ask never names while it names
    another of its kind is asked for again (run.py); the perfect script answers both plans."""
    from goliath.evaluation.probes import perfect_script

    @tool
    def list_messages() -> str:
        """Text messages, newest first."""
        return ""

    @tool
    def upcoming_birthdays() -> str:
        """Contacts whose birthday falls in the next 30 days."""
        return ""

    tools = {t.name: t for t in (list_messages, upcoming_birthdays)}
    fixture = Fixture(
        id="family-chat",
        ask="what did the family chat decide about Maya's birthday?",
        tools=("list_messages",),
        handled_by="device",
    )
    plain = [label for label, _ in perfect_script(fixture, tools)]
    again = [label for label, _ in perfect_script(fixture, tools, named_pick=True)]
    assert plain == ["conductor", "conductor", "answer"]
    assert again == ["conductor", "conductor", "conductor", "answer"]
