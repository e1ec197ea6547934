"""An application's own agent for `goliath run --agent`: memory, instructions, an extension and a
confirm handler that the command must use, each leaving a trace the test can read."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from goliath import Agent, ConfirmRequest, Decision, Extension, tool
from goliath.memory import SQLiteMemory
from goliath.testing import FakeModel

INSTRUCTIONS = "You are the notes app's assistant."


class Announce(Extension):
    name = "announce"

    @staticmethod
    def before_run(ctx: Any) -> None:
        print(f"extension saw instructions: {ctx.instructions}", file=sys.stderr)


def approve_in_the_app(request: ConfirmRequest) -> Decision:
    print(f"the app approved {request.tool}", file=sys.stderr)
    return Decision(approved=True)


def make_agent() -> Agent:
    notes: list[str] = []

    @tool(writes=True)
    def add_note(text: str) -> dict[str, Any]:
        """Save a note."""
        notes.append(text)
        return {"saved": text}

    script = json.loads(Path(os.environ["CLI_APP_SCRIPT"]).read_text())
    return Agent(
        FakeModel(script),
        tools=[add_note],
        memory=SQLiteMemory(os.environ["CLI_APP_MEMORY"], "default"),
        instructions=INSTRUCTIONS,
        extensions=[Announce()],
        confirm=approve_in_the_app,
    )


def reading_tools() -> list[Any]:
    """Tools for `goliath run --model SPEC --tools tests.goliath.cli_app:reading_tools`."""

    @tool
    def count_notes() -> int:
        """Count the saved notes."""
        return 7

    return [count_notes]
