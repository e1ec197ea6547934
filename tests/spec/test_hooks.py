"""Each hook's phase data, patches and context."""

from __future__ import annotations

from typing import Any

import pytest

from goliath import Agent, Extension, ExtensionError, Skip
from goliath.errors import ModelError
from goliath.extensions import Plan
from goliath.memory import InMemory
from goliath.testing import FakeModel

from .helpers import (
    RecordingFallback,
    TaskBox,
    answer_plan,
    args,
    calls,
    events,
    exchange,
    fail,
    memory_with,
    offered_tools,
    run_turn,
    text,
    use,
)


def extension(name: str, **hooks: Any) -> Extension:
    """An Extension subclass instance whose hooks are the given one-argument functions."""
    cls = type(f"Ext_{name.replace('-', '_')}", (Extension,), {"name": name})
    instance = cls()
    for phase, hook in hooks.items():
        setattr(instance, phase, hook)
    return instance


# ---------------------------------------------------------------- before_remember / after_recall


async def test_before_remember_skip_prevents_saving() -> None:
    """before_remember returning Skip() prevents saving and the remember event."""
    memory = InMemory()
    later: list[str] = []
    skipper = extension("private", before_remember=lambda ctx: Skip())
    after = extension("after", before_remember=lambda ctx: later.append("ran"))
    result = await run_turn(FakeModel([text("Hi.")]), memory=memory, extensions=[skipper, after])
    assert result.text == "Hi."
    assert (await memory.load()).recent == []
    assert events(result, "remember") == []
    assert later == []


async def test_before_remember_may_replace_the_candidate_memory() -> None:
    """before_remember may replace the memory to save."""
    from goliath import MemoryState

    memory = InMemory()

    def redact(ctx: Any) -> Any:
        assert ctx.exchange.ask == "my pin is 1234"
        return {"memory": MemoryState(summary="Goal: redacted", recent=[])}

    await run_turn(
        FakeModel([text("Noted.")]),
        "my pin is 1234",
        memory=memory,
        extensions=[extension("redact", before_remember=redact)],
    )
    state = await memory.load()
    assert (state.summary, state.recent) == ("Goal: redacted", [])


async def test_after_recall_view_is_transient() -> None:
    """after_recall changes affect this run's prompts but are not persisted."""
    from goliath import MemoryState

    memory = memory_with("Goal: real", [exchange("real ask", "real answer")])

    def view(ctx: Any) -> Any:
        return {"memory": MemoryState(summary="Goal: injected", recent=[])}

    model = FakeModel([text("Hi.")])
    result = await run_turn(model, memory=memory, extensions=[extension("view", after_recall=view)])
    assert "Goal: injected" in model.calls[0].prompt
    assert "real ask" not in model.calls[0].prompt
    assert (events(result, "recall")[0].summary, events(result, "recall")[0].recent) == (
        "Goal: injected",
        0,
    )
    state = await memory.load()
    assert state.summary == "Goal: real"
    assert [e.ask for e in state.recent] == ["real ask", "what is on my list?"]


# ---------------------------------------------------------------- hook context


async def test_hook_context_identity_and_state(box: TaskBox) -> None:
    """Hooks get run_id, conversation_id, context and a per-run state that starts empty.

    (Python: there is no ``signal`` attribute; cancellation is Trio's, design.md, D6.)
    """
    seen: list[tuple[str, str, Any, Any, dict[str, Any]]] = []

    class Probe(Extension):
        name = "probe"

        def _note(self, ctx: Any) -> None:
            seen.append((ctx.phase, ctx.run_id, ctx.conversation_id, ctx.context, dict(ctx.state)))
            ctx.state["count"] = ctx.state.get("count", 0) + 1

        def before_run(self, ctx: Any) -> None:
            self._note(ctx)

        def before_tool(self, ctx: Any) -> None:
            self._note(ctx)

        def on_finish(self, ctx: Any) -> None:
            self._note(ctx)

    model = FakeModel([use("list_tasks"), answer_plan(), text("A."), answer_plan(), text("B.")])
    agent = Agent(model, tools=box.tools, extensions=[Probe()], memory=lambda cid: InMemory())
    app = {"user": 7}
    async with agent:
        first = await agent.run("one", conversation_id="alice", context=app)
        await agent.run("two", conversation_id="alice", context=app)
    phases = [s[0] for s in seen]
    assert phases == ["before_run", "before_tool", "on_finish", "before_run", "on_finish"]
    run_ids = [s[1] for s in seen]
    assert len(set(run_ids[:3])) == 1 and len(set(run_ids[3:])) == 1
    assert run_ids[0] != run_ids[3]
    assert all(isinstance(r, str) and r for r in run_ids)
    assert {s[2] for s in seen} == {"alice"}
    assert all(s[3] is app for s in seen)
    assert [s[4] for s in seen] == [{}, {"count": 1}, {"count": 2}, {}, {"count": 1}]
    assert first.text == "A."


async def test_default_conversation_hook_context_is_none() -> None:
    """conversation_id is None for the default conversation."""
    seen: list[Any] = []
    await run_turn(
        FakeModel([text("Hi.")]),
        extensions=[extension("p", before_run=lambda ctx: seen.append(ctx.conversation_id))],
    )
    assert seen == [None]


async def test_hook_phase_data(box: TaskBox) -> None:
    """The phase data are attributes named as docs/extensions.md lists them (snake_case)."""
    seen: dict[str, dict[str, Any]] = {}

    def grab(*names: str) -> Any:
        def hook(ctx: Any) -> None:
            seen[ctx.phase] = {name: getattr(ctx, name) for name in names}

        return hook

    probe = extension(
        "probe",
        before_run=grab("ask", "instructions", "facts"),
        after_recall=grab("memory"),
        before_plan=grab("ask", "tools", "context_text", "steps", "attempt"),
        after_plan=grab("plan", "tools", "steps", "attempt"),
        before_tool=grab("tool", "input", "brief", "steps"),
        after_tool=grab("tool", "input", "result", "outcome", "steps"),
        after_answer=grab("text", "handled_by", "best_effort", "steps"),
        before_remember=grab("memory", "exchange"),
        on_finish=grab("outcome", "diagnostics"),
    )
    model = FakeModel([use("search"), args(query="milk"), answer_plan(), text("Milk.")])
    await run_turn(
        model,
        "milk?",
        tools=box.tools,
        extensions=[probe],
        facts={"day": "Mon"},
        instructions="Hi.",
    )
    assert seen["before_run"] == {"ask": "milk?", "instructions": "Hi.", "facts": {"day": "Mon"}}
    assert seen["before_plan"]["attempt"] == 0
    assert [t["name"] for t in seen["before_plan"]["tools"]] == [
        "list_tasks",
        "create_task",
        "search",
    ]
    assert seen["before_plan"]["tools"][1] == {
        "name": "create_task",
        "description": "Add a task.",
        "writes": True,
    }
    assert seen["before_tool"]["input"] == {"query": "milk", "limit": 5}
    assert seen["after_plan"]["plan"] == Plan(kind="answer", brief="reply")  # the last plan
    assert seen["before_tool"]["brief"] == "Search the tasks."
    assert seen["before_tool"]["tool"]["name"] == "search"
    assert seen["after_tool"]["result"] == "1. title: Buy milk"
    assert seen["after_tool"]["outcome"]["status"] == "executed"
    assert seen["after_answer"]["text"] == "Milk."
    assert (seen["after_answer"]["handled_by"], seen["after_answer"]["best_effort"]) == (
        "device",
        False,
    )
    assert seen["before_remember"]["exchange"].ask == "milk?"
    assert seen["on_finish"]["outcome"].status == "completed"
    assert seen["on_finish"]["diagnostics"] == []


async def test_hooks_run_in_order_each_seeing_the_previous_change() -> None:
    """Hooks run in registration order; each sees the previous hook's changes."""
    first = extension("first", before_run=lambda ctx: {"ask": ctx.ask + " one"})
    second = extension("second", before_run=lambda ctx: {"ask": ctx.ask + " two"})
    model = FakeModel([text("Ok.")])
    await run_turn(model, "start", extensions=[first, second])
    assert model.calls[0].prompt.endswith("Ask: start one two")


async def test_before_run_patches_instructions_and_merges_facts(box: TaskBox) -> None:
    """before_run may patch instructions and facts (facts merge; later wins)."""
    patch = extension(
        "patch",
        before_run=lambda ctx: {"instructions": "Be brief.", "facts": {"day": "Tue", "tz": "CET"}},
    )
    model = FakeModel([answer_plan(), text("Ok.")])
    await run_turn(model, tools=box.tools, extensions=[patch], facts={"day": "Mon", "city": "Oslo"})
    system = calls(model, "conductor")[0].system
    assert system.startswith("Be brief.\n")
    known = system.split("Known:\n")[1].split("\n")
    assert set(known[:3]) == {"day: Tue", "city: Oslo", "tz: CET"}


async def test_before_plan_filters_tools_and_adds_context(box: TaskBox) -> None:
    """before_plan may keep a subset of tools and add context text to the instructions."""
    narrow = extension(
        "narrow",
        before_plan=lambda ctx: {
            "tools": ["list_tasks", "search"],
            "context_text": "Read only today.",
        },
    )
    widen = extension("widen", before_plan=lambda ctx: {"tools": ["create_task", "list_tasks"]})
    model = FakeModel([answer_plan(), text("Ok.")])
    await run_turn(model, tools=box.tools, extensions=[narrow, widen])
    call = calls(model, "conductor")[0]
    assert offered_tools(call) == ["list_tasks"]
    assert call.system.startswith(
        "You are a careful assistant that lives on this device.\nRead only today.\n"
    )
    assert "- create_task" not in call.system


async def test_no_tools_left_means_a_synthetic_answer_plan(box: TaskBox) -> None:
    """When no tools remain, planning hooks still surround the synthetic answer plan."""
    plans: list[Any] = []
    hide = extension(
        "hide", before_plan=lambda ctx: {"tools": []}, after_plan=lambda ctx: plans.append(ctx.plan)
    )
    model = FakeModel([text("Ok.")])
    result = await run_turn(model, tools=box.tools, extensions=[hide])
    assert [c.label for c in model.calls] == ["answer"]
    assert plans == [Plan(kind="answer", brief="reply")]
    assert events(result, "plan")[0].brief == "reply"


async def test_before_plan_sees_attempt_count_on_retry(box: TaskBox) -> None:
    """Attempt starts at 0 per step and increments on a malformed-plan retry."""
    attempts: list[int] = []
    watch = extension("watch", before_plan=lambda ctx: attempts.append(ctx.attempt))
    model = FakeModel([text("bad"), use("list_tasks"), answer_plan(), text("Ok.")])
    await run_turn(model, tools=box.tools, extensions=[watch])
    assert attempts == [0, 1, 0]


async def test_after_plan_may_replace_the_plan(box: TaskBox) -> None:
    """after_plan may replace the plan; the plan event shows the replacement (its brief, when
    it sets none, the tool's description)."""
    swap = extension(
        "swap",
        after_plan=lambda ctx: (
            {"plan": Plan(kind="tool", tool="list_tasks")} if not ctx.steps else None
        ),
    )
    model = FakeModel([answer_plan(), answer_plan(), text("Two.")])
    result = await run_turn(model, tools=box.tools, extensions=[swap])
    assert (events(result, "plan")[0].tool, events(result, "plan")[0].brief) == (
        "list_tasks",
        "List the tasks.",
    )
    assert box.ran("list_tasks") == 1


async def test_after_plan_must_name_an_available_tool(box: TaskBox) -> None:
    """An after_plan replacement naming an unavailable tool is an extension error that names
    the tool and the ones the step may use."""
    swap = extension("swap", after_plan=lambda ctx: {"plan": Plan(kind="tool", tool="nope")})
    with pytest.raises(ExtensionError, match=r"'nope'.*list_tasks, create_task, search"):
        await run_turn(FakeModel([answer_plan()]), tools=box.tools, extensions=[swap])


@pytest.mark.parametrize(
    "returned",
    [
        {"kind": "tool", "tool": "list_tasks", "brief": "check"},
        {"call": "list_tasks"},
        "list_tasks",
    ],
    ids=["the-old-dict-form", "the-models-spelling", "a-name"],
)
async def test_after_plan_must_return_a_plan(box: TaskBox, returned: Any) -> None:
    """A replacement that is not a Plan is an extension error saying what a plan is."""
    swap = extension("swap", after_plan=lambda ctx: {"plan": returned})
    with pytest.raises(ExtensionError, match=r"plan must be a goliath\.extensions\.Plan") as caught:
        await run_turn(FakeModel([answer_plan()]), tools=box.tools, extensions=[swap])
    assert isinstance(caught.value.cause, TypeError)


async def test_before_tool_may_replace_the_input(box: TaskBox) -> None:
    """before_tool may replace the input (re-validated); invalid input is an error."""
    fix = extension("fix", before_tool=lambda ctx: {"input": {"query": "call"}})
    model = FakeModel([use("search"), args(query="milk"), answer_plan(), text("Ok.")])
    result = await run_turn(model, tools=box.tools, extensions=[fix])
    assert result.steps[0].input == {"query": "call", "limit": 5}
    bad = extension("bad", before_tool=lambda ctx: {"input": {"query": 5, "limit": "x"}})
    with pytest.raises(ExtensionError):
        await run_turn(
            FakeModel([use("search"), args(query="milk")]), tools=box.tools, extensions=[bad]
        )


async def test_after_tool_sees_outcomes(box: TaskBox) -> None:
    """after_tool outcomes are executed, cached (from_step), skipped (reason) or failed."""
    outcomes: list[dict[str, Any]] = []

    def broken(arguments: dict[str, Any], ctx: Any) -> Any:
        raise RuntimeError("x")

    from .helpers import make_tool

    watch = extension("watch", after_tool=lambda ctx: outcomes.append(ctx.outcome))
    model = FakeModel(
        [
            use("list_tasks"),
            use("list_tasks"),
            use("create_task"),
            args(title="Eggs"),
            use("broken"),
            answer_plan(),
            text("Ok."),
        ]
    )
    await run_turn(
        model,
        tools=[*box.tools, make_tool("broken", broken)],
        extensions=[watch],
        confirm=lambda r: False,
    )
    assert [o["status"] for o in outcomes] == ["executed", "cached", "skipped", "failed"]
    assert outcomes[1]["from_step"] == 0
    assert outcomes[2]["reason"] == "confirmation"


async def test_after_answer_may_rewrite_the_text(box: TaskBox) -> None:
    """after_answer may replace the text before the answer event, step and memory."""
    memory = InMemory()
    polish = extension("polish", after_answer=lambda ctx: {"text": ctx.text + " 🙂"})
    model = FakeModel([answer_plan(), text("Two tasks.")])
    result = await run_turn(model, tools=box.tools, extensions=[polish], memory=memory)
    assert result.text == "Two tasks. 🙂"
    assert events(result, "answer")[0].text == "Two tasks. 🙂"
    assert result.steps[-1].text == "Two tasks. 🙂"
    assert (await memory.load()).recent[0].answer == "Two tasks. 🙂"


async def test_after_answer_blank_replacement_is_an_error() -> None:
    """An after_answer replacement must be non-blank."""
    blank = extension("blank", after_answer=lambda ctx: {"text": "  "})
    with pytest.raises(ExtensionError):
        await run_turn(FakeModel([text("Hi.")]), extensions=[blank])


async def test_before_fallback_may_replace_the_request_but_not_the_reason(box: TaskBox) -> None:
    """before_fallback may replace the request; changing the reason is an error."""
    import msgspec.structs

    fallback = RecordingFallback()
    redact = extension(
        "redact",
        before_fallback=lambda ctx: {
            "request": msgspec.structs.replace(ctx.request, ask="[redacted]")
        },
    )
    await run_turn(
        FakeModel([fail(ModelError("x"))]), tools=box.tools, fallback=fallback, extensions=[redact]
    )
    assert fallback.requests[0].ask == "[redacted]"
    sneaky = extension(
        "sneaky",
        before_fallback=lambda ctx: {
            "request": msgspec.structs.replace(ctx.request, reason="guardrail")
        },
    )
    with pytest.raises(ExtensionError):
        await run_turn(
            FakeModel([fail(ModelError("x"))]),
            tools=box.tools,
            fallback=RecordingFallback(),
            extensions=[sneaky],
        )


async def test_extensions_add_no_model_calls(box: TaskBox) -> None:
    """Registering an extension adds no model calls."""
    model = FakeModel([use("list_tasks"), answer_plan(), text("Two.")])
    await run_turn(model, tools=box.tools, extensions=[extension("noop")])
    assert model.remaining() == 0 and len(model.calls) == 3


async def test_invalid_after_recall_memory_is_an_extension_error() -> None:
    """after_recall's memory is validated."""
    bad = extension("bad", after_recall=lambda ctx: {"memory": "not memory"})
    with pytest.raises(ExtensionError):
        await run_turn(FakeModel([text("Hi.")]), extensions=[bad])


async def test_after_answer_does_not_run_for_blank_text(box: TaskBox) -> None:
    """after_answer runs only for non-blank answers (an empty cloud answer skips it)."""
    seen: list[str] = []
    watch = extension("watch", after_answer=lambda ctx: seen.append(ctx.text))
    await run_turn(
        FakeModel([fail(ModelError("x"))]),
        tools=box.tools,
        fallback=lambda r: "",
        extensions=[watch],
    )
    assert seen == []


async def test_before_fallback_runs_only_when_a_fallback_is_called(box: TaskBox) -> None:
    """before_fallback does not run when there is no fallback (best-effort path)."""
    seen: list[Any] = []
    watch = extension("watch", before_fallback=lambda ctx: seen.append(ctx.request))
    result = await run_turn(
        FakeModel([use("list_tasks"), text("partial")]),
        tools=box.tools,
        max_steps=1,
        extensions=[watch],
    )
    assert result.best_effort is True
    assert seen == []
