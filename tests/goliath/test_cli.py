"""The goliath command, run as a real subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import trio

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
            {"json": {"call": "list_tasks"}},
            {"json": {"call": "answer_the_user"}},
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
            {"json": {"call": "create_task"}},
            {"json": {"title": "eggs"}},
            {"json": {"call": "answer_the_user"}},
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
            {"json": {"call": "create_task"}},
            {"json": {"title": "eggs"}},
            {"json": {"call": "answer_the_user"}},
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
            {"json": {"call": "answer_the_user"}},
            {"text": "Hello, Ada."},
            {"json": {"call": "answer_the_user"}},
            {"text": "You are Ada."},
        ],
    )
    done = goliath("chat", "--model", f"fake:{script}", stdin="I am Ada\nwho am I?\n\n")
    assert done.returncode == 0, done.stderr
    assert "Hello, Ada." in done.stdout and "You are Ada." in done.stdout
    assert done.stderr.count("you> ") == 3


def test_version_names_the_distribution() -> None:
    """`goliath --version` prints goliath-harness and its version."""
    from importlib.metadata import version

    done = goliath("--version")
    assert done.returncode == 0
    assert done.stdout.strip() == f"goliath-harness {version('goliath-harness')}"


@pytest.mark.parametrize("command", [[], ["run"], ["chat"], ["serve"], ["eval"], ["doctor"]])
def test_help_is_plain_text_with_defaults(command: list[str]) -> None:
    """Every --help is plain words (no RST backticks), and options with defaults show them."""
    done = goliath(*command, "--help")
    assert done.returncode == 0, done.stderr
    text = " ".join(done.stdout.split())
    assert "``" not in text
    if command == ["serve"]:
        assert "(default: 8765)" in text and "(default: warning)" in text
    if command in (["run"], ["chat"]):
        assert "--agent MODULE:ATTR" in text and "(default: 5)" in text


def test_an_unreachable_model_server_is_a_plain_error_and_a_failed_exit() -> None:
    """With nothing listening at the model server's address, `goliath run` says so on stderr
    in plain words and exits 1 instead of printing `(no answer)` and exiting 0."""
    import socket

    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    done = goliath("run", "hi", "--model", f"openai:http://127.0.0.1:{port}/v1#any")
    assert done.returncode == 1, done.stderr
    assert "goliath: no answer: the model could not finish (model-" in done.stderr
    assert f"Cannot reach the model server at http://127.0.0.1:{port}" in done.stderr
    assert "Is it running?" in done.stderr


def test_run_drives_the_applications_own_agent(tmp_path: Path) -> None:
    """`--agent MODULE:ATTR` runs the app's agent: its instructions and extension, its confirm
    handler (not the terminal's, which would decline here) and its SQLite memory."""
    script = write_script(
        tmp_path,
        [
            {"json": {"call": "add_note"}},
            {"json": {"text": "buy figs"}},
            {"json": {"call": "answer_the_user"}},
            {"text": "Saved your note: buy figs."},
        ],
    )
    memory = tmp_path / "memory.db"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "goliath.cli",
            "run",
            "note: buy figs",
            "--agent",
            "tests.goliath.cli_app:make_agent",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "CLI_APP_SCRIPT": script, "CLI_APP_MEMORY": str(memory)},
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "Saved your note: buy figs."
    assert "extension saw instructions: You are the notes app's assistant." in done.stderr
    assert "the app approved add_note" in done.stderr
    assert "add_note" in done.stdout and "[completed]" in done.stdout

    from goliath.memory import SQLiteMemory

    state = trio.run(SQLiteMemory(memory, "default").load)
    assert [(exchange.ask, exchange.answer) for exchange in state.recent] == [
        ("note: buy figs", "Saved your note: buy figs.")
    ]


def test_agent_and_tools_together_are_refused(tmp_path: Path) -> None:
    """--agent brings its own tools, so --tools beside it is a clear error."""
    done = goliath("run", "hi", "--agent", "tests.goliath.cli_app:make_agent", "--tools", "x:y")
    assert done.returncode == 2
    assert "--agent and --tools cannot be combined" in done.stderr


async def test_serve_model_replaces_the_agents_model(tmp_path: Path) -> None:
    """`goliath serve APP --model fake:SCRIPT` serves the app's agent with that model."""
    from tests.processes import start_goliath
    from transports.client import Client

    script = write_script(
        tmp_path, [{"json": {"call": "answer_the_user"}}, {"text": "From the script."}]
    )
    process, url, _ = await start_goliath(
        "tests.transports.daemon_app:make_agent",
        "--port",
        "0",
        "--token",
        "t",
        "--model",
        f"fake:{script}",
    )
    try:
        async with Client.http(url, token="t") as client:
            result = await client.run("hello", conversation_id="c")
    finally:
        process.terminate()
        await process.wait()
    assert result.text == "From the script."


def test_chat_drives_the_applications_own_agent(tmp_path: Path) -> None:
    """`goliath chat --agent MODULE:ATTR` uses the app's agent, confirm handler and memory."""
    script = write_script(
        tmp_path,
        [
            {"json": {"call": "add_note"}},
            {"json": {"text": "buy figs"}},
            {"json": {"call": "answer_the_user"}},
            {"text": "Saved your note: buy figs."},
            {"json": {"call": "answer_the_user"}},
            {"text": "You saved one note."},
        ],
    )
    memory = tmp_path / "memory.db"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "goliath.cli",
            "chat",
            "--agent",
            "tests.goliath.cli_app:make_agent",
        ],
        capture_output=True,
        text=True,
        input="note: buy figs\nhow many notes?\n\n",
        timeout=60,
        check=False,
        env={**os.environ, "CLI_APP_SCRIPT": script, "CLI_APP_MEMORY": str(memory)},
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 0, done.stderr
    assert "Saved your note: buy figs." in done.stdout and "You saved one note." in done.stdout
    assert done.stderr.count("extension saw instructions: You are the notes app's assistant.") == 2
    assert done.stderr.count("the app approved add_note") == 1

    from goliath.memory import SQLiteMemory

    state = trio.run(SQLiteMemory(memory, "default").load)
    assert [exchange.ask for exchange in state.recent] == ["note: buy figs", "how many notes?"]


async def test_serve_log_level_sets_what_the_goliath_loggers_print(tmp_path: Path) -> None:
    """`--log-level info` prints the goliath.serve INFO line; the default (warning) does not."""
    from tests.processes import start_goliath

    async def stderr_of(*level: str) -> str:
        process, _, printed = await start_goliath(
            "tests.transports.daemon_app:make_agent", "--port", "0", "--token", "t", *level
        )
        assert process.stderr is not None
        try:
            with trio.move_on_after(2 if not level else 20):
                while b"goliath.serve: serving" not in printed:
                    chunk = await process.stderr.receive_some(4096)
                    if not chunk:
                        break
                    printed += chunk
        finally:
            process.terminate()
            await process.wait()
        return printed.decode()

    shown = await stderr_of("--log-level", "info")
    assert (
        "\ngoliath.serve: serving tests.transports.daemon_app:make_agent" in shown
    )  # #24: no doubled prefix
    quiet = await stderr_of()
    assert "serving on http://" in quiet and "goliath.serve:" not in quiet


def test_run_with_a_model_spec_and_the_users_tools(tmp_path: Path) -> None:
    """`goliath run ASK --model SPEC --tools MODULE:ATTR` gives a plain agent those tools."""
    script = write_script(
        tmp_path,
        [
            {"json": {"call": "count_notes"}},
            {"json": {"call": "answer_the_user"}},
            {"text": "You have 7 notes."},
        ],
    )
    done = goliath(
        "run",
        "how many notes?",
        "--model",
        f"fake:{script}",
        "--tools",
        "tests.goliath.cli_app:reading_tools",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "You have 7 notes."
    assert "count_notes" in done.stdout and "7" in done.stdout
