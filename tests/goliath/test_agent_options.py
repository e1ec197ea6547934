"""Agent's options are keywords, listed once: AgentConfig's fields plus the runtime's four."""

from __future__ import annotations

import inspect

import attrs
import pytest

from goliath import Agent
from goliath.agent import OPTIONS, RUNTIME_OPTIONS, TURN_OPTIONS
from goliath.config import RUNTIME_FIELDS, AgentConfig, TurnRequest
from goliath.testing import FakeModel

MODEL_DERIVED = {
    "world_check",
    "window",
    "count_tokens",
    "hand_off_check",
    "write_intent_check",
    "condition_check",
    "answer_check",
    "pick_check",
}
"""Options whose default (None) the agent takes from its model."""
"""Options whose ``None`` default means "ask the model" (AgentConfig holds the answer)."""


def parameters(function: object) -> dict[str, inspect.Parameter]:
    found = dict(inspect.signature(function).parameters)  # type: ignore[arg-type]
    found.pop("self", None)
    return found


def test_every_option_after_model_is_a_keyword() -> None:
    """Agent(model, tools) is a TypeError; Agent(model, tools=...) is the way."""
    options = parameters(Agent.__init__)
    assert next(iter(options)) == "model"
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in list(options.values())[1:])
    with pytest.raises(TypeError):
        Agent(FakeModel([]), [])  # type: ignore[misc]


def test_the_options_are_agent_configs_fields_and_the_runtimes() -> None:
    """The signature, AgentConfig and with_options agree on one set of names and defaults."""
    options = parameters(Agent.__init__)
    assert set(options) - {"model"} == OPTIONS == TURN_OPTIONS | RUNTIME_OPTIONS
    assert {field.name for field in attrs.fields(AgentConfig)} == TURN_OPTIONS
    built = AgentConfig()
    for name in TURN_OPTIONS - MODEL_DERIVED - {"tools", "extensions"}:
        assert options[name].default == getattr(built, name), name
    assert (options["tools"].default, built.tools) == ((), {})
    assert (options["extensions"].default, built.extensions) == ((), ())
    assert all(options[name].default is None for name in MODEL_DERIVED | RUNTIME_OPTIONS)


def test_run_options_are_turn_request_fields() -> None:
    """Agent.run and Agent.run_stream take the ask and the per-run fields of TurnRequest (but
    on_token: a streaming run's tokens are what run_stream yields; and the two the runtime
    sets: where progress is reported, and a checkpoint to resume from)."""
    fields = {field.name for field in attrs.fields(TurnRequest)} - RUNTIME_FIELDS - {"on_token"}
    for method in (Agent.run, Agent.run_stream):
        run = parameters(method)
        assert set(run) == fields, method
        assert all(
            p.kind is inspect.Parameter.KEYWORD_ONLY for name, p in run.items() if name != "ask"
        )
