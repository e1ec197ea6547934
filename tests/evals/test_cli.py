"""`goliath eval`: the command's function, and the command itself as a subprocess."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from goliath.evals.cli import eval_command

ROOT = Path(__file__).resolve().parents[2]

SUITE = """
from goliath.evals import Fixture

def broken():
    raise RuntimeError("no tools today")

FIXTURES = [
    Fixture("morning", "good morning!", [], "device"),
    Fixture("capital", "capital of Australia?", [], "device", mentions=["canberra"]),
    Fixture("broken", "hi", [], "device", toolset="broken"),
]
TOOLSETS = {"broken": broken}
"""

GOLIATH_MORNING = [{"json": {"kind": "answer", "brief": "greet"}}, {"text": "Good morning!"}]


def files(tmp_path: Path, script: list[object]) -> tuple[str, str]:
    suite = tmp_path / "suite.py"
    suite.write_text(SUITE)
    model = tmp_path / "script.json"
    model.write_text(json.dumps(script))
    return f"fake:{model}", str(suite)


async def run(*args: object, **kwargs: object) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = await eval_command(*args, out=out, err=err, **kwargs)  # type: ignore[arg-type]
    return status, out.getvalue(), err.getvalue()


async def test_it_prints_the_report(tmp_path: Path) -> None:
    """Text output: a line per fixture and the on-device share last; status 0."""
    spec, suite = files(tmp_path, GOLIATH_MORNING)
    status, out, err = await run(spec, 1, suite, False, False, only=["morning"])
    assert (status, err) == (0, "")
    lines = out.strip().splitlines()
    assert lines[0] == "PASS  morning            1/1"
    assert lines[-1].startswith("On-device share: 100.0% (1 of 1 attempts")


async def test_with_the_baseline_it_prints_both_and_a_table(tmp_path: Path) -> None:
    """--baseline runs the naive loop on the same model and fixtures, then compares."""
    spec, suite = files(tmp_path, [*GOLIATH_MORNING, {"json": {"answer": "Morning!"}}])
    status, out, _ = await run(spec, 1, suite, True, False, only=["morning"])
    assert status == 0
    assert out.index("== goliath ==") < out.index("== naive-loop ==") < out.index("| Agent")
    assert "| naive-loop | 1/1 (pass^1) | 100.0%" in out


async def test_json_output_is_one_object_keyed_by_agent(tmp_path: Path) -> None:
    """--json prints {"goliath": report, "naive-loop": report} with the run's metadata."""
    spec, suite = files(tmp_path, [*GOLIATH_MORNING, {"json": {"answer": "Morning!"}}])
    status, out, _ = await run(spec, 1, suite, True, True, only=["morning"])
    document = json.loads(out)
    assert status == 0 and list(document) == ["goliath", "naive-loop"]
    assert document["goliath"]["metadata"]["model"] == spec
    assert document["goliath"]["metadata"]["runs"] == 1
    assert document["naive-loop"]["on_device_share"] == 1.0


async def test_an_attempt_that_raised_makes_the_status_1(tmp_path: Path) -> None:
    """Errors are harness or tool failures to fix, so the command says so in its status."""
    spec, suite = files(tmp_path, [])
    status, out, _ = await run(spec, 1, suite, False, False, only=["broken"])
    assert status == 1
    assert "Execution failed: no tools today" in out


async def test_usage_errors_are_status_2_with_a_message(tmp_path: Path) -> None:
    """A missing suite or an unknown fixture id is explained on stderr."""
    spec, suite = files(tmp_path, [])
    status, out, err = await run(spec, 1, str(tmp_path / "nope.py"), False, False)
    assert (status, out) == (2, "") and "No fixture file at" in err
    status, _, err = await run(spec, 1, suite, False, False, only=["nope"])
    assert status == 2 and "No fixture with id nope" in err
    status, _, err = await run(spec, 0, suite, False, False)
    assert status == 2 and "runs must be a positive integer" in err


async def test_a_model_that_cannot_be_loaded_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A spec whose bridge is not installed is explained with what to install; status 2."""
    _, suite = files(tmp_path, [])
    monkeypatch.setitem(sys.modules, "goliath.models.llamacpp", None)  # the bridge is missing
    status, out, err = await run("local", 1, suite, False, False)
    assert (status, out) == (2, "")
    assert "Cannot load the model 'local'" in err and "./install.sh local" in err


async def test_the_default_suite_is_the_everyday_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without --fixtures, evals/everyday.py is used (from the repository root)."""
    monkeypatch.chdir(ROOT)
    spec, _ = files(tmp_path, GOLIATH_MORNING)
    status, out, _ = await run(spec, 1, None, False, True, only=["chat-morning"])
    report = json.loads(out)["goliath"]
    assert status == 0 and report["metadata"]["fixtures"] == "evals/everyday.py"
    assert [outcome["id"] for outcome in report["outcomes"]] == ["chat-morning"]


@pytest.mark.slow
def test_the_goliath_command_runs_an_eval(tmp_path: Path) -> None:
    """`goliath eval --model fake:... --fixtures ... --json` end to end, as a subprocess."""
    spec, suite = files(tmp_path, [*GOLIATH_MORNING, {"json": {"answer": "Hi"}}])
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "goliath.cli",
            "eval",
            "--model",
            spec,
            "--fixtures",
            suite,
            "--runs",
            "1",
            "--baseline",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=ROOT,
    )
    assert done.returncode == 1, done.stderr  # the suite's "broken" fixture errors on purpose
    document = json.loads(done.stdout)
    assert document["goliath"]["outcomes"][0]["passed"] is True
    assert document["goliath"]["errors"] == 1 and document["naive-loop"]["errors"] == 1
