"""A read filtered by done or not, the way the ask says it (goliath/turn/status.py;
docs/design.md, "Done, as the ask says it")."""

from __future__ import annotations

from typing import Any, Literal

from goliath import Agent, tool
from goliath.testing import FakeModel
from goliath.turn.status import asked_done

from ..spec.helpers import args, text


@tool
def list_tasks(status: Literal["open", "done", "all"] = "open") -> list[dict[str, Any]]:
    """The user's tasks.

    Args:
        status: open (not done yet), done, or all.
    """
    tasks = [
        {"title": "Renew the car insurance", "done": True},
        {"title": "Book flights", "done": False},
    ]
    return [task for task in tasks if status == "all" or task["done"] == (status == "done")]


@tool
def list_reminders(day: str | None = None, include_done: bool = False) -> list[str]:
    """The user's reminders.

    Args:
        day: One day only.
        include_done: Show the done ones too.
    """
    return []


@tool(writes=True)
def complete_task(title: str) -> str:
    """Mark a task done.

    Args:
        title: The task.
    """
    return "ok"


def test_an_ask_about_finished_items_reads_the_done_ones() -> None:
    for ask in (
        "what have I already ticked off?",
        "Which tasks did I finish recently?",
        "show me my completed tasks",
        "show me the done ones",
        "what did I get done this week?",
    ):
        assert asked_done(list_tasks, {"status": "open"}, ask) == {"status": "done"}, ask
    assert asked_done(list_reminders, {}, "which reminders have I completed?") == {
        "include_done": True
    }
    # the done ones beside the others: every state
    assert asked_done(list_tasks, {"status": "open"}, "show me all tasks including completed") == {
        "status": "all"
    }


def test_only_a_state_filter_is_set_and_a_negative_flag_is_left_alone() -> None:
    @tool
    def list_todos(
        hide_completed: bool = True, sort_by: Literal["due", "completed"] = "due"
    ) -> list[str]:
        """The to-dos.

        Args:
            hide_completed: Leave out the completed ones.
            sort_by: The order.
        """
        return []

    assert asked_done(list_todos, {}, "which to-dos did I complete?") is None


def test_open_items_a_condition_or_a_change_keep_the_worker_s_filter() -> None:
    for ask in (
        "what haven't I finished yet?",
        "which tasks are not done?",
        "what's still left to do?",
        "if the report is done, tell Theo",
        "mark the report as done",
        "I finished the report, tick it off",
        "the report needs to be done by Friday",
        "what's on my list?",
        # statements are completions to make: their look-up lists the open items
        "prescription - done",
        "The pull request one is done now.",
        "finished the Diego one, you can check it off",
        "Done watering the plant, you can clear it.",
        # one item's state: a read of the open ones answers it
        "is the report done?",
        "did I check in for my flight?",
        "what did I do with the receipt?",
    ):
        assert asked_done(list_tasks, {"status": "open"}, ask) is None, ask
    # a write is never touched; the filter already so changes nothing
    assert asked_done(complete_task, {"title": "x"}, "which did I finish?") is None
    assert asked_done(list_tasks, {"status": "done"}, "what have I finished?") is None


async def test_the_read_runs_with_the_done_filter() -> None:
    model = FakeModel(
        [
            {"json": {"call": "list_tasks", "then": "answer_the_user"}},
            args(status="open"),
            text("You finished renewing the car insurance."),
        ]
    )
    async with Agent(model, tools=[list_tasks, complete_task]) as agent:
        result = await agent.run("Which tasks did I finish recently?")
    assert result.steps[0].input == {"status": "done"}
    assert "car insurance" in (result.steps[0].result or "").lower()
