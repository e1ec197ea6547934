"""The eval runner: every fixture k times, each attempt in a fresh world, scored pass^k.

Each attempt builds a fresh agent (Goliath's :class:`~goliath.Agent`, the naive-loop baseline
or the native-template baseline) with fresh tools from the fixture's toolset and fresh in-process memory, runs the ask
once, and grades the result. Attempts run one after another: a device model serves one request
at a time, and sequential attempts keep the seconds per attempt honest.
"""

from __future__ import annotations

import inspect
import json
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TextIO

import attrs
import trio

from .._util import maybe_await, message_of
from ..agent import OPTIONS, Agent
from ..budget import Budgets, TokenCounter
from ..compress import clip
from ..config import FactsSource, Fallback, WindowSource
from ..errors import ConfigError, TurnCancelled
from ..memory import InMemory
from ..records import (
    ConfirmRequest,
    Decision,
    Exchange,
    FallbackRequest,
    MemoryState,
    RunResult,
    StepRecord,
)
from .baseline import NaiveLoop
from .fixtures import (
    DEFAULT_TOOLSET,
    FIXTURES,
    TOOLSETS,
    Fixture,
    FixtureSuite,
    ToolsetFactory,
    check_fixtures,
    toolset_tools,
)
from .grade import grade, last_escalation, tool_sequence
from .native import AGENT_NAME as NATIVE_AGENT
from .native import NativeTemplateLoop, raw_prompt_model
from .report import EvalAttempt, EvalOutcome, EvalReport, outcome_of, summarize

__all__ = ["BASELINES", "CLOUD_TEXT", "ModelSpec", "Progress", "run_evals"]

CLOUD_TEXT = "(cloud)"
"""What the default fallback answers: evals measure where a turn finishes, not the cloud."""

ModelSpec = Any
"""A Model, a zero-argument factory of one, or a one-argument function of the Fixture."""

_DECLINE_REASON = "not now"

BASELINES: dict[str, tuple[str, type[NaiveLoop]]] = {
    "naive": ("naive-loop", NaiveLoop),
    "native": (NATIVE_AGENT, NativeTemplateLoop),
}
"""The baselines ``run_evals(baseline=...)`` runs: the name given, its report's agent, its loop."""


async def _cloud(_request: FallbackRequest) -> str:
    return CLOUD_TEXT


def _approve(_request: ConfirmRequest) -> Decision:
    return Decision(approved=True)


def _decline(_request: ConfirmRequest) -> Decision:
    return Decision(approved=False, reason=_DECLINE_REASON)


def _takes_fixture(function: Callable[..., Any]) -> bool:
    """Whether a callable wants the fixture (one required positional parameter)."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return False
    required = [
        parameter
        for parameter in signature.parameters.values()
        if parameter.kind in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD)
        and parameter.default is parameter.empty
    ]
    return len(required) == 1


def _check_model(model: ModelSpec) -> None:
    if model is None or not (hasattr(model, "generate") or callable(model)):
        raise ConfigError(
            "model must be a goliath.models.Model, a zero-argument factory of one, or a function "
            f"of the Fixture returning one; got {model!r}."
        )


async def _model_for(model: ModelSpec, fixture: Fixture) -> Any:
    """The model source of one attempt (a factory of one argument is called with the fixture).

    A class (``model=FakeModel``) is instantiated per attempt: its ``generate`` attribute is an
    unbound function, so it must not be mistaken for a model.
    """
    if isinstance(model, type):
        return model(fixture) if _takes_fixture(model) else model()
    if not hasattr(model, "generate") and _takes_fixture(model):
        return await maybe_await(model(fixture))
    return model


class Progress:
    """A one-line progress bar on stderr: done/total, passes, on-device count, time left.

    Disabled when ``enabled`` is false, or when it is ``None`` and stderr is not a terminal.
    """

    WIDTH = 24

    def __init__(self, total: int, *, label: str, enabled: bool | None = None) -> None:
        stream: TextIO = sys.stderr
        self.stream = stream
        self.enabled = stream.isatty() if enabled is None else enabled
        self.total = total
        self.label = label
        self.done = 0
        self.passed = 0
        self.on_device = 0
        self.started = time.perf_counter()
        self._shown = 0

    def update(self, fixture_id: str, attempt: EvalAttempt) -> None:
        self.done += 1
        self.passed += attempt.passed
        self.on_device += attempt.handled_by == "device"
        if not self.enabled:
            return
        filled = self.WIDTH * self.done // max(1, self.total)
        elapsed = time.perf_counter() - self.started
        left = elapsed / self.done * (self.total - self.done)
        line = (
            f"{self.label} [{'#' * filled}{'.' * (self.WIDTH - filled)}] "
            f"{self.done}/{self.total} · {self.passed} passed · {self.on_device} on device · "
            f"{_duration(left)} left · {fixture_id}"
        )
        self.stream.write("\r" + line.ljust(self._shown))
        self._shown = len(line)
        self.stream.flush()

    def close(self) -> None:
        if self.enabled and self._shown:
            self.stream.write("\n")
            self.stream.flush()


def _duration(seconds: float) -> str:
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes}m{rest:02d}s" if minutes else f"{rest}s"


@attrs.frozen(kw_only=True)
class _Options:
    """The validated options of one evaluation."""

    model: ModelSpec
    fallback: Fallback
    toolsets: Mapping[str, ToolsetFactory]
    facts: FactsSource | None
    agent_options: dict[str, Any]
    goliath_options: dict[str, Any]
    baseline: str | None


async def _attempt(options: _Options, fixture: Fixture) -> EvalAttempt:
    """Run one fresh attempt; a non-cancellation failure becomes an ``error`` attempt."""
    started = time.perf_counter()
    try:
        result = await _run_once(options, fixture)
    except TurnCancelled:
        raise
    except Exception as exc:
        return EvalAttempt(
            passed=False,
            handled_by="error",
            reasons=[f"Execution failed: {message_of(exc)}"],
            seconds=round(time.perf_counter() - started, 3),
        )
    reasons = grade(
        fixture, result, facts=options.facts if isinstance(options.facts, Mapping) else None
    )
    return EvalAttempt(
        passed=not reasons,
        handled_by=result.handled_by,
        tools=tool_sequence(result.steps),
        text=result.text,
        reasons=reasons,
        steps=len(result.steps),
        seconds=round(time.perf_counter() - started, 3),
        model_calls=result.model_calls,
        input_tokens=result.input_tokens,
        output_tokens=result.output_tokens,
        escalation=last_escalation(result),
        calls=step_lines(result.steps),
        checks=check_lines(result.trace),
    )


def step_lines(steps: Sequence[StepRecord]) -> list[str]:
    """Each tool step as one short line: what a person reading a failure needs first."""
    lines = []
    for step in steps:
        if step.kind != "tool":
            continue
        status = "failed" if step.failed else "skipped" if step.skipped else "ok"
        arguments = json.dumps(step.input, ensure_ascii=False, default=str)
        result = " | ".join((step.result or "").splitlines())
        lines.append(f"{step.tool}({clip(arguments, 160)}) [{status}] → {clip(result, 200)}")
    return lines


def check_lines(trace: Sequence[Any]) -> list[str]:
    """Each yes/no check of the turn (``CheckEvent``) as ``name=passed (margin)``."""
    lines = []
    for event in trace:
        if getattr(event, "type", None) != "check":
            continue
        margin = "" if event.margin is None else f" ({event.margin:+.2f})"
        lines.append(f"{event.check}={'passed' if event.passed else 'failed'}{margin}")
    return lines


async def _run_once(options: _Options, fixture: Fixture) -> RunResult:
    name = fixture.toolset or DEFAULT_TOOLSET
    tools = toolset_tools(options.toolsets[name], name)
    model = await _model_for(options.model, fixture)
    confirm = _decline if fixture.decline else _approve
    if options.baseline is not None:
        loop = BASELINES[options.baseline][1](
            model,
            tools,
            fallback=options.fallback,
            confirm=confirm,
            facts=options.facts,
            **{k: v for k, v in options.agent_options.items() if k != "budgets"},
        )
        return await loop.run(fixture.ask, history=fixture.history)
    memory = history_memory(fixture.history)
    agent = Agent(
        model,
        tools=tools,
        fallback=options.fallback,
        confirm=confirm,
        facts=options.facts,
        memory=memory,
        **options.agent_options,
        **options.goliath_options,
    )
    async with agent:
        return await agent.run(fixture.ask)


def _baseline_name(baseline: bool | str | None) -> str | None:
    """``None`` for Goliath, else the key of :data:`BASELINES` (``True`` is the naive loop)."""
    if baseline is None or baseline is False:
        return None
    if baseline is True:
        return "naive"
    if isinstance(baseline, str) and baseline in BASELINES:
        return baseline
    raise ConfigError(
        f"baseline must be False, True or one of {', '.join(map(repr, BASELINES))}; "
        f"got {baseline!r}."
    )


def _checked_goliath_options(options: Mapping[str, Any] | None) -> dict[str, Any]:
    """The options, if every one is an ``Agent`` option an evaluation does not set itself."""
    chosen = dict(options or {})
    taken = {"tools", "fallback", "confirm", "facts", "memory"}
    unknown = sorted(set(chosen) - (OPTIONS - taken))
    if unknown:
        raise ConfigError(
            f"Not an Agent option an evaluation can set: {', '.join(unknown)} "
            f"(the evaluation sets {', '.join(sorted(taken))} itself)."
        )
    return chosen


def history_memory(history: Sequence[tuple[str, str]]) -> InMemory | None:
    """In-process memory that already holds the fixture's earlier exchanges (None: no history)."""
    if not history:
        return None
    recent = [Exchange(ask=ask, answer=answer, at=0.0) for ask, answer in history]
    return InMemory(MemoryState(recent=recent))


async def run_evals(
    *,
    model: ModelSpec,
    fixtures: Iterable[Fixture] | FixtureSuite = FIXTURES,
    runs: int = 1,
    fallback: Fallback | None = None,
    window: WindowSource | None = None,
    count_tokens: TokenCounter | None = None,
    budgets: Budgets | None = None,
    max_steps: int | None = None,
    instructions: str | None = None,
    metadata: Mapping[str, Any] | None = None,
    toolsets: Mapping[str, ToolsetFactory] | None = None,
    facts: FactsSource | None = None,
    baseline: bool | str = False,
    progress: bool | None = None,
    goliath_options: Mapping[str, Any] | None = None,
) -> EvalReport:
    """Run every fixture ``runs`` times and report pass^k and where each attempt finished.

    Args:
        model: a Model, a zero-argument factory (passed to the agent as is), or a function of
            the :class:`Fixture` returning either, called once per attempt.
        fixtures: the fixtures, or a :class:`FixtureSuite` (its toolsets and facts are used).
        runs: attempts per fixture (k of pass^k); a positive integer. Use 3 or more for a
            model that samples; the bundled bridges decode greedily, so one is enough there.
        fallback: the cloud hand-off; by default it answers ``"(cloud)"``.
        window, count_tokens, budgets, max_steps, instructions: as ``Agent(...)``; ``None``
            keeps the agent's default.
        metadata: copied into the report (model, machine, fixture revision ...).
        toolsets: more toolset factories by name (added to the suite's and ``"sample"``).
        facts: what the agent knows on every attempt (default: the suite's ``FACTS``).
        baseline: run a baseline instead of Goliath: ``"naive"`` (or ``True``) the naive loop,
            ``"native"`` the native-template loop (the model's own chat template with
            ``tools=``; it needs a llama.cpp model or a
            :class:`~goliath.evaluation.native.RawPromptModel`).
        progress: show a progress bar on stderr (default: only when stderr is a terminal).
        goliath_options: more ``Agent(...)`` options for Goliath's runs only (the baselines
            have no such options), e.g. ``{"hand_off_check": True}``.

    Returns:
        The :class:`EvalReport`.

    Raises:
        ConfigError: ``runs`` is not a positive integer, a fixture names an unknown toolset,
            ids repeat, an option is invalid, or the native-template baseline was asked of a
            model that cannot run it.

    Cancellation: cancelling the caller cancels the running attempt and the whole evaluation
    (``trio.Cancelled`` propagates; no report is returned).
    """
    if isinstance(runs, bool) or not isinstance(runs, int) or runs < 1:
        raise ConfigError(f"runs must be a positive integer, got {runs!r}.")
    _check_model(model)
    chosen_baseline = _baseline_name(baseline)
    if chosen_baseline == "native" and not (
        isinstance(model, type) or (not hasattr(model, "generate") and callable(model))
    ):
        raw_prompt_model(model)  # fail before anything runs, naming what is needed
    if max_steps is not None and (
        isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 0
    ):
        raise ConfigError(f"max_steps must be a nonnegative integer, got {max_steps!r}.")
    registry: dict[str, ToolsetFactory] = dict(TOOLSETS)
    suite_facts: Mapping[str, str] = {}
    if isinstance(fixtures, FixtureSuite):
        registry.update(fixtures.toolsets)
        suite_facts = fixtures.facts
        chosen: Sequence[Fixture] = fixtures.fixtures
    else:
        chosen = list(fixtures)
    registry.update(toolsets or {})
    check_fixtures(chosen, registry)
    agent_options: dict[str, Any] = {
        key: value
        for key, value in {
            "window": window,
            "count_tokens": count_tokens,
            "budgets": budgets,
            "max_steps": max_steps,
            "instructions": instructions,
        }.items()
        if value is not None
    }
    options = _Options(
        model=model,
        fallback=fallback if fallback is not None else _cloud,
        toolsets=registry,
        facts=facts if facts is not None else (dict(suite_facts) or None),
        agent_options=agent_options,
        goliath_options=_checked_goliath_options(goliath_options),
        baseline=chosen_baseline,
    )
    agent_name = "goliath" if chosen_baseline is None else BASELINES[chosen_baseline][0]
    bar = Progress(len(chosen) * runs, label=agent_name, enabled=progress)
    started = time.perf_counter()
    outcomes: list[EvalOutcome] = []
    try:
        for fixture in chosen:
            attempts: list[EvalAttempt] = []
            for _ in range(runs):
                await trio.lowlevel.checkpoint_if_cancelled()
                attempt = await _attempt(options, fixture)
                attempts.append(attempt)
                bar.update(fixture.id, attempt)
            outcomes.append(outcome_of(fixture.id, attempts))
    finally:
        bar.close()
    return summarize(
        outcomes,
        runs=runs,
        agent=agent_name,
        metadata=metadata,
        wall_seconds=time.perf_counter() - started,
    )
