"""Tune the hand-off offline, from one probe's recorded scores: the first plan's biases (a plan
or decision probe), or the hand-off check's margin (a ``handoff`` probe, :func:`sweep_margins`).

The first plan's options are scored by the bridge (``ProbeOutcome.scores``), so how the turn
would decide under any pair of biases (:func:`goliath.turn.conductor.weigh_options`) follows
from one probe run, without calling the model again. :func:`sweep` replays every pair of a grid
and counts, per pair: plans right, must-escalate asks handed over, and device asks handed over.

A switch to "a plan among the functions" cannot be replayed (that plan is another model call):
it is counted as wrong (``pessimistic``), so a bias that needs it to win has to win anyway.

Run ``python -m goliath.evaluation.tuning PROBE.json [PROBE.json ...]`` on the JSON of
``goliath eval --probe plan --json`` over the dev half; never on held-out.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

from ..turn.conductor import Plan, weigh_options

__all__ = ["MarginRow", "Row", "format_margins", "format_sweep", "sweep", "sweep_margins"]

GRID = (-3.0, -2.0, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0)


@attrs.frozen
class Row:
    hand_off_bias: float
    no_tool_bias: float
    right: int
    total: int
    escalated: int
    must_escalate: int
    wrongly_escalated: int
    device: int
    replans: int


def _plan_of(outcome: Mapping[str, Any]) -> Plan:
    reply = str(outcome.get("reply", ""))
    scores = outcome.get("scores") or None
    if reply == "escalate":
        return Plan(kind="escalate", brief="", scores=scores)
    if reply in ("answer", "(no plan)", ""):
        return Plan(kind="answer", brief="reply", scores=scores)
    return Plan(kind="tool", brief="", tool=reply.split(",")[0], scores=scores)


def _names(outcome: Mapping[str, Any]) -> list[str]:
    """The scored options that are functions (a probe's tools never take an option's name)."""
    from ..schema import HAND_OFF, NO_TOOL

    return [name for name in outcome.get("scores") or {} if name not in (NO_TOOL, HAND_OFF)]


def sweep(
    outcomes: Iterable[Mapping[str, Any]],
    *,
    no_tool_ok: Mapping[str, bool],
    grid: Sequence[float] = GRID,
) -> list[Row]:
    """Every (hand-off bias, no-function bias) of ``grid``, replayed over ``outcomes``.

    ``no_tool_ok[id]`` says whether answering with no call is right for that ask (the suite's
    ``accepted_tools`` holds an empty option).
    """
    chosen = [o for o in outcomes if o.get("scores")]
    rows = []
    for hand_off in grid:
        for no_tool in grid:
            right = escalated = wrongly = replans = 0
            for outcome in chosen:
                plan = _plan_of(outcome)
                names = _names(outcome)
                weighed = weigh_options(plan, names, hand_off_bias=hand_off, no_tool_bias=no_tool)
                cloud = outcome.get("wanted") == "escalate"
                if weighed == "keep":
                    ok = bool(outcome.get("passed"))
                    handed = plan.kind == "escalate"
                elif weighed == "escalate":
                    ok, handed = cloud, True
                elif weighed == "answer":
                    ok, handed = (not cloud and no_tool_ok.get(str(outcome["id"]), False)), False
                else:
                    ok, handed = False, False
                    replans += 1
                right += ok
                escalated += handed and cloud
                wrongly += handed and not cloud
            rows.append(
                Row(
                    hand_off_bias=hand_off,
                    no_tool_bias=no_tool,
                    right=right,
                    total=len(chosen),
                    escalated=escalated,
                    must_escalate=sum(o.get("wanted") == "escalate" for o in chosen),
                    wrongly_escalated=wrongly,
                    device=sum(o.get("wanted") == "device" for o in chosen),
                    replans=replans,
                )
            )
    return rows


def format_sweep(rows: Sequence[Row], top: int = 15) -> str:
    """The best pairs by plans right (ties: fewer device asks handed over), then (0, 0)."""
    ranked = sorted(rows, key=lambda r: (-r.right, r.wrongly_escalated, abs(r.hand_off_bias)))
    base = [r for r in rows if r.hand_off_bias == 0 and r.no_tool_bias == 0]
    lines = ["hand_off  no_tool  right  handed-over(must)  handed-over(device)  replans"]
    for row in [*ranked[:top], *base]:
        lines.append(
            f"{row.hand_off_bias:8.1f} {row.no_tool_bias:8.1f} {row.right:4d}/{row.total:<4d}"
            f" {row.escalated:5d}/{row.must_escalate:<12d} {row.wrongly_escalated:5d}/"
            f"{row.device:<14d} {row.replans:4d}"
        )
    return "\n".join(lines)


@attrs.frozen
class MarginRow:
    """A check at one margin: how often it acts (hands over, withholds) where it should
    (``escalated`` of ``must_escalate``) and where it should not (``wrongly_escalated`` of
    ``device``)."""

    margin: float
    escalated: int
    must_escalate: int
    wrongly_escalated: int
    device: int


def _gap(outcome: Mapping[str, Any]) -> float | None:
    """How far the acting option leads: cloud over phone (hand-off), no over yes (intent)."""
    from ..models import Generation
    from ..turn.handoff import KINDS, only_asks, read_hand_off

    scores = outcome.get("scores") or {}
    if any(name in scores for name, _, _ in KINDS):
        question = only_asks(str(outcome.get("ask") or ""))
        return read_hand_off(Generation(text="", scores=dict(scores)), question=question).margin
    if "cloud" in scores and "phone" in scores:  # the first check's two names
        return float(scores["cloud"]) - float(scores["phone"])
    if "yes" in scores and "no" in scores:
        return float(scores["no"]) - float(scores["yes"])
    return None


def sweep_margins(
    outcomes: Iterable[Mapping[str, Any]], grid: Sequence[float] | None = None
) -> list[MarginRow]:
    """A hand-off probe's outcomes replayed at every margin of ``grid`` (default: every
    distinct recorded gap, so each row is a threshold just below one ask's gap)."""
    scored = [
        (o.get("wanted") in ("escalate", "no"), gap)
        for o in outcomes
        if (gap := _gap(o)) is not None
    ]
    if grid is None:
        grid = sorted({round(gap - 1e-6, 6) for _, gap in scored} | {0.0})
    return [
        MarginRow(
            margin=margin,
            escalated=sum(cloud and gap > margin for cloud, gap in scored),
            must_escalate=sum(cloud for cloud, _ in scored),
            wrongly_escalated=sum(not cloud and gap > margin for cloud, gap in scored),
            device=sum(not cloud for cloud, _ in scored),
        )
        for margin in grid
    ]


def format_margins(rows: Sequence[MarginRow]) -> str:
    """Each margin with both directions, the thresholds where either count changes only."""
    lines = ["margin   acted(should)      acted(should not)"]
    shown: tuple[int, int] | None = None
    for row in rows:
        key = (row.escalated, row.wrongly_escalated)
        if key == shown:
            continue
        shown = key
        lines.append(
            f"{row.margin:7.2f}  {row.escalated:5d}/{row.must_escalate:<12d}"
            f" {row.wrongly_escalated:5d}/{row.device}"
        )
    return "\n".join(lines)


def _main(paths: Sequence[str]) -> None:  # pragma: no cover - a command-line convenience
    from .fixtures import load_fixtures

    outcomes: list[Mapping[str, Any]] = []
    probes = set()
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            report = json.load(handle)
        probes.add(report.get("probe"))
        outcomes.extend(report["outcomes"])
    if probes <= {"handoff", "intent"}:
        print(format_margins(sweep_margins(outcomes)))
        return
    suite = load_fixtures("evals/suite")
    no_tool_ok = {f.id: () in f.accepted_tools for f in suite.fixtures}
    print(format_sweep(sweep(outcomes, no_tool_ok=no_tool_ok)))


if __name__ == "__main__":  # pragma: no cover
    _main(sys.argv[1:])
