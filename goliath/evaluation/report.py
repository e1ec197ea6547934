"""What an evaluation found: attempts, outcomes per fixture, the report, and its text and JSON.

Every count is over all attempts (``runs`` per fixture), not only each fixture's last one, so
the on-device share is the share of attempts that finished on the device. An attempt that
raised counts as an error with no steps, model calls or tokens.

Module note: annotations here are evaluated eagerly (no ``from __future__ import
annotations``) so msgspec can decode reports whatever ``__module__`` the types advertise.
"""

from collections.abc import Mapping, Sequence
from typing import Any, Literal

import msgspec

from .._util import js_number

__all__ = [
    "AttemptHandledBy",
    "EvalAttempt",
    "EvalOutcome",
    "EvalReport",
    "format_comparison",
    "format_report",
    "report_json",
    "summarize",
]

AttemptHandledBy = Literal["device", "cloud", "error"]


class EvalAttempt(msgspec.Struct, kw_only=True):
    """One run of one fixture.

    Attributes:
        passed: no reasons were found.
        handled_by: ``"device"``, ``"cloud"`` or ``"error"`` (the run raised).
        tools: the tool steps taken, in order (skipped ones included).
        text: the final answer.
        reasons: why the attempt failed, one sentence each; empty when it passed.
        steps: how many steps the run recorded (tool steps and the answer step).
        seconds: wall-clock time of the attempt, agent start-up included.
        model_calls: device model calls the run made (the scribe's included).
        input_tokens: prompt tokens of those calls, as the model reported them.
        output_tokens: generated tokens of those calls.
        escalation: the reason of the run's last escalation, if any.
        calls: each tool step as ``tool(arguments) [status] → result``, the result cut to 200
            characters (for reading failures; the grader does not use it).
        checks: each yes/no check the turn made, as ``name=passed|failed (margin)``.
    """

    passed: bool
    handled_by: AttemptHandledBy
    tools: list[str] = msgspec.field(default_factory=list)
    text: str = ""
    reasons: list[str] = msgspec.field(default_factory=list)
    steps: int = 0
    seconds: float = 0.0
    model_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    escalation: str | None = None
    calls: list[str] = msgspec.field(default_factory=list)
    checks: list[str] = msgspec.field(default_factory=list)


class EvalOutcome(msgspec.Struct, kw_only=True):
    """A fixture over all its attempts: the last attempt's fields, pass^k and every reason.

    ``passed`` is true only when every attempt passed (pass^k); ``reasons`` gathers all
    attempts' reasons, each prefixed ``Run i:`` when there was more than one run.
    """

    id: str
    passed: bool
    passes: int
    runs: int
    attempts: list[EvalAttempt]
    reasons: list[str]
    handled_by: AttemptHandledBy
    tools: list[str] = msgspec.field(default_factory=list)
    text: str = ""
    steps: int = 0
    seconds: float = 0.0
    model_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    escalation: str | None = None


class EvalReport(msgspec.Struct, kw_only=True):
    """An evaluation of one agent on one model over a list of fixtures.

    Attributes:
        outcomes: one per fixture, in order.
        passed: fixtures whose every attempt passed (pass^k); ``passed_all_runs`` is the same.
        total: how many fixtures ran.
        runs: attempts per fixture (k).
        total_runs: attempts in all.
        on_device, escalated, errors: attempts that finished on the device, were handed to
            the fallback, or raised.
        on_device_share: ``on_device / total_runs`` (0 when there were no attempts).
        on_device_passed: attempts that finished on the device AND passed: the share that
            counts only right answers (a wrong answer kept on the device is no win).
        mean_steps, mean_model_calls, mean_input_tokens, mean_output_tokens, mean_seconds:
            per attempt, over all attempts, rounded to 2 decimals.
        wall_seconds: the whole evaluation, wall clock.
        agent: ``"goliath"``, ``"naive-loop"`` or ``"native-template"`` (the baselines).
        metadata: what the caller supplied (model, machine, fixture revision ...), copied.
    """

    outcomes: list[EvalOutcome]
    passed: int
    total: int
    runs: int
    total_runs: int
    on_device: int
    escalated: int
    errors: int
    mean_steps: float
    metadata: dict[str, Any] = msgspec.field(default_factory=dict)
    passed_all_runs: int = 0
    on_device_share: float = 0.0
    on_device_passed: int = 0
    mean_model_calls: float = 0.0
    mean_input_tokens: float = 0.0
    mean_output_tokens: float = 0.0
    mean_seconds: float = 0.0
    wall_seconds: float = 0.0
    agent: str = "goliath"


def outcome_of(fixture_id: str, attempts: Sequence[EvalAttempt]) -> EvalOutcome:
    """Fold one fixture's attempts into its outcome (pass^k: every attempt must pass)."""
    if not attempts:
        raise ValueError(f"fixture {fixture_id!r} has no attempts")
    last = attempts[-1]
    runs = len(attempts)
    passes = sum(1 for attempt in attempts if attempt.passed)
    reasons = [
        reason if runs == 1 else f"Run {index}: {reason}"
        for index, attempt in enumerate(attempts, start=1)
        for reason in attempt.reasons
    ]
    return EvalOutcome(
        id=fixture_id,
        passed=passes == runs,
        passes=passes,
        runs=runs,
        attempts=list(attempts),
        reasons=reasons,
        handled_by=last.handled_by,
        tools=list(last.tools),
        text=last.text,
        steps=last.steps,
        seconds=last.seconds,
        model_calls=last.model_calls,
        input_tokens=last.input_tokens,
        output_tokens=last.output_tokens,
        escalation=last.escalation,
    )


def _mean(values: Sequence[float]) -> float:
    return round(sum(values) / len(values), 2) if values else 0.0


def summarize(
    outcomes: Sequence[EvalOutcome],
    *,
    runs: int,
    agent: str = "goliath",
    metadata: Mapping[str, Any] | None = None,
    wall_seconds: float = 0.0,
) -> EvalReport:
    """Build the report: pass^k per fixture, and counts and means over ALL attempts."""
    attempts = [attempt for outcome in outcomes for attempt in outcome.attempts]
    passed = sum(1 for outcome in outcomes if outcome.passed)
    on_device = sum(1 for attempt in attempts if attempt.handled_by == "device")
    return EvalReport(
        outcomes=list(outcomes),
        passed=passed,
        total=len(outcomes),
        runs=runs,
        total_runs=len(attempts),
        on_device=on_device,
        escalated=sum(1 for attempt in attempts if attempt.handled_by == "cloud"),
        errors=sum(1 for attempt in attempts if attempt.handled_by == "error"),
        mean_steps=_mean([attempt.steps for attempt in attempts]),
        metadata=dict(metadata or {}),
        passed_all_runs=passed,
        on_device_share=round(on_device / len(attempts), 4) if attempts else 0.0,
        on_device_passed=sum(
            1 for attempt in attempts if attempt.handled_by == "device" and attempt.passed
        ),
        mean_model_calls=_mean([attempt.model_calls for attempt in attempts]),
        mean_input_tokens=_mean([attempt.input_tokens for attempt in attempts]),
        mean_output_tokens=_mean([attempt.output_tokens for attempt in attempts]),
        mean_seconds=_mean([attempt.seconds for attempt in attempts]),
        wall_seconds=round(wall_seconds, 2),
        agent=agent,
    )


# ---------------------------------------------------------------- text


def _number(value: float) -> str:
    """At most two decimals, no trailing zeros (``1.5``, ``2``), as the original prints them."""
    return js_number(round(value, 2))


def share_text(report: EvalReport) -> str:
    """``80.0%``, or ``n/a`` when nothing ran."""
    if not report.total_runs:
        return "n/a"
    return f"{report.on_device / report.total_runs * 100:.1f}%"


def format_report(report: EvalReport) -> str:
    """The report as text: a line per fixture, then the summary.

    Each fixture line is ``PASS``/``FAIL``, two spaces, the id padded to 18, ``passes/runs``,
    two spaces and the reasons joined by ``; ``. After a blank line come the original summary
    (pass^k, attempts, on device, escalated, errors, steps per attempt), a line of costs per
    attempt (model calls, prompt and output tokens, seconds) with the wall time, and last the
    on-device share.
    """
    lines = [
        f"{'PASS' if outcome.passed else 'FAIL'}  {outcome.id:<18} "
        f"{outcome.passes}/{outcome.runs}  {'; '.join(outcome.reasons)}".rstrip()
        for outcome in report.outcomes
    ]
    lines.append("")
    lines.append(
        f"{report.passed}/{report.total} passed (pass^{report.runs}) · "
        f"{report.total_runs} attempts · {report.on_device} on device · "
        f"{report.escalated} escalated · {report.errors} errors · "
        f"{_number(report.mean_steps)} steps/attempt"
    )
    lines.append(
        f"{_number(report.mean_model_calls)} model calls · "
        f"{_number(report.mean_input_tokens)} prompt tokens · "
        f"{_number(report.mean_output_tokens)} output tokens · "
        f"{report.mean_seconds:.2f} s per attempt · {report.wall_seconds:.1f} s wall"
    )
    if report.total_runs:
        lines.append(
            f"On-device share: {share_text(report)} "
            f"({report.on_device} of {report.total_runs} attempts finished on the device, "
            f"{report.on_device_passed} of them passed)"
        )
    else:
        lines.append("On-device share: n/a (no attempts ran)")
    return "\n".join(lines)


_COLUMNS = (
    "Agent",
    "pass^k",
    "On-device share",
    "Passed on device",
    "Escalated",
    "Errors",
    "Steps",
    "Model calls",
    "Prompt tokens",
    "Output tokens",
    "Seconds",
)


def format_comparison(reports: Sequence[EvalReport]) -> str:
    """Reports side by side as a Markdown table (per-attempt means in the last five columns)."""
    rows = [
        (
            report.agent,
            f"{report.passed}/{report.total} (pass^{report.runs})",
            share_text(report),
            f"{report.on_device_passed}/{report.total_runs}",
            str(report.escalated),
            str(report.errors),
            _number(report.mean_steps),
            _number(report.mean_model_calls),
            _number(report.mean_input_tokens),
            _number(report.mean_output_tokens),
            f"{report.mean_seconds:.2f}",
        )
        for report in reports
    ]
    widths = [max(len(row[i]) for row in [_COLUMNS, *rows]) for i in range(len(_COLUMNS))]

    def line(cells: Sequence[str]) -> str:
        return (
            "| "
            + " | ".join(cell.ljust(width) for cell, width in zip(cells, widths, strict=True))
            + " |"
        )

    separator = "|" + "|".join("-" * (width + 2) for width in widths) + "|"
    return "\n".join([line(_COLUMNS), separator, *(line(row) for row in rows)])


# ---------------------------------------------------------------- JSON

_encoder = msgspec.json.Encoder()


def report_json(report: EvalReport) -> str:
    """The report as JSON (every field of :class:`EvalReport`, attempts included)."""
    return _encoder.encode(report).decode()
