"""The README's first command, run as a new user runs it: the real default model, through the CLI.

This is the project's first acceptance check (issue 16): `goliath run "what's on my task list?"`
on the embedded default (Qwen2.5-Coder-1.5B, llama.cpp on this CPU) must look at the list and
name what is on it, not answer from the model's own idea of a task list.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from goliath.models.packaged import DEFAULT_MODEL

pytestmark = pytest.mark.slow


def test_the_readme_ask_on_the_default_model_names_the_open_tasks() -> None:
    if not DEFAULT_MODEL.installed():
        pytest.skip(f"the default model is not installed here: {DEFAULT_MODEL.install_hint()}")
    done = subprocess.run(
        [sys.executable, "-m", "goliath.cli", "run", "what's on my task list?"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    answer, marker, log = done.stdout.partition("handled by: ")
    assert marker, done.stdout
    assert log.startswith("device"), done.stdout  # answered on the device, not handed off
    assert "list_tasks(" in log, done.stdout  # it looked
    # The open tasks of the demo list are named in the answer itself, not only in the step log.
    assert "buy milk" in answer.lower() and "call mom" in answer.lower(), done.stdout
