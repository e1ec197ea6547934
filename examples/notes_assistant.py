"""A notes assistant on the terminal: it asks before every write and remembers in SQLite.

    python examples/notes_assistant.py "note that the plumber comes on Friday"
    python examples/notes_assistant.py "what did I note?" --model openai:http://127.0.0.1:8080/v1#qwen

The notes and the conversation's memory live in one SQLite file (``--db``, default
``notes.db``): run it again and it still knows what you told it. The confirm handler is plain
``input()``: Goliath runs a sync handler in a worker thread, so waiting for you blocks nothing.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from pathlib import Path
from typing import Any

from goliath import Agent, ConfirmRequest, Decision, tool
from goliath.memory import SQLiteMemory
from goliath.resolve import resolve_model

INSTRUCTIONS = "You are a notes assistant. Save notes when asked and answer from the saved notes."


def note_tools(db: Path) -> list[Any]:
    """Two tools over a ``notes`` table in ``db``: one reads, one writes (and asks first)."""
    with sqlite3.connect(db) as connection:
        connection.execute("CREATE TABLE IF NOT EXISTS notes (text TEXT NOT NULL)")

    @tool
    def list_notes() -> list[str]:
        """List every saved note."""
        with sqlite3.connect(db) as connection:
            return [row[0] for row in connection.execute("SELECT text FROM notes ORDER BY rowid")]

    @tool(writes=True)
    def add_note(text: str) -> dict[str, Any]:
        """Save a note.

        Args:
            text: the note, in the user's words.
        """
        with sqlite3.connect(db) as connection:
            connection.execute("INSERT INTO notes (text) VALUES (?)", (text,))
        return {"saved": text}

    return [list_notes, add_note]


def ask_on_the_terminal(request: ConfirmRequest) -> Decision:
    """The person decides: a sync handler, run in a worker thread by Goliath."""
    print(f"Save {request.input}? {request.brief} [y/N] ", end="", file=sys.stderr, flush=True)
    answer = sys.stdin.readline().strip().lower()
    if answer in ("y", "yes"):
        return Decision(approved=True)
    return Decision(approved=False, reason="the user said no")


def make_agent(model: Any, db: Path) -> Agent:
    return Agent(
        model,
        tools=note_tools(db),
        memory=SQLiteMemory(db, "notes-assistant"),
        instructions=INSTRUCTIONS,
        confirm=ask_on_the_terminal,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="A notes assistant that asks before it writes.")
    parser.add_argument("ask")
    parser.add_argument("--model", default="local", help="a model spec (default: local)")
    parser.add_argument("--db", type=Path, default=Path("notes.db"), help="the SQLite file")
    args = parser.parse_args(argv)
    agent = make_agent(resolve_model(args.model), args.db)
    result = agent.run_sync(args.ask)
    print(result.text or "(no answer)")
    return 0 if result.text else 1


if __name__ == "__main__":
    raise SystemExit(main())
