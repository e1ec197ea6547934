"""Evals: does a model, inside Goliath, finish everyday asks correctly, and where?

The on-device share — the share of attempts that finished on the device — is the number this
project lives by; pass^k keeps it honest (a fixture passes only when all k attempts pass). The
naive-loop and native-template baselines run the same fixtures on the same model so every
report can be compared.

::

    from goliath.evaluation import load_fixtures, run_evals, format_report

    report = await run_evals(model=model, fixtures=load_fixtures("evals/everyday.py"), runs=3)
    print(format_report(report))

See ``docs/evals.md``.
"""

from __future__ import annotations

from .._util import export_as
from .baseline import NaiveLoop as NaiveLoop
from .fixtures import FIXTURES as FIXTURES
from .fixtures import Fixture as Fixture
from .fixtures import FixtureSuite as FixtureSuite
from .fixtures import ToolsetFactory as ToolsetFactory
from .fixtures import load_fixtures as load_fixtures
from .fixtures import sample_tools as sample_tools
from .grade import grade as grade
from .native import NativeTemplateLoop as NativeTemplateLoop
from .report import EvalAttempt as EvalAttempt
from .report import EvalOutcome as EvalOutcome
from .report import EvalReport as EvalReport
from .report import format_comparison as format_comparison
from .report import format_report as format_report
from .report import report_json as report_json
from .runner import run_evals as run_evals

__all__ = [
    "FIXTURES",
    "EvalAttempt",
    "EvalOutcome",
    "EvalReport",
    "Fixture",
    "FixtureSuite",
    "NaiveLoop",
    "NativeTemplateLoop",
    "ToolsetFactory",
    "format_comparison",
    "format_report",
    "grade",
    "load_fixtures",
    "report_json",
    "run_evals",
    "sample_tools",
]

export_as("goliath.evaluation", globals(), __all__)
