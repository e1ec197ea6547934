"""A typed surface: generic agents, tool contexts and results; callable tools; docstrings in
three styles; results that turn into plain JSON."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pydantic
import pytest

from goliath import Agent, ConfigError, RunResult, Tool, ToolContext, tool
from goliath.testing import FakeModel
from goliath.tools import ToolDefinitionWarning
from tests.helpers import answer, answer_plan, use

ROOT = Path(__file__).resolve().parents[2]


class Weather(pydantic.BaseModel):
    city: str
    celsius: int


@dataclasses.dataclass
class Deps:
    user: str


class TestResults:
    def test_a_result_is_plain_json_with_to_dict_and_to_json(self) -> None:
        """to_dict() is what json.dumps takes; to_json() is the same document as text."""
        result = Agent(FakeModel([answer("Hi.")])).run_sync("hello")
        plain = result.to_dict()
        assert json.loads(json.dumps(plain)) == plain == json.loads(result.to_json())
        assert plain["text"] == "Hi." and plain["handled_by"] == "device"
        assert [event["type"] for event in plain["trace"]][:1] == ["recall"]

    def test_a_structured_output_becomes_its_json_dict(self) -> None:
        """A pydantic output is dumped to a dict in to_dict() and to_json()."""
        model = FakeModel([{"json": {"city": "Oslo", "celsius": 3}}])
        result = Agent(model, output_schema=Weather).run_sync("weather?")
        assert isinstance(result.output, Weather)
        assert result.to_dict()["output"] == {"city": "Oslo", "celsius": 3}
        assert json.loads(result.to_json())["output"] == {"city": "Oslo", "celsius": 3}


class TestTools:
    def test_a_decorated_tool_is_still_the_function(self) -> None:
        """@tool returns a Tool that can be called like the function it was made from."""

        @tool
        def add(a: int, b: int) -> int:
            """Add two numbers."""
            return a + b

        assert isinstance(add, Tool)
        assert add(2, b=3) == 5

    def test_a_tool_without_a_docstring_is_refused(self) -> None:
        """The conductor chooses by description: no docstring and no description= is an error."""
        with pytest.raises(ConfigError, match="has no docstring"):

            @tool
            def mystery(x: int) -> int:
                return x

        @tool(description="Double a number.")
        def double(x: int) -> int:
            return x * 2

        assert double.description == "Double a number."

    def test_an_unannotated_parameter_warns_and_names_it(self) -> None:
        """A parameter without a type annotation gets a ToolDefinitionWarning naming it."""
        with pytest.warns(ToolDefinitionWarning, match="parameter 'title' has no type"):

            @tool
            def add_task(title) -> str:  # type: ignore[no-untyped-def]
                """Add a task."""
                return str(title)

    @pytest.mark.parametrize(
        "doc",
        [
            """Add a task.

            Args:
                title: what the task says.
                due (str): when it is due,
                    as a date.
            """,
            """Add a task.

            Parameters
            ----------
            title : str
                what the task says.
            due : str
                when it is due,
                as a date.
            """,
            """Add a task.

            :param title: what the task says.
            :param due: when it is due,
                as a date.
            """,
        ],
        ids=["google", "numpy", "sphinx"],
    )
    def test_parameter_descriptions_are_read_in_every_docstring_style(self, doc: str) -> None:
        """Google, NumPy and Sphinx parameter sections all reach the schema's descriptions."""

        def add_task(title: str, due: str) -> str:
            return title

        add_task.__doc__ = doc
        built = tool(add_task)
        properties = built.schema["properties"]
        assert built.description == "Add a task."
        assert properties["title"]["description"] == "what the task says."
        assert properties["due"]["description"] == "when it is due, as a date."

    async def test_a_typed_context_reaches_the_tool(self) -> None:
        """ToolContext[Deps].context is the run's context object."""
        seen: list[str] = []

        @tool
        def whoami(ctx: ToolContext[Deps]) -> str:
            """Say who is asking."""
            seen.append(ctx.context.user)
            return ctx.context.user

        agent: Agent[Deps, Any] = Agent(
            FakeModel([use("whoami"), answer_plan(), answer("Ada.")]), tools=[whoami]
        )
        async with agent:
            await agent.run("who am I?", context=Deps(user="ada"))
        assert seen == ["ada"]


TYPED_USE = """
from dataclasses import dataclass
import pydantic
from goliath import Agent, RunResult, ToolContext, tool
from goliath.testing import FakeModel

class Weather(pydantic.BaseModel):
    city: str

@dataclass
class Deps:
    user: str

@tool
def add(a: int, b: int) -> int:
    '''Add.'''
    return a + b

def context_user(ctx: ToolContext[Deps]) -> str:
    reveal_type(ctx.context)
    return ctx.context.user

async def typed() -> None:
    agent = Agent(FakeModel([]), output_schema=Weather)
    reveal_type(agent)
    result = await agent.run("hi")
    reveal_type(result)
    reveal_type(add(1, 2))
    other = await agent.run("hi", output_schema=Weather)
    reveal_type(other.output)

def typo() -> None:
    Agent(FakeModel([])).run_sync("hi", conversaton_id="c")
    add("one", 2)
"""


@pytest.mark.slow
def test_the_type_checker_sees_the_types_and_catches_typos(tmp_path: Path) -> None:
    """mypy infers Agent[Any, Weather], RunResult[Weather], ToolContext[Deps].context and the
    tool's return type, and flags a misspelled run option and a wrong argument type."""
    source = tmp_path / "typed_use.py"
    source.write_text(textwrap.dedent(TYPED_USE))
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(source)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        check=False,
    )
    out = done.stdout
    assert 'Revealed type is "goliath.records.RunResult[typed_use.Weather]"' in out, out
    assert 'Revealed type is "typed_use.Deps"' in out, out
    assert 'Revealed type is "goliath.agent.Agent[Any, typed_use.Weather]"' in out, out
    assert 'Revealed type is "int"' in out or 'Revealed type is "builtins.int"' in out, out
    assert 'Revealed type is "typed_use.Weather | None"' in out, out
    assert 'Unexpected keyword argument "conversaton_id"' in out, out
    assert 'Argument 1 to "__call__" of "Tool" has incompatible type "str"' in out, out


def test_run_result_is_generic_at_run_time_too() -> None:
    """RunResult[Weather] is a valid subscription (for annotations and isinstance of the origin)."""
    alias = RunResult[Weather]
    assert alias.__origin__ is RunResult  # type: ignore[attr-defined]
