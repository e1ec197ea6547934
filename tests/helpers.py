"""Shared test helpers: small tool sets and script builders for the scripted model."""

from __future__ import annotations

from typing import Any

from goliath import Tool, ToolContext, tool


def plan(
    kind: str = "answer", tool_name: str | None = None, brief: str = "reply", why: str | None = None
) -> dict[str, Any]:
    data: dict[str, Any] = {"kind": kind, "brief": brief}
    if tool_name is not None:
        data["tool"] = tool_name
    if why is not None:
        data["why"] = why
    return {"json": data}


def use(tool_name: str, brief: str = "do it") -> dict[str, Any]:
    return plan("tool", tool_name, brief)


def answer(text: str) -> dict[str, Any]:
    return {"text": text}


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
