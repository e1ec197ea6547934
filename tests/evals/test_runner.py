"""The eval runner: fresh attempts, pass^k, counts over all attempts, errors, cancellation."""

from __future__ import annotations

from typing import Any

import pytest
import trio

from goliath import FallbackRequest, Tool, tool
from goliath.errors import ConfigError, ModelError
from goliath.evaluation import FIXTURES, Fixture, run_evals, sample_tools
from goliath.evaluation.fixtures import toolset_tools
from goliath.models import GenerateRequest
from goliath.testing import FakeModel
from tests.evals.scripts import goliath_script, scripted
from tests.helpers import answer, answer_plan, hand_off, use

ORIGINAL_ARGUMENTS = {
    "add-task": [{"title": "Buy eggs"}],
    "add-after-check": [{"title": "Call the dentist"}],
}


def sample(fixture: Fixture) -> dict[str, Tool]:
    return toolset_tools(sample_tools, "sample")


def perfect() -> Any:
    return scripted(goliath_script, sample, ORIGINAL_ARGUMENTS)


class TestScoring:
    async def test_a_perfect_script_passes_every_original_fixture(self) -> None:
        """The five originals all pass with a perfect scripted model; four stay on the device."""
        report = await run_evals(model=perfect(), fixtures=FIXTURES)
        assert [outcome.id for outcome in report.outcomes] == [
            "list-today",
            "add-task",
            "add-after-check",
            "small-talk",
            "plan-week",
        ]
        assert (report.passed, report.total, report.passed_all_runs) == (5, 5, 5)
        assert (report.total_runs, report.on_device, report.escalated, report.errors) == (
            5,
            4,
            1,
            0,
        )
        assert report.on_device_share == 0.8
        assert report.on_device_passed == 4
        assert report.outcomes[-1].text == "(cloud)"

    async def test_pass_k_needs_every_attempt_to_pass(self) -> None:
        """A model right on the first of two attempts only: 1/2 passes, the fixture fails."""
        attempts = iter(["Milk and mom.", "Nothing to report."])

        def flaky(fixture: Fixture) -> FakeModel:
            return FakeModel([use("list_tasks"), answer_plan(), answer(next(attempts))])

        report = await run_evals(model=flaky, fixtures=FIXTURES[:1], runs=2)
        outcome = report.outcomes[0]
        assert (outcome.passed, outcome.passes, outcome.runs) == (False, 1, 2)
        assert outcome.reasons == ['Run 2: answer lacks "milk"']
        assert [attempt.passed for attempt in outcome.attempts] == [True, False]
        assert outcome.text == "Nothing to report."  # the last attempt's fields
        assert (report.passed, report.total_runs, report.on_device) == (0, 2, 2)

    async def test_reasons_are_not_prefixed_for_a_single_run(self) -> None:
        """With one run, reasons read as they are, without ``Run 1:``."""
        model = FakeModel([answer_plan(), answer("Good morning!")])
        report = await run_evals(model=model, fixtures=FIXTURES[:1])
        assert report.outcomes[0].reasons == [
            "tools [], wanted [list_tasks]",
            'answer lacks "milk"',
        ]

    async def test_counts_and_means_cover_all_attempts(self) -> None:
        """Steps, model calls and tokens are averaged over every attempt of every fixture."""
        report = await run_evals(model=perfect(), fixtures=FIXTURES[:2], runs=3)
        attempts = [a for outcome in report.outcomes for a in outcome.attempts]
        assert len(attempts) == report.total_runs == 6
        assert report.mean_steps == round(sum(a.steps for a in attempts) / 6, 2)
        assert report.mean_model_calls == round(sum(a.model_calls for a in attempts) / 6, 2)
        assert report.mean_input_tokens == round(sum(a.input_tokens for a in attempts) / 6, 2)
        assert [a.model_calls for a in attempts] == [3, 3, 3, 4, 4, 4]
        assert all(a.input_tokens > 0 and a.output_tokens > 0 for a in attempts)
        assert report.mean_seconds >= 0 and report.wall_seconds >= 0

    async def test_metadata_is_copied_into_the_report(self) -> None:
        """The caller's metadata is kept, and changing it later does not change the report."""
        metadata = {"model": "fake", "device": "ci"}
        report = await run_evals(model=perfect(), fixtures=FIXTURES[3:4], metadata=metadata)
        metadata["model"] = "changed"
        assert report.metadata == {"model": "fake", "device": "ci"}


class TestAttempts:
    async def test_each_attempt_gets_fresh_tools(self) -> None:
        """A write in one attempt is not seen by the next: each starts from Buy milk, Call mom."""
        seen: list[str] = []

        def model(fixture: Fixture) -> FakeModel:
            def reply(request: GenerateRequest) -> dict[str, Any]:
                if request.label == "arguments":
                    return {"json": {"title": "Buy eggs"}}
                if "list_tasks(" not in request.prompt and request.label == "conductor":
                    return use("list_tasks")
                if "create_task(" not in request.prompt and request.label == "conductor":
                    return use("create_task")
                if request.label == "conductor":
                    return answer_plan()
                seen.append(request.prompt)
                return answer("Added eggs.")

            return FakeModel(reply)

        await run_evals(model=model, fixtures=FIXTURES[1:2], runs=2)
        assert len(seen) == 2
        for prompt in seen:  # each attempt's list shows the two original tasks, not the last eggs
            assert "2. title: Call mom" in prompt
            assert "3. title:" not in prompt

    async def test_each_attempt_gets_fresh_memory(self) -> None:
        """No attempt recalls an earlier one: the recall event reports no recent exchanges."""
        prompts: list[str] = []

        def reply(request: GenerateRequest) -> dict[str, Any]:
            prompts.append(request.prompt)
            return answer_plan() if request.label == "conductor" else answer("Morning!")

        await run_evals(model=FakeModel(reply), fixtures=FIXTURES[3:4], runs=3)
        assert not any("Recent conversation" in prompt for prompt in prompts)

    async def test_a_model_object_and_a_zero_argument_factory_both_work(self) -> None:
        """A Model is used as is; a factory is handed to the agent; a class is built per attempt."""
        made: list[FakeModel] = []

        def factory() -> FakeModel:
            model = FakeModel(lambda r: answer_plan() if r.label == "conductor" else answer("Hi"))
            made.append(model)
            return model

        report = await run_evals(model=factory, fixtures=FIXTURES[3:4], runs=2)
        assert report.passed == 1
        assert len(made) == 4  # the agent calls a factory for each model call: 2 per attempt

        class Greeter(FakeModel):
            def __init__(self) -> None:
                super().__init__([answer_plan(), answer("Hi")])

        report = await run_evals(model=Greeter, fixtures=FIXTURES[3:4], runs=2)
        assert report.passed == 1  # a class is instantiated afresh for each attempt
        shared = FakeModel(lambda r: answer_plan() if r.label == "conductor" else answer("Hi"))
        report = await run_evals(model=shared, fixtures=FIXTURES[3:4], runs=2)
        assert report.passed == 1 and len(shared.calls) == 4

    async def test_a_failing_attempt_is_an_error_with_its_message(self) -> None:
        """A fallback that raises makes the attempt ``error`` with ``Execution failed:``, 0 steps."""

        def broken(request: FallbackRequest) -> str:
            raise RuntimeError("cloud is down")

        model = FakeModel([hand_off()] * 2)
        report = await run_evals(model=model, fixtures=FIXTURES[4:5], runs=2, fallback=broken)
        outcome = report.outcomes[0]
        assert [a.handled_by for a in outcome.attempts] == ["error", "error"]
        assert outcome.reasons == [
            "Run 1: Execution failed: cloud is down",
            "Run 2: Execution failed: cloud is down",
        ]
        assert (report.errors, report.escalated, report.on_device, report.mean_steps) == (
            2,
            0,
            0,
            0,
        )

    async def test_a_model_failure_escalates_rather_than_erroring(self) -> None:
        """A model error is the harness's business: the turn goes to the fallback (cloud)."""
        model = FakeModel([{"error": ModelError("boom")}])
        report = await run_evals(model=model, fixtures=FIXTURES[:1])
        attempt = report.outcomes[0].attempts[0]
        assert (attempt.handled_by, attempt.escalation) == ("cloud", "model-error")
        assert attempt.reasons == [
            "escalated, but escalation is forbidden",
            "tools [], wanted [list_tasks]",
            'answer lacks "milk"',
        ]

    async def test_the_default_fallback_answers_cloud(self) -> None:
        """Without a fallback the cloud's answer is ``(cloud)``; a given one is used instead."""
        report = await run_evals(model=FakeModel([hand_off()]), fixtures=FIXTURES[4:5])
        assert report.outcomes[0].text == "(cloud)"
        report = await run_evals(
            model=FakeModel([hand_off()]),
            fixtures=FIXTURES[4:5],
            fallback=lambda request: f"cloud saw {request.reason}",
        )
        assert report.outcomes[0].text == "cloud saw conductor-asked"

    async def test_a_declined_confirmation_fixture_declines_the_write(self) -> None:
        """``decline=True`` declines the write: the step is skipped and nothing is written."""
        fixture = Fixture(
            "decline-add", "add buy eggs", ["create_task"], "device", decline=True, writes=[]
        )
        script = [use("create_task"), {"json": {"title": "Buy eggs"}}, answer_plan(), answer("OK")]
        model = FakeModel(script)
        report = await run_evals(model=model, fixtures=[fixture])
        assert report.passed == 1
        prompts = [call.prompt for call in model.calls if call.label == "conductor"]
        assert "declined by the user: not now" in prompts[-1]

    async def test_a_fixture_runs_against_its_own_toolset(self) -> None:
        """``toolset="weather"`` builds the tools from that factory for every attempt."""
        built: list[int] = []

        def weather_tools() -> list[Tool]:
            built.append(1)

            @tool
            def forecast() -> str:
                """Tomorrow's weather."""
                return "rain"

            return [forecast]

        fixture = Fixture("rain", "rain tomorrow?", ["forecast"], "device", toolset="weather")

        def model(fixture: Fixture) -> FakeModel:
            return FakeModel([use("forecast"), answer_plan(), answer("Rain, take a coat.")])

        report = await run_evals(
            model=model, fixtures=[fixture], runs=2, toolsets={"weather": weather_tools}
        )
        assert report.passed == 1
        assert len(built) == 2


class TestValidation:
    @pytest.mark.parametrize("runs", [0, -1, 1.5, True, "3"])
    async def test_runs_must_be_a_positive_integer(self, runs: Any) -> None:
        """Anything but a positive integer is a ConfigError that names the value."""
        with pytest.raises(ConfigError, match="runs must be a positive integer"):
            await run_evals(model=perfect(), fixtures=FIXTURES, runs=runs)

    async def test_an_unknown_toolset_is_named(self) -> None:
        """A fixture naming a toolset nobody registered fails before any attempt runs."""
        fixture = Fixture("x", "hi", [], "device", toolset="nope")
        with pytest.raises(ConfigError, match=r"'nope'.*known toolsets: sample"):
            await run_evals(model=perfect(), fixtures=[fixture])

    async def test_ids_must_be_unique_and_fixtures_present(self) -> None:
        """Repeated ids and an empty fixture list are usage errors."""
        with pytest.raises(ConfigError, match="Two fixtures have the id 'small-talk'"):
            await run_evals(model=perfect(), fixtures=[FIXTURES[3], FIXTURES[3]])
        with pytest.raises(ConfigError, match="no fixtures"):
            await run_evals(model=perfect(), fixtures=[])

    async def test_a_model_must_be_a_model_or_a_callable(self) -> None:
        """A string where a model belongs is explained, not crashed on."""
        with pytest.raises(ConfigError, match=r"model must be a goliath\.models\.Model"):
            await run_evals(model="local", fixtures=FIXTURES)


class TestCancellation:
    async def test_cancellation_rejects_the_whole_evaluation(self, autojump_clock: Any) -> None:
        """Cancelling the caller stops the running attempt; no report, no error attempt."""
        model = FakeModel(lambda request: answer_plan(), delay=10)
        with trio.move_on_after(25) as scope:
            await run_evals(model=model, fixtures=FIXTURES, runs=3)
        assert scope.cancelled_caught
        assert len(model.calls) == 3  # two calls of the first attempt, then the third cut short


class TestProgress:
    async def test_the_progress_bar_writes_to_stderr(
        self, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """Forced on, the bar counts attempts on stderr and ends its line; stdout stays empty."""
        await run_evals(model=perfect(), fixtures=FIXTURES, runs=2, progress=True)
        captured = capsys.readouterr()
        assert captured.out == ""
        assert "\rgoliath [" in captured.err
        assert "10/10 · 10 passed · 8 on device" in captured.err
        assert captured.err.endswith("\n")

    async def test_the_progress_bar_is_off_when_stderr_is_not_a_terminal(
        self, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """By default nothing is drawn into a pipe or a log file."""
        await run_evals(model=perfect(), fixtures=FIXTURES[:2])
        assert capsys.readouterr().err == ""
