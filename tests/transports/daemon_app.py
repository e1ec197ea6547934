"""Agents for daemon tests: a scripted model that answers, writes after approval, or waits."""

from __future__ import annotations

from typing import Any

import trio

from goliath import Agent, tool
from goliath.memory import InMemory
from goliath.models import GenerateRequest
from goliath.testing import FakeModel

SLOW_TOOL_SECONDS = 30.0


def scripted_reply(request: GenerateRequest) -> dict[str, Any]:
    """Ask-driven: "add X" writes X (after approval), "wait" runs a slow tool, else answers."""
    ask = request.prompt.rsplit("Ask: ", 1)[-1].split("\n", 1)[0]
    if request.label == "conductor":
        if ask.startswith("add ") and "create_task(" not in request.prompt:
            return {"json": {"kind": "tool", "tool": "create_task", "brief": ask}}
        if ask.startswith("wait") and "slow_job(" not in request.prompt:
            return {"json": {"kind": "tool", "tool": "slow_job", "brief": "wait"}}
        return {"json": {"kind": "answer", "brief": "reply"}}
    if request.label == "worker":
        return {"json": {"title": ask.removeprefix("add ")}}
    if request.label == "scribe":
        return {"text": "Goal: chat"}
    return {"text": f"answer to {ask}"}


def make_agent(created: list[str] | None = None) -> Agent:
    tasks: list[str] = [] if created is None else created

    @tool(writes=True)
    def create_task(title: str) -> dict[str, Any]:
        """Add a task."""
        tasks.append(title)
        return {"ok": True, "title": title}

    @tool
    async def slow_job() -> str:
        """Take a long time."""
        await trio.sleep(SLOW_TOOL_SECONDS)
        return "finished"

    return Agent(
        FakeModel(scripted_reply), tools=[create_task, slow_job], memory=lambda cid: InMemory()
    )
