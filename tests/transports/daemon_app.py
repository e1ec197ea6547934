"""Agents for daemon tests: a scripted model that answers, writes after approval, or waits.

Asks: ``add X`` writes X (after approval); ``add X then wait and tell me`` writes X, then
runs the slow tool (an ask that asks to be told: a read after the write runs); ``log X`` runs a slow write (it writes X, then takes long: a crash or cancel lands while
it runs); ``wait`` runs the slow tool; anything else is answered. The scribe's brief lists
every folded ask (``Done: q1 | q2``). With ``GOLIATH_WRITES_FILE``
set, every write also appends its title (and the tool's idempotency key) to that file, so a
test can count writes across daemon processes and restarts.
"""

from __future__ import annotations

import os
from typing import Any

import trio

from goliath import Agent, ToolContext, tool
from goliath.memory import InMemory
from goliath.models import GenerateRequest
from goliath.testing import FakeModel

SLOW_TOOL_SECONDS = 30.0


def scripted_reply(request: GenerateRequest) -> dict[str, Any]:
    """Ask-driven: see the module docstring."""
    ask = request.prompt.rsplit("Ask: ", 1)[-1].split("\n", 1)[0]
    if request.label == "conductor":
        if ask.startswith("add ") and "create_task(" not in request.prompt:
            return {"json": {"call": "create_task"}}
        if ask.startswith("log ") and "log_slowly(" not in request.prompt:
            return {"json": {"call": "log_slowly"}}
        waits = ask.startswith("wait") or " then wait" in ask
        if waits and "slow_job(" not in request.prompt:
            return {"json": {"call": "slow_job"}}
        return {"json": {"call": "answer_the_user"}}
    if request.label == "arguments":
        title = ask.removeprefix("add ").removeprefix("log ").split(" then wait", 1)[0]
        return {"json": {"title": title}}
    if request.label == "scribe":
        return {"text": folded_brief(request.prompt)}
    return {"text": f"answer to {ask}"}


def folded_brief(prompt: str) -> str:
    """The scribe's brief: ``Goal: chat`` and every ask folded so far, oldest first, so a test
    can see which exchanges were folded (and that none was dropped)."""
    earlier = ""
    if "Brief so far (prune" in prompt:
        earlier = prompt.split(":\n", 1)[1].split("\n\nNew exchange:", 1)[0]
    done = earlier.partition("Done: ")[2].splitlines()[0] if "Done: " in earlier else ""
    ask = prompt.split("New exchange:\nUser: ", 1)[-1].split("\n", 1)[0]
    return f"Goal: chat\nDone: {done + ' | ' if done else ''}{ask}"


def _log_write(title: str, ctx: ToolContext) -> None:
    path = os.environ.get("GOLIATH_WRITES_FILE")
    if path:
        with open(path, "a", encoding="utf-8") as file:
            file.write(f"{title}\t{ctx.idempotency_key}\n")


def make_agent(created: list[str] | None = None) -> Agent:
    tasks: list[str] = [] if created is None else created

    @tool(writes=True)
    def create_task(title: str, ctx: ToolContext) -> dict[str, Any]:
        """Add a task."""
        tasks.append(title)
        _log_write(title, ctx)
        return {"ok": True, "title": title}

    @tool(writes=True)
    async def log_slowly(title: str, ctx: ToolContext) -> dict[str, Any]:
        """Write a log line, slowly."""
        tasks.append(title)
        _log_write(title, ctx)
        await trio.sleep(SLOW_TOOL_SECONDS)
        return {"ok": True, "title": title}

    @tool
    async def slow_job() -> str:
        """Take a long time."""
        await trio.sleep(SLOW_TOOL_SECONDS)
        return "finished"

    return Agent(
        FakeModel(scripted_reply),
        tools=[create_task, log_slowly, slow_job],
        memory=lambda cid: InMemory(),
    )
