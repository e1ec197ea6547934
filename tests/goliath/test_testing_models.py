"""Testing an agent at pydantic-ai's level: TestModel, FunctionModel, the stage-keyed script,
``agent.override`` and the guard against real models (issue #24)."""

from __future__ import annotations

from typing import Any

import pydantic
import pytest

from goliath import Agent, ConfigError, GoliathError, tool
from goliath.testing import (
    FakeModel,
    FunctionModel,
    ScriptMismatch,
    StageCall,
    TestModel,
    forbid_model_requests,
)

added: list[str] = []


@tool
def list_items() -> list[str]:
    """List the shopping list."""
    return ["milk", *added]


@tool(writes=True)
def add_item(item: str, count: int = 1) -> str:
    """Add an item to the shopping list.

    Args:
        item: What to buy.
        count: How many.
    """
    added.append(item)
    return f"added {count} {item}"


@tool
def price(item: str, store: str) -> float:
    """Look up an item's price in a store."""
    return 1.5


@pytest.fixture(autouse=True)
def _fresh() -> None:
    added.clear()


def _tools(result: Any) -> list[str]:
    return [step.tool for step in result.steps if step.kind == "tool"]


class Weather(pydantic.BaseModel):
    city: str
    degrees: int = pydantic.Field(ge=-50, le=60)


class TestTestModel:
    async def test_it_calls_every_tool_once_with_schema_valid_arguments_then_answers(
        self,
    ) -> None:
        model = TestModel()
        agent = Agent(model, tools=[list_items, add_item, price], auto_approve=True)
        async with agent:  # an ask that asks to be told: a read may follow the change
            result = await agent.run("do everything, then tell me the price")
        assert _tools(result) == ["list_items", "add_item", "price"]
        assert not any(step.failed for step in result.steps)
        assert result.steps[1].input == {"item": "item", "count": 1}
        assert result.text == "Done.\nDone: add item: item, 1."  # the answer names the change
        assert added == ["item"]

    async def test_it_calls_only_the_tools_it_is_told_to_with_the_given_arguments(
        self,
    ) -> None:
        model = TestModel(
            call_tools=["add_item"], arguments={"add_item": {"item": "eggs"}}, text="Added eggs."
        )
        agent = Agent(model, tools=[list_items, add_item], auto_approve=True)
        async with agent:
            result = await agent.run("add eggs")
        assert [(s.tool, s.input) for s in result.steps if s.kind == "tool"] == [
            ("add_item", {"item": "eggs", "count": 1})
        ]
        assert result.text == "Added eggs."

    async def test_a_structured_answer_is_valid_for_its_schema(self) -> None:
        agent = Agent(TestModel(call_tools=[]), output_schema=Weather)
        async with agent:
            result = await agent.run("weather?")
        assert result.output == Weather(city="city", degrees=-50)

    async def test_every_turn_plays_again(self) -> None:
        agent = Agent(TestModel(call_tools=["list_items"]), tools=[list_items])
        async with agent:
            first = await agent.run("list")
            second = await agent.run("list again")
        assert _tools(first) == _tools(second) == ["list_items"]


class TestFunctionModel:
    async def test_the_function_gets_the_stage_and_its_schema(self) -> None:
        seen: list[tuple[str, str | None]] = []

        def reply(call: StageCall) -> Any:
            seen.append((call.stage, call.tool))
            if call.stage == "conductor":
                assert call.schema is not None
                return {"call": "add_item", "then": "answer_the_user"}
            if call.stage == "arguments":
                assert call.schema is not None and "item" in call.schema["properties"]
                return {"item": "tea"}
            return "Added tea."

        agent = Agent(FunctionModel(reply), tools=[add_item], auto_approve=True)
        async with agent:
            result = await agent.run("add tea")
        assert seen == [("conductor", None), ("arguments", "add_item"), ("answer", None)]
        assert result.text == "Added tea." and added == ["tea"]

    async def test_an_async_function_and_a_pydantic_reply(self) -> None:
        async def reply(call: StageCall) -> Any:
            return Weather(city="Oslo", degrees=3)

        agent = Agent(FunctionModel(reply), output_schema=Weather)
        async with agent:
            result = await agent.run("weather?")
        assert result.output == Weather(city="Oslo", degrees=3)


class TestScript:
    async def test_a_plan_then_an_answer(self) -> None:
        script = FakeModel.plan("add_item", item="eggs").answer("Added eggs.")
        agent = Agent(script, tools=[list_items, add_item], auto_approve=True)
        async with agent:
            result = await agent.run("add eggs")
        assert result.text == "Added eggs."
        assert result.steps[0].input == {"item": "eggs", "count": 1}
        assert script.remaining() == 0
        assert [call.label for call in script.calls] == ["conductor", "arguments", "answer"]

    async def test_two_calls_and_two_turns(self) -> None:
        script = (
            FakeModel.plan("list_items")
            .plan("price", item="milk", store="corner")
            .answer("Milk is 1.5.")
            .answer("Hello.")
        )
        agent = Agent(script, tools=[list_items, price])
        async with agent:
            first = await agent.run("what does milk cost?")
            second = await agent.run("hi")
        assert _tools(first) == ["list_items", "price"]
        assert first.text == "Milk is 1.5." and second.text == "Hello." and not _tools(second)

    async def test_a_tool_the_conductor_is_not_offered_fails_the_run(self) -> None:
        script = FakeModel.plan("delete_everything").answer("Done.")
        agent = Agent(script, tools=[list_items])
        async with agent:
            with pytest.raises(ScriptMismatch, match=r"plans 'delete_everything'.*offered"):
                await agent.run("go")

    async def test_an_answer_while_a_call_is_still_to_come_fails_the_run(self) -> None:
        # The tool fails twice in a row, the turn escalates and answers best-effort while the
        # script still expects a third call: the run fails instead of answering a script entry.
        @tool
        def broken() -> str:
            """Always fails."""
            raise RuntimeError("down")

        @tool
        def broken_too() -> str:
            """Fails as well."""
            raise RuntimeError("down too")

        script = FakeModel.plan("broken").plan("broken_too").plan("list_items").answer("Ok.")
        agent = Agent(script, tools=[broken, broken_too, list_items])
        async with agent:
            with pytest.raises(ScriptMismatch, match=r"still expects plan\('list_items'\)"):
                await agent.run("go")

    async def test_a_call_after_the_script_ended_fails_the_run(self) -> None:
        script = FakeModel.answer("Hi.")
        agent = Agent(script)
        async with agent:
            assert (await agent.run("hi")).text == "Hi."
            with pytest.raises(ScriptMismatch, match="the script is over"):
                await agent.run("hi again")

    async def test_arguments_the_tool_does_not_take_fail_the_run(self) -> None:
        script = FakeModel.plan("add_item", itme="eggs").answer("Added.")
        agent = Agent(script, tools=[add_item], auto_approve=True)
        async with agent:
            with pytest.raises(ScriptMismatch, match=r"\['itme'\], which it does not take"):
                await agent.run("add eggs")


shop = Agent("local", tools=[list_items])
"""A module-level agent on a model this machine may not have, as an app would build it."""


class TestOverride:
    def test_override_runs_a_module_level_agent_on_the_test_model(self) -> None:
        with shop.override(model=TestModel(text="Milk.")):
            result = shop.run_sync("what is on my list?")
        assert result.text == "Milk." and _tools(result) == ["list_items"]
        assert repr(shop.model) == "LazyModel('local')"  # restored after the block

    async def test_a_running_agent_cannot_be_overridden(self) -> None:
        agent = Agent(TestModel())
        async with agent:
            with pytest.raises(GoliathError, match="cannot swap the model of a running agent"):
                with agent.override(model=TestModel()):
                    pass


class TestGuard:
    def test_a_real_model_fails_to_start_while_requests_are_forbidden(self) -> None:
        with forbid_model_requests(), pytest.raises(GoliathError, match=r"real model \(local\)"):
            shop.run_sync("hi")

    def test_a_factory_of_a_real_model_fails_at_its_first_call(self) -> None:
        from goliath.models.openai import OpenAICompatibleModel

        agent = Agent(lambda: OpenAICompatibleModel("http://127.0.0.1:9/v1", "m"))
        with forbid_model_requests(), pytest.raises(GoliathError, match="OpenAICompatibleModel"):
            agent.run_sync("hi")

    def test_test_models_still_run(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("GOLIATH_ALLOW_MODEL_REQUESTS", "0")
        assert Agent(TestModel(text="ok")).run_sync("hi").text == "ok"
        assert Agent(FakeModel.answer("ok")).run_sync("hi").text == "ok"
        with pytest.raises(GoliathError, match="GOLIATH_ALLOW_MODEL_REQUESTS=0"):
            shop.run_sync("hi")


class TestFakeModelOutOfStep:
    async def test_a_plan_entry_is_never_the_answer(self) -> None:
        """After an escalation the positional script is out of step: the answer call meets a
        plan's JSON. The run fails instead of answering '{"call": ...}'."""

        @tool
        def broken() -> str:
            """Always fails."""
            raise RuntimeError("down")

        plan = {"json": {"call": "broken"}}
        model = FakeModel([plan, plan, plan, {"text": "never"}])
        agent = Agent(model, tools=[broken])
        async with agent:
            with pytest.raises(ScriptMismatch, match="fell out of step"):
                await agent.run("go")


class TestConstructorMistakes:
    def test_a_model_class_is_refused_with_the_fix(self) -> None:
        with pytest.raises(ConfigError, match=r"the class FakeModel.*Agent\(FakeModel\(\)"):
            Agent(FakeModel)  # type: ignore[arg-type]

    def test_a_single_tool_is_refused_with_the_fix(self) -> None:
        with pytest.raises(ConfigError, match=r"tools=\[list_items\]"):
            Agent(TestModel(), tools=list_items)  # type: ignore[arg-type]

    def test_a_confirm_that_is_not_a_function_is_refused_with_the_fix(self) -> None:
        with pytest.raises(ConfigError, match="auto_approve=True"):
            Agent(TestModel(), confirm="yes")  # type: ignore[arg-type]

    def test_a_malformed_spec_is_refused_at_once(self) -> None:
        with pytest.raises(ConfigError, match="Unknown model spec 'lokal'"):
            Agent("lokal")
