"""``@tool`` keeps every description the user wrote, warns on a docstring typo, takes partials
and callable objects, and names the tool and parameter in a schema error (issue #24)."""

from __future__ import annotations

import functools
import warnings
from typing import Annotated, Any

import pydantic
import pytest
from pydantic import Field

from goliath import Agent, ConfigError, Tool, tool
from goliath.testing import FakeModel
from goliath.tools import ToolDefinitionWarning
from tests.spec.helpers import answer_plan, args, text, use


def _descriptions(built: Tool) -> dict[str, str | None]:
    properties = built.schema["properties"]
    return {name: sub.get("description") for name, sub in properties.items()}


class TestDescriptions:
    def test_annotated_field_descriptions_are_kept(self) -> None:
        @tool
        def add(
            title: Annotated[str, Field(description="What to do, in a few words.")],
            priority: Annotated[int, Field(description="1 (low) to 3 (high).", ge=1, le=3)] = 2,
        ) -> str:
            """Add a task."""
            return title

        assert _descriptions(add) == {
            "title": "What to do, in a few words.",
            "priority": "1 (low) to 3 (high).",
        }
        assert add.schema["properties"]["priority"]["maximum"] == 3

    def test_field_defaults_keep_their_description_and_default(self) -> None:
        @tool
        def search(query: str, limit: int = Field(3, description="How many results.")) -> str:
            """Search the notes.

            Args:
                query: Words to look for.
            """
            return query

        assert _descriptions(search) == {
            "query": "Words to look for.",
            "limit": "How many results.",
        }
        assert search.parameters(query="x").model_dump() == {"query": "x", "limit": 3}

    def test_a_field_description_wins_over_the_docstring(self) -> None:
        @tool
        def find(query: Annotated[str, Field(description="From Field.")]) -> str:
            """Find it.

            Args:
                query: From the docstring.
            """
            return query

        assert _descriptions(find) == {"query": "From Field."}

    def test_a_summary_that_wraps_is_kept_whole(self) -> None:
        @tool
        def archive(task_id: int) -> str:
            """Move a finished task to the archive, where it no longer shows in lists
            but can still be searched.

            Args:
                task_id: The task's number.
            """
            return "ok"

        assert archive.description == (
            "Move a finished task to the archive, where it no longer shows in lists but can "
            "still be searched."
        )

    def test_a_summary_right_before_args_stops_there(self) -> None:
        @tool
        def ping(host: str) -> str:
            """Ping a host.
            Args:
                host: The host name.
            """
            return host

        assert ping.description == "Ping a host."


class TestDocstringTypos:
    def test_an_args_entry_with_no_parameter_warns_naming_it(self) -> None:
        with pytest.warns(ToolDefinitionWarning, match=r"'titel', which is not a parameter"):

            @tool
            def add(title: str) -> str:
                """Add a task.

                Args:
                    titel: What to do.
                """
                return title

    def test_matching_entries_do_not_warn(self) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("error")

            @tool
            def add(title: str) -> str:
                """Add a task.

                Args:
                    title: What to do.
                """
                return title


def _lookup(table: dict[str, str], key: str) -> str:
    """Look a key up in the table.

    Args:
        table: Bound by the application.
        key: The key to look up.
    """
    return table[key]


class Counter:
    """Count how often it was called."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, step: int = 1) -> int:
        self.count += step
        return self.count


class TestPartialsAndCallables:
    async def test_a_partial_shows_only_the_unbound_parameters_and_runs(self) -> None:
        lookup = tool(functools.partial(_lookup, table={"milk": "aisle 3"}))
        assert lookup.name == "_lookup"
        assert lookup.description == "Look a key up in the table."
        assert list(lookup.schema["properties"]) == ["key"]
        model = FakeModel([use("_lookup"), args(key="milk"), answer_plan(), text("Aisle 3.")])
        agent = Agent(model, tools=[lookup])
        async with agent:
            result = await agent.run("where is milk?")
        assert result.steps[0].result == "aisle 3"

    async def test_a_callable_object_is_named_after_its_class(self) -> None:
        counter = Counter()
        counted = tool(counter)
        assert counted.name == "counter"
        assert counted.description == "Count how often it was called."
        assert list(counted.schema["properties"]) == ["step"]
        model = FakeModel([use("counter"), args(step=2), answer_plan(), text("Two.")])
        agent = Agent(model, tools=[counted])
        async with agent:
            await agent.run("count")
        assert counter.count == 2

    async def test_an_async_callable_object_runs_as_a_coroutine(self) -> None:
        class Fetch:
            """Fetch the page."""

            async def __call__(self) -> str:
                return "page"

        fetched = tool(Fetch())
        model = FakeModel([use("fetch"), answer_plan(), text("Page.")])
        agent = Agent(model, tools=[fetched])
        async with agent:
            result = await agent.run("fetch")
        assert result.steps[0].result == "page"


class Connection:
    """Not something a model can write."""


class TestSchemaErrors:
    def test_an_unsupported_type_names_the_tool_and_the_parameter(self) -> None:
        with pytest.raises(ConfigError) as caught:

            @tool
            def query(sql: str, connection: Connection) -> str:
                """Run a query."""
                return sql

        message = str(caught.value)
        assert "@tool query: parameter 'connection' has type" in message
        assert "Connection" in message and "no JSON Schema" in message

    def test_a_hand_built_tool_names_its_parameter_too(self) -> None:
        class Args(pydantic.BaseModel, arbitrary_types_allowed=True):
            when: Any
            handle: Connection

        with pytest.raises(ConfigError, match=r"@tool broken: parameter 'handle'"):
            Tool("broken", "Broken.", Args, lambda arguments, ctx: None)
