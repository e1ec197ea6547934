"""A write's numbers come from the user or a result: a value conjured from nothing is asked for,
never written (goliath/turn/given.py; docs/design.md, "What missing means")."""

from __future__ import annotations

from typing import Any, Literal

import pytest

from goliath import tool
from goliath.records import StepRecord
from goliath.testing import FakeModel
from goliath.tools import Tool
from goliath.turn.given import (
    copied_ask,
    gives_day,
    gives_number,
    unchanged_values,
    undictated_texts,
    unnamed_filters,
    unsaid_values,
)

from ..spec.helpers import answer_plan, args, run_turn, text, use


class Home:
    """An oven, an alarm clock and a contact book, recording what each write was given."""

    def __init__(self) -> None:
        self.writes: list[tuple[str, dict[str, Any]]] = []
        home = self

        @tool(writes=True)
        def set_oven(temperature_c: int, timer_minutes: int | None = None) -> str:
            """Heat the oven.

            Args:
                temperature_c: The temperature in °C.
                timer_minutes: A timer to set too.
            """
            home.writes.append(("set_oven", {"temperature_c": temperature_c}))
            return "on"

        @tool(writes=True)
        def set_alarm(time: str, day: str | None = None) -> str:
            """Set an alarm.

            Args:
                time: HH:MM, 24-hour.
                day: The day, if not the next one.
            """
            home.writes.append(("set_alarm", {"time": time, "day": day}))
            return "set"

        @tool(writes=True)
        def add_task(title: str, due: str, priority: int | None = None) -> str:
            """Add a task.

            Args:
                title: What to do.
                due: The day it is due, 2025-03-14.
                priority: 1 (high) to 3 (low).
            """
            home.writes.append(("add_task", {"title": title, "due": due}))
            return "added"

        @tool
        def oven_recipes(dish: str) -> list[dict[str, Any]]:
            """Oven settings for a dish.

            Args:
                dish: The dish.
            """
            return [{"dish": dish, "temperature_c": 220}]

        @tool
        def list_lights(
            room: str | None = None, mode: Literal["on", "off", "any"] = "any"
        ) -> list[dict[str, Any]]:
            """The lights, in one room or all.

            Args:
                room: Only this room's lights.
                mode: Only lights that are on, or off.
            """
            home.reads.append(("list_lights", {"room": room, "mode": mode}))
            lights = [("Sofa lamp", "Living room"), ("Porch light", "Outside")]
            return [{"name": n, "room": r} for n, r in lights if room in (None, r)]

        @tool
        def shop_list(name: str = "Groceries") -> list[str]:
            """One shopping list.

            Args:
                name: Groceries, Pharmacy or Hardware.
            """
            return ["milk"]

        @tool
        def list_tasks() -> list[dict[str, Any]]:
            """The open tasks."""
            return [
                {"id": 101, "title": "Pick up prescription", "due": "2025-03-10"},
                {"id": 102, "title": "Submit expense report", "due": "2025-03-11"},
            ]

        @tool(writes=True)
        def reschedule_task(title: str, due: str) -> str:
            """Give a task a new due date.

            Args:
                title: The task.
                due: The new due date, 2025-03-14.
            """
            home.writes.append(("reschedule_task", {"title": title, "due": due}))
            return "moved"

        @tool(writes=True)
        def cancel_task(title: str, due: str) -> str:
            """Cancel a task.

            Args:
                title: The task.
                due: The day it is due, 2025-03-14.
            """
            home.writes.append(("cancel_task", {"title": title, "due": due}))
            return "cancelled"

        @tool(writes=True)
        def send_text(to: str, text: str) -> str:
            """Send a text message.

            Args:
                to: Whom to.
                text: What it says.
            """
            home.writes.append(("send_text", {"to": to, "text": text}))
            return "sent"

        self.reads: list[tuple[str, dict[str, Any]]] = []
        self.tools: list[Tool] = [
            set_oven,
            set_alarm,
            add_task,
            oven_recipes,
            list_lights,
            shop_list,
            list_tasks,
            reschedule_task,
            send_text,
            cancel_task,
        ]

    def tool(self, name: str) -> Tool:
        return next(item for item in self.tools if item.name == name)


@pytest.fixture
def home() -> Home:
    return Home()


def step(result: str) -> StepRecord:
    return StepRecord(index=0, kind="tool", brief="", tool="oven_recipes", result=result)


# ---------------------------------------------------------------- the rule alone


@pytest.mark.parametrize(
    ("said", "values", "unsaid"),
    [
        ("preheat the oven", {"temperature_c": 200}, ["temperature_c"]),
        ("preheat the oven to 180", {"temperature_c": 180}, []),
        ("preheat the oven to two hundred", {"temperature_c": 200}, []),
        ("preheat the oven to 350 F", {"temperature_c": 177}, []),  # converted: the user's
    ],
)
def test_a_number_is_unsaid_only_when_the_user_gave_none(
    home: Home, said: str, values: dict[str, Any], unsaid: list[str]
) -> None:
    assert unsaid_values(home.tool("set_oven"), values, [], [said], said) == unsaid


def test_a_number_a_result_showed_is_given(home: Home) -> None:
    oven = home.tool("set_oven")
    found = [step("dish: lasagne | temperature_c: 220")]
    assert unsaid_values(oven, {"temperature_c": 220}, found, ["heat it for lasagne"], "") == []
    assert unsaid_values(oven, {"temperature_c": 200}, found, ["heat it for lasagne"], "") == [
        "temperature_c"
    ]


def test_a_number_from_earlier_in_the_conversation_is_given(home: Home) -> None:
    seen = ["do it again", "The oven is at 190 °C."]
    assert unsaid_values(home.tool("set_oven"), {"temperature_c": 190}, [], seen, "") == []


def test_digits_in_a_string_are_checked_too(home: Home) -> None:
    alarm = home.tool("set_alarm")
    ask = "wake me up tomorrow"
    assert unsaid_values(alarm, {"time": "07:00"}, [], [ask], ask) == ["time"]
    ask = "wake me up tomorrow at 7"
    assert unsaid_values(alarm, {"time": "07:00"}, [], [ask], ask) == []


def test_a_date_from_a_day_word_is_given_and_one_from_nothing_is_not(home: Home) -> None:
    task = home.tool("add_task")
    values = {"title": "pay rent", "due": "2025-03-14"}
    for ask in ("add pay rent for Friday", "pay rent, due tomorrow"):
        assert unsaid_values(task, values, [], [ask], ask) == []
    ask = "add pay rent"
    assert unsaid_values(task, values, [], [ask], ask) == ["due"]
    # the day of the month said earlier in the conversation grounds the date
    seen = [ask, "Rent is due on the 14th."]
    assert unsaid_values(task, values, [], seen, ask) == []


def test_optional_values_and_reads_are_not_checked(home: Home) -> None:
    ask = "preheat to 180"
    oven = home.tool("set_oven")
    assert unsaid_values(oven, {"temperature_c": 180, "timer_minutes": 25}, [], [ask], ask) == []
    recipes = home.tool("oven_recipes")
    assert unsaid_values(recipes, {"dish": "pie 3000"}, [], ["oven settings"], "") == []


def test_number_and_day_words() -> None:
    assert gives_number("set a timer for half an hour")
    assert gives_number("at noon")
    assert not gives_number("preheat the oven")
    assert gives_day("on Friday") and gives_day("tmrw")
    assert not gives_day("add pay rent")


# ---------------------------------------------------------------- in a turn


async def test_a_write_with_an_invented_number_asks_instead_of_writing(home: Home) -> None:
    model = FakeModel(
        [
            use("set_oven"),
            args(temperature_c=200),
            answer_plan(),
            text("What temperature should I set?"),
        ]
    )
    result = await run_turn(model, "preheat the oven", tools=home.tools, auto_approve=True)
    assert home.writes == []
    assert result.steps[0].skip_reason == "missing"
    assert "temperature_c" in (result.steps[0].result or "")
    assert result.text == "What temperature should I set?"


async def test_a_write_with_the_number_the_user_said_runs(home: Home) -> None:
    model = FakeModel(
        [use("set_oven"), args(temperature_c=180), answer_plan(), text("The oven is heating.")]
    )
    result = await run_turn(model, "preheat the oven to 180", tools=home.tools, auto_approve=True)
    assert home.writes == [("set_oven", {"temperature_c": 180})]
    assert result.steps[0].skipped is False


# ---------------------------------------------------------------- optional numbers, copies


async def test_an_optional_number_nobody_gave_is_left_out(home: Home) -> None:
    model = FakeModel(
        [
            use("add_task"),
            args(title="pay rent", due="2025-03-14", priority=1),
            answer_plan(),
            text("Added pay rent."),
        ]
    )
    result = await run_turn(model, "add pay rent for Friday", tools=home.tools)
    assert result.steps[0].input == {"title": "pay rent", "due": "2025-03-14", "priority": None}


def test_a_value_that_copies_the_request_is_found(home: Home) -> None:
    task = home.tool("add_task")
    ask = "put dish soap on my shopping list for friday"
    assert copied_ask(task, {"title": ask, "due": "friday"}, ask) == ["title"]
    assert copied_ask(task, {"title": "dish soap", "due": "friday"}, ask) == []
    # only the words naming the kind of thing the tool makes
    ask = "Create a task due Wednesday."
    assert copied_ask(task, {"title": "Create a task", "due": "Wednesday"}, ask) == ["title"]
    # one word is enough for an add: "Reminder" says nothing of what to be reminded of
    assert copied_ask(task, {"title": "Task", "due": "Wednesday"}, ask) == ["title"]
    assert copied_ask(task, {"title": "Wednesday", "due": "Wednesday"}, ask) == []
    # a short request may be the value itself; the message of a request is not its copy
    assert copied_ask(task, {"title": "buy milk", "due": "today"}, "buy milk") == []
    alarm = home.tool("set_alarm")
    ask = "set an alarm at 7 for the morning run please"
    assert copied_ask(alarm, {"time": "07:00", "day": ask}, ask) == []
    assert copied_ask(alarm, {"time": "07:00", "day": ask}, ask, optional=True) == ["day"]


async def test_a_request_copied_into_a_required_value_is_asked_again_once(home: Home) -> None:
    ask = "put pay the rent on my list for friday"
    model = FakeModel(
        [
            use("add_task"),
            args(title=ask, due="2025-03-14"),
            args(title="pay the rent", due="2025-03-14"),
            answer_plan(),
            text("Added pay the rent."),
        ]
    )
    result = await run_turn(model, ask, tools=home.tools)
    assert home.writes == [("add_task", {"title": "pay the rent", "due": "2025-03-14"})]
    retry = [call for call in model.calls if call.label == "arguments"][1]
    assert "copied the request into title" in retry.prompt
    assert result.text == "Added pay the rent."


async def test_a_request_copied_twice_is_asked_of_the_user(home: Home) -> None:
    ask = "Create a task due Friday."
    model = FakeModel(
        [
            use("add_task"),
            args(title="Create a task", due="2025-03-14"),
            args(title="Create a task", due="2025-03-14"),
            answer_plan(),
            text("What is the task?"),
        ]
    )
    result = await run_turn(model, ask, tools=home.tools)
    assert home.writes == []
    assert result.steps[0].skip_reason == "missing"
    assert "title" in (result.steps[0].result or "")


async def test_an_optional_text_that_copies_the_request_is_left_out(home: Home) -> None:
    ask = "set an alarm at 6:30 tomorrow for the early train"
    model = FakeModel(
        [use("set_alarm"), args(time="06:30", day=ask), answer_plan(), text("Set for 06:30.")]
    )
    result = await run_turn(model, ask, tools=home.tools)
    assert home.writes == [("set_alarm", {"time": "06:30", "day": None})]
    assert result.text == "Set for 06:30."


# ---------------------------------------------------------------- a read's filters


def test_a_filter_nobody_named_is_found(home: Home) -> None:
    lights = home.tool("list_lights")
    guessed = {"room": "Living room", "mode": "on"}
    assert unnamed_filters(lights, guessed, [], ["which lights are on?"]) == ["room"]
    # named by the user, in any form, or shown by an earlier result: kept
    assert unnamed_filters(lights, guessed, [], ["are the living-room lamps on?"]) == []
    assert unnamed_filters(lights, {"room": "Liv"}, [], ["the living-room lamps?"]) == []
    listed = StepRecord(index=0, kind="tool", brief="", tool="rooms", result="1. Living room")
    assert unnamed_filters(lights, guessed, [listed], ["which lights are on?"]) == []
    # a day the model resolved, an enum, a selector with a default of its own, a write
    assert unnamed_filters(home.tool("shop_list"), {"name": "Pharmacy"}, [], ["chemist?"]) == []
    assert unnamed_filters(lights, {"room": "Monday 10 March"}, [], ["lights?"]) == []
    assert unnamed_filters(home.tool("set_alarm"), {"day": "Sunday"}, [], ["alarm"]) == []


async def test_a_read_runs_without_the_filter_nobody_named(home: Home) -> None:
    model = FakeModel(
        [
            use("list_lights"),
            args(room="Living room", mode="on"),
            answer_plan(),
            text("The sofa lamp and the porch light."),
        ]
    )
    result = await run_turn(model, "which lights are on right now?", tools=home.tools)
    assert home.reads == [("list_lights", {"room": None, "mode": "on"})]
    assert "Porch light" in (result.steps[0].result or "")


async def test_a_read_keeps_the_filter_the_user_named(home: Home) -> None:
    model = FakeModel(
        [use("list_lights"), args(room="Outside"), answer_plan(), text("The porch light.")]
    )
    await run_turn(model, "what lights are on outside?", tools=home.tools)
    assert home.reads == [("list_lights", {"room": "Outside", "mode": "any"})]


# ---------------------------------------------------------------- a change that changes nothing

TASKS = (
    "1. id: 101, title: Pick up prescription, due: 2025-03-10\n"
    "2. id: 102, title: Submit expense report, due: 2025-03-11"
)


def test_a_value_copied_from_the_items_own_state_is_found(home: Home) -> None:
    move = home.tool("reschedule_task")
    listed = [StepRecord(index=0, kind="tool", brief="", tool="list_tasks", result=TASKS)]
    same = {"title": "Submit expense report", "due": "2025-03-11"}
    assert unchanged_values(move, same, listed, "reschedule the expense report") == ["due"]
    # a new date, a date the user said, another item's date: a change
    later = {"title": "Submit expense report", "due": "2025-03-14"}
    assert unchanged_values(move, later, listed, "move the expense report to Friday") == []
    assert unchanged_values(move, same, listed, "move the expense report to 2025-03-11") == []
    other = {"title": "Submit expense report", "due": "2025-03-10"}
    assert unchanged_values(move, other, listed, "move the expense report to today") == []
    # a number in the user's words, a number only inside another token: a change
    assert unchanged_values(move, same, listed, "move the expense report, 2 days on") == []
    assert unchanged_values(move, {"title": "Pick up prescription", "due": "3"}, listed, "") == []
    # a value naming the item (not a new one by its name or description) is no copy
    cancel = home.tool("cancel_task")
    assert unchanged_values(cancel, same, listed, "cancel the expense report") == []
    # a single record is one item
    record = "title: Submit expense report\ndue: 2025-03-11"
    one = [StepRecord(index=0, kind="tool", brief="", tool="get_task", result=record)]
    assert unchanged_values(move, same, one, "reschedule the expense report") == ["due"]


async def test_a_write_that_would_change_nothing_asks_for_the_new_value(home: Home) -> None:
    model = FakeModel(
        [
            {"json": {"call": "list_tasks", "then": "reschedule_task"}},
            use("reschedule_task"),
            args(title="Submit expense report", due="2025-03-11"),
            text("When should it be due?"),
        ]
    )
    result = await run_turn(model, "reschedule the expense report task", tools=home.tools)
    assert home.writes == []
    assert result.steps[1].tool == "reschedule_task"
    assert result.steps[1].skip_reason == "missing"
    assert "due" in (result.steps[1].result or "")
    assert result.text == "When should it be due?"


# ---------------------------------------------------------------- a message nobody dictated


@pytest.mark.parametrize(
    ("ask", "to", "text", "undictated"),
    [
        ("send a text to Yuki", "Yuki", "Hi Yuki, how are you?", ["text"]),
        ("can you message my sister", "sister", "Hello!", ["text"]),
        ("text Yuki that dinner is at eight", "Yuki", "Dinner is at eight!", []),
        ("text yuki yes", "Yuki", "Yes", []),  # the message is the user's one word
        ("tell Yuki I'm running late", "Yuki", "Sorry, I'm running a bit late.", []),
        ("Text Yuki Happy Birthday", "Yuki", "Happy birthday, Yuki! Have a great day.", []),
        ("reply to yuki's text", "Yuki", "Hi Yuki, sounds good to me!", ["text"]),
    ],
)
def test_a_message_the_user_never_dictated_is_found(
    home: Home, ask: str, to: str, text: str, undictated: list[str]
) -> None:
    send = home.tool("send_text")
    found = undictated_texts(send, {"to": to, "text": text}, [], [ask], ask)
    assert found == undictated


def test_a_message_drawn_from_what_the_turn_found_is_the_users(home: Home) -> None:
    send = home.tool("send_text")
    ask = "send Yuki Diego's email"
    found = StepRecord(
        index=0, kind="tool", brief="", tool="find", result="name: Diego, email: diego@example.com"
    )
    values = {"to": "Yuki", "text": "Diego's email is diego@example.com"}
    assert undictated_texts(send, values, [found], [ask], ask) == []


@tool(writes=True)
def reply_to_email(email_id: int, body: str) -> str:
    """Reply to an email.

    Args:
        email_id: The email's id.
        body: What the reply says.
    """
    return "sent"


_HANNAH = "Hi Jordan, could you share a first draft of the onboarding guide by Wednesday? Thanks"
_INBOX = [
    StepRecord(
        index=0,
        kind="tool",
        brief="",
        tool="search_emails",
        input={"query": "Hannah"},
        result="1. id: 2, from: Hannah Weber, subject: Onboarding guide\n"
        "2. id: 5, from: Noor Haddad, subject: Lunch at Baan Thai?",
    ),
    StepRecord(
        index=1,
        kind="tool",
        brief="",
        tool="read_email",
        input={"email_id": 2},
        result=f"From: Hannah Weber | Subject: Onboarding guide | {_HANNAH}",
    ),
]


@pytest.mark.parametrize(
    ("body", "undictated"),
    [
        # the reply made of the email it answers: nothing the user said
        ("Hi Hannah, I will share a first draft of the onboarding guide by Wednesday.", ["body"]),
        ("Hi Jordan, could you share a first draft of the onboarding guide? Thanks", ["body"]),
    ],
)
def test_a_reply_made_of_the_item_it_answers_was_not_dictated(
    body: str, undictated: list[str]
) -> None:
    ask = "reply to Hannah's email"
    found = undictated_texts(reply_to_email, {"email_id": 2, "body": body}, _INBOX, [ask], ask)
    assert found == undictated


def test_a_reply_may_pass_on_what_the_user_saw_before() -> None:
    ask = "reply to Hannah's email with it"
    before = "The first draft is in the shared folder under Onboarding."
    values = {"email_id": 2, "body": "The first draft is in the shared folder."}
    assert undictated_texts(reply_to_email, values, _INBOX, [ask, before], ask) == []


async def test_a_message_nobody_dictated_is_asked_for_not_sent(home: Home) -> None:
    model = FakeModel(
        [
            use("send_text"),
            args(to="Yuki", text="Hi Yuki, how are you?"),
            answer_plan(),
            text("What should it say?"),
        ]
    )
    result = await run_turn(model, "send a text to Yuki", tools=home.tools)
    assert home.writes == []
    assert result.steps[0].skip_reason == "missing"
    assert "text" in (result.steps[0].result or "")
    assert result.text == "What should it say?"


def test_a_call_that_sets_another_new_value_is_a_change() -> None:
    @tool(writes=True)
    def move_event(title: str, new_time: str, new_room: str | None = None) -> str:
        """Move an event.

        Args:
            title: The event.
            new_time: The new start time.
            new_room: The new room, if it moves.
        """
        return "moved"

    @tool(writes=True)
    def add_expense(category: str, new_amount: str) -> str:
        """Log an expense.

        Args:
            category: What for.
            new_amount: The amount of the new expense.
        """
        return "added"

    events = "1. title: Standup, time: 09:30, room: A\n2. title: Review, time: 14:00, room: B"
    listed = [StepRecord(index=0, kind="tool", brief="", tool="list_events", result=events)]
    same = {"title": "Standup", "new_time": "09:30"}
    assert unchanged_values(move_event, same, listed, "move standup") == ["new_time"]
    moved = {**same, "new_room": "B"}
    assert unchanged_values(move_event, moved, listed, "move standup to room B") == []
    expenses = [StepRecord(index=0, kind="tool", brief="", tool="x", result="rent, 1200")]
    copy = {"category": "rent", "new_amount": "1200"}
    assert unchanged_values(add_expense, copy, expenses, "add rent, same as last month") == []


def test_a_choice_among_options_is_not_a_message() -> None:
    @tool(writes=True)
    def call(contact: str, kind: Literal["voice", "video"]) -> str:
        """Call someone.

        Args:
            contact: Whom.
            kind: Voice or video.
        """
        return "calling"

    said = "call Mum"
    assert undictated_texts(call, {"contact": "Mum", "kind": "voice"}, [], [said], said) == []
