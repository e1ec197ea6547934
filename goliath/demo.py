"""A small task-list agent's tools: what ``goliath run`` uses when no ``--tools`` are given.

The data lives in the process and starts the same every time, so a demo is repeatable.
"""

from __future__ import annotations

from typing import Any

from .tools import Tool, tool

__all__ = ["task_list_tools"]


def task_list_tools() -> list[Tool]:
    """Fresh tools over a fresh list: ``list_tasks``, ``create_task``, ``complete_task``."""
    tasks: list[dict[str, Any]] = [
        {"id": 1, "title": "Buy milk", "done": False},
        {"id": 2, "title": "Call mom", "done": False},
        {"id": 3, "title": "Book dentist", "done": True},
    ]

    @tool
    def list_tasks() -> list[dict[str, Any]]:
        """List every task with its id and whether it is done."""
        return [dict(task) for task in tasks]

    @tool(writes=True)
    def create_task(title: str) -> dict[str, Any]:
        """Add a task to the list.

        Args:
            title: What needs doing, in a few words.
        """
        task = {"id": max(t["id"] for t in tasks) + 1, "title": title, "done": False}
        tasks.append(task)
        return {"ok": True, **task}

    @tool(writes=True, requires=["list_tasks"])
    def complete_task(task_id: int) -> dict[str, Any]:
        """Mark a task as done.

        Args:
            task_id: The id of the task, as list_tasks shows it.
        """
        for task in tasks:
            if task["id"] == task_id:
                task["done"] = True
                return {"ok": True, **task}
        raise LookupError(f"there is no task with id {task_id}")

    return [list_tasks, create_task, complete_task]
