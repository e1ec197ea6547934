"""SQLiteMemory: a real SQLite file in WAL mode, many conversations, durable across processes."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest
import trio

from goliath import Agent, MemoryState
from goliath.memory import SQLiteMemory
from goliath.memory.sqlite import close_databases
from goliath.testing import FakeModel
from tests.helpers import answer, answer_plan


def answering(text: str) -> FakeModel:
    return FakeModel(
        lambda request: answer_plan() if request.label == "conductor" else answer(text)
    )


@pytest.mark.slow
async def test_an_exchange_survives_closing_everything_and_a_new_process(tmp_path: Path) -> None:
    """A turn's exchange is on disk: a fresh process reading the file sees it."""
    path = tmp_path / "memory.db"
    agent = Agent(
        answering("Milk is on the list."), memory=lambda cid: SQLiteMemory(path, cid or "default")
    )
    async with agent:
        await agent.run("is milk on the list?", conversation_id="alice")
    close_databases()
    code = (
        "import trio, sys\n"
        "from goliath.memory import SQLiteMemory\n"
        f"state = trio.run(SQLiteMemory({str(path)!r}, 'alice').load)\n"
        "print(state.recent[0].ask, '|', state.recent[0].answer)\n"
    )
    done = await trio.run_process([sys.executable, "-c", code], capture_stdout=True, check=True)
    assert done.stdout.decode().strip() == "is milk on the list? | Milk is on the list."


async def test_many_conversations_share_one_file_without_mixing(tmp_path: Path) -> None:
    """Each conversation's key holds only its own exchanges."""
    path = tmp_path / "memory.db"
    agent = Agent(answering("ok"), memory=lambda cid: SQLiteMemory(path, cid or "default"))
    async with agent:
        for name in ("a", "b", "c"):
            await agent.run(f"hello from {name}", conversation_id=name)
    for name in ("a", "b", "c"):
        state = await SQLiteMemory(path, name).load()
        assert [exchange.ask for exchange in state.recent] == [f"hello from {name}"]


async def test_the_file_is_in_wal_mode(tmp_path: Path) -> None:
    """Other processes can read while a daemon writes."""
    path = tmp_path / "memory.db"
    await SQLiteMemory(path, "k").save(MemoryState(summary="x"))
    with sqlite3.connect(path) as connection:
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


async def test_corrupt_stored_state_reads_as_empty(tmp_path: Path) -> None:
    """A row that is not valid memory JSON loads as empty memory instead of failing the run."""
    path = tmp_path / "memory.db"
    memory = SQLiteMemory(path, "k")
    await memory.save(MemoryState(summary="fine"))
    close_databases()
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE goliath_memory SET state = '{not json' WHERE key = 'k'")
    assert await memory.load() == MemoryState()
