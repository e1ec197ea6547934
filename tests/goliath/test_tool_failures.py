"""A tool that raises is visible: to the model, on the step, in the result, on a logger; and a
tool's output always renders as something (issue #24, "failures a developer can see")."""

from __future__ import annotations

import ipaddress
import logging
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from goliath import Agent, ConfigError, tool
from goliath.compress import summarize_tool_result
from goliath.testing import FakeModel
from tests.spec.helpers import answer_plan, text, use


@tool
def capital(country: str) -> str:
    """Look up the capital of a country."""
    return {"France": "Paris"}[country]


@tool
def weather() -> str:
    """Today's weather in the capital."""
    forecasts: dict[str, str] = {}
    return forecasts["Paris"]


def _script() -> FakeModel:
    return FakeModel([use("weather"), answer_plan(), text("I could not get the weather.")])


class TestARaisingTool:
    async def test_the_model_reads_the_exception_type_and_message(self) -> None:
        """A KeyError('Paris') is `error: KeyError: 'Paris'. ...`, not a bare `'Paris'`."""
        agent = Agent(_script(), tools=[weather])
        async with agent:
            result = await agent.run("weather?")
        step = result.steps[0]
        assert step.failed
        assert step.result == "error: KeyError: 'Paris'. Try different arguments or another tool."

    async def test_the_step_and_the_result_keep_the_exception_type(self) -> None:
        class Locked(Exception):
            pass

        @tool
        def calendar() -> str:
            """Read the calendar."""
            raise Locked("the calendar is locked")

        model = FakeModel([use("calendar"), answer_plan(), text("Locked.")])
        agent = Agent(model, tools=[calendar])
        async with agent:
            result = await agent.run("calendar?")
        [failed] = result.failed_steps
        assert failed.error_type == f"{__name__}.{Locked.__qualname__}"
        assert result.to_dict()["steps"][0]["error_type"] == failed.error_type
        assert failed.result == (
            "error: Locked: the calendar is locked. Try different arguments or another tool."
        )

    async def test_a_warning_with_the_traceback_goes_to_goliath_tools(
        self, caplog: pytest.LogCaptureFixture
    ) -> None:
        agent = Agent(_script(), tools=[weather])
        with caplog.at_level(logging.WARNING, logger="goliath.tools"):
            async with agent:
                await agent.run("weather?")
        [record] = [r for r in caplog.records if r.name == "goliath.tools"]
        assert record.levelno == logging.WARNING
        assert "weather" in record.getMessage() and "KeyError" in record.getMessage()
        assert record.exc_info is not None and record.exc_info[0] is KeyError
        assert 'forecasts["Paris"]' in caplog.text  # the traceback's source line

    async def test_tool_errors_raise_makes_the_run_raise_the_tools_own_exception(self) -> None:
        agent = Agent(_script(), tools=[weather], tool_errors="raise")
        async with agent:
            with pytest.raises(KeyError, match="Paris"):
                await agent.run("weather?")

    def test_tool_errors_is_checked(self) -> None:
        with pytest.raises(ConfigError, match="tool_errors must be 'report'"):
            Agent(_script(), tools=[weather], tool_errors="loud")  # type: ignore[arg-type]


class _Opaque:
    """No __str__, nothing msgspec or pydantic can convert."""


class _Shown:
    def __str__(self) -> str:
        return "shown"


class TestOutputNeverVanishes:
    def test_values_msgspec_cannot_convert_render_as_their_str(self) -> None:
        import numpy

        output = {
            "p": Path("/tmp/notes.txt"),
            "ip": ipaddress.ip_address("10.0.0.1"),
            "n": numpy.int64(3),
            "obj": _Shown(),
            "price": Decimal("1.50"),
        }
        assert summarize_tool_result(output) == (
            "p: /tmp/notes.txt\nip: 10.0.0.1\nn: 3\nobj: shown\nprice: 1.50"
        )

    def test_list_items_render_too(self) -> None:
        summary = summarize_tool_result([Path("a.txt"), ipaddress.ip_address("::1"), _Shown()])
        assert summary == "1. a.txt\n2. ::1\n3. shown"

    def test_values_msgspec_converts_render_as_their_json_form(self) -> None:
        import datetime
        import enum
        import uuid

        class Color(enum.Enum):
            RED = "red"

        row = {
            "when": datetime.date(2025, 3, 1),
            "id": uuid.UUID(int=1),
            "color": Color.RED,
        }
        assert summarize_tool_result([row]) == (
            "1. when: 2025-03-01, id: 00000000-0000-0000-0000-000000000001, color: red"
        )

    def test_an_object_with_no_text_form_is_an_error_naming_its_type(self) -> None:
        with pytest.raises(TypeError, match=r"_Opaque cannot be shown"):
            summarize_tool_result({"x": _Opaque()}, strict=True)
        assert summarize_tool_result({"x": _Opaque()}) == "(_Opaque output that cannot be shown)"

    async def test_a_tool_returning_it_is_logged_with_the_tool_and_the_type(
        self, caplog: pytest.LogCaptureFixture
    ) -> None:
        @tool
        def opaque() -> Any:
            """Return something opaque."""
            return [_Opaque()]

        model = FakeModel([use("opaque"), answer_plan(), text("Done.")])
        agent = Agent(model, tools=[opaque])
        with caplog.at_level(logging.WARNING, logger="goliath.tools"):
            async with agent:
                result = await agent.run("go")
        assert result.steps[0].result == "completed (result could not be summarized)"
        [record] = [r for r in caplog.records if r.name == "goliath.tools"]
        assert "tool opaque returned a builtins.list" in record.getMessage()
        assert "_Opaque cannot be shown" in record.getMessage()
