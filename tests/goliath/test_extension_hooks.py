"""Hooks are checked by name when the agent is built; the ones an extension keeps never run."""

from __future__ import annotations

from typing import Any

import pytest

from goliath import Agent, ConfigError, Extension
from goliath.extensions import HOOKS
from goliath.testing import FakeModel
from goliath.turn.hooks import ExtensionRunner


def build(*extensions: Any) -> Agent:
    return Agent(FakeModel([{"text": "Hi."}]), extensions=list(extensions))


@pytest.mark.parametrize(
    ("written", "meant"),
    [("before_tools", "before_tool"), ("on_finished", "on_finish"), ("beforeTool", "before_tool")],
)
def test_a_misspelled_hook_is_refused_with_the_hook_it_was_meant_to_be(
    written: str, meant: str
) -> None:
    """The ConfigError names the method, the likely hook and the list of hooks."""
    cls = type("Guard", (Extension,), {"name": "guard", written: lambda self, ctx: None})
    with pytest.raises(ConfigError, match=f"'{written}', which is not a hook") as refused:
        build(cls())
    assert f"Did you mean '{meant}'?" in str(refused.value)
    assert all(hook in str(refused.value) for hook in HOOKS)


def test_a_hook_shaped_name_that_is_no_hook_is_refused_too() -> None:
    """before_/after_/on_ are kept for hooks: `after_everything` would never run."""

    class Watch(Extension):
        name = "watch"

        def after_everything(self, ctx: Any) -> None: ...

    with pytest.raises(ConfigError, match="'after_everything', which is not a hook"):
        build(Watch())


def test_duck_typed_and_instance_level_hooks_are_checked_as_well() -> None:
    """Any object with a name is checked, including hooks set on the instance."""

    class Duck:
        name = "duck"

        def befor_run(self, ctx: Any) -> None: ...

    with pytest.raises(ConfigError, match="Did you mean 'before_run'"):
        build(Duck())
    plain = type("Plain", (Extension,), {"name": "plain"})()
    plain.on_eror = lambda ctx: None  # type: ignore[attr-defined]
    with pytest.raises(ConfigError, match="Did you mean 'on_error'"):
        build(plain)


def test_helpers_and_other_public_names_are_fine() -> None:
    """Private helpers, attributes and unrelated public methods are not hooks and are allowed."""

    class Audit(Extension):
        name = "audit"
        limit = 3

        def _before_anything(self) -> None: ...

        def summary(self) -> str:
            return "fine"

        def on_finish(self, ctx: Any) -> None: ...

    build(Audit())


def test_hooks_an_extension_does_not_override_are_never_called() -> None:
    """Extension's documented no-ops do not count as hooks (nothing is built for them)."""

    class Quiet(Extension):
        name = "quiet"

        def on_finish(self, ctx: Any) -> None: ...

    runner = ExtensionRunner([Quiet()], run_id="r", conversation_id=None, context=None)
    assert runner.observes("on_finish")
    assert not any(runner.observes(hook) for hook in HOOKS if hook != "on_finish")
