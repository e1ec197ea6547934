"""Read a suite run the way the goal is stated: by case across wordings, writes and costs.

``pass^1`` over fixtures flatters an agent whose decision flips with the wording, so a run of
several wordings is also read per case: the share of cases whose *every* wording passed. Beside
it: unexpected writes (a write ran that the case did not want), must-escalate asks handed
over, device asks handed over, and seconds and prompt tokens per passed ask.

``python -m goliath.evaluation.analysis REPORT.json`` prints one line per agent of a
``goliath eval --json`` output.
"""

from __future__ import annotations

import json
import re
import sys
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

__all__ = ["Reading", "format_reading", "read_report"]

_WRITES = re.compile(r"^writes \[(.*)\], wanted \[(.*)\]$")
_WORDING = re.compile(r"^(.*)-(\d+)$")


@attrs.frozen
class Reading:
    agent: str
    attempts: int
    passed: int
    cases: int
    every_wording: int
    unexpected_writes: int
    must_escalate: int
    handed_over: int
    device: int
    wrongly_handed_over: int
    seconds_per_pass: float
    tokens_per_pass: float
    calls_per_attempt: float
    tokens_per_attempt: float


def _case_of(fixture_id: str) -> str:
    match = _WORDING.match(fixture_id)
    return match.group(1) if match else fixture_id


def _unexpected(reasons: Sequence[str]) -> int:
    count = 0
    for reason in reasons:
        match = _WRITES.match(reason)
        if match:
            got = [name for name in match.group(1).split(",") if name]
            wanted = [name for name in match.group(2).split(",") if name]
            count += max(0, len(got) - sum(min(got.count(n), wanted.count(n)) for n in set(got)))
    return count


def read_report(report: Mapping[str, Any], cloud: Mapping[str, bool]) -> Reading:
    """One agent's report; ``cloud[fixture_id]`` says whether the ask must be handed over."""
    outcomes = report["outcomes"]
    by_case: dict[str, list[bool]] = defaultdict(list)
    unexpected = handed = wrongly = 0
    for outcome in outcomes:
        by_case[_case_of(outcome["id"])].append(bool(outcome["passed"]))
        for attempt in outcome["attempts"]:
            unexpected += _unexpected(attempt.get("reasons", []))
            went = attempt.get("handled_by") == "cloud"
            if cloud.get(outcome["id"], False):
                handed += went
            else:
                wrongly += went
    attempts = [a for o in outcomes for a in o["attempts"]]
    passed = [a for a in attempts if a.get("passed")]
    seconds = sum(float(a.get("seconds", 0)) for a in attempts)
    tokens = sum(int(a.get("input_tokens", 0)) for a in attempts)
    must = sum(1 for o in outcomes if cloud.get(o["id"], False))
    return Reading(
        agent=str(report.get("agent", "?")),
        attempts=len(attempts),
        passed=len(passed),
        cases=len(by_case),
        every_wording=sum(all(results) for results in by_case.values()),
        unexpected_writes=unexpected,
        must_escalate=must,
        handed_over=handed,
        device=len(outcomes) - must,
        wrongly_handed_over=wrongly,
        seconds_per_pass=round(seconds / len(passed), 1) if passed else float("inf"),
        tokens_per_pass=round(tokens / len(passed)) if passed else float("inf"),
        calls_per_attempt=round(
            sum(int(a.get("model_calls", 0)) for a in attempts) / max(1, len(attempts)), 2
        ),
        tokens_per_attempt=round(tokens / max(1, len(attempts))),
    )


def format_reading(readings: Sequence[Reading]) -> str:
    """A Markdown table, one row per agent."""
    head = (
        "| agent | passed | cases passing every wording | unexpected writes | must-escalate "
        "handed over | device asks handed over | calls / attempt | prompt tokens / attempt | "
        "s per passed ask |"
    )
    rows = [head, "|" + "---|" * 9]
    for r in readings:
        share = r.passed / r.attempts * 100 if r.attempts else 0.0
        rows.append(
            f"| {r.agent} | {r.passed}/{r.attempts} ({share:.0f}%) | {r.every_wording}/{r.cases} | "
            f"{r.unexpected_writes} | {r.handed_over}/{r.must_escalate} | "
            f"{r.wrongly_handed_over}/{r.device} | {r.calls_per_attempt} | "
            f"{r.tokens_per_attempt} | {r.seconds_per_pass} |"
        )
    return "\n".join(rows)


def _main(paths: Sequence[str]) -> None:  # pragma: no cover - a command-line convenience
    from .fixtures import load_fixtures

    suite = load_fixtures("evals/suite")
    cloud = {f.id: f.handled_by == "cloud" for f in suite.fixtures}
    readings: list[Reading] = []
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
        reports = data.values() if "outcomes" not in data else [data]
        readings.extend(read_report(report, cloud) for report in reports)
    print(format_reading(readings))


if __name__ == "__main__":  # pragma: no cover
    _main(sys.argv[1:])
