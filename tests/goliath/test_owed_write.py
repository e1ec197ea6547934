"""The write a check-then-act ask owes: planned when the planner would answer after the check,
and run only where the harness decides the condition from what the reads found."""

from __future__ import annotations

from typing import Any

from goliath import Agent, Tool, tool
from goliath.events import CheckEvent
from goliath.testing import FakeModel


def checks(result: Any) -> list[tuple[str, bool]]:
    return [(e.check, e.passed) for e in result.trace if isinstance(e, CheckEvent)]


def lock_tools(front_locked: bool) -> tuple[list[str], list[Tool]]:
    done: list[str] = []

    @tool
    def list_locks() -> list[dict[str, Any]]:
        """The door locks and whether each is locked."""
        return [
            {"id": "lock-1", "name": "Front door", "locked": front_locked},
            {"id": "lock-2", "name": "Back door", "locked": True},
        ]

    @tool(writes=True)
    def set_lock(lock_id: str, locked: bool) -> str:
        """Lock or unlock a door.

        Args:
            lock_id: The lock's id.
            locked: True to lock.
        """
        done.append(lock_id)
        return "ok"

    return done, [list_locks, set_lock]


async def any_door_turn(front_locked: bool) -> tuple[list[str], Any, FakeModel]:
    locked, tools = lock_tools(front_locked)
    model = FakeModel(
        [
            {"json": {"call": "list_locks", "then": "answer_the_user"}},
            {"json": {"lock_id": "lock-1", "locked": True}},
            {"text": "The front door is locked now."},
        ]
    )
    async with Agent(model, tools=tools, auto_approve=True) as agent:
        result = await agent.run("Before bed, are any doors unlocked? Lock them if so.")
    return locked, result, model


async def test_a_check_answered_alone_still_makes_the_change_its_condition_allows() -> None:
    locked, result, model = await any_door_turn(front_locked=False)
    assert locked == ["lock-1"]
    assert checks(result) == [("state", True)]
    assert [call.label for call in model.calls] == ["conductor", "arguments", "answer"]


async def test_the_owed_change_is_withheld_when_the_state_rules_it_out() -> None:
    locked, result, model = await any_door_turn(front_locked=True)
    assert locked == []
    assert checks(result) == [("state", False)]
    assert "condition is not met" in model.calls[-1].prompt


def reminder_tools(listed: str) -> tuple[list[str], list[Tool]]:
    added: list[str] = []

    @tool
    def list_reminders() -> list[dict[str, Any]]:
        """The user's reminders."""
        return [
            {"id": "r-1", "title": "Water the plants", "due": "Friday"},
            {"id": "r-2", "title": listed, "due": "Sunday"},
        ]

    @tool(writes=True)
    def add_reminder(title: str, day: str) -> str:
        """Add a reminder.

        Args:
            title: What to be reminded of.
            day: The day.
        """
        added.append(title)
        return "added"

    return added, [list_reminders, add_reminder]


ASK = (
    "Check whether there's a reminder to get passport photos; if there isn't, set one for Saturday."
)


async def reminder_turn(listed: str) -> tuple[list[str], Any, FakeModel]:
    added, tools = reminder_tools(listed)
    model = FakeModel(
        [
            {"json": {"call": "list_reminders", "then": "answer_the_user"}},
            {"json": {"title": "Get passport photos", "day": "Saturday"}},
            {"text": "Done."},
        ]
    )
    async with Agent(model, tools=tools, auto_approve=True) as agent:
        result = await agent.run(ASK)
    return added, result, model


async def test_an_item_plainly_absent_from_the_list_is_added() -> None:
    added, _result, _model = await reminder_turn(listed="Book the dentist")
    assert added == ["Get passport photos"]


async def test_an_item_already_listed_is_not_added_and_the_answer_is_told() -> None:
    added, _result, model = await reminder_turn(listed="Get passport photos")
    assert added == []
    assert "already there" in model.calls[-1].prompt


async def test_a_condition_the_harness_cannot_read_leaves_the_planners_answer() -> None:
    sent: list[str] = []

    @tool
    def list_events() -> list[dict[str, Any]]:
        """Today's events."""
        return [{"title": "Dinner with Ana", "time": "20:00"}]

    @tool(writes=True)
    def send_message(to: str, text: str) -> str:
        """Send a text message.

        Args:
            to: Who gets it.
            text: The message.
        """
        sent.append(to)
        return "sent"

    model = FakeModel(
        [
            {"json": {"call": "list_events", "then": "answer_the_user"}},
            {"json": {"to": "Sam", "text": "Come over tonight?"}},
            {"text": "You have dinner with Ana at 20:00."},
        ]
    )
    async with Agent(model, tools=[list_events, send_message], auto_approve=True) as agent:
        result = await agent.run("If I'm free tonight, text Sam to come over.")
    assert sent == []
    assert "arguments" in [call.label for call in model.calls]  # the write was owed, then dropped
    assert result.text == "You have dinner with Ana at 20:00."
    assert "Nothing was changed" not in model.calls[-1].prompt  # no note: the answer stands


async def test_an_ask_with_no_condition_is_answered_with_no_write_planned() -> None:
    added, tools = reminder_tools("Book the dentist")
    model = FakeModel(
        [
            {"json": {"call": "list_reminders", "then": "answer_the_user"}},
            {"text": "Two reminders."},
        ]
    )
    async with Agent(model, tools=tools, auto_approve=True) as agent:
        result = await agent.run("What reminders do I have?")
    assert added == []
    assert result.text == "Two reminders."
    assert [call.label for call in model.calls] == ["conductor", "answer"]


def inbox() -> tuple[list[int], list[Tool]]:
    archived: list[int] = []

    @tool
    def list_emails() -> list[dict[str, Any]]:
        """The newest emails."""
        return [{"id": 1, "from": "Deals Weekly", "subject": "This week's offers"}]

    @tool(writes=True)
    def archive_email(email_id: int) -> str:
        """Archive one email.

        Args:
            email_id: The email's id.
        """
        archived.append(email_id)
        return "archived"

    return archived, [list_emails, archive_email]


async def test_a_question_the_change_hangs_on_is_checked_like_an_if() -> None:
    archived, tools = inbox()
    model = FakeModel(
        [
            {"json": {"call": "list_emails", "then": "archive_email"}},
            {"json": {"call": "archive_email"}},
            {"json": {"email_id": 1}},
            {"json": {"go": "no"}},
            {"text": "The newsletter is not from the bank, so nothing was archived."},
        ]
    )
    async with Agent(model, tools=tools, auto_approve=True, condition_check=True) as agent:
        result = await agent.run("newsletter from the bank? then archive it")
    assert archived == []
    assert checks(result) == [("condition", False)]


# ------------------------------------------------------------ the condition's own look


def home() -> tuple[list[tuple[str, bool]], list[Tool]]:
    switched: list[tuple[str, bool]] = []

    @tool
    def get_thermostat() -> dict[str, Any]:
        """Read the thermostat."""
        return {"mode": "heat", "current_c": 18.5}

    @tool
    def list_lights() -> list[dict[str, Any]]:
        """The lights and whether each is on."""
        return [
            {"id": "light-1", "name": "Kitchen ceiling", "on": False},
            {"id": "light-6", "name": "Porch light", "on": True},
        ]

    @tool(writes=True)
    def set_light(name: str, on: bool) -> str:
        """Switch one light on or off.

        Args:
            name: The light.
            on: True for on.
        """
        switched.append((name, on))
        return "ok"

    return switched, [get_thermostat, list_lights, set_light]


async def test_a_condition_on_what_no_read_showed_reads_it_first() -> None:
    switched, tools = home()
    model = FakeModel(
        [
            {"json": {"call": "get_thermostat", "then": "set_light"}},
            {"json": {"name": "Porch light", "on": False}},  # the stray read was skipped
            {"json": {"call": "set_light"}},
            {"json": {"name": "Porch light", "on": False}},
            {"text": "The porch light is off now."},
        ]
    )
    async with Agent(model, tools=tools, auto_approve=True) as agent:
        result = await agent.run("Did I leave the porch light on? Turn it off if so.")
    assert [step.tool for step in result.steps if step.kind == "tool"] == [
        "list_lights",
        "set_light",
    ]
    assert switched == [("Porch light", False)]
    assert checks(result) == [("stray", False), ("state", True)]


def test_the_look_is_only_for_what_the_condition_names() -> None:
    from goliath.turn.condition import condition_look

    _switched, tools = home()
    set_light = tools[2]
    look = condition_look(set_light, tools, "if the porch light is on, switch it off", [])
    assert look is not None and look.name == "list_lights"
    # the light is the change, not the condition
    assert condition_look(set_light, tools, "if it's below 19, turn on the porch light", []) is None
    # no condition at all
    assert condition_look(set_light, tools, "turn off the porch light", []) is None


async def test_a_write_for_a_door_already_locked_moves_to_the_one_that_is_not() -> None:
    locked, tools = lock_tools(front_locked=False)
    model = FakeModel(
        [
            {"json": {"call": "list_locks", "then": "set_lock"}},
            {"json": {"call": "set_lock"}},
            {"json": {"lock_id": "lock-2", "locked": True}},  # the back door: locked already
            {"text": "I locked the front door."},
        ]
    )
    async with Agent(model, tools=tools, auto_approve=True) as agent:
        result = await agent.run("Before bed, are any doors unlocked? Lock them if so.")
    assert locked == ["lock-1"]
    assert checks(result) == [("state", True)]
    assert result.steps[1].input == {"lock_id": "lock-1", "locked": True}


def test_the_write_moves_only_to_the_one_row_the_condition_is_true_of() -> None:
    from goliath.records import StepRecord
    from goliath.turn.flag import other_row

    def read(rows: str) -> list[StepRecord]:
        return [StepRecord(index=0, kind="tool", brief="", tool="list_locks", result=rows)]

    one = read(
        "1. id: lock-1, name: Front door, locked: false\n"
        "2. id: lock-2, name: Back door, locked: true"
    )
    two = read(
        "1. id: lock-1, name: Front door, locked: false\n"
        "2. id: lock-2, name: Back door, locked: false\n"
        "3. id: lock-3, name: Garage, locked: true"
    )
    ask = "are any doors unlocked? lock them if so"
    assert other_row({"lock_id": "lock-2", "locked": True}, ask, one) == {
        "lock_id": "lock-1",
        "locked": True,
    }
    assert other_row({"door": "Back door", "locked": True}, ask, one) == {
        "door": "Front door",
        "locked": True,
    }
    # the named door is the unlocked one: nothing to move
    assert other_row({"lock_id": "lock-1", "locked": True}, ask, one) is None
    # two doors unlocked: which one is not the harness's to pick
    assert other_row({"lock_id": "lock-3", "locked": True}, ask, two) is None
    # no "any": "if the back door is unlocked, lock it" is about the back door alone
    assert (
        other_row({"lock_id": "lock-2", "locked": True}, "if it's unlocked, lock it", one) is None
    )
    # the ask names its row: the write is about that one, whatever the read shows
    named = "is the back door unlocked by any chance? lock it if so"
    assert other_row({"lock_id": "lock-2", "locked": True}, named, one) is None
    also = "are any doors unlocked? if so, lock the back door"
    assert other_row({"lock_id": "lock-2", "locked": True}, also, one) is None
    # the one unlocked row is no door: the ask is not about it
    window = read(
        "1. id: lock-1, name: Shed window, locked: false\n"
        "2. id: lock-2, name: Back door, locked: true"
    )
    assert other_row({"lock_id": "lock-2", "locked": True}, ask, window) is None
