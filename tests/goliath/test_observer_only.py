"""Observer-only extensions watch a run without changing how it behaves."""

from __future__ import annotations

from typing import Any

import pytest

from goliath import Agent, BudgetError, Extension, ExtensionError
from goliath.testing import FakeModel

from ..helpers import answer, answer_plan

LONG_ASK = "please " * 3000


class Watcher(Extension):
    name = "watcher"
    observer_only = True

    def __init__(self) -> None:
        self.phases: list[str] = []

    def before_run(self, ctx: Any) -> None:
        self.phases.append(ctx.phase)

    def on_finish(self, ctx: Any) -> None:
        self.phases.append(f"{ctx.phase}:{ctx.outcome.status}")


class Steerer(Extension):
    name = "steerer"

    def before_run(self, ctx: Any) -> None:
        return None


async def test_an_observer_only_extension_keeps_budgets_lenient() -> None:
    """An over-budget prompt still escalates context-budget when every extension only observes."""
    watcher = Watcher()
    async with Agent(FakeModel([]), extensions=[watcher]) as agent:
        result = await agent.run(LONG_ASK)
    assert [(e.type, getattr(e, "reason", None)) for e in result.trace][-1] == (
        "escalate",
        "context-budget",
    )
    assert result.text == ""
    assert watcher.phases == ["before_run", "on_finish:completed"]


async def test_one_steering_extension_makes_budgets_strict() -> None:
    """Next to an observer-only extension, an ordinary one still switches budgets to strict."""
    async with Agent(FakeModel([]), extensions=[Watcher(), Steerer()]) as agent:
        with pytest.raises(BudgetError):
            await agent.run(LONG_ASK)


async def test_an_observer_only_hook_that_returns_a_patch_is_an_extension_error() -> None:
    """A hook of an observer-only extension must return None; a patch fails the run clearly."""

    class Liar(Extension):
        name = "liar"
        observer_only = True

        def before_run(self, ctx: Any) -> dict[str, str]:
            return {"ask": "something else"}

    model = FakeModel([answer_plan(), answer("Hi.")])
    async with Agent(model, extensions=[Liar()]) as agent:
        with pytest.raises(ExtensionError) as caught:
            await agent.run("hi")
    assert caught.value.phase == "before_run"
    assert "observer_only" in str(caught.value)
    assert model.calls == []
