"""`goliath eval`: the command's function, and the command itself as a subprocess."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from goliath.cli import main
from goliath.evaluation.cli import eval_command
from goliath.models import Generation
from goliath.testing import FakeModel

from .test_native import ScriptedPrompts

ROOT = Path(__file__).resolve().parents[2]

SUITE = """
from goliath.evaluation import Fixture

def broken():
    raise RuntimeError("no tools today")

FIXTURES = [
    Fixture("morning", "good morning!", [], "device"),
    Fixture("capital", "capital of Australia?", [], "device", mentions=["canberra"]),
    Fixture("broken", "hi", [], "device", toolset="broken"),
]
TOOLSETS = {"broken": broken}
"""

GOLIATH_MORNING = [{"json": {"call": "answer_the_user"}}, {"text": "Good morning!"}]


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


class ScriptedBoth(FakeModel):
    """A scripted model both ways: Model.generate for Goliath and the naive loop, and the
    raw-prompt port (a real ChatML template) for the native-template loop."""

    def __init__(self, script: list[dict[str, Any]], raw_replies: list[str]) -> None:
        super().__init__(script)
        self.raw = ScriptedPrompts(raw_replies)

    async def render(self, messages: Any, tools: Any) -> str:
        return await self.raw.render(messages, tools)

    def prompt_tokens(self, prompt: str) -> int:
        return self.raw.prompt_tokens(prompt)

    def window(self) -> int:
        return 4096

    async def complete(self, prompt: str, max_tokens: int) -> Generation:
        return await self.raw.complete(prompt, max_tokens)


def scripted_both(monkeypatch: pytest.MonkeyPatch) -> None:
    model = ScriptedBoth([*GOLIATH_MORNING, {"json": {"answer": "Morning!"}}], ["Good morning!"])
    monkeypatch.setattr("goliath.evaluation.cli.resolve_model", lambda spec: model)


async def test_with_both_baselines_it_prints_three_reports_and_every_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--baseline both runs the naive and the native-template loop; the table has all three."""
    _, suite = files(tmp_path, [])
    scripted_both(monkeypatch)
    status, out, _ = await run("scripted", 1, suite, "both", False, only=["morning"])
    assert status == 0
    assert (
        out.index("== goliath ==")
        < out.index("== naive-loop ==")
        < out.index("== native-template ==")
        < out.index("| Agent")
    )
    table = out[out.index("| Agent") :].splitlines()
    assert [row.split("|")[1].strip() for row in table[2:]] == [
        "goliath",
        "naive-loop",
        "native-template",
    ]
    assert "| native-template | 1/1 (pass^1) | 100.0%" in out


async def test_json_keys_every_agent_that_ran_and_baseline_only_drops_goliath(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, suite = files(tmp_path, [])
    scripted_both(monkeypatch)
    status, out, _ = await run("scripted", 1, suite, "both", True, only=["morning"])
    assert status == 0 and list(json.loads(out)) == ["goliath", "naive-loop", "native-template"]
    scripted_both(monkeypatch)
    status, out, _ = await run(
        "scripted", 1, suite, "native", True, only=["morning"], baseline_only=True
    )
    document = json.loads(out)
    assert status == 0 and list(document) == ["native-template"]
    assert document["native-template"]["outcomes"][0]["text"] == "Good morning!"


async def test_the_native_baseline_on_a_model_without_a_template_is_a_usage_error(
    tmp_path: Path,
) -> None:
    """A fake:, openai: or apple model cannot render its own template: status 2, before any run."""
    spec, suite = files(tmp_path, GOLIATH_MORNING)
    status, out, err = await run(spec, 1, suite, "native", False, only=["morning"])
    assert (status, out) == (2, "") and "needs a llama.cpp model" in err  # Goliath did not run
    status, _, err = await run(spec, 1, suite, "smart", False, only=["morning"])
    assert status == 2 and "--baseline takes naive, native, both (bare: naive)" in err


def test_a_bare_baseline_flag_is_the_naive_loop(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--baseline` alone keeps its old meaning; `--baseline native|both` name the others."""
    spec, suite = files(tmp_path, [{"json": {"answer": "Morning!"}}])
    argv = ["eval", "--model", spec, "--fixtures", suite, "--only", "morning", "--json"]
    assert main([*argv, "--baseline", "--baseline-only"]) == 0
    assert list(json.loads(capsys.readouterr().out)) == ["naive-loop"]
    with pytest.raises(SystemExit):
        main([*argv, "--baseline", "smart"])
    assert "invalid choice: 'smart'" in capsys.readouterr().err


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
