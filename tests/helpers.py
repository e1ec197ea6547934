"""Shared test helpers: small tool sets and script builders for the scripted model."""

from __future__ import annotations

from typing import Any

from goliath import Tool, ToolContext, tool
from goliath.schema import DONE, HAND_OFF


def use(tool_name: str) -> dict[str, Any]:
    """A conductor reply choosing ``tool_name`` alone (``{"call": NAME}``): as a turn's first
    plan too, so the turn asks again for each next step."""
    return {"json": {"call": tool_name}}


def answer_plan() -> dict[str, Any]:
    """A conductor reply that answers now."""
    return {"json": {"call": DONE}}


def hand_off() -> dict[str, Any]:
    """A conductor reply that hands the turn over (escalates ``conductor-asked``)."""
    return {"json": {"call": HAND_OFF}}


def answer(text: str) -> dict[str, Any]:
    return {"text": text}


def one_call(tool_name: str, arguments: dict[str, Any], text: str) -> Any:
    """A script by stage: the plan calls ``tool_name`` once, its arguments are always
    ``arguments``, then the turn answers ``text`` (any number of checks between)."""
    plans = [{"call": tool_name}, {"call": DONE}]

    def reply(request: Any) -> dict[str, Any]:
        if request.label == "conductor":
            return {"json": plans.pop(0) if plans else {"call": DONE}}
        if request.label == "arguments":
            return {"json": dict(arguments)}
        return {"text": text}

    return reply


def task_tools() -> tuple[list[dict[str, Any]], list[Tool]]:
    """A fresh task list and its tools: list_tasks (read) and create_task (write)."""
    tasks: list[dict[str, Any]] = [{"title": "Buy milk"}, {"title": "Call mom"}]

    @tool
    def list_tasks() -> list[dict[str, Any]]:
        """List the tasks."""
        return [dict(task) for task in tasks]

    @tool(writes=True)
    def create_task(title: str, ctx: ToolContext) -> dict[str, Any]:
        """Add a task.

        Args:
            title: What to do.
        """
        tasks.append({"title": title})
        return {"ok": True, "title": title}

    return tasks, [list_tasks, create_task]
