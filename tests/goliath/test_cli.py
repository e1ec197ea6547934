"""The goliath command, run as a real subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


def goliath(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "goliath.cli", *args],
        capture_output=True,
        text=True,
        input=stdin,
        timeout=60,
        check=False,
    )


def write_script(tmp_path: Path, entries: list[object]) -> str:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(entries))
    return str(path)


def test_run_with_a_fake_script_prints_the_answer_and_the_step_log(tmp_path: Path) -> None:
    """`goliath run --model fake:SCRIPT.json` prints the answer, where it ran, and the steps."""
    script = write_script(
        tmp_path,
        [
            {"json": {"kind": "tool", "tool": "list_tasks", "brief": "list them"}},
            {"json": {"kind": "answer", "brief": "reply"}},
            {"text": "Milk and mom are open."},
        ],
    )
    done = goliath("run", "what's open?", "--model", f"fake:{script}")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "Milk and mom are open."
    assert "handled by: device" in done.stdout
    assert "1. list_tasks({}) [completed] → 1. id: 1, title: Buy milk, done: false" in done.stdout
    assert "2. answered: Milk and mom are open." in done.stdout


def test_a_write_without_a_terminal_is_declined(tmp_path: Path) -> None:
    """With no terminal to ask, a write is declined and the model sees why."""
    script = write_script(
        tmp_path,
        [
            {"json": {"kind": "tool", "tool": "create_task", "brief": "add eggs"}},
            {"json": {"title": "eggs"}},
            {"json": {"kind": "answer", "brief": "reply"}},
            {"text": "I did not add it."},
        ],
    )
    done = goliath("run", "add eggs", "--model", f"fake:{script}")
    assert done.returncode == 0, done.stderr
    assert "[skipped] → declined by the user: no one at the terminal to approve it." in done.stdout


def test_yes_approves_writes_and_json_prints_the_result(tmp_path: Path) -> None:
    """--yes approves the write; --json prints the RunResult as JSON."""
    script = write_script(
        tmp_path,
        [
            {"json": {"kind": "tool", "tool": "create_task", "brief": "add eggs"}},
            {"json": {"title": "eggs"}},
            {"json": {"kind": "answer", "brief": "reply"}},
            {"text": "Added eggs."},
        ],
    )
    done = goliath("run", "add eggs", "--model", f"fake:{script}", "--yes", "--json")
    assert done.returncode == 0, done.stderr
    message = json.loads(done.stdout)
    assert message["type"] == "result"
    assert message["result"]["text"] == "Added eggs."
    assert message["result"]["steps"][0]["output"]["title"] == "eggs"


def test_a_bad_script_path_is_a_clear_error(tmp_path: Path) -> None:
    """A missing script file exits with status 2 and names the file."""
    done = goliath("run", "hi", "--model", f"fake:{tmp_path / 'missing.json'}")
    assert done.returncode == 2
    assert "missing.json" in done.stderr


def test_a_malformed_script_entry_names_its_index(tmp_path: Path) -> None:
    """A script entry of the wrong shape is refused with its position."""
    script = write_script(tmp_path, [{"text": "ok"}, {"nonsense": 1}])
    done = goliath("run", "hi", "--model", f"fake:{script}")
    assert done.returncode == 2
    assert "entry 1" in done.stderr


def test_chat_answers_each_line_in_one_conversation(tmp_path: Path) -> None:
    """`goliath chat` answers every line of stdin in turn and stops at a blank line."""
    script = write_script(
        tmp_path,
        [
            {"json": {"kind": "answer", "brief": "reply"}},
            {"text": "Hello, Ada."},
            {"json": {"kind": "answer", "brief": "reply"}},
            {"text": "You are Ada."},
        ],
    )
    done = goliath("chat", "--model", f"fake:{script}", stdin="I am Ada\nwho am I?\n\n")
    assert done.returncode == 0, done.stderr
    assert "Hello, Ada." in done.stdout and "You are Ada." in done.stdout
    assert done.stderr.count("you> ") == 3
