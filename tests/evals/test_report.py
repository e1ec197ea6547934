"""The report's text, its side-by-side table and its JSON."""

from __future__ import annotations

import json

import msgspec

from goliath.evaluation import (
    EvalAttempt,
    EvalReport,
    format_comparison,
    format_report,
    report_json,
)
from goliath.evaluation.report import outcome_of, summarize


def attempt(handled_by: str = "device", passed: bool = True, **kw: object) -> EvalAttempt:
    reasons = [] if passed else ["tools [], wanted [list_tasks]"]
    return EvalAttempt(passed=passed, handled_by=handled_by, reasons=reasons, **kw)  # type: ignore[arg-type]


def sample_report(agent: str = "goliath") -> EvalReport:
    outcomes = [
        outcome_of(
            "list-today",
            [
                attempt(steps=2, model_calls=3, input_tokens=400, output_tokens=20, seconds=2.5),
                attempt(steps=2, model_calls=3, input_tokens=410, output_tokens=20, seconds=2.0),
            ],
        ),
        outcome_of(
            "a-rather-long-fixture-id",
            [
                attempt(passed=False, steps=1, model_calls=2, input_tokens=300, seconds=1.5),
                attempt("cloud", steps=0, model_calls=1, input_tokens=200, seconds=1.0),
            ],
        ),
        outcome_of("broken", [attempt("error", passed=False), attempt("error", passed=False)]),
    ]
    return summarize(outcomes, runs=2, agent=agent, metadata={"model": "x"}, wall_seconds=12.04)


def test_the_report_text_is_a_line_per_fixture_then_the_summary() -> None:
    """PASS/FAIL, id padded to 18, passes/runs, reasons; the last line is the on-device share."""
    assert format_report(sample_report()) == "\n".join(
        [
            "PASS  list-today         2/2",
            "FAIL  a-rather-long-fixture-id 1/2  Run 1: tools [], wanted [list_tasks]",
            "FAIL  broken             0/2  Run 1: tools [], wanted [list_tasks]; "
            "Run 2: tools [], wanted [list_tasks]",
            "",
            "1/3 passed (pass^2) · 6 attempts · 3 on device · 1 escalated · 2 errors · "
            "0.83 steps/attempt",
            "1.5 model calls · 218.33 prompt tokens · 6.67 output tokens · 1.17 s per attempt · "
            "12.0 s wall",
            "On-device share: 50.0% (3 of 6 attempts finished on the device, 2 of them passed)",
        ]
    )


def test_the_report_counts_over_all_attempts() -> None:
    """Counts and means use every attempt; pass^k uses every attempt of a fixture."""
    report = sample_report()
    assert (report.passed, report.total, report.runs, report.total_runs) == (1, 3, 2, 6)
    assert (report.on_device, report.escalated, report.errors) == (3, 1, 2)
    assert (report.on_device_share, report.on_device_passed) == (0.5, 2)
    assert report.outcomes[1].handled_by == "cloud"  # the last attempt's


def test_a_report_without_attempts_says_so() -> None:
    """Nothing ran: the share is n/a rather than a division by zero."""
    empty = summarize([], runs=1)
    assert format_report(empty).splitlines()[-1] == "On-device share: n/a (no attempts ran)"


def test_reports_compare_side_by_side_in_a_markdown_table() -> None:
    """One row per agent with pass^k, the share and the per-attempt costs, columns aligned."""
    assert format_comparison([sample_report(), sample_report("naive-loop")]) == "\n".join(
        [
            "| Agent      | pass^k       | On-device share | Passed on device | Escalated "
            "| Errors | Steps | Model calls | Prompt tokens | Output tokens | Seconds |",
            "|------------|--------------|-----------------|------------------|-----------"
            "|--------|-------|-------------|---------------|---------------|---------|",
            "| goliath    | 1/3 (pass^2) | 50.0%           | 2/6              | 1         "
            "| 2      | 0.83  | 1.5         | 218.33        | 6.67          | 1.17    |",
            "| naive-loop | 1/3 (pass^2) | 50.0%           | 2/6              | 1         "
            "| 2      | 0.83  | 1.5         | 218.33        | 6.67          | 1.17    |",
        ]
    )


def test_the_json_holds_every_field_and_decodes_back() -> None:
    """report_json is the full report; msgspec decodes it into an equal EvalReport."""
    report = sample_report()
    text = report_json(report)
    data = json.loads(text)
    assert data["on_device_share"] == 0.5
    assert data["agent"] == "goliath"
    assert data["outcomes"][0]["attempts"][0]["model_calls"] == 3
    assert msgspec.json.decode(text, type=EvalReport) == report
