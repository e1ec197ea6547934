"""Quiet, honest command-line output (issue #24): `goliath serve` warns only when it should,
once per line prefix, `--log-level` is Goliath's alone; `goliath run`/`chat` stream the answer
on a terminal; piped answers to a confirm in `goliath chat` reach the confirm."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from tests.processes import start_goliath

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]


async def test_serve_prints_no_false_warning_and_only_goliaths_info() -> None:
    process, _url, printed = await start_goliath(
        "tests.goliath.noisy_app:make_agent",
        "--port",
        "0",
        "--token",
        "t" * 32,
        "--log-level",
        "info",
    )
    try:
        with trio.move_on_after(2):  # what it prints after "serving on"
            while b"goliath.serve: serving" not in printed:
                chunk = await process.stderr.receive_some(4096)  # type: ignore[union-attr]
                if not chunk:
                    break
                printed += chunk
    finally:
        process.terminate()
        await process.wait()
    text = printed.decode()
    assert "goliath.app: goliath app built" in text  # --log-level info reaches goliath's loggers
    assert "goliath.serve: serving tests.goliath.noisy_app:make_agent" in text
    assert "thirdparty" not in text  # and no one else's
    assert "goliath: goliath" not in text
    assert "auto_approve" not in text and "no confirmation handler" not in text


def _script(tmp_path: Path, entries: list[object], token_delay: float = 0.0) -> str:
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"script": entries, "token_delay": token_delay}))
    return f"fake:{path}"


def test_run_streams_the_answer_on_a_terminal(tmp_path: Path) -> None:
    """On a terminal the first words show while the model still writes the rest."""
    model = _script(
        tmp_path,
        [
            {"json": {"call": "general_knowledge_or_chat", "then": "answer_the_user"}},
            {"text": "One two three."},
        ],
        token_delay=1.0,
    )
    controller, device = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "goliath.cli", "run", "count", "--model", model, "--quiet"],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=device,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
    )
    os.close(device)
    seen = b""
    try:
        while b"One" not in seen:
            chunk = os.read(controller, 4096)
            if not chunk:
                break
            seen += chunk
        assert b"One" in seen
        assert b"three." not in seen  # the rest is still being written
        while True:
            try:
                chunk = os.read(controller, 4096)
            except OSError:  # the terminal closed with the process
                break
            if not chunk:
                break
            seen += chunk
    finally:
        process.wait(timeout=60)
        os.close(controller)
    text = seen.decode().replace("\r\n", "\n")
    assert text.startswith("One two three.\n")
    assert text.count("One two three.") == 2  # the answer once, and in the step log
    assert "handled by: device" in text


def test_a_piped_chat_answers_its_confirm_from_the_pipe(tmp_path: Path) -> None:
    """`printf 'add eggs\\ny\\n\\n' | goliath chat`: the `y` approves the write."""
    model = _script(
        tmp_path,
        [
            {"json": {"call": "create_task", "then": "answer_the_user"}},
            {"json": {"title": "eggs"}},
            {"text": "Added eggs."},
        ],
    )
    done = subprocess.run(
        [sys.executable, "-m", "goliath.cli", "chat", "--model", model],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        input="add eggs\ny\n\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "create_task" in done.stdout and "[completed]" in done.stdout, done.stdout
    assert "declined" not in done.stdout
    assert "Added eggs." in done.stdout
