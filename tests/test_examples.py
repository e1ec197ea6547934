"""Every program in examples/ runs, as a user would run it, with a scripted model.

The FastAPI app is served by real uvicorn on 127.0.0.1 (an asyncio host: the agent's Trio
runtime is its guest); the daemon is a real `goliath serve` process.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio

from goliath import ConfirmRequest
from goliath.memory import SQLiteMemory
from tests.processes import start_goliath
from transports.client import Client

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def script(tmp_path: Path, name: str, entries: list[Any]) -> str:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(entries))
    return f"fake:{path}"


def notes(*args: str, stdin: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "examples/notes_assistant.py", *args],
        cwd=ROOT,
        env=ENV,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_the_notes_assistant_asks_saves_and_remembers(tmp_path: Path) -> None:
    """Approved at the prompt, the note is saved in SQLite; declined, nothing is; the
    conversation's memory keeps both exchanges across runs."""
    db = tmp_path / "notes.db"
    save = script(
        tmp_path,
        "save",
        [
            {"json": {"call": "add_note"}},
            {"json": {"text": "plumber on Friday"}},
            {"json": {"call": "answer_the_user"}},
            {"text": "Noted: the plumber comes on Friday."},
        ],
    )
    approved = notes("the plumber comes on Friday", "--model", save, "--db", str(db), stdin="y\n")
    assert approved.returncode == 0, approved.stderr
    assert approved.stdout.strip() == "Noted: the plumber comes on Friday."
    assert "Save {'text': 'plumber on Friday'}?" in approved.stderr
    declined = notes("also note: call mum", "--model", save, "--db", str(db), stdin="n\n")
    assert declined.returncode == 0, declined.stderr
    with sqlite3.connect(db) as connection:
        saved = [row[0] for row in connection.execute("SELECT text FROM notes")]
    assert saved == ["plumber on Friday"]
    state = trio.run(SQLiteMemory(db, "notes-assistant").load)
    assert [exchange.ask for exchange in state.recent] == [
        "the plumber comes on Friday",
        "also note: call mum",
    ]


@pytest.fixture
def fastapi_url(tmp_path: Path) -> Iterator[str]:
    """examples/fastapi_app.py served by uvicorn on a free port, stopped (by pid) afterwards."""
    entries: list[Any] = []
    for text in ("We open 10-14 on Saturday.", "Closed on Sunday, sorry."):
        entries += [
            {"json": {"call": "opening_hours"}},
            {"json": {"day": "saturday" if "Saturday" in text else "sunday"}},
            {"json": {"call": "answer_the_user"}},
            {"text": text},
        ]
    model = script(tmp_path, "shop", entries)
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "examples.fastapi_app:app",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
        ],
        cwd=ROOT,
        env={**ENV, "GOLIATH_MODEL": model},
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    seen = ""
    try:
        while (match := re.search(r"Uvicorn running on (http://[\d.]+:\d+)", seen)) is None:
            line = process.stderr.readline()
            if not line:
                raise AssertionError(f"uvicorn exited early:\n{seen}")
            seen += line
        yield match.group(1)
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        rest = process.stderr.read()
        assert "Traceback" not in seen + rest, seen + rest


def test_the_fastapi_app_answers_and_streams_under_uvicorn(fastapi_url: str) -> None:
    """POST /ask runs a turn through the tool and returns the RunResult's JSON; POST
    /ask/stream sends the answer in pieces."""
    with httpx.Client(base_url=fastapi_url, timeout=30) as http:
        reply = http.post("/ask", json={"ask": "when are you open on Saturday?"})
        assert reply.status_code == 200, reply.text
        result = reply.json()
        assert result["text"] == "We open 10-14 on Saturday."
        assert result["steps"][0]["tool"] == "opening_hours"
        assert result["steps"][0]["result"] == "10-14"
        with http.stream("POST", "/ask/stream", json={"ask": "and on Sunday?"}) as streamed:
            pieces = list(streamed.iter_text())
    assert "".join(pieces) == "Closed on Sunday, sorry."
    assert len([piece for piece in pieces if piece]) > 1


async def test_the_daemon_example_serves_the_chat_page_and_runs_turns(tmp_path: Path) -> None:
    """`goliath serve examples.daemon:make_agent` serves the chat page and a turn whose write
    the client approves."""
    model = script(
        tmp_path,
        "daemon",
        [
            {"json": {"call": "add_task"}},
            {"json": {"title": "eggs"}},
            {"json": {"call": "answer_the_user"}},
            {"text": "Added eggs."},
        ],
    )
    process, url, _ = await start_goliath(
        "examples.daemon:make_agent", "--port", "0", "--token", "t", env={"GOLIATH_MODEL": model}
    )
    asked: list[ConfirmRequest] = []
    try:
        async with httpx.AsyncClient(base_url=url) as http:
            page = await http.get("/")
        async with Client.http(url, token="t") as client:
            result = await client.run(
                "add eggs", conversation_id="c", confirm=lambda r: asked.append(r) or True
            )
    finally:
        process.terminate()
        await process.wait()
    assert page.status_code == 200 and "<title>Goliath</title>" in page.text
    assert result.text == "Added eggs."
    assert [(request.tool, request.input) for request in asked] == [("add_task", {"title": "eggs"})]
