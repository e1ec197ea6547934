"""`goliath doctor` and the child process that runs llama.cpp turns."""

from __future__ import annotations

import io
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from goliath import cli
from goliath.doctor import Check, check_model, format_checks, signal_hint

pytestmark = pytest.mark.slow


def goliath(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "goliath.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_doctor_names_a_missing_model_file_and_the_fix(tmp_path: Path) -> None:
    """A model path with no file fails the model check, says where it looked and what to pass."""
    missing = tmp_path / "nowhere.gguf"
    done = goliath("doctor", "--model", f"llamacpp:{missing}")
    assert done.returncode == 1
    assert f"FAIL  model file: there is no file at {missing}" in done.stdout
    assert "fix: pass the path of a .gguf model file" in done.stdout
    assert "a real prompt" not in done.stdout  # no inference without a model
    assert done.stdout.rstrip().endswith("run the fix shown, then goliath doctor again.")


def test_doctor_refuses_a_file_that_is_not_gguf(tmp_path: Path) -> None:
    """A file that is not a GGUF model is named as such, with its first bytes."""
    bogus = tmp_path / "model.gguf"
    bogus.write_bytes(b"<html>not a model</html>")
    checks = check_model(f"llamacpp:{bogus}")
    model = next(check for check in checks if check.name == "model file")
    assert not model.ok
    assert "is not a GGUF model file" in model.detail and "b'<htm'" in model.detail


def test_doctor_passes_the_installed_default_model() -> None:
    """On this machine the build, the packaged model's SHA-256 and a 300-word prompt all pass."""
    pytest.importorskip("llama_cpp")
    from goliath.models.packaged import DEFAULT_MODEL

    if not DEFAULT_MODEL.installed():
        pytest.skip("needs the local extra: ./install.sh local")
    checks = check_model("local")
    assert [check.name for check in checks] == [
        "machine",
        "llama.cpp build",
        "model file",
        "a real prompt",
    ]
    assert all(check.ok for check in checks), format_checks(checks)
    assert "SHA-256 ok" in checks[2].detail


def test_the_report_shows_each_failure_with_its_fix() -> None:
    """ok/FAIL per line, the fix under each failure, and a closing verdict."""
    report = format_checks(
        [Check("machine", True, "Linux"), Check("llama.cpp build", False, "AMX", "rebuild")]
    )
    assert report.splitlines() == [
        "ok    machine: Linux",
        "FAIL  llama.cpp build: AMX",
        "      fix: rebuild",
        "",
        "1 check(s) failed; run the fix shown, then goliath doctor again.",
    ]


def test_a_sigill_is_read_as_a_build_for_another_cpu() -> None:
    """The signal a wrong build dies of is explained in plain words; exit 0 is not a signal."""
    assert signal_hint(0) is None
    hint = signal_hint(-4)
    assert hint is not None and "Illegal instruction" in hint and "llama.cpp build" in hint


def test_a_model_process_killed_by_the_cpu_points_to_the_doctor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`goliath run` with a llama.cpp model runs the turn in a child; a SIGILL there is reported
    with the command to run, and the exit status says which signal (128 + 4)."""
    crashing = tmp_path / "python"
    crashing.write_text("#!/bin/sh\nkill -ILL $$\n")
    crashing.chmod(crashing.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setattr(sys, "executable", str(crashing))
    monkeypatch.delenv("GOLIATH_MODEL_CHILD", raising=False)
    err = io.StringIO()
    status = cli._supervised(["run", "hello"], err)
    assert status == 132
    assert "Illegal instruction" in err.getvalue()
    assert "Run `goliath doctor`" in err.getvalue()


def test_run_in_a_pipe_prints_clean_lines_without_progress(tmp_path: Path) -> None:
    """With stderr not a terminal there is no status line at all, and stdout is just the
    answer, where it was handled and the step log."""
    script = tmp_path / "script.json"
    script.write_text(
        '[{"json": {"call": "list_tasks"}},'
        ' {"json": {"call": "answer_the_user"}}, {"text": "Buy milk, call mom."}]'
    )
    env = {k: v for k, v in os.environ.items() if k != "GOLIATH_MODEL_CHILD"}
    done = subprocess.run(
        [sys.executable, "-m", "goliath.cli", "run", "what's open?", "--model", f"fake:{script}"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert done.stdout.splitlines()[0] == "Buy milk, call mom."
    assert "\r" not in done.stdout and "\x1b" not in done.stdout


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_the_status_line_replaces_itself_and_clears_before_output() -> None:
    """Progress is one line rewritten in place (clipped to one line) and erased before any
    prompt or the answer, so it never splices into other text."""
    from goliath.events import PlanEvent

    err = _Tty()
    terminal = cli.Terminal(io.StringIO(), err, assume_yes=True, progress=True)
    terminal.event(PlanEvent(index=0, kind="tool", tool="list_tasks", brief="list\nthem " * 40))
    first = err.getvalue()
    assert first.startswith("\r\x1b[K· using list_tasks: list them")
    assert "\n" not in first and len(first) < 200
    terminal.clear_status()
    assert err.getvalue() == first + "\r\x1b[K"
    terminal.clear_status()  # nothing shown: nothing to erase
    assert err.getvalue() == first + "\r\x1b[K"


def test_off_a_terminal_no_status_is_written() -> None:
    """A pipe or a log file never receives a status line."""
    from goliath.events import PlanEvent

    err = io.StringIO()
    terminal = cli.Terminal(io.StringIO(), err, assume_yes=True, progress=True)
    terminal.event(PlanEvent(index=0, kind="answer", brief="reply"))
    assert err.getvalue() == ""


FAKE_SERVER = Path(__file__).resolve().parents[1] / "fake_llama_server.py"


@pytest.mark.slow
def test_doctor_slots_checks_the_llama_server_binary_and_serves_a_prompt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--slots N: the binary runs (--version), and a managed server with N slots starts on the
    model, answers a prompt and stops (a scripted llama-server here)."""
    from goliath.doctor import check_server

    binary = tmp_path / "llama-server"
    binary.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE_SERVER}" "$@"\n')
    binary.chmod(0o755)
    model = tmp_path / "model.gguf"
    model.write_bytes(b"GGUF")
    monkeypatch.setenv("GOLIATH_LLAMA_SERVER", str(binary))
    found, served = check_server(2, path=model)
    assert found.ok and "fake llama-server" in found.detail
    assert served.ok and "2 slot(s) ready" in served.detail, served.detail


def test_doctor_slots_without_a_binary_says_how_to_build_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from goliath.doctor import check_server

    monkeypatch.delenv("GOLIATH_LLAMA_SERVER", raising=False)
    monkeypatch.setenv("GOLIATH_CACHE", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path))
    (check,) = check_server(2, path=None)
    assert not check.ok and check.fix is not None and "build-llama-server" in check.fix
