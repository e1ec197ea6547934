"""Extensions: shape, deny/stop/skip, errors and observers."""

from __future__ import annotations

from typing import Any

import pytest

from goliath import Agent, Deny, Extension, ExtensionError, Skip, Stop
from goliath.errors import ModelError
from goliath.memory import InMemory
from goliath.testing import FakeModel

from .helpers import (
    RecordingFallback,
    TaskBox,
    answer_plan,
    args,
    events,
    fail,
    reasons,
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


# ---------------------------------------------------------------- before_tool deny


async def test_before_tool_deny_skips_the_step(box: TaskBox) -> None:
    """A deny gives a policy skip naming the extension, with the fixed result text."""
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
    """A denied call consumes a step."""
    guard = extension("guard", before_tool=lambda ctx: Deny("no"))
    model = FakeModel([use("list_tasks")])
    result = await run_turn(
        model, tools=box.tools, extensions=[guard], max_steps=1, fallback=RecordingFallback()
    )
    assert len(result.steps) == 1
    assert reasons(result) == ["too-many-steps"]


async def test_deny_reason_is_clipped_to_160(box: TaskBox) -> None:
    """The deny reason is clipped to 160 characters."""
    from .helpers import ref_clip

    reason = "r" * 100 + " " + "s" * 100
    guard = extension("guard", before_tool=lambda ctx: Deny(reason))
    model = FakeModel([use("list_tasks"), answer_plan(), text("No.")])
    result = await run_turn(model, tools=box.tools, extensions=[guard])
    assert result.steps[0].result == (
        f"denied by extension guard: {ref_clip(reason, 160)}. Do not retry unless asked."
    )


async def test_deny_ends_the_before_tool_chain(box: TaskBox) -> None:
    """A deny ends the before_tool chain; later hooks do not run."""
    later: list[str] = []
    first = extension("first", before_tool=lambda ctx: Deny("no"))
    second = extension("second", before_tool=lambda ctx: later.append("ran"))
    model = FakeModel([use("list_tasks"), answer_plan(), text("No.")])
    await run_turn(model, tools=box.tools, extensions=[first, second])
    assert later == []


# ---------------------------------------------------------------- stops


async def test_before_fallback_stop(box: TaskBox) -> None:
    """A before_fallback stop returns its text, stopped set, device; nothing saved."""
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
    """A before_run stop returns the stop text without calling the model."""
    model = FakeModel([text("never")])
    stopper = extension("gate", before_run=lambda ctx: Stop("Closed.", "after hours"))
    result = await run_turn(model, extensions=[stopper])
    assert (result.text, result.stopped["phase"]) == ("Closed.", "before_run")
    assert model.calls == []


async def test_stopped_turn_does_not_touch_the_model_error_count(box: TaskBox) -> None:
    """A stopped turn neither counts nor resets the model-error count."""
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
    """A stop from after_recall, before_plan, after_tool or before_remember rejects."""
    bad = extension("bad", **{phase: lambda ctx: Stop("no", "no")})
    fallback = RecordingFallback()
    model = FakeModel([use("list_tasks"), answer_plan(), text("Ok.")])
    with pytest.raises(ExtensionError) as caught:
        await run_turn(model, tools=box.tools, extensions=[bad], fallback=fallback)
    assert (caught.value.extension, caught.value.phase) == ("bad", phase)
    assert fallback.requests == []


@pytest.mark.parametrize("phase", ["before_run", "after_plan", "before_tool", "after_answer"])
async def test_stop_is_allowed_in_its_phases(box: TaskBox, phase: str) -> None:
    """Stop is allowed in before_run, after_plan, before_tool, after_answer."""
    stopper = extension("stopper", **{phase: lambda ctx: Stop("Stopped.", "because")})
    model = FakeModel([use("list_tasks"), answer_plan(), text("Ok.")])
    result = await run_turn(model, tools=box.tools, extensions=[stopper])
    assert result.text == "Stopped."
    assert result.stopped == {"extension": "stopper", "phase": phase, "reason": "because"}
    assert events(result, "answer") == []


async def test_deny_outside_before_tool_is_an_extension_error(box: TaskBox) -> None:
    """A deny is only allowed in before_tool."""
    bad = extension("bad", after_plan=lambda ctx: Deny("no"))
    with pytest.raises(ExtensionError):
        await run_turn(FakeModel([answer_plan(), text("Ok.")]), tools=box.tools, extensions=[bad])


async def test_skip_outside_before_remember_is_an_extension_error() -> None:
    """Skip() is only allowed in before_remember."""
    bad = extension("bad", before_run=lambda ctx: Skip())
    with pytest.raises(ExtensionError):
        await run_turn(FakeModel([text("Ok.")]), extensions=[bad])


@pytest.mark.parametrize("value", [42, "text", ["list"], {"unknown_key": 1}])
async def test_invalid_returns_are_extension_errors(value: Any) -> None:
    """Returning a non-dict or a patch with unknown keys is an extension error."""
    bad = extension("bad", before_run=lambda ctx: value)
    with pytest.raises(ExtensionError):
        await run_turn(FakeModel([text("Ok.")]), extensions=[bad])


# ---------------------------------------------------------------- errors


async def test_throwing_hook_rejects_with_extension_error(box: TaskBox) -> None:
    """A throwing hook rejects with ExtensionError(extension, phase, cause); no fallback."""
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
    """An extension failure neither counts nor resets the session-fallback count."""

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
    """Hooks may be async."""

    async def rewrite(ctx: Any) -> Any:
        return {"ask": "rewritten"}

    model = FakeModel([text("Ok.")])
    await run_turn(model, "original", extensions=[extension("r", before_run=rewrite)])
    assert model.calls[0].prompt.endswith("Ask: rewritten")


# ---------------------------------------------------------------- observers


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
    """on_finish runs once per extension with status completed."""
    statuses, watchers = _watchers()
    result = await run_turn(FakeModel([text("Hi.")]), extensions=watchers)
    assert statuses == ["watch:completed", "other:completed"]
    assert result.text == "Hi."


async def test_on_finish_runs_once_when_stopped() -> None:
    """on_finish runs once per extension with status stopped (also for the stopper)."""
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
    """on_finish runs once per extension with status error; on_error runs before it."""
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
    """Observer failures appear in result.diagnostics without changing the result."""

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
    """A failing on_error never replaces the original error and later observers still run."""

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


async def test_plain_function_and_staticmethod_hooks() -> None:
    """Hooks may be plain functions of one argument or staticmethods."""
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
    """Any object with a name and hook methods works as an extension."""

    class Duck:
        name = "duck"

        def __init__(self) -> None:
            self.seen: list[str] = []

        async def after_answer(self, ctx: Any) -> None:
            self.seen.append(ctx.text)

    duck = Duck()
    await run_turn(FakeModel([text("Quack.")]), extensions=[duck])
    assert duck.seen == ["Quack."]


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
    """on_error gets the original error and its origin; the run raises it unwrapped."""
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
