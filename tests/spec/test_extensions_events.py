"""Extensions and events (BEHAVIOR §9, §10; §16 items 77–85; API.md §1.4, §1.5, §10)."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from goliath import Agent, Deny, Extension, ExtensionError, Skip, Stop
from goliath.errors import ModelError
from goliath.memory import InMemory
from goliath.testing import FakeModel

from .helpers import (
    Recorder,
    RecordingFallback,
    TaskBox,
    answer_plan,
    args,
    calls,
    events,
    exchange,
    fail,
    memory_with,
    plan,
    reasons,
    run_turn,
    text,
    types,
    use,
)


def extension(name: str, **hooks: Any) -> Extension:
    """An Extension subclass instance whose hooks are the given one-argument functions."""
    cls = type(f"Ext_{name.replace('-', '_')}", (Extension,), {"name": name})
    instance = cls()
    for phase, hook in hooks.items():
        setattr(instance, phase, hook)
    return instance


# ---------------------------------------------------------------- before_tool deny (§16.77)


async def test_before_tool_deny_skips_the_step(box: TaskBox) -> None:
    """§16.77: a deny gives a policy skip naming the extension, with the fixed result text."""
    guard = extension("guard", before_tool=lambda ctx: Deny("writes are frozen"))
    model = FakeModel([use("create_task"), args(title="Eggs"), answer_plan(), text("Frozen.")])
    result = await run_turn(model, tools=box.tools, extensions=[guard])
    denied = result.steps[0]
    assert (denied.skipped, denied.skip_reason, denied.extension) == (True, "policy", "guard")
    assert (
        denied.result == "denied by extension guard: writes are frozen. Do not retry unless asked."
    )
    assert box.ran("create_task") == 0
    assert events(result, "confirm") == []
    assert events(result, "tool")[0].result == denied.result


async def test_deny_counts_as_a_step(box: TaskBox) -> None:
    """§16.77: a denied call consumes a step."""
    guard = extension("guard", before_tool=lambda ctx: Deny("no"))
    model = FakeModel([use("list_tasks")])
    result = await run_turn(
        model, tools=box.tools, extensions=[guard], max_steps=1, fallback=RecordingFallback()
    )
    assert len(result.steps) == 1
    assert reasons(result) == ["too-many-steps"]


async def test_deny_reason_is_clipped_to_160(box: TaskBox) -> None:
    """§2.4.6: the deny reason is clipped to 160 characters."""
    from .helpers import ref_clip

    reason = "r" * 100 + " " + "s" * 100
    guard = extension("guard", before_tool=lambda ctx: Deny(reason))
    model = FakeModel([use("list_tasks"), answer_plan(), text("No.")])
    result = await run_turn(model, tools=box.tools, extensions=[guard])
    assert result.steps[0].result == (
        f"denied by extension guard: {ref_clip(reason, 160)}. Do not retry unless asked."
    )


async def test_deny_ends_the_before_tool_chain(box: TaskBox) -> None:
    """§9.3: a deny ends the before_tool chain; later hooks do not run."""
    later: list[str] = []
    first = extension("first", before_tool=lambda ctx: Deny("no"))
    second = extension("second", before_tool=lambda ctx: later.append("ran"))
    model = FakeModel([use("list_tasks"), answer_plan(), text("No.")])
    await run_turn(model, tools=box.tools, extensions=[first, second])
    assert later == []


# ---------------------------------------------------------------- stops (§16.78, §16.79)


async def test_before_fallback_stop(box: TaskBox) -> None:
    """§16.78: a before_fallback stop returns its text, stopped set, device; nothing saved."""
    fallback = RecordingFallback()
    memory = InMemory()
    keep_local = extension(
        "keep-local", before_fallback=lambda ctx: Stop("I can't do that here.", "offline only")
    )
    model = FakeModel([fail(ModelError("x"))])
    result = await run_turn(
        model, tools=box.tools, fallback=fallback, extensions=[keep_local], memory=memory
    )
    assert result.text == "I can't do that here."
    assert result.stopped == {
        "extension": "keep-local",
        "phase": "before_fallback",
        "reason": "offline only",
    }
    assert result.handled_by == "device"
    assert result.output is None
    assert fallback.requests == []
    assert (await memory.load()).recent == []
    assert events(result, "answer") == []
    assert events(result, "remember") == []


async def test_before_run_stop_ends_the_turn_before_any_model_call() -> None:
    """§9.3: a before_run stop returns the stop text without calling the model."""
    model = FakeModel([text("never")])
    stopper = extension("gate", before_run=lambda ctx: Stop("Closed.", "after hours"))
    result = await run_turn(model, extensions=[stopper])
    assert (result.text, result.stopped["phase"]) == ("Closed.", "before_run")
    assert model.calls == []


async def test_stopped_turn_does_not_touch_the_model_error_count(box: TaskBox) -> None:
    """§2.1: a stopped turn neither counts nor resets the model-error count."""
    gate = extension("gate", before_run=lambda ctx: Stop("No.", "x") if ctx.ask == "stop" else None)
    model = FakeModel([fail(ModelError("x"))] * 3)
    agent = Agent(model, tools=box.tools, extensions=[gate], fallback=RecordingFallback())
    async with agent:
        await agent.run("a")
        await agent.run("b")
        await agent.run("stop")
        await agent.run("c")
        assert agent.is_session_fallback() is True


@pytest.mark.parametrize("phase", ["after_recall", "before_plan", "after_tool", "before_remember"])
async def test_stop_is_not_allowed_in_some_phases(box: TaskBox, phase: str) -> None:
    """§16.79: a stop from after_recall, before_plan, after_tool or before_remember rejects."""
    bad = extension("bad", **{phase: lambda ctx: Stop("no", "no")})
    fallback = RecordingFallback()
    model = FakeModel([use("list_tasks"), answer_plan(), text("Ok.")])
    with pytest.raises(ExtensionError) as caught:
        await run_turn(model, tools=box.tools, extensions=[bad], fallback=fallback)
    assert (caught.value.extension, caught.value.phase) == ("bad", phase)
    assert fallback.requests == []


@pytest.mark.parametrize("phase", ["before_run", "after_plan", "before_tool", "after_answer"])
async def test_stop_is_allowed_in_its_phases(box: TaskBox, phase: str) -> None:
    """§9.3: stop is allowed in before_run, after_plan, before_tool, after_answer."""
    stopper = extension("stopper", **{phase: lambda ctx: Stop("Stopped.", "because")})
    model = FakeModel([use("list_tasks"), answer_plan(), text("Ok.")])
    result = await run_turn(model, tools=box.tools, extensions=[stopper])
    assert result.text == "Stopped."
    assert result.stopped == {"extension": "stopper", "phase": phase, "reason": "because"}
    assert events(result, "answer") == []


async def test_deny_outside_before_tool_is_an_extension_error(box: TaskBox) -> None:
    """§9.3: a deny is only allowed in before_tool."""
    bad = extension("bad", after_plan=lambda ctx: Deny("no"))
    with pytest.raises(ExtensionError):
        await run_turn(FakeModel([answer_plan(), text("Ok.")]), tools=box.tools, extensions=[bad])


async def test_skip_outside_before_remember_is_an_extension_error() -> None:
    """API.md §1.5: Skip() is only allowed in before_remember."""
    bad = extension("bad", before_run=lambda ctx: Skip())
    with pytest.raises(ExtensionError):
        await run_turn(FakeModel([text("Ok.")]), extensions=[bad])


@pytest.mark.parametrize("value", [42, "text", ["list"], {"unknown_key": 1}])
async def test_invalid_returns_are_extension_errors(value: Any) -> None:
    """§9.3: returning a non-dict or a patch with unknown keys is an extension error."""
    bad = extension("bad", before_run=lambda ctx: value)
    with pytest.raises(ExtensionError):
        await run_turn(FakeModel([text("Ok.")]), extensions=[bad])


# ---------------------------------------------------------------- errors (§16.80)


async def test_throwing_hook_rejects_with_extension_error(box: TaskBox) -> None:
    """§16.80: a throwing hook rejects with ExtensionError(extension, phase, cause); no fallback."""
    cause = KeyError("missing")

    def boom(ctx: Any) -> None:
        raise cause

    fallback = RecordingFallback()
    model = FakeModel([use("list_tasks"), answer_plan(), text("Ok.")])
    with pytest.raises(ExtensionError) as caught:
        await run_turn(
            model,
            tools=box.tools,
            extensions=[extension("audit", after_tool=boom)],
            fallback=fallback,
        )
    error = caught.value
    assert (error.extension, error.phase, error.cause) == ("audit", "after_tool", cause)
    assert str(error) == f'Extension "audit" failed in after_tool: {cause}'
    assert fallback.requests == []


async def test_extension_error_does_not_change_the_model_error_count(box: TaskBox) -> None:
    """§16.80: an extension failure neither counts nor resets the session-fallback count."""

    def maybe_fail(ctx: Any) -> None:
        if ctx.ask == "fail":
            raise RuntimeError("hook bug")

    model = FakeModel([fail(ModelError("x"))] * 3)
    agent = Agent(
        model,
        tools=box.tools,
        extensions=[extension("flaky", before_run=maybe_fail)],
        fallback=RecordingFallback(),
    )
    async with agent:
        await agent.run("a")
        await agent.run("b")
        with pytest.raises(ExtensionError):
            await agent.run("fail")
        assert agent.is_session_fallback() is False
        await agent.run("c")
        assert agent.is_session_fallback() is True


async def test_async_hooks_are_awaited() -> None:
    """§9.1: hooks may be async."""

    async def rewrite(ctx: Any) -> Any:
        return {"ask": "rewritten"}

    model = FakeModel([text("Ok.")])
    await run_turn(model, "original", extensions=[extension("r", before_run=rewrite)])
    assert model.calls[0].prompt.endswith("Ask: rewritten")


# ---------------------------------------------------------------- observers (§16.81)


def _watchers() -> tuple[list[str], list[Extension]]:
    """Two extensions recording the outcome status each time on_finish runs."""
    statuses: list[str] = []
    return statuses, [
        extension(
            name, on_finish=lambda ctx, name=name: statuses.append(f"{name}:{ctx.outcome.status}")
        )
        for name in ("watch", "other")
    ]


async def test_on_finish_runs_once_when_completed() -> None:
    """§16.81: on_finish runs once per extension with status completed."""
    statuses, watchers = _watchers()
    result = await run_turn(FakeModel([text("Hi.")]), extensions=watchers)
    assert statuses == ["watch:completed", "other:completed"]
    assert result.text == "Hi."


async def test_on_finish_runs_once_when_stopped() -> None:
    """§16.81: on_finish runs once per extension with status stopped (also for the stopper)."""
    statuses, watchers = _watchers()
    gate = extension(
        "gate",
        before_run=lambda ctx: Stop("No.", "x"),
        on_finish=lambda ctx: statuses.append(f"gate:{ctx.outcome.status}"),
    )
    result = await run_turn(FakeModel([]), extensions=[gate, *watchers])
    assert statuses == ["gate:stopped", "watch:stopped", "other:stopped"]
    assert result.stopped is not None


async def test_on_finish_runs_once_when_failed() -> None:
    """§16.81: on_finish runs once per extension with status error; on_error runs before it."""
    order: list[str] = []

    class Oops(Exception):
        pass

    def explode(event: Any) -> None:
        raise Oops("observer")

    watcher = extension(
        "watch",
        on_error=lambda ctx: order.append(f"on_error:{ctx.origin}:{type(ctx.error).__name__}"),
        on_finish=lambda ctx: order.append(f"on_finish:{ctx.outcome.status}"),
    )
    with pytest.raises(Oops):
        await run_turn(FakeModel([text("Hi.")]), extensions=[watcher], on_event=explode)
    assert order == ["on_error:event:Oops", "on_finish:error"]


async def test_on_finish_failures_become_diagnostics() -> None:
    """§16.81: observer failures appear in result.diagnostics without changing the result."""

    def broken(ctx: Any) -> None:
        raise ValueError("metrics down")

    seen: list[Any] = []
    first = extension("metrics", on_finish=broken)
    second = extension("audit", on_finish=lambda ctx: seen.append(list(ctx.diagnostics)))
    result = await run_turn(FakeModel([text("Hi.")]), extensions=[first, second])
    assert result.text == "Hi."
    assert result.diagnostics == [
        {"extension": "metrics", "phase": "on_finish", "error": "metrics down"}
    ]
    assert seen == [[{"extension": "metrics", "phase": "on_finish", "error": "metrics down"}]]


async def test_on_error_failure_does_not_replace_the_original_error() -> None:
    """§9.4: a failing on_error never replaces the original error and later observers still run."""

    class Original(Exception):
        pass

    def explode(event: Any) -> None:
        raise Original()

    finished: list[Any] = []

    def bad_on_error(ctx: Any) -> None:
        raise RuntimeError("observer bug")

    first = extension("first", on_error=bad_on_error)
    second = extension("second", on_finish=lambda ctx: finished.append(list(ctx.diagnostics)))
    with pytest.raises(Original):
        await run_turn(FakeModel([text("Hi.")]), extensions=[first, second], on_event=explode)
    assert finished == [[{"extension": "first", "phase": "on_error", "error": "observer bug"}]]


# ---------------------------------------------------------------- before_remember / after_recall


async def test_before_remember_skip_prevents_saving() -> None:
    """§16.82: before_remember returning Skip() prevents saving and the remember event."""
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
    """§9.3: before_remember may replace the memory to save."""
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
    """§16.83: after_recall changes affect this run's prompts but are not persisted."""
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


# ---------------------------------------------------------------- on_event (§16.84)


@pytest.mark.parametrize("where", ["config", "run"])
async def test_throwing_on_event_rejects_the_run(where: str) -> None:
    """§16.84: a throwing on_event callback (config or per-run) rejects the run."""

    class Broken(Exception):
        pass

    def explode(event: Any) -> None:
        if event.type == "answer":
            raise Broken()

    options: dict[str, Any] = {}
    run: dict[str, Any] = {}
    (options if where == "config" else run)["on_event"] = explode
    with pytest.raises(Broken):
        await run_turn(FakeModel([text("Hi.")]), run=run, **options)


async def test_events_reach_config_then_run_callbacks() -> None:
    """§10: each event goes to the trace, then to the config on_event, then the run on_event."""
    order: list[str] = []
    model = FakeModel([text("Hi.")])
    result = await run_turn(
        model,
        on_event=lambda e: order.append(f"config:{e.type}"),
        run={"on_event": lambda e: order.append(f"run:{e.type}")},
    )
    expected: list[str] = []
    for kind in types(result):
        expected += [f"config:{kind}", f"run:{kind}"]
    assert order == expected


# ---------------------------------------------------------------- hook context (§16.85)


async def test_hook_context_identity_and_state(box: TaskBox) -> None:
    """§16.85: hooks get run_id, conversation_id, context and a per-run state that starts empty.

    (Python: there is no ``signal`` attribute; cancellation is Trio's, Decision D6.)
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
    """§9.2: conversation_id is None for the default conversation."""
    seen: list[Any] = []
    await run_turn(
        FakeModel([text("Hi.")]),
        extensions=[extension("p", before_run=lambda ctx: seen.append(ctx.conversation_id))],
    )
    assert seen == [None]


async def test_hook_phase_data(box: TaskBox) -> None:
    """API.md §10: the phase data are attributes named as in BEHAVIOR §9.3 (snake_case)."""
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
    model = FakeModel(
        [use("search", "find milk"), args(query="milk"), answer_plan(), text("Milk.")]
    )
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
    assert seen["before_tool"]["brief"] == "find milk"
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
    """§9.1: hooks run in registration order; each sees the previous hook's changes."""
    first = extension("first", before_run=lambda ctx: {"ask": ctx.ask + " one"})
    second = extension("second", before_run=lambda ctx: {"ask": ctx.ask + " two"})
    model = FakeModel([text("Ok.")])
    await run_turn(model, "start", extensions=[first, second])
    assert model.calls[0].prompt.endswith("Ask: start one two")


async def test_before_run_patches_instructions_and_merges_facts(box: TaskBox) -> None:
    """§9.3: before_run may patch instructions and facts (facts merge; later wins)."""
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
    """§2.4.2: before_plan may keep a subset of tools and add context text to the instructions."""
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
    assert call.schema["properties"]["tool"]["enum"] == ["list_tasks"]
    assert call.system.startswith(
        "You are a careful assistant that lives on this device.\nRead only today.\n"
    )
    assert "- create_task" not in call.system


async def test_no_tools_left_means_a_synthetic_answer_plan(box: TaskBox) -> None:
    """§9.3: when no tools remain, planning hooks still surround the synthetic answer plan."""
    plans: list[Any] = []
    hide = extension(
        "hide", before_plan=lambda ctx: {"tools": []}, after_plan=lambda ctx: plans.append(ctx.plan)
    )
    model = FakeModel([text("Ok.")])
    result = await run_turn(model, tools=box.tools, extensions=[hide])
    assert [c.label for c in model.calls] == ["answer"]
    assert plans == [{"kind": "answer", "brief": "reply"}]
    assert events(result, "plan")[0].brief == "reply"


async def test_before_plan_sees_attempt_count_on_retry(box: TaskBox) -> None:
    """§9.3: attempt starts at 0 per step and increments on a malformed-plan retry."""
    attempts: list[int] = []
    watch = extension("watch", before_plan=lambda ctx: attempts.append(ctx.attempt))
    model = FakeModel([text("bad"), use("list_tasks"), answer_plan(), text("Ok.")])
    await run_turn(model, tools=box.tools, extensions=[watch])
    assert attempts == [0, 1, 0]


async def test_after_plan_may_replace_the_plan(box: TaskBox) -> None:
    """§2.4.4: after_plan may replace the plan; the plan event shows the replacement."""
    swap = extension(
        "swap",
        after_plan=lambda ctx: (
            {"plan": {"kind": "tool", "tool": "list_tasks", "brief": "check"}}
            if not ctx.steps
            else None
        ),
    )
    model = FakeModel([answer_plan(), answer_plan(), text("Two.")])
    result = await run_turn(model, tools=box.tools, extensions=[swap])
    assert events(result, "plan")[0].tool == "list_tasks"
    assert box.ran("list_tasks") == 1


async def test_after_plan_must_name_an_available_tool(box: TaskBox) -> None:
    """§9.3: an after_plan replacement naming an unavailable tool is an extension error."""
    swap = extension(
        "swap", after_plan=lambda ctx: {"plan": {"kind": "tool", "tool": "nope", "brief": "x"}}
    )
    with pytest.raises(ExtensionError):
        await run_turn(FakeModel([answer_plan()]), tools=box.tools, extensions=[swap])


async def test_before_tool_may_replace_the_input(box: TaskBox) -> None:
    """§2.4.6: before_tool may replace the input (re-validated); invalid input is an error."""
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
    """§9.3: after_tool outcomes are executed, cached (from_step), skipped (reason) or failed."""
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
    """§2.5: after_answer may replace the text before the answer event, step and memory."""
    memory = InMemory()
    polish = extension("polish", after_answer=lambda ctx: {"text": ctx.text + " 🙂"})
    model = FakeModel([answer_plan(), text("Two tasks.")])
    result = await run_turn(model, tools=box.tools, extensions=[polish], memory=memory)
    assert result.text == "Two tasks. 🙂"
    assert events(result, "answer")[0].text == "Two tasks. 🙂"
    assert result.steps[-1].text == "Two tasks. 🙂"
    assert (await memory.load()).recent[0].answer == "Two tasks. 🙂"


async def test_after_answer_blank_replacement_is_an_error() -> None:
    """§2.5: an after_answer replacement must be non-blank."""
    blank = extension("blank", after_answer=lambda ctx: {"text": "  "})
    with pytest.raises(ExtensionError):
        await run_turn(FakeModel([text("Hi.")]), extensions=[blank])


async def test_before_fallback_may_replace_the_request_but_not_the_reason(box: TaskBox) -> None:
    """§9.3: before_fallback may replace the request; changing the reason is an error."""
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
    """§9.1: registering an extension adds no model calls."""
    model = FakeModel([use("list_tasks"), answer_plan(), text("Two.")])
    await run_turn(model, tools=box.tools, extensions=[extension("noop")])
    assert model.remaining() == 0 and len(model.calls) == 3


# ---------------------------------------------------------------- events (§10, API.md §1.4)


async def test_event_order_of_a_typical_turn(box: TaskBox) -> None:
    """§10: recall, budget, plan, budget(worker), confirm, tool, budget, plan, budget, answer, remember."""
    model = FakeModel([use("create_task"), args(title="Eggs"), answer_plan(), text("Added.")])
    result = await run_turn(model, tools=box.tools)
    assert types(result) == [
        "recall",
        "budget",
        "plan",
        "budget",
        "confirm",
        "tool",
        "budget",
        "plan",
        "budget",
        "answer",
        "remember",
    ]
    assert [e.label for e in events(result, "budget")] == [
        "conductor",
        "worker",
        "conductor",
        "answer",
    ]


async def test_event_order_for_a_read_without_arguments(box: TaskBox) -> None:
    """§10: a zero-argument read has no worker budget and no confirm event."""
    result = await run_turn(
        FakeModel([use("list_tasks"), answer_plan(), text("Two.")]), tools=box.tools
    )
    assert types(result) == [
        "recall",
        "budget",
        "plan",
        "tool",
        "budget",
        "plan",
        "budget",
        "answer",
        "remember",
    ]


async def test_events_have_a_type_and_encode_to_json_and_msgpack(box: TaskBox) -> None:
    """API.md §1.4/§10: every event has its tag as ``type``, also in its JSON and MessagePack forms."""
    result = await run_turn(
        FakeModel([use("create_task"), args(title="Eggs"), answer_plan(), text("Added.")]),
        tools=box.tools,
    )
    for event in result.trace:
        data = msgspec.json.decode(msgspec.json.encode(event))
        assert data["type"] == event.type
        assert msgspec.msgpack.decode(msgspec.msgpack.encode(event))["type"] == event.type
    encoded = msgspec.json.decode(msgspec.json.encode(result))
    assert encoded["text"] == "Added."
    assert encoded["handled_by"] == "device"
    msgspec.msgpack.encode(result)


async def test_escalate_event_fields(box: TaskBox) -> None:
    """API.md §1.4: escalate events carry reason (hyphenated code) and error."""
    result = await run_turn(FakeModel([fail(ModelError("overheated"))]), tools=box.tools)
    [event] = events(result, "escalate")
    assert (event.type, event.reason, event.error) == (
        "escalate",
        "model-error",
        "ModelError: overheated",
    )


async def test_budget_event_fields(box: TaskBox) -> None:
    """API.md §1.4: budget events carry label, tokens, limit and source."""
    result = await run_turn(FakeModel([answer_plan(), text("Hi.")]), tools=box.tools)
    event = events(result, "budget")[0]
    assert (event.label, event.limit, event.source) == ("conductor", 2867, "estimate")
    assert isinstance(event.tokens, int) and event.tokens > 8


async def test_on_event_receives_every_trace_event(box: TaskBox) -> None:
    """§10: on_event is called for every event of the trace, in order."""
    recorder = Recorder()
    result = await run_turn(
        FakeModel([use("list_tasks"), answer_plan(), text("Two.")]),
        tools=box.tools,
        on_event=recorder,
    )
    assert [e.type for e in recorder.seen] == types(result)


async def test_memory_error_event_type_uses_an_underscore() -> None:
    """D7/API.md §1.4: the memory error event's type is 'memory_error'."""

    class Full:
        async def load(self) -> Any:
            from goliath import MemoryState

            return MemoryState()

        async def save(self, state: Any) -> None:
            raise OSError("full")

    result = await run_turn(FakeModel([text("Hi.")]), memory=Full())
    assert "memory_error" in types(result)
    assert msgspec.json.decode(msgspec.json.encode(result.trace[-1]))["type"] == "memory_error"


async def test_plan_event_precedes_the_escalation_for_escalate_plans(box: TaskBox) -> None:
    """§2.4.4/§10: an escalate plan is reported as a plan event of kind answer, then escalate."""
    result = await run_turn(
        FakeModel([plan("escalate", brief="too hard")]),
        tools=box.tools,
        fallback=RecordingFallback(),
    )
    kinds = types(result)
    assert kinds.index("plan") < kinds.index("escalate")
    assert events(result, "plan")[0].kind == "answer"


async def test_plain_function_and_staticmethod_hooks() -> None:
    """API.md §10: hooks may be plain functions of one argument or staticmethods."""
    seen: list[str] = []

    class Plain(Extension):
        name = "plain"

        def before_run(ctx):  # type: ignore[no-untyped-def]
            seen.append(f"plain:{ctx.phase}")

        @staticmethod
        def on_finish(ctx: Any) -> None:
            seen.append(f"static:{ctx.outcome.status}")

    await run_turn(FakeModel([text("Hi.")]), extensions=[Plain()])
    assert seen == ["plain:before_run", "static:completed"]


async def test_any_object_with_a_name_is_an_extension() -> None:
    """API.md §1.5: any object with a name and hook methods works as an extension."""

    class Duck:
        name = "duck"

        def __init__(self) -> None:
            self.seen: list[str] = []

        async def after_answer(self, ctx: Any) -> None:
            self.seen.append(ctx.text)

    duck = Duck()
    await run_turn(FakeModel([text("Quack.")]), extensions=[duck])
    assert duck.seen == ["Quack."]


async def test_invalid_after_recall_memory_is_an_extension_error() -> None:
    """§9.3: after_recall's memory is validated."""
    bad = extension("bad", after_recall=lambda ctx: {"memory": "not memory"})
    with pytest.raises(ExtensionError):
        await run_turn(FakeModel([text("Hi.")]), extensions=[bad])


async def test_result_carries_conversation_and_turn_ids() -> None:
    """API.md §1.3: RunResult has conversation_id and turn_id."""
    agent = Agent(FakeModel([text("A."), text("B.")]), memory=lambda cid: InMemory())
    async with agent:
        first = await agent.run("hi", conversation_id="alice")
        second = await agent.run("hi")
    assert (first.conversation_id, second.conversation_id) == ("alice", None)
    assert first.turn_id and second.turn_id and first.turn_id != second.turn_id


class _Failure(Exception):
    pass


def _raise(*_: Any) -> Any:
    raise _Failure("boom")


class _BrokenLoad:
    async def load(self) -> Any:
        raise _Failure("boom")

    async def save(self, state: Any) -> None:
        pass


@pytest.mark.parametrize(
    ("origin", "config", "script"),
    [
        ("memory", {"memory": _BrokenLoad()}, [text("Hi.")]),
        ("config", {"facts": _raise}, [text("Hi.")]),
        ("event", {"on_event": _raise}, [text("Hi.")]),
        ("confirm", {"confirm": _raise}, [use("create_task"), args(title="Eggs")]),
        ("fallback", {"fallback": _raise}, [fail(ModelError("x"))]),
        ("extension", {"extra": extension("hooked", before_run=_raise)}, [text("Hi.")]),
    ],
)
async def test_on_error_receives_the_origin(
    box: TaskBox, origin: str, config: dict[str, Any], script: list[Any]
) -> None:
    """§2.7/§9.4: on_error gets the original error and its origin; the run raises it unwrapped."""
    seen: list[tuple[str, Any]] = []
    observer = extension("observer", on_error=lambda ctx: seen.append((ctx.origin, ctx.error)))
    extensions: list[Any] = [observer]
    options = dict(config)
    if "extra" in options:
        extensions.insert(0, options.pop("extra"))
    expected = ExtensionError if origin == "extension" else _Failure
    with pytest.raises(expected):
        await run_turn(FakeModel(script), tools=box.tools, extensions=extensions, **options)
    [(got_origin, error)] = seen
    assert got_origin == origin
    assert isinstance(error, expected)


async def test_after_answer_does_not_run_for_blank_text(box: TaskBox) -> None:
    """§9.3: after_answer runs only for non-blank answers (an empty cloud answer skips it)."""
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
    """§9.3: before_fallback does not run when there is no fallback (best-effort path)."""
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
