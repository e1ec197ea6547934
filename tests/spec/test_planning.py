"""Planning and the step loop (design.md, D2)."""

from __future__ import annotations

from typing import Any

import pydantic
import pytest

from goliath import Agent, Decision, StepRecord
from goliath.errors import InvalidOutputError, ModelError
from goliath.testing import FakeModel

from .helpers import (
    RecordingFallback,
    TaskBox,
    answer_plan,
    args,
    calls,
    events,
    fail,
    hand_off,
    labels,
    make_tool,
    reasons,
    run_turn,
    text,
    use,
)


async def test_no_tools_means_no_conductor_call() -> None:
    """Without tools the turn makes exactly one model call: the answer."""
    model = FakeModel([text("Hello there.")])
    result = await run_turn(model, "hi")
    assert labels(model) == ["answer"]
    [plan_event] = events(result, "plan")
    assert (plan_event.kind, plan_event.brief, plan_event.index) == ("answer", "reply", 0)
    assert result.text == "Hello there."


async def test_zero_max_steps_escalates_before_any_model_call(box: TaskBox) -> None:
    """With max_steps=0 the turn escalates too-many-steps before any model call."""
    model = FakeModel([])
    fallback = RecordingFallback()
    result = await run_turn(model, tools=box.tools, max_steps=0, fallback=fallback)
    assert model.calls == []
    assert reasons(result) == ["too-many-steps"]
    assert [r.reason for r in fallback.requests] == ["too-many-steps"]
    assert result.handled_by == "cloud"


async def test_zero_max_steps_escalates_even_without_tools() -> None:
    """The cap check precedes planning even for an agent without tools."""
    model = FakeModel([])
    result = await run_turn(model, max_steps=0, fallback=RecordingFallback())
    assert model.calls == []
    assert reasons(result) == ["too-many-steps"]


async def test_every_kind_of_step_counts_toward_the_cap(box: TaskBox) -> None:
    """Executed, cached and declined steps all count; the next iteration escalates."""
    model = FakeModel(
        [use("list_tasks"), use("list_tasks"), use("create_task"), args(title="Eggs")]
    )
    fallback = RecordingFallback()
    result = await run_turn(
        model,
        tools=box.tools,
        max_steps=3,
        fallback=fallback,
        confirm=lambda request: False,
    )
    assert [(s.cached, s.skipped) for s in result.steps] == [
        (False, False),
        (True, False),
        (False, True),
    ]
    assert reasons(result) == ["too-many-steps"]
    assert len(calls(model, "conductor")) == 3
    assert model.remaining() == 0


async def test_failed_and_missing_steps_count_toward_the_cap(box: TaskBox) -> None:
    """Failed and missing-argument steps count toward the cap too."""

    def broken(arguments: dict[str, Any], ctx: Any) -> Any:
        raise RuntimeError("down")

    model = FakeModel([use("broken"), use("search"), args(query="", missing="the query")])
    result = await run_turn(
        model,
        tools=[make_tool("broken", broken), box.search],
        max_steps=2,
        fallback=RecordingFallback(),
    )
    assert [(s.failed, s.skip_reason) for s in result.steps] == [(True, None), (False, "missing")]
    assert reasons(result) == ["too-many-steps"]


async def test_conductor_schema_fields_in_generation_order(box: TaskBox) -> None:
    """The first plan is a required call (a tool's name or one of the two options: no
    function, beyond these functions), then a required second one (answer the user, or a
    tool); a later plan is one required call (a tool, answer the user, beyond these
    functions). Deviation: docs/design.md, "The plan"."""
    model = FakeModel([use("list_tasks"), answer_plan(), text("Hi.")])
    await run_turn(model, tools=box.tools)
    first, later = calls(model, "conductor")
    schema = first.schema
    assert list(schema["properties"]) == ["call", "then"]
    assert schema["required"] == ["call", "then"]
    assert schema["properties"]["call"]["enum"] == [
        "list_tasks",
        "create_task",
        "search",
        "general_knowledge_or_chat",
        "beyond_these_functions",
    ]
    assert schema["properties"]["then"]["enum"] == [
        "answer_the_user",
        "list_tasks",
        "create_task",
        "search",
    ]
    # list_tasks takes no input and has run: its repeat could only return the same lines
    assert later.schema["properties"]["call"]["enum"] == [
        "create_task",
        "search",
        "answer_the_user",
        "beyond_these_functions",
    ]
    assert later.schema["required"] == ["call"]
    assert first.max_output_tokens == later.max_output_tokens == 256


@pytest.mark.parametrize(
    "malformed",
    [
        text("sure, I will list the tasks"),
        {"json": {"call": "list_tasks", "brief": "x"}},
        fail(InvalidOutputError("bad JSON")),
        fail(ModelError("Failed to deserialize a Generable type from model output")),
    ],
    ids=["not-json", "unknown-field", "invalid-output-error", "generable"],
)
async def test_malformed_plan_is_retried_once_with_a_hint(box: TaskBox, malformed: Any) -> None:
    """A malformed plan causes one retry whose prompt ends with a hint naming the tools."""
    model = FakeModel([malformed, answer_plan(), text("Two tasks.")])
    result = await run_turn(model, tools=box.tools)
    first, second = calls(model, "conductor")
    assert second.prompt.startswith(first.prompt + "\n\n")
    hint = second.prompt[len(first.prompt) + 2 :]
    for name in ("list_tasks", "create_task", "search"):
        assert name in hint
    assert result.text == "Two tasks."
    assert reasons(result) == []


async def test_two_malformed_plans_in_a_row_escalate_plan_invalid(box: TaskBox) -> None:
    """A second malformed plan (in a row, D2) escalates plan-invalid."""
    model = FakeModel([text("nope"), text("still nope")])
    fallback = RecordingFallback()
    result = await run_turn(model, tools=box.tools, fallback=fallback)
    assert reasons(result) == ["plan-invalid"]
    assert len(calls(model, "conductor")) == 2
    assert fallback.requests[0].reason == "plan-invalid"


@pytest.mark.parametrize(
    "bad_plan",
    [use("delete_everything"), use("")],
    ids=["unknown-tool", "missing-tool"],
)
async def test_tool_plan_with_unknown_or_missing_tool_is_malformed(
    box: TaskBox, bad_plan: dict[str, Any]
) -> None:
    """A tool plan naming an unknown tool or none counts as malformed."""
    model = FakeModel([bad_plan, bad_plan])
    result = await run_turn(model, tools=box.tools, fallback=RecordingFallback())
    assert reasons(result) == ["plan-invalid"]
    first, second = calls(model, "conductor")
    hint = second.prompt[len(first.prompt) :]
    named = bad_plan["json"]["call"] or "(none)"
    assert named in hint
    assert "list_tasks" in hint


async def test_escalate_plan_escalates_conductor_asked(box: TaskBox) -> None:
    """Kind escalate escalates conductor-asked and its plan event has kind answer."""
    model = FakeModel([hand_off()])
    fallback = RecordingFallback()
    result = await run_turn(model, tools=box.tools, fallback=fallback)
    [plan_event] = events(result, "plan")
    assert (plan_event.kind, plan_event.brief) == ("answer", "beyond this device's functions")
    assert plan_event.tool is None
    assert reasons(result) == ["conductor-asked"]
    assert result.text == "cloud answer"


async def test_finish_now_hint_appears_on_the_fifth_step_only() -> None:
    """With max_steps 5 the 5th conductor prompt says finish now; the first four do not."""

    async def lookup(arguments: dict[str, Any], ctx: Any) -> str:
        return f"value {arguments['n']}"

    class N(pydantic.BaseModel):
        n: int

    script: list[dict[str, Any]] = []
    for n in range(1, 5):
        script += [use("lookup"), args(n=n)]
    script += [answer_plan(), text("Done.")]
    model = FakeModel(script)
    result = await run_turn(model, tools=[make_tool("lookup", lookup, parameters=N)])
    prompts = [call.prompt for call in calls(model, "conductor")]
    assert len(prompts) == 5
    assert [("finish now" in prompt) for prompt in prompts] == [False] * 4 + [True]
    assert "Step 5 of 5: finish now." in prompts[4]
    assert "Step" not in prompts[0]  # the first plan has no step log and no counter
    for used, prompt in enumerate(prompts[1:4], start=1):
        assert f"Step {used + 1} of 5." in prompt
    assert result.text == "Done."


async def test_finish_now_never_appears_with_three_steps() -> None:
    """With max_steps 3 the finish hint never reaches the model."""

    class N(pydantic.BaseModel):
        n: int

    script: list[dict[str, Any]] = []
    for n in range(1, 4):
        script += [use("lookup"), args(n=n)]
    model = FakeModel(script)
    await run_turn(
        model,
        tools=[make_tool("lookup", lambda a, c: a["n"], parameters=N)],
        max_steps=3,
        fallback=RecordingFallback(),
    )
    prompts = [call.prompt for call in calls(model, "conductor")]
    assert len(prompts) == 3
    assert not any("finish now" in prompt for prompt in prompts)


async def test_conductor_system_lists_tools_writes_and_prerequisites(box: TaskBox) -> None:
    """Tools as '- name(args): description' marked as reading or changing the user's data,
    then the two options that are not tools, and 'Use A before B.'."""
    guarded = make_tool(
        "archive_task",
        lambda a, c: "ok",
        description="Archive a task.",
        writes=True,
        requires=["list_tasks"],
    )
    model = FakeModel([answer_plan(), text("Hi.")])
    await run_turn(model, tools=[box.list_tasks, box.create_task, guarded])
    system = calls(model, "conductor")[0].system
    lines = system.split("\n")
    assert "- list_tasks(): List the tasks.  # reads the user's data" in lines
    assert "- create_task(title): Add a task.  # changes the user's data" in lines
    assert "- archive_task(): Archive a task.  # changes the user's data" in lines
    assert "Use list_tasks before archive_task." in lines
    assert lines[0] == "You are a careful assistant that lives on this device."
    assert "Functions:" in lines
    assert any(line.startswith("- general_knowledge_or_chat(): ") for line in lines)
    assert any(line.startswith("- beyond_these_functions(): ") for line in lines)


async def test_facts_appear_under_known_in_the_system_prompts(box: TaskBox) -> None:
    """Facts are 'key: value' lines under 'Known:' in the system prompts (the conductor's, and
    the arguments' and answer's, which need today's date for "tomorrow" or "due today"), never in
    a user prompt. Deviation: docs/design.md, "Facts"."""
    model = FakeModel([use("search"), args(query="milk"), answer_plan(), text("Milk.")])
    await run_turn(model, tools=box.tools, facts={"today": "Tuesday", "city": "Oslo"})
    conductor = calls(model, "conductor")[0].system.split("\n")
    known = conductor.index("Known:")
    assert conductor[known + 1 : known + 3] == ["today: Tuesday", "city: Oslo"]
    for call in calls(model, "arguments") + calls(model, "answer"):
        assert "Known:\ntoday: Tuesday\ncity: Oslo" in call.system
    for call in model.calls:
        assert "Tuesday" not in call.prompt


async def test_facts_function_is_called_once_per_turn(box: TaskBox) -> None:
    """A facts function is called once per turn, however many conductor calls it has."""
    seen: list[int] = []

    async def facts() -> dict[str, str]:
        seen.append(1)
        return {"today": "Tuesday"}

    model = FakeModel([use("list_tasks"), answer_plan(), text("A."), answer_plan(), text("B.")])
    agent = Agent(model, tools=box.tools, facts=facts)
    async with agent:
        await agent.run("first")
        assert seen == [1]
        await agent.run("second")
    assert seen == [1, 1]
    assert all("today: Tuesday" in call.system for call in calls(model, "conductor"))


async def test_no_known_section_without_facts(box: TaskBox) -> None:
    """The 'Known:' section is left out when there are no facts."""
    model = FakeModel([answer_plan(), text("Hi.")])
    await run_turn(model, tools=box.tools)
    assert "Known:" not in calls(model, "conductor")[0].system


async def test_conductor_prompt_ends_with_ask_and_choose(box: TaskBox) -> None:
    """The first plan's prompt ends with 'Ask: <ask>' then 'Plan?', a later one's with
    'Next call?'."""
    model = FakeModel([use("list_tasks"), answer_plan(), text("Two.")])
    await run_turn(model, "what's on my list today?", tools=box.tools)
    first, later = calls(model, "conductor")
    assert first.prompt.endswith("Ask: what's on my list today?\nPlan?")
    assert later.prompt.endswith("Ask: what's on my list today?\nNext call?")


async def test_examples_are_rendered_for_the_conductor(box: TaskBox) -> None:
    """Examples render as '- "ask" -> ' then the calls, comma-separated ('answer: text' too)."""
    examples = [
        {
            "ask": "add eggs",
            "steps": [
                {"tool": "create_task", "brief": "add eggs"},
                {"answer": "Added eggs."},
            ],
        }
    ]
    model = FakeModel([answer_plan(), text("Hi.")])
    await run_turn(model, tools=box.tools, examples=examples)
    lines = calls(model, "conductor")[0].system.split("\n")
    position = lines.index("Examples:")
    assert lines[position + 1] == '- "add eggs" -> create_task, answer: Added eggs.'


async def test_conductor_sees_the_step_log_of_earlier_steps(box: TaskBox) -> None:
    """Steps render as 'n. tool(json) [status] → result' after the 'Calls so far' heading."""
    model = FakeModel([use("list_tasks"), answer_plan(), text("Two.")])
    await run_turn(model, tools=box.tools)
    second = calls(model, "conductor")[1].prompt
    assert "Calls so far" in second
    assert "1. list_tasks({}) [completed] → 1. title: Buy milk" in second
    assert "   2. title: Call mom" in second
    assert (
        second.index("Calls so far") < second.index("1. list_tasks") < second.index("Step 2 of 5.")
    )


async def test_step_log_continuation_lines_are_indented() -> None:
    """A multi-line result's later lines are indented by three spaces.

    (Implementation choice: the spec does not say how continuation lines render; three spaces
    keep them from reading as new numbered steps.)
    """
    model = FakeModel([use("multi"), answer_plan(), text("Ok.")])
    await run_turn(model, tools=[make_tool("multi", lambda a, c: "alpha\nbeta\ngamma")])
    second = calls(model, "conductor")[1].prompt
    assert "1. multi({}) [completed] → alpha\n   beta\n   gamma" in second


async def test_step_log_statuses(box: TaskBox) -> None:
    """Statuses are failed, skipped, cached or completed."""

    def broken(arguments: dict[str, Any], ctx: Any) -> Any:
        raise RuntimeError("down")

    model = FakeModel(
        [
            use("list_tasks"),
            use("list_tasks"),
            use("broken"),
            use("create_task"),
            args(title="Eggs"),
            answer_plan(),
            text("Ok."),
        ]
    )
    await run_turn(
        model,
        tools=[*box.tools, make_tool("broken", broken)],
        confirm=lambda request: Decision(approved=False, reason="not now"),
    )
    log = calls(model, "answer")[0].prompt
    assert "1. list_tasks({}) [completed] → 1. title: Buy milk" in log
    assert "2. list_tasks({}) [cached] → same as step 1" in log
    assert (
        "3. broken({}) [failed] → error: RuntimeError: down. Try different arguments or another tool."
        in log
    )
    assert (
        '4. create_task({"title":"Eggs"}) [skipped] → declined by the user: not now. '
        "Do not retry unless asked." in log
    )


async def test_step_log_cuts_long_inputs_at_120_characters(box: TaskBox) -> None:
    """Compact JSON longer than 120 characters is cut to 119 plus '…'."""
    query = "q" * 200
    model = FakeModel([use("search"), args(query=query, limit=1), answer_plan(), text("None.")])
    await run_turn(model, tools=box.tools)
    rendered = '{"query":"' + query + '","limit":1}'
    expected = rendered[:119] + "…"
    assert f"1. search({expected}) [completed] → none" in calls(model, "answer")[0].prompt


async def test_plan_event_fields(box: TaskBox) -> None:
    """A plan event carries index, kind, tool and brief (a tool's description, or reply)."""
    model = FakeModel([use("list_tasks"), answer_plan(), text("Two.")])
    result = await run_turn(model, tools=box.tools)
    first, second = events(result, "plan")
    assert (first.index, first.kind, first.tool, first.brief) == (
        0,
        "tool",
        "list_tasks",
        "List the tasks.",
    )
    assert (second.index, second.kind, second.brief) == (1, "answer", "reply")


async def test_answer_step_record(box: TaskBox) -> None:
    """A device answer from an answer plan is recorded as an answer step."""
    model = FakeModel([use("list_tasks"), answer_plan(), text("Two.")])
    result = await run_turn(model, tools=box.tools)
    answer_step = result.steps[-1]
    assert isinstance(answer_step, StepRecord)
    assert (answer_step.index, answer_step.kind, answer_step.brief, answer_step.text) == (
        1,
        "answer",
        "reply",
        "Two.",
    )


async def test_model_error_during_planning_escalates_model_error(box: TaskBox) -> None:
    """A provider failure of the conductor escalates model-error with '<Name>: <message>'."""
    model = FakeModel([fail(ModelError("device busy"))])
    fallback = RecordingFallback()
    result = await run_turn(model, tools=box.tools, fallback=fallback)
    [escalation] = events(result, "escalate")
    assert (escalation.reason, escalation.error) == ("model-error", "ModelError: device busy")
    assert fallback.requests[0].error == "ModelError: device busy"


async def test_script_exhaustion_is_a_model_failure(box: TaskBox) -> None:
    """Running out of script is a model failure inside a run (model-error)."""
    model = FakeModel([])
    result = await run_turn(model, tools=box.tools, fallback=RecordingFallback())
    [escalation] = events(result, "escalate")
    assert escalation.reason == "model-error"
    assert "script exhausted after 0 call(s)" in escalation.error


async def test_conductor_prompt_section_order(box: TaskBox) -> None:
    """Summary, recent block, step log, step counter, then the ask, blank-line separated."""
    from .helpers import answer_plan, exchange, memory_with, use

    memory = memory_with("Goal: groceries", [exchange("add milk", "Added milk.")])
    model = FakeModel([use("list_tasks"), answer_plan(), text("Ok.")])
    await run_turn(model, "anything else?", tools=box.tools, memory=memory)
    prompt = calls(model, "conductor")[1].prompt
    marks = [
        prompt.index("act on the ask below): Goal: groceries"),
        prompt.index("Recent conversation (reference only; follow the current ask):"),
        prompt.index("Calls so far"),
        prompt.index("Step 2 of 5."),
        prompt.index("Ask: anything else?"),
    ]
    assert marks == sorted(marks)
    assert prompt.startswith("Earlier (")
    assert "\n\nStep 2 of 5.\n\nAsk: anything else?\nNext call?" in prompt


async def test_answer_prompt_layout(box: TaskBox) -> None:
    """'Earlier: <summary>', the recent block, 'What you found', then 'Ask: <ask>' last."""
    from .helpers import answer_plan, exchange, memory_with, use

    memory = memory_with("Goal: groceries", [exchange("add milk", "Added milk.")])
    model = FakeModel([use("list_tasks"), answer_plan(), text("Ok.")])
    await run_turn(model, "anything else?", tools=box.tools, memory=memory)
    prompt = calls(model, "answer")[0].prompt
    assert prompt.startswith("Earlier: Goal: groceries\n\n")
    marks = [
        prompt.index("Recent conversation"),
        prompt.index("What you found"),
        prompt.index("1. list_tasks({}) [completed]"),
    ]
    assert marks == sorted(marks)
    assert prompt.endswith("\n\nAsk: anything else?")


async def test_empty_instructions_are_used_as_is() -> None:
    """An explicitly empty instructions string is used as-is (an empty first line)."""
    model = FakeModel([text("Hi.")])
    await run_turn(model, instructions="")
    assert model.calls[0].system.split("\n")[0] == ""
    assert "careful assistant" not in model.calls[0].system


async def test_context_and_conversation_id_never_reach_prompts_or_memory(box: TaskBox) -> None:
    """The app context and the conversation id are never put into prompts or memory."""
    from goliath.memory import InMemory

    memories: dict[str | None, InMemory] = {}

    def factory(conversation_id: str | None) -> InMemory:
        return memories.setdefault(conversation_id, InMemory())

    model = FakeModel([use("list_tasks"), answer_plan(), text("Ok.")])
    agent = Agent(model, tools=box.tools, memory=factory)
    async with agent:
        await agent.run("hi", conversation_id="conv-XYZZY", context={"token": "CTX-SECRET"})
    for call in model.calls:
        for secret in ("conv-XYZZY", "CTX-SECRET"):
            assert secret not in call.system + call.prompt
    import msgspec

    saved = msgspec.json.encode(await memories["conv-XYZZY"].load()).decode()
    assert "CTX-SECRET" not in saved and "conv-XYZZY" not in saved


async def test_step_log_json_keeps_non_ascii_text(box: TaskBox) -> None:
    """The step log shows the JSON text of the input (non-ASCII characters unescaped)."""
    model = FakeModel([use("search"), args(query="café"), answer_plan(), text("None.")])
    await run_turn(model, tools=box.tools)
    assert (
        '1. search({"query":"café","limit":5}) [completed] → none'
        in calls(model, "answer")[0].prompt
    )


async def test_a_read_with_parameters_that_ran_is_still_offered_and_a_write_always_is(
    box: TaskBox,
) -> None:
    """Only a parameterless read that already ran leaves the next call's names."""
    model = FakeModel(
        [
            use("search"),
            args(query="milk"),
            use("create_task"),
            args(title="x"),
            answer_plan(),
            text("Done."),
        ]
    )
    await run_turn(model, "find milk then add x", tools=box.tools)
    _, after_search, after_write = calls(model, "conductor")
    assert after_search.schema["properties"]["call"]["enum"][:3] == [
        "list_tasks",
        "create_task",
        "search",
    ]
    assert "create_task" in after_write.schema["properties"]["call"]["enum"]


def first_then(call: str, then: str = "answer_the_user") -> dict[str, Any]:
    """A first plan as the real conductor now writes it: a call, then one more or none."""
    return {"json": {"call": call, "then": then}}


async def test_a_whole_plan_runs_its_reads_then_answers_without_asking_again(
    box: TaskBox,
) -> None:
    """Deviation (docs/design.md, "The plan"): after a whole plan the turn follows it; the
    1.5B model asked for the next call re-picked the call it had just made."""
    model = FakeModel([first_then("list_tasks", "search"), args(query="milk"), text("Milk.")])
    result = await run_turn(model, tools=box.tools)
    assert box.runs == {"list_tasks": 1, "search": 1}
    assert labels(model) == ["conductor", "arguments", "answer"]
    assert result.text == "Milk."


async def test_a_planned_write_asks_first_and_answering_skips_it(box: TaskBox) -> None:
    """Before a planned write the conductor may only do it or answer (its condition failed).
    Deviation (docs/design.md, "The write a check owes"): an answer there, for an ask whose
    change hangs on a condition, still gets the write filled once, and the harness's own
    check decides it — here the item is on the list, so nothing is added."""
    model = FakeModel(
        [
            first_then("list_tasks", "create_task"),
            {"json": {"call": "answer_the_user"}},
            args(title="milk"),
            text("No."),
        ]
    )
    result = await run_turn(model, "add milk unless it's there", tools=box.tools)
    assert box.runs == {"list_tasks": 1}
    gate = calls(model, "conductor")[1]
    assert gate.schema["properties"]["call"]["enum"] == [
        "create_task",
        "answer_the_user",
        "beyond_these_functions",
    ]
    assert "Planned next: create_task" in gate.prompt
    assert "already there" in calls(model, "answer")[-1].prompt
    assert result.text == "No."


async def test_a_first_plan_then_answer_the_user_runs_one_call_and_answers(box: TaskBox) -> None:
    """``"then": "answer_the_user"`` is a plan of one call: the turn answers right after it,
    with no second planning call (docs/design.md, "The plan": the 1.5B model listed a
    neighbouring function after the one it needed when the plan was a list)."""
    model = FakeModel([first_then("list_tasks"), text("Milk and mom.")])
    result = await run_turn(model, tools=box.tools)
    assert box.runs == {"list_tasks": 1}
    assert labels(model) == ["conductor", "answer"]
    assert result.text == "Milk and mom."


async def test_a_first_plan_then_a_write_checks_first_and_asks_before_the_write(
    box: TaskBox,
) -> None:
    """``then`` naming a write is a check-then-act plan: the read runs, the write is gated."""
    model = FakeModel(
        [
            first_then("search", "create_task"),
            args(query="eggs"),
            {"json": {"call": "create_task"}},
            args(title="eggs"),
            text("Added eggs."),
        ]
    )
    result = await run_turn(model, "add eggs unless it's there", tools=box.tools)
    assert box.runs == {"search": 1, "create_task": 1}
    assert labels(model) == ["conductor", "arguments", "conductor", "arguments", "answer"]
    assert result.text == "Added eggs."


async def test_a_first_plan_of_a_no_function_option_ignores_its_then(box: TaskBox) -> None:
    model = FakeModel([first_then("general_knowledge_or_chat", "list_tasks"), text("8.")])
    result = await run_turn(model, "ounces in a cup?", tools=box.tools)
    assert box.runs == {} and result.text == "8."
    assert labels(model) == ["conductor", "answer"]
