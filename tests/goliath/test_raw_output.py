"""The raw output a step keeps is capped (``raw_output_bytes``); the model's summary is not."""

from __future__ import annotations

from typing import Any

import pytest

from goliath import Agent, ConfigError, ToolContext
from goliath.testing import FakeModel
from tests.spec.helpers import answer_plan, make_tool, text, use


def _big(arguments: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    return {"rows": ["r" * 100] * 5000}


class TestRawOutputCap:
    async def test_an_output_over_the_cap_is_omitted_with_its_size_and_still_summarized(
        self,
    ) -> None:
        """500 KB of output: `output` is None, `output_omitted` gives its size and the cap, and
        the model still read its summary; later tools see the omission too."""
        seen: list[Any] = []

        def after(arguments: dict[str, Any], ctx: ToolContext) -> str:
            seen.append((ctx.steps[0].output, ctx.steps[0].output_omitted))
            return "ok"

        agent = Agent(
            FakeModel([use("big"), use("after"), answer_plan(), text("Done.")]),
            tools=[make_tool("big", _big), make_tool("after", after)],
            raw_output_bytes=10_000,
        )
        async with agent:
            result = await agent.run("go")
        step = result.steps[0]
        assert step.output is None
        assert step.output_omitted is not None
        assert "over the 10,000-byte cap" in step.output_omitted
        assert "rows" in (step.result or "")
        assert seen == [(None, step.output_omitted)]

    async def test_none_keeps_every_output_and_small_outputs_are_kept_by_default(self) -> None:
        """`raw_output_bytes=None` lifts the cap; the default (128 KiB) keeps ordinary outputs."""
        for option, kept in ((None, True), (4096, False)):
            agent = Agent(
                FakeModel([use("big"), answer_plan(), text("Done.")]),
                tools=[make_tool("big", _big)],
                raw_output_bytes=option,
            )
            async with agent:
                result = await agent.run("go")
            assert (result.steps[0].output is not None) is kept
        small = Agent(
            FakeModel([use("small"), answer_plan(), text("Done.")]),
            tools=[make_tool("small", lambda a, c: {"ok": True})],
        )
        async with small:
            result = await small.run("go")
        assert result.steps[0].output == {"ok": True} and result.steps[0].output_omitted is None

    @pytest.mark.parametrize("bad", [-1, 1.5, "64k", True])
    def test_a_bad_cap_is_a_config_error(self, bad: Any) -> None:
        """The cap is a whole number of bytes ≥ 0, or None."""
        with pytest.raises(ConfigError, match="raw_output_bytes"):
            Agent(FakeModel([]), raw_output_bytes=bad)
