"""The naive-loop baseline: all tools in one prompt, the whole history in every call."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
import trio

from goliath import ConfirmRequest, Decision, FallbackRequest, tool
from goliath.errors import ContextWindowError, GuardrailError, ModelError
from goliath.evaluation import FIXTURES, NaiveLoop, run_evals, sample_tools
from goliath.evaluation.baseline import action_schema
from goliath.models import GenerateRequest
from goliath.testing import FakeModel


def fake_input_tokens(request: GenerateRequest) -> int:
    """FakeModel's own count: the baseline must pass it through unchanged."""
    return math.ceil(len(json.dumps([request.system, request.prompt])) / 4)


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"json": {"tool": name, "arguments": arguments}}


def reply(text: str) -> dict[str, Any]:
    return {"json": {"answer": text}}


class Fallback:
    """A fallback that records what it was handed."""

    def __init__(self) -> None:
        self.requests: list[FallbackRequest] = []

    def __call__(self, request: FallbackRequest) -> str:
        self.requests.append(request)
        return "(cloud)"


class TestTheLoop:
    async def test_it_calls_a_tool_then_answers(self) -> None:
        """A tool call, then an answer: a device result with both steps and the usage counted."""
        model = FakeModel([call("list_tasks"), reply("Milk and mom.")])
        result = await NaiveLoop(model, sample_tools()).run("what's on my list?")
        assert (result.text, result.handled_by) == ("Milk and mom.", "device")
        assert [(s.kind, s.tool) for s in result.steps] == [
            ("tool", "list_tasks"),
            ("answer", None),
        ]
        assert result.steps[0].output == [{"title": "Buy milk"}, {"title": "Call mom"}]
        assert result.model_calls == 2
        assert result.input_tokens == sum(fake_input_tokens(request) for request in model.calls)
        assert result.output_tokens > 0

    async def test_every_call_replays_the_whole_history(self) -> None:
        """The second prompt holds the ask, the first reply and the full, uncompressed result."""
        tools = sample_tools()
        model = FakeModel([call("list_tasks"), call("create_task", title="Eggs"), reply("Done.")])
        await NaiveLoop(model, tools).run("add eggs")
        first, second, third = (request.prompt for request in model.calls)
        assert first == "User: add eggs"
        assert second == (
            "User: add eggs\n"
            'Assistant: {"tool": "list_tasks", "arguments": {}}\n'
            'Tool result: [{"title": "Buy milk"}, {"title": "Call mom"}]'
        )
        assert third.startswith(second + "\n")
        assert third.endswith('Tool result: {"ok": true, "title": "Eggs"}')
        assert len({request.system for request in model.calls}) == 1  # one stable system prompt

    async def test_all_tools_are_described_in_one_system_prompt(self) -> None:
        """Every tool's name, description, write flag and argument schema, plus the facts."""
        model = FakeModel([reply("Hi")])
        loop = NaiveLoop(model, sample_tools(), instructions="Be brief.", facts={"today": "Monday"})
        await loop.run("hi")
        system = model.calls[0].system
        assert system.startswith("Be brief.\n")
        assert "- list_tasks: The user's open tasks. Arguments: {" in system
        assert "- create_task: Add a task. Changes things. Arguments: {" in system
        assert '"required":["title"]' in system
        assert system.endswith("Known:\ntoday: Monday")

    async def test_replies_are_constrained_to_a_branch_per_tool_or_an_answer(self) -> None:
        """The schema is a union: each tool with its own argument schema, or an answer."""
        tools = sample_tools()
        model = FakeModel([reply("Hi")])
        await NaiveLoop(model, tools).run("hi")
        schema = model.calls[0].schema
        assert schema == action_schema(tools)
        assert schema is not None
        branches = schema["anyOf"]
        assert [b["properties"].get("tool", {}).get("enum") for b in branches] == [
            ["list_tasks"],
            ["create_task"],
            None,
        ]
        assert branches[1]["properties"]["arguments"] == tools[1].schema
        assert branches[2]["properties"]["answer"]["maxLength"] > 0
        assert model.calls[0].max_output_tokens == 512


class TestHandOffs:
    async def test_the_step_cap_hands_the_turn_to_the_fallback(self) -> None:
        """After max_steps replies without an answer the turn escalates too-many-steps."""
        fallback = Fallback()
        model = FakeModel(lambda request: call("list_tasks"))
        result = await NaiveLoop(model, sample_tools(), fallback=fallback, max_steps=3).run("loop")
        assert (result.text, result.handled_by, result.model_calls) == ("(cloud)", "cloud", 3)
        assert fallback.requests[0].reason == "too-many-steps"
        assert len(fallback.requests[0].steps) == 3
        assert [event.type for event in result.trace][-2:] == ["escalate", "answer"]

    async def test_a_history_beyond_the_window_is_handed_over_before_the_call(self) -> None:
        """A huge result makes the next prompt too big: context-budget, no model call made."""

        @tool
        def dump() -> str:
            """Everything."""
            return "x" * 50_000

        fallback = Fallback()
        model = FakeModel([call("dump"), reply("never")])
        result = await NaiveLoop(model, [dump], fallback=fallback, window=4096).run("dump it")
        assert result.handled_by == "cloud"
        assert fallback.requests[0].reason == "context-budget"
        assert "window allows 3584" in (fallback.requests[0].error or "")
        assert model.remaining() == 1 and result.model_calls == 1

    async def test_the_window_and_tokenizer_come_from_the_model(self) -> None:
        """A model's window() and count_tokens() are used, as Agent uses them."""

        class Counted(FakeModel):
            def window(self) -> int:
                return 600

            def count_tokens(self, text: str) -> int:
                return len(text)  # one token per character: 600 is soon reached

        fallback = Fallback()
        model = Counted([reply("Hi")])
        result = await NaiveLoop(model, sample_tools(), fallback=fallback).run("hello")
        assert fallback.requests[0].reason == "context-budget"
        assert result.model_calls == 0

    @pytest.mark.parametrize(
        ("error", "reason"),
        [(ModelError("boom"), "model-error"), (ContextWindowError("full"), "context-budget")],
    )
    async def test_a_model_failure_escalates_with_its_classification(
        self, error: Exception, reason: str
    ) -> None:
        """Provider failures go to the fallback with the harness's classification."""
        fallback = Fallback()
        result = await NaiveLoop(FakeModel([{"error": error}]), [], fallback=fallback).run("hi")
        assert result.handled_by == "cloud"
        assert fallback.requests[0].reason == reason

    async def test_a_guardrail_refusal_stays_on_the_device(self) -> None:
        """As in Goliath, a guardrail is never sent to the cloud: an empty device answer."""
        fallback = Fallback()
        model = FakeModel([{"error": GuardrailError("unsafe")}])
        result = await NaiveLoop(model, [], fallback=fallback).run("hi")
        assert (result.text, result.handled_by, fallback.requests) == ("", "device", [])
        assert [event.type for event in result.trace] == ["escalate"]


class TestUnusableReplies:
    async def test_they_are_noted_in_the_history_and_count_as_steps(self) -> None:
        """Not JSON, no branch, an unknown tool, an empty answer: noted, and the loop goes on."""
        script: list[dict[str, Any]] = [
            {"text": "sure!"},
            {"json": {"x": 1}},
            call("nope"),
            reply(" "),
            reply("Fine."),
        ]
        model = FakeModel(script)
        result = await NaiveLoop(model, sample_tools(), max_steps=5).run("hi")
        assert (result.text, result.handled_by, result.steps[0].kind) == (
            "Fine.",
            "device",
            "answer",
        )
        last = model.calls[-1].prompt
        assert "Error: your reply was not JSON. Try again." in last
        assert 'Error: reply with {"tool": ..., "arguments": {...}} or {"answer": ...}' in last
        assert "Error: there is no tool 'nope'; the tools are list_tasks, create_task" in last
        assert "Error: your answer was empty. Try again." in last
        assert model.remaining() == 0

    async def test_invalid_arguments_are_a_failed_tool_step(self) -> None:
        """Arguments that do not validate are a failed step whose error the model reads."""
        model = FakeModel([call("create_task"), reply("Sorry.")])
        result = await NaiveLoop(model, sample_tools()).run("add")
        assert result.steps[0].failed
        assert "Tool result: error: invalid arguments:" in model.calls[1].prompt

    async def test_a_tool_error_is_shown_and_the_loop_goes_on(self) -> None:
        """A raising tool becomes an error result; the model can still answer."""

        @tool
        def flaky() -> str:
            """Breaks."""
            raise LookupError("the list is gone")

        model = FakeModel([call("flaky"), reply("It failed.")])
        result = await NaiveLoop(model, [flaky]).run("try")
        assert result.steps[0].failed and result.handled_by == "device"
        assert model.calls[1].prompt.endswith("Tool result: error: the list is gone")


class TestWrites:
    async def test_a_declined_write_does_not_run_and_the_model_is_told(self) -> None:
        """The same confirm policy as Agent: a decline skips the write with its reason."""
        requests: list[ConfirmRequest] = []

        def decline(request: ConfirmRequest) -> Decision:
            requests.append(request)
            return Decision(approved=False, reason="not now")

        tools = sample_tools()
        model = FakeModel([call("create_task", title="Eggs"), call("list_tasks"), reply("OK")])
        result = await NaiveLoop(model, tools, confirm=decline).run("add eggs")
        step = result.steps[0]
        assert (step.skipped, step.skip_reason, step.output) == (True, "confirmation", None)
        assert requests[0].input == {"title": "Eggs"}
        assert "Tool result: declined by the user: not now" in model.calls[1].prompt
        assert "Eggs" not in json.dumps(result.steps[1].output)

    async def test_without_a_handler_only_confirmation_tools_are_declined(self) -> None:
        """No confirm handler: plain writes run, requires_confirmation writes are declined."""
        done: list[str] = []

        @tool(writes=True)
        def note(text: str) -> str:
            """Note it."""
            done.append(text)
            return "ok"

        @tool(writes=True, requires_confirmation=True)
        def pay(amount: int) -> str:
            """Pay."""
            done.append(str(amount))
            return "paid"

        script = [call("note", text="hi"), call("pay", amount=5), reply("Done.")]
        result = await NaiveLoop(FakeModel(script), [note, pay]).run("go")
        assert done == ["hi"]
        assert result.steps[1].skipped


class TestModels:
    async def test_a_zero_argument_factory_is_called_for_every_call(self) -> None:
        """Like Agent's model worker, a factory gives a fresh model per call."""
        made: list[FakeModel] = []
        replies = iter([call("list_tasks"), reply("Done.")])

        def factory() -> FakeModel:
            made.append(FakeModel([next(replies)]))
            return made[-1]

        result = await NaiveLoop(factory, sample_tools()).run("list")
        assert result.text == "Done." and len(made) == 2

    async def test_cancellation_passes_through(self, autojump_clock: Any) -> None:
        """Cancelling the caller cancels the model call; nothing is escalated."""
        fallback = Fallback()
        model = FakeModel([reply("late")], delay=10)
        with trio.move_on_after(5) as scope:
            await NaiveLoop(model, [], fallback=fallback).run("hi")
        assert scope.cancelled_caught and fallback.requests == []

    async def test_the_runner_runs_the_baseline_on_the_same_fixtures(self) -> None:
        """run_evals(baseline=True) scores the naive loop and labels the report."""

        def model(fixture: Any) -> FakeModel:
            return FakeModel([call("list_tasks"), reply("Milk and mom.")])

        report = await run_evals(model=model, fixtures=FIXTURES[:1], runs=2, baseline=True)
        assert report.agent == "naive-loop"
        assert (report.passed, report.on_device, report.mean_model_calls) == (1, 2, 2)
