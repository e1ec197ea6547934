"""An agent for `goliath serve`, with the browser chat at ``/``.

    goliath serve examples.daemon:make_agent --port 8765          # then open http://127.0.0.1:8765/
    GOLIATH_MODEL=openai:http://127.0.0.1:8080/v1#qwen goliath serve examples.daemon:make_agent

Needs the ``server`` extra. Every conversation has its own memory; writes wait for the person
in the chat page (or any client) to approve them.
"""

from __future__ import annotations

import os
from typing import Any

from goliath import Agent, tool
from goliath.memory import InMemory


def make_agent() -> Agent:
    tasks: list[str] = ["Buy milk"]

    @tool
    def list_tasks() -> list[str]:
        """List the open tasks."""
        return list(tasks)

    @tool(writes=True)
    def add_task(title: str) -> dict[str, Any]:
        """Add a task.

        Args:
            title: what to do, in a few words.
        """
        tasks.append(title)
        return {"added": title}

    return Agent(
        os.environ.get("GOLIATH_MODEL", "local"),  # a spec: resolved when the agent starts
        tools=[list_tasks, add_task],
        memory=lambda conversation_id: InMemory(),
    )
