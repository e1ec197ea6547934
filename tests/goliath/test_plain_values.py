"""Deterministic rules that spare the 1.5B model a decision it gets wrong: a day written with
more than it needs (dates.py), an add whose "unless it's already there" the read answers
(write_gate.is_absent), a change asked of an agent that can only read (handoff.py), and a
search text that only repeats the call's other values (given.repeated_filters)."""

from __future__ import annotations

import datetime
import math
from typing import Any, Literal

import pytest

from goliath import Agent, tool
from goliath.events import CheckEvent
from goliath.records import ConfirmRequest, Decision, FallbackRequest
from goliath.testing import FakeModel
from goliath.tools import Tool
from goliath.turn.condition import asks_about_presence
from goliath.turn.dates import day_parameters, plain_day, plain_days
from goliath.turn.given import repeated_filters
from goliath.turn.handoff import KINDS, HandOffVerdict, is_question, nothing_to_change
from goliath.turn.repair import near_match_values

from ..spec.helpers import answer_plan, args, labels, run_turn, text, use

# ---------------------------------------------------------------- a day, written plainly


@pytest.mark.parametrize(
    ("value", "plain"),
    [
        ("Monday 10 March 2025", "2025-03-10"),  # copied from the facts
        ("March 10th, 2025", "2025-03-10"),
        ("Mon 10 Mar 2025", "2025-03-10"),
        ("Saturday 22 March", "22 March"),  # the weekday is the date's own
        ("Saturday, 22 March", "22 March"),
        ("Sat 22nd March", "22 March"),
        ("Tues 22 March", "22 March"),
        ("Sept 10, 2025", "2025-09-10"),
        ("Saturday, March 22", "March 22"),
        ("22 March, Saturday", "22 March"),
        ("Wednesday evening", "Wednesday"),  # a part of the day, for a day
        ("on Wednesday evening", "Wednesday"),
        ("tomorrow morning", "tomorrow"),
        ("this evening", "today"),
        # left as written: already plain, or not recognised whole
        ("2025-03-14", "2025-03-14"),
        ("14 March", "14 March"),
        ("Friday", "Friday"),
        ("next Friday", "next Friday"),
        ("15th", "15th"),
        ("31 February 2025", "31 February 2025"),  # no such day: the tool says so
        ("Wednesday 19:00", "Wednesday 19:00"),  # a clock, unless the call has a time field
        ("between 1 and 15 June", "between 1 and 15 June"),
    ],
)
def test_a_day_is_written_plainly(value: str, plain: str) -> None:
    assert plain_day(value) == plain


@pytest.mark.parametrize(
    ("value", "plain"),
    [
        ("Wednesday 19:00", "Wednesday"),
        ("Friday at 9pm", "Friday"),
        ("on Thursday 19:00", "Thursday"),
        ("tomorrow, 7 p.m.", "tomorrow"),
        ("Saturday 22 March at 14:15", "22 March"),
        ("March 14", "March 14"),  # a day's number is no clock
        ("dinner 19:00", "dinner 19:00"),  # no day before the clock
    ],
)
def test_a_clock_after_the_day_is_dropped_where_the_call_has_a_time_field(
    value: str, plain: str
) -> None:
    assert plain_day(value, allow_clock=True) == plain


def test_a_part_of_the_day_stays_where_the_parameter_holds_a_time() -> None:
    assert plain_day("Wednesday evening", allow_part=False) == "Wednesday evening"
    assert plain_day("Saturday 22 March", allow_part=False) == "22 March"
    assert plain_day("Wednesday 19:00", allow_part=False) == "Wednesday 19:00"


@tool
def plan_day(
    date: str,
    due_date: str,
    night: str,
    on: str,
    note: str,
    slot: str,
    start_time: str,
    when: str,
    message: str,
) -> str:
    """Plan a day.

    Args:
        date: The day.
        due_date: When it is due.
        night: Which night.
        on: The day: today, tomorrow, a weekday or a date like 2025-03-14.
        note: Free text.
        slot: The day and time, e.g. Friday 10:00.
        start_time: When it starts.
        when: The day and time.
        message: Text to send; say the date in it.
    """
    return "ok"


def test_day_parameters_are_known_by_name_or_description() -> None:
    assert day_parameters(plan_day) == ["date", "due_date", "night", "on", "slot"]


def test_only_day_parameters_are_rewritten_and_a_time_keeps_its_part_of_day() -> None:
    values = {
        "date": "Wednesday evening",
        "due_date": "Monday 10 March 2025",
        "night": "tomorrow night",
        "on": "Saturday, March 22",
        "note": "Saturday 22 March",
        "slot": "Friday evening",
        "start_time": "Friday evening",
        "when": "Saturday 22 March",
        "message": "See you Friday 13 June 2025",
    }
    assert plain_days(plan_day, values) == {
        "date": "Wednesday",
        "due_date": "2025-03-10",
        "night": "tomorrow",
        "on": "March 22",  # the weekday goes, the order stays
        "note": "Saturday 22 March",  # not a day parameter
        "slot": "Friday evening",  # its description names a time
        "start_time": "Friday evening",
        "when": "Saturday 22 March",
        "message": "See you Friday 13 June 2025",
    }
    assert plain_days(plan_day, {"due_date": "tomorrow morning"}) == {
        "due_date": "tomorrow morning"  # a due may hold a time
    }


def test_a_clock_after_the_day_goes_only_where_the_call_takes_the_time_apart() -> None:
    @tool(writes=True)
    def create_event(title: str, date: str, time: str) -> str:
        """Add an event.

        Args:
            title: What it is.
            date: The day.
            time: The start time.
        """
        return "ok"

    @tool(writes=True)
    def add_reminder(text: str, date: str) -> str:
        """Add a reminder.

        Args:
            text: What to remember.
            date: The day.
        """
        return "ok"

    event = {"title": "Dinner", "date": "Thursday 19:00", "time": "19:00"}
    assert plain_days(create_event, event)["date"] == "Thursday"
    reminder = {"text": "Dinner", "date": "Thursday 19:00"}
    assert plain_days(add_reminder, reminder)["date"] == "Thursday 19:00"  # the time stays

    @tool
    def list_events(date: str) -> str:
        """Events on a day.

        Args:
            date: The day.
        """
        return "none"

    # a read of the day's items: the whole day holds the hour asked about
    assert plain_days(list_events, {"date": "Thursday 12:00"})["date"] == "Thursday"


class Calendar:
    def __init__(self) -> None:
        self.days: list[str] = []
        self.confirmed: list[ConfirmRequest] = []
        calendar = self

        @tool
        def list_events(date: str) -> list[dict[str, Any]]:
            """Events on one day.

            Args:
                date: today, tomorrow, a weekday, 2025-03-14 or 14 March.
            """
            calendar.days.append(date)
            if date != "22 March":
                raise ValueError(f"cannot read the day {date!r}")
            return [{"title": "Eye test", "time": "10:00"}]

        @tool(writes=True)
        def cancel_event(title: str, date: str) -> str:
            """Cancel an event.

            Args:
                title: The event.
                date: The day: 2025-03-14 or 14 March.
            """
            calendar.days.append(date)
            return f"cancelled {title} on {date}"

        self.tools: list[Tool] = [list_events, cancel_event]

    async def confirm(self, request: ConfirmRequest) -> Decision:
        self.confirmed.append(request)
        return Decision(approved=True)


async def test_a_read_gets_the_day_plainly_and_runs_once() -> None:
    calendar = Calendar()
    model = FakeModel(
        [use("list_events"), args(date="Saturday 22 March"), answer_plan(), text("Eye test.")]
    )
    result = await run_turn(model, "what's on Saturday the 22nd?", tools=calendar.tools)
    assert calendar.days == ["22 March"]
    assert [step.failed for step in result.steps if step.kind == "tool"] == [False]


async def test_a_write_is_confirmed_and_run_with_the_day_as_rewritten() -> None:
    calendar = Calendar()
    model = FakeModel(
        [
            use("cancel_event"),
            args(title="Eye test", date="Monday 10 March 2025"),
            answer_plan(),
            text("Cancelled the eye test."),
        ]
    )
    await run_turn(
        model,
        "cancel the eye test today",
        tools=calendar.tools,
        confirm=calendar.confirm,
        auto_approve=False,
    )
    assert calendar.days == ["2025-03-10"]
    assert calendar.confirmed[0].input == {"title": "Eye test", "date": "2025-03-10"}


# ---------------------------------------------------------------- "unless it's already there"


@pytest.mark.parametrize(
    ("ask", "about"),
    [
        ("add buy stamps unless it's already on my list", True),
        ("put chickpeas on the grocery list if they're not on it already", True),
        ("check the hardware list and add a tape measure if it's not there", True),
        ("remind me to order the cake, unless I already have a reminder for it", True),
        ("add parmesan to the shopping list unless I already have some", True),
        # a condition about something else is left to the check
        ("if I don't have a reminder about passport photos yet, add one", False),
        ("schedule a call with Bob at 3pm if I don't have anything else then", False),
        ("add lunch with Sam on Friday if I'm not in Paris", False),
        ("book the gym at 7 unless I already have plans that evening", False),
        ("add yoga at 6, if not busy", False),
        ("make sure bin bags are on my shopping list, add them if not", True),
        ("add bread unless it's there", True),
        ("if I'm free Thursday at noon, book lunch with Olivia", False),
        ("if the porch light is still on, switch it off", False),
        # contracted negations, "if there isn't one", "missing", the item named by its name
        ("Is Coastline Radio on the Running playlist? Add it if it isn't.", True),
        ("put salt road on Running if it isnt there yet", True),
        ("coastline radio -> running playlist, if not already there", True),
        ("check for a stamps task and add one if there isn't one", True),
        ("only add parmesan to the list if there's none left", True),
        ("Check my playlist for Salt Road and add it only if it's missing.", True),
        ("If buying stamps isn't on my to-do list yet, put it there.", True),
        ("any reminder about the passport photos? if no, remind me on Saturday", True),
        ("if nothing's planned for Sunday evening in Lisbon, add a fado show", False),
        ("if Sam isn't in Paris on Friday, add lunch with him", False),
        ("if there isn't any rain tomorrow, add a run at 7", False),
    ],
)
def test_which_conditions_ask_whether_the_item_is_there(ask: str, about: bool) -> None:
    assert asks_about_presence(ask) is about


def task_tools(titles: list[str]) -> tuple[list[dict[str, Any]], list[Tool]]:
    tasks = [{"title": title} for title in titles]

    @tool
    def list_tasks() -> list[dict[str, Any]]:
        """List the tasks."""
        return [dict(task) for task in tasks]

    @tool(writes=True)
    def create_task(title: str) -> dict[str, Any]:
        """Add a task.

        Args:
            title: What to do.
        """
        tasks.append({"title": title})
        return {"ok": True, "title": title}

    return tasks, [list_tasks, create_task]


PLAN_LIST_THEN_ADD = {"json": {"call": "list_tasks", "then": "create_task"}}


async def test_an_add_that_nothing_found_resembles_goes_ahead_without_the_check() -> None:
    """Asked, the 1.5B model said "no" to 11 of 12 dev writes after a read: "add buy stamps
    unless it's already on my list" added nothing though no task was about stamps."""
    tasks, tools = task_tools(["Pick up prescription", "Call mom"])
    model = FakeModel(
        [
            PLAN_LIST_THEN_ADD,
            {"json": {"call": "create_task"}},
            args(title="Buy stamps"),
            text("Added Buy stamps."),
        ]
    )
    async with Agent(model, tools=tools, auto_approve=True, condition_check=True) as agent:
        result = await agent.run("add buy stamps unless it's already on my list")
    assert labels(model) == ["conductor", "conductor", "arguments", "answer"]
    assert tasks[-1] == {"title": "Buy stamps"}
    assert not [event for event in result.trace if isinstance(event, CheckEvent)]


async def test_an_add_like_something_found_is_still_asked_about() -> None:
    """A shared word ("passport") may be the same item in other words: the check decides."""
    tasks, tools = task_tools(["Passport", "Call mom"])
    model = FakeModel(
        [
            PLAN_LIST_THEN_ADD,
            {"json": {"call": "create_task"}},
            args(title="Save passport number"),
            {"json": {"go": "no"}, "scores": {"yes": -2.0, "no": -0.2}},
            text("You already have it."),
        ]
    )
    async with Agent(model, tools=tools, auto_approve=True, condition_check=True) as agent:
        await agent.run("note my passport number unless I already have it")
    assert labels(model) == ["conductor", "conductor", "arguments", "condition", "answer"]
    assert len(tasks) == 2


async def test_an_add_already_there_is_withheld_by_the_gate_as_before() -> None:
    tasks, tools = task_tools(["Buy stamps", "Call mom"])
    model = FakeModel(
        [
            PLAN_LIST_THEN_ADD,
            {"json": {"call": "create_task"}},
            args(title="buy stamps"),
            text("It is already there."),
        ]
    )
    async with Agent(model, tools=tools, auto_approve=True, condition_check=True) as agent:
        await agent.run("add buy stamps unless it's already on my list")
    assert len(tasks) == 2


# ---------------------------------------------------------------- a change nothing can make


def reads_only() -> list[Tool]:
    @tool
    def list_accounts() -> list[dict[str, Any]]:
        """The user's bank accounts with their balances."""
        return [{"name": "Savings", "balance": 1200}]

    return [list_accounts]


def kinds(top: str, *, phone: float, cloud: float) -> dict[str, Any]:
    """A hand-off check reply: ``top`` leads the device kinds; the device kinds together at
    ``phone`` and the cloud's at ``cloud`` (log-probabilities)."""
    device = [name for name, _, needs in KINDS if not needs]
    remote = [name for name, _, needs in KINDS if needs]
    scores = {name: phone - math.log(len(device)) - (0 if name == top else 0.5) for name in device}
    scores.update({name: cloud - math.log(len(remote)) for name in remote})
    return {"json": {"kind": top}, "scores": scores}


class Cloud:
    def __init__(self) -> None:
        self.requests: list[FallbackRequest] = []

    async def __call__(self, request: FallbackRequest) -> str:
        self.requests.append(request)
        return "(cloud)"


async def test_a_change_asked_of_an_agent_that_only_reads_is_handed_over() -> None:
    cloud = Cloud()
    model = FakeModel([kinds("change", phone=-0.2, cloud=-2.0)])
    agent = Agent(model, tools=reads_only(), fallback=cloud, hand_off_check=True)
    async with agent:
        result = await agent.run("move 300 euros from my savings to checking")
    assert labels(model) == ["handoff"]
    assert result.handled_by == "cloud"
    assert cloud.requests[0].reason == "conductor-asked"


async def test_a_question_to_an_agent_that_only_reads_stays() -> None:
    cloud = Cloud()
    model = FakeModel(
        [
            kinds("change", phone=-0.2, cloud=-2.0),
            {"json": {"call": "list_accounts", "then": "answer_the_user"}},
            text("You have 1,200 in savings."),
        ]
    )
    agent = Agent(model, tools=reads_only(), fallback=cloud, hand_off_check=True)
    async with agent:
        result = await agent.run("how much did I move to savings last month?")
    assert result.handled_by == "device"
    assert not cloud.requests


def test_nothing_to_change_needs_a_change_no_question_and_no_write() -> None:
    change = HandOffVerdict(hand_off=False, margin=-1.0, kind="change", change=True)
    lookup = HandOffVerdict(hand_off=False, margin=-1.0, kind="lookup", change=False)
    tools = reads_only()
    assert nothing_to_change(change, "pay the electricity bill", tools)
    assert not nothing_to_change(lookup, "pay the electricity bill", tools)
    assert not nothing_to_change(change, "did I pay the electricity bill?", tools)
    _, with_a_write = task_tools([])
    assert not nothing_to_change(change, "add pay the bill", with_a_write)
    assert is_question("Which bill is due?") and not is_question("pay it now")


# ---------------------------------------------------------------- a filter that repeats


class Recipes:
    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []
        recipes = self

        @tool
        def search_recipes(
            query: str | None = None,
            diet: Literal["any", "vegetarian", "vegan"] = "any",
            max_minutes: int | None = None,
        ) -> list[dict[str, Any]]:
            """Search the recipe book; every filter given must hold.

            Args:
                query: Words of the dish's name.
                diet: any, vegetarian or vegan.
                max_minutes: Only recipes ready in at most this many minutes.
            """
            recipes.calls.append({"query": query, "diet": diet, "max_minutes": max_minutes})
            return [{"name": "Red lentil soup", "diet": "vegan"}]

        self.tool = search_recipes


@pytest.mark.parametrize(
    ("values", "repeated"),
    [
        ({"query": "vegan recipes", "diet": "vegan"}, ["query"]),
        ({"query": "vegetarian", "diet": "vegetarian", "max_minutes": 30}, ["query"]),
        ({"query": "recipes"}, ["query"]),
        ({"query": "lentil soup", "diet": "vegan"}, []),
        ({"query": "vegan lentil soup", "diet": "vegan"}, []),
        ({"diet": "vegan"}, []),
    ],
)
def test_a_search_text_that_only_repeats_the_call_is_found(
    values: dict[str, Any], repeated: list[str]
) -> None:
    assert repeated_filters(Recipes().tool, values) == repeated


async def test_the_repeated_search_text_is_left_out_of_the_call() -> None:
    recipes = Recipes()
    model = FakeModel(
        [
            use("search_recipes"),
            args(query="vegan recipes", diet="vegan"),
            answer_plan(),
            text("Red lentil soup."),
        ]
    )
    await run_turn(model, "what vegan recipes do I have?", tools=[recipes.tool])
    assert recipes.calls == [{"query": None, "diet": "vegan", "max_minutes": None}]


# ---------------------------------------------------------------- the item's own value, looked up


class Diary:
    def __init__(self) -> None:
        self.cancelled: list[tuple[str, str]] = []
        diary = self

        @tool
        def find_events(query: str) -> list[dict[str, Any]]:
            """Find events by words of their title.

            Args:
                query: Words of the title.
            """
            return [{"title": "Eye test", "date": "2025-03-22", "time": "10:00"}]

        @tool(writes=True)
        def cancel_event(title: str, date: str) -> str:
            """Cancel an event.

            Args:
                title: The event.
                date: The event's day, 2025-03-14.
            """
            diary.cancelled.append((title, date))
            return "cancelled"

        @tool(writes=True)
        def move_event(title: str, new_time: str) -> str:
            """Move an event to another time.

            Args:
                title: The event.
                new_time: The new time.
            """
            return "moved"

        self.tools: list[Tool] = [find_events, cancel_event, move_event]


async def test_a_change_lacking_its_items_own_day_looks_it_up_first() -> None:
    """ "Cancel my eye test": the date names the item, and the calendar knows it."""
    diary = Diary()
    model = FakeModel(
        [
            use("cancel_event"),
            args(title="Eye test", date="", missing="the date"),
            {"json": {"call": "find_events"}},  # the look-up, among the reads
            args(query="eye test"),
            {"json": {"call": "cancel_event"}},
            args(title="Eye test", date="2025-03-22"),
            text("Cancelled your eye test on 22 March."),  # the plan is done: no plan call
        ]
    )
    result = await run_turn(model, "cancel my eye test", tools=diary.tools)
    assert diary.cancelled == [("Eye test", "2025-03-22")]
    assert [step.tool for step in result.steps if step.kind == "tool"] == [
        "find_events",
        "cancel_event",
    ]
    assert "cancel_event needs the date" in model.calls[2].prompt


async def test_a_change_lacking_a_new_value_asks_the_user() -> None:
    """A new time is the user's to give: no look-up finds it."""
    diary = Diary()
    model = FakeModel(
        [
            use("move_event"),
            args(title="Eye test", new_time="", missing="the new time"),
            answer_plan(),
            text("To what time?"),
        ]
    )
    result = await run_turn(model, "move my eye test", tools=diary.tools)
    assert [(s.tool, s.skip_reason) for s in result.steps if s.kind == "tool"] == [
        ("move_event", "missing")
    ]


# ---------------------------------------------------------------- a near miss, filled again


class Trips:
    def __init__(self) -> None:
        self.asked: list[str] = []
        trips = self

        @tool
        def get_itinerary(trip: str) -> list[dict[str, Any]]:
            """One trip's plan.

            Args:
                trip: The trip's name.
            """
            trips.asked.append(trip)
            if trip != "Marrakech":
                raise LookupError(f"no trip matches {trip!r}; there are: Lisbon weekend, Marrakech")
            return [{"day": "2025-05-02", "what": "Check in: Riad Dar Zitoun"}]

        self.tools: list[Tool] = [get_itinerary]


async def test_a_read_not_found_that_names_a_near_match_takes_it_with_no_model_call() -> None:
    """The error lists one trip whose words are the value's own ("Marrakech trip" →
    "Marrakech"): the repair takes it, and no arguments call is made."""
    trips = Trips()
    model = FakeModel(
        [
            use("get_itinerary"),
            args(trip="Marrakech trip"),
            answer_plan(),
            text("You stay at Riad Dar Zitoun."),
        ]
    )
    result = await run_turn(model, "where do I stay in Marrakech?", tools=trips.tools)
    assert trips.asked == ["Marrakech trip", "Marrakech"]
    assert len(model.calls) == 4  # plan, arguments, plan, answer: none for the repair
    assert result.text == "You stay at Riad Dar Zitoun."


async def test_a_read_not_found_whose_error_lists_no_one_fit_is_filled_again_by_the_model() -> None:
    """Two listed trips hold the value's words ("Lisbon" alone fits both): the model fills
    the call again with the error in view."""
    asked: list[str] = []

    @tool
    def get_itinerary(trip: str) -> list[dict[str, Any]]:
        """One trip's plan.

        Args:
            trip: The trip's name.
        """
        asked.append(trip)
        if trip != "Lisbon in May":
            raise LookupError(f"no trip matches {trip!r}; there are: Lisbon weekend, Lisbon in May")
        return [{"day": "2025-05-02", "what": "Fado at 21:00"}]

    model = FakeModel(
        [
            use("get_itinerary"),
            args(trip="Lisbon trip"),
            args(trip="Lisbon in May"),  # the repair: the error in view, no plan call
            answer_plan(),
            text("Fado at 21:00."),
        ]
    )
    result = await run_turn(model, "what's on my Lisbon trip in May?", tools=[get_itinerary])
    assert asked == ["Lisbon trip", "Lisbon in May"]
    assert "That call failed: error: LookupError: no trip matches" in model.calls[2].prompt
    assert result.text == "Fado at 21:00."


async def test_a_read_not_found_that_names_nothing_like_it_is_not_filled_again() -> None:
    trips = Trips()
    model = FakeModel(
        [use("get_itinerary"), args(trip="Japan trip"), answer_plan(), text("No Japan trip.")]
    )
    result = await run_turn(model, "what's on my Japan trip?", tools=trips.tools)
    assert trips.asked == ["Japan trip"]
    assert result.text == "No Japan trip."


# ---------------------------------------------------------------- the check comes first


async def test_a_plan_that_writes_then_reads_for_a_condition_reads_first() -> None:
    tasks, tools = task_tools(["Call mom"])
    model = FakeModel(
        [
            {"json": {"call": "create_task", "then": "list_tasks"}},
            {"json": {"call": "create_task"}},  # the planned write: do it, or answer
            args(title="Buy stamps"),
            text("Added Buy stamps."),
        ]
    )
    result = await run_turn(model, "add buy stamps if I have fewer than three tasks", tools=tools)
    assert [step.tool for step in result.steps if step.kind == "tool"] == [
        "list_tasks",
        "create_task",
    ]
    assert tasks[-1] == {"title": "Buy stamps"}


async def test_a_plan_that_writes_then_reads_without_a_condition_is_kept() -> None:
    _, tools = task_tools(["Call mom"])
    model = FakeModel(
        [
            {"json": {"call": "create_task", "then": "list_tasks"}},
            args(title="Buy stamps"),
            text("Added Buy stamps; you have two tasks."),
        ]
    )
    result = await run_turn(model, "add buy stamps and show me my tasks", tools=tools)
    assert [step.tool for step in result.steps if step.kind == "tool"] == [
        "create_task",
        "list_tasks",
    ]


class Lights:
    def __init__(
        self, names: tuple[str, ...] = ("Hallway", "Porch light", "Reading light")
    ) -> None:
        self.switched: list[str] = []
        lights = self

        @tool(writes=True)
        def set_light(name: str, on: bool) -> str:
            """Switch one light on or off.

            Args:
                name: The light's name.
                on: On or off.
            """
            if name not in names:
                raise LookupError(f"no light matches {name!r}; there are: {', '.join(names)}")
            lights.switched.append(name)
            return f"{name} {'on' if on else 'off'}"

        self.tools: list[Tool] = [set_light]


async def test_a_write_not_found_that_names_a_near_match_takes_it_and_is_confirmed() -> None:
    lights = Lights()
    confirmed: list[Any] = []

    async def confirm(request: ConfirmRequest) -> Decision:
        confirmed.append(request.input)
        return Decision(approved=True)

    model = FakeModel(
        [
            use("set_light"),
            args(name="hallway light", on=True),  # the repair takes "Hallway" from the error
            answer_plan(),
            text("The hallway light is on."),
        ]
    )
    await run_turn(
        model, "turn the hallway light on", tools=lights.tools, confirm=confirm, auto_approve=False
    )
    assert lights.switched == ["Hallway"]
    assert confirmed == [{"name": "hallway light", "on": True}, {"name": "Hallway", "on": True}]


async def test_a_repaired_write_that_names_another_item_is_withheld() -> None:
    """Two listed lights fit "hallway light", so the model fills the call again; it names
    the porch light, which the user did not name: withheld."""
    lights = Lights(("Hallway", "Hallway spot", "Porch light"))
    model = FakeModel(
        [
            use("set_light"),
            args(name="hallway light", on=True),
            args(name="Porch light", on=True),  # another light: not what was asked
            text("There is no hallway light."),
        ]
    )
    result = await run_turn(model, "turn the hallway light on", tools=lights.tools)
    assert lights.switched == []
    assert "no item like it" in model.calls[-1].prompt
    assert [s.tool for s in result.steps if s.kind == "tool"] == ["set_light"]


async def test_an_add_alone_whose_condition_is_presence_reads_the_same_thing_first() -> None:
    """ "Unless it's already there", planned as the add alone: the read of the same noun
    (``list_tasks`` for ``create_task``) runs first, and it shows the task is there."""
    tasks, tools = task_tools(["Buy stamps"])
    model = FakeModel(
        [
            {"json": {"call": "create_task", "then": "answer_the_user"}},
            {"json": {"call": "create_task"}},
            args(title="buy stamps"),
            text("Buy stamps is already on your list."),
        ]
    )
    result = await run_turn(model, "add buy stamps unless it's already on my list", tools=tools)
    assert [step.tool for step in result.steps if step.kind == "tool"] == ["list_tasks"]
    assert tasks == [{"title": "Buy stamps"}]  # the write gate saw it there


async def test_an_add_alone_with_another_condition_is_kept() -> None:
    tasks, tools = task_tools([])
    model = FakeModel(
        [
            {"json": {"call": "create_task", "then": "answer_the_user"}},
            args(title="Buy stamps"),
            text("Added."),
        ]
    )
    await run_turn(model, "add buy stamps if the post office is open", tools=tools)
    assert tasks == [{"title": "Buy stamps"}]


# ---------------------------------------------------------------- the rules stay narrow


async def test_make_sure_is_no_condition_to_reorder_a_plan() -> None:
    """ "Add milk and make sure it's on the list" wants the read after the add."""
    _, tools = task_tools([])
    model = FakeModel(
        [
            {"json": {"call": "create_task", "then": "list_tasks"}},
            args(title="Buy milk"),
            text("Added; it's on the list."),
        ]
    )
    result = await run_turn(model, "add buy milk and make sure it's on my list", tools=tools)
    assert [s.tool for s in result.steps if s.kind == "tool"] == ["create_task", "list_tasks"]


def test_an_item_value_is_looked_up_only_for_a_change_that_sets_nothing() -> None:
    from goliath.turn.arguments import Missing
    from goliath.turn.given import unknown_item_values

    @tool(writes=True)
    def reschedule_appointment(title: str, date: str, time: str) -> str:
        """Move an appointment.

        Args:
            title: The appointment.
            date: The day.
            time: The time.
        """
        return "ok"

    @tool(writes=True)
    def delete_note(title: str) -> str:
        """Delete a note.

        Args:
            title: The note.
        """
        return "ok"

    diary = Diary()
    cancel = next(t for t in diary.tools if t.name == "cancel_event")
    blank = Missing("the date", {"title": "Eye test", "date": ""})
    assert unknown_item_values(cancel, blank) == ["date"]
    assert unknown_item_values(reschedule_appointment, blank) == []  # the user's to give
    assert unknown_item_values(delete_note, Missing("which note", {"title": ""})) == []


def test_a_reply_that_scores_only_some_kinds_is_read() -> None:
    from goliath.models import Generation
    from goliath.turn.handoff import read_hand_off

    reply = Generation(text='{"kind": "lookup"}', scores={"lookup": -0.1, "web": -2.0})
    verdict = read_hand_off(reply)
    assert verdict.hand_off is False and verdict.change is False
    assert is_question("show me last month's transfers")


def test_a_search_text_beside_a_date_value_is_read() -> None:
    @tool
    def search_events(query: str | None = None, on: datetime.date | None = None) -> str:
        """Find events.

        Args:
            query: Words of the title.
            on: The day.
        """
        return "none"

    assert (
        repeated_filters(search_events, {"query": "dentist", "on": datetime.date(2025, 3, 10)})
        == []
    )


def test_a_repair_that_keeps_one_word_of_two_names_another_item() -> None:
    from goliath.turn.repair import drifted_values

    _, tools = task_tools([])
    create = tools[1]
    assert drifted_values(create, {"title": "Call mom"}, {"title": "Call dentist"}) == ["title"]
    assert (
        drifted_values(
            create, {"title": "move the Porto flights"}, {"title": "Book flights for Porto"}
        )
        == []
    )


# ---------------------------------------------------------------- the item a "not found" names


@tool(writes=True)
def remove_item(item: str, list_name: str) -> str:
    """Take an item off a list.

    Args:
        item: The item.
        list_name: The list's name.
    """
    return item


@pytest.mark.parametrize(
    ("message", "value", "taken"),
    [
        # the tool's name is shorter than what the user said
        (
            "no item on Hardware matches 'can of WD-40'; there are: Plugs, Hooks, WD-40.",
            "can of WD-40",
            "WD-40",
        ),
        # the user's is shorter than the tool's, and one item holds all of it
        (
            "no item matches 'oat milk'; there are: Eggs, Buy oat milk and bread",
            "oat milk",
            "Buy oat milk",
        ),
        # two items hold it: the model decides
        ("no item matches 'milk'; there are: Oat milk, Whole milk", "milk", None),
        # one shared word is not the item the user named
        ("no item matches 'bedroom lamp'; there are: Bedside lamp, Hallway", "bedroom lamp", None),
        # nothing listed (no colon after the value)
        ("no item matches 'WD 40 can' on Hardware", "WD 40 can", None),
        # a word of the value that is the tool's own ("item") aside
        ("no item matches 'tape'; there are: Tape measure", "tape", "Tape measure"),
        # the user's words in another form ("booking", "flights") name the same item
        (
            "no item matches 'booking the Porto flights'; there are: Pay rent, "
            "Book flights for Porto, Flights to Oslo",
            "booking the Porto flights",
            "Book flights for Porto",
        ),
        # another form of one word is still only one shared word
        (
            "no item matches 'painting'; there are: Paint the fence, Paint the shed",
            "painting",
            None,
        ),
        ("no item matches 'parking'; there are: Park day with kids, Pay rent", "parking", None),
        (
            "no item matches 'evening run'; there are: Even out the lawn with a run",
            "evening run",
            None,
        ),
    ],
)
def test_near_match_values_takes_the_one_listed_item_that_fits(
    message: str, value: str, taken: str | None
) -> None:
    found = near_match_values(LookupError(message), remove_item, {"item": value, "list_name": "x"})
    assert found == ({} if taken is None else {"item": taken})


@pytest.mark.parametrize(
    ("ask", "value", "listed", "taken"),
    [
        # the request's verb copied with the item names no item
        (
            "move the Porto flights task to Thursday",
            "move the Porto flights",
            "Pay rent, Book flights for Porto, Flights to Oslo",
            "Book flights for Porto",
        ),
        # the verb aside, what is left must still fit one item
        ("move the car to Friday", "move the car", "Move car to garage, Car insurance", None),
        # an item whose name opens with such a word keeps it (a review's cases)
        ("mark Book dentist done", "Book dentist", "Call dentist, Pay rent", None),
        ("text Mark Davies I'm late", "Mark Davies", "Anna Davies, Tom Lee", None),
        ("change oil is done", "Change oil", "Buy olive oil", None),
        # the ask does not open with the verb: not a copy of the request
        ("please move the car", "move the car", "Car insurance renewal", None),
    ],
)
def test_a_copied_request_verb_is_set_aside_only_when_the_ask_opens_with_it(
    ask: str, value: str, listed: str, taken: str | None
) -> None:
    error = LookupError(f"no item matches '{value}'; there are: {listed}")
    found = near_match_values(error, remove_item, {"item": value, "list_name": "x"}, ask)
    assert found == ({} if taken is None else {"item": taken})


def test_near_match_values_ignores_errors_that_are_not_a_not_found() -> None:
    message = "no item matches 'can of WD-40'; there are: WD-40"
    assert near_match_values(ValueError(message), remove_item, {"item": "can of WD-40"}) == {}
    assert near_match_values(KeyError(message), remove_item, {"item": "can of WD-40"}) == {}


@tool
def get_itinerary(trip: str) -> str:
    """One trip's plan.

    Args:
        trip: The trip's name.
    """
    return trip


@tool(writes=True)
def add_itinerary_item(trip: str, title: str) -> str:
    """Add a stop to a trip.

    Args:
        trip: The trip's name.
        title: The stop.
    """
    return title


def test_a_read_opens_the_one_listed_item_sharing_the_most_words_and_a_write_does_not() -> None:
    """ "train to Berlin" shares one word with "Berlin work trip" and none with the others: a
    read may open it (it changes nothing, and the answer sees what it returns); a write is
    left to the model, which must name the item itself."""
    message = "no trip matches 'train to Berlin'; there are: Lisbon weekend, Berlin work trip"
    read = near_match_values(LookupError(message), get_itinerary, {"trip": "train to Berlin"})
    assert read == {"trip": "Berlin work trip"}
    write = near_match_values(
        LookupError(message), add_itinerary_item, {"trip": "train to Berlin", "title": "Dinner"}
    )
    assert write == {}
    tied = "no trip matches 'Berlin or Lisbon'; there are: Lisbon weekend, Berlin work trip"
    assert near_match_values(LookupError(tied), get_itinerary, {"trip": "Berlin or Lisbon"}) == {}


@tool(writes=True)
def create_price_alert(origin: str, destination: str, max_price_eur: float) -> str:
    """Watch flight prices.

    Args:
        origin: The airport code to fly from.
        destination: The airport code to fly to.
        max_price_eur: The most to pay.
    """
    return "ok"


def test_a_made_up_code_takes_the_one_listed_item_the_ask_names() -> None:
    message = (
        "no airport matches 'RKY'; this app flies between: AMS (Amsterdam), LIS (Lisbon), "
        "KEF (Reykjavik), OPO (Porto)."
    )
    ask = "alert me if flights from Amsterdam to Reykjavik drop below 150 euros"
    given = {"origin": "AMS", "destination": "RKY", "max_price_eur": 150.0}
    # Amsterdam is named too, but the origin already holds it
    assert near_match_values(LookupError(message), create_price_alert, given, ask) == {
        "destination": "KEF"
    }
    # the ask names two places no argument holds that begin as the code does: not the
    # harness's to pick
    two = "alert me if flights to Lisbon or London drop below 150 euros"
    listed = "no airport matches 'LON'; this app flies between: LIS (Lisbon), LHR (London)."
    coded = {"origin": "AMS", "destination": "LON", "max_price_eur": 150.0}
    assert near_match_values(LookupError(listed), create_price_alert, coded, two) == {}
    # "RKY" begins as Reykjavik, not as Lisbon
    other = "alert me if flights to Reykjavik or Lisbon drop below 150 euros"
    assert near_match_values(LookupError(message), create_price_alert, given, other) == {
        "destination": "KEF"
    }
    # a value in the user's own words is never swapped for another item the ask names
    said = {"origin": "AMS", "destination": "Reykjavik city", "max_price_eur": 150.0}
    city = message.replace("'RKY'", "'Reykjavik city'")
    assert near_match_values(LookupError(city), create_price_alert, said, ask + " city") == {}
    bare = {"origin": "AMS", "destination": "RKY", "max_price_eur": 150.0}
    assert near_match_values(LookupError(message), create_price_alert, bare, "") == {}
    # a place the app does not serve is not swapped for another the ask names
    tokyo = "alert me when flights from Lisbon to Tokyo drop under 400"
    unserved = {"origin": "AMS", "destination": "TYO", "max_price_eur": 400.0}
    tyo = message.replace("'RKY'", "'TYO'")
    assert near_match_values(LookupError(tyo), create_price_alert, unserved, tokyo) == {}


async def test_the_code_the_ask_names_is_taken_by_the_repair_with_no_model_call() -> None:
    alerts: list[str] = []

    @tool(writes=True)
    def watch_prices(origin: str, destination: str) -> str:
        """Watch flight prices.

        Args:
            origin: The airport code to fly from.
            destination: The airport code to fly to.
        """
        codes = {"AMS": "Amsterdam", "KEF": "Reykjavik", "LIS": "Lisbon"}
        for code in (origin, destination):
            if code not in codes:
                listed = ", ".join(f"{key} ({name})" for key, name in codes.items())
                raise LookupError(f"no airport matches {code!r}; this app flies between: {listed}.")
        alerts.append(destination)
        return "watching"

    model = FakeModel(
        [
            {"json": {"call": "watch_prices", "then": "answer_the_user"}},
            args(origin="AMS", destination="RKY"),
            text("I'm watching Amsterdam to Reykjavik."),
        ]
    )
    async with Agent(model, tools=[watch_prices], auto_approve=True) as agent:
        result = await agent.run("watch prices from Amsterdam to Reykjavik")
    assert alerts == ["KEF"]
    assert [step.input for step in result.steps if step.kind == "tool"][-1] == {
        "origin": "AMS",
        "destination": "KEF",
    }
    assert [call.label for call in model.calls] == ["conductor", "arguments", "answer"]


# ---------------------------------------------------------------- an empty read, widened once


class Files:
    def __init__(self) -> None:
        self.asked: list[dict[str, Any]] = []
        files = self

        @tool
        def search_files(
            query: str, kind: Literal["any", "document", "pdf"] = "any", folder: str | None = None
        ) -> list[dict[str, Any]]:
            """Find files by name.

            Args:
                query: Words of the file's name.
                kind: Only files of this kind.
                folder: Only files in this folder.
            """
            files.asked.append({"query": query, "kind": kind, "folder": folder})
            if kind in ("any", "pdf") and folder is None and "boiler" in query.lower():
                return [{"id": "f-3", "name": "Boiler manual.pdf"}]
            return []

        self.tools: list[Tool] = [search_files]


async def test_a_read_that_found_nothing_runs_again_without_the_filters_nobody_named() -> None:
    files = Files()
    model = FakeModel(
        [
            use("search_files"),
            args(query="boiler", kind="document", folder="Documents/Home"),
            answer_plan(),
            text("Boiler manual.pdf"),
        ]
    )
    result = await run_turn(model, "find my boiler manual", tools=files.tools)
    assert files.asked == [  # the folder nobody named was left out before the call
        {"query": "boiler", "kind": "document", "folder": None},
        {"query": "boiler", "kind": "any", "folder": None},
    ]
    assert len(model.calls) == 4  # plan, arguments, plan, answer: none for the second read
    assert result.text == "Boiler manual.pdf"


async def test_a_filter_the_user_named_is_kept_when_the_read_finds_nothing() -> None:
    files = Files()
    model = FakeModel(
        [
            use("search_files"),
            args(query="boiler", kind="document", folder="Taxes"),
            answer_plan(),
            text("Nothing in documents."),
        ]
    )
    await run_turn(model, "any boiler documents?", tools=files.tools)
    # "documents" was said: the kind stays, and the read is not run again
    assert files.asked == [{"query": "boiler", "kind": "document", "folder": None}]


def test_widened_filters_leave_dates_numbers_booleans_defaults_and_required_values() -> None:
    from goliath.turn.given import widened_filters

    @tool
    def find_events(
        query: str,
        date: str | None = None,
        calendar: str = "personal",
        include_past: bool = False,
        room: str | None = None,
    ) -> list[str]:
        """Find events.

        Args:
            query: Words of the title.
            date: The day.
            calendar: Which calendar.
            include_past: Past ones too.
            room: Where.
        """
        return []

    values = {
        "query": "dentist",
        "date": "tomorrow",
        "calendar": "personal",
        "include_past": True,
        "room": "Kitchen",
    }
    assert widened_filters(find_events, values, "when is my dentist?") == ["room"]
    assert widened_filters(find_events, values, "dentist in the kitchen?") == []
    assert widened_filters(find_events, {**values, "date": "2025-03-11"}, "dentist") == ["room"]


async def test_a_read_is_widened_once_only() -> None:
    files = Files()
    model = FakeModel(
        [
            use("search_files"),
            args(query="kettle", kind="document"),
            answer_plan(),
            text("No kettle manual."),
        ]
    )
    result = await run_turn(model, "find the kettle manual", tools=files.tools)
    assert [(a["query"], a["kind"]) for a in files.asked] == [
        ("kettle", "document"),
        ("kettle", "any"),  # widened once
        ("manual", "any"),  # then the ask's other word, once (test_requery.py)
    ]
    assert result.text == "No kettle manual."


def test_a_listed_id_with_its_name_in_brackets_gives_the_id() -> None:
    @tool
    def get_statement(account_id: str, year: int) -> str:
        """One year's statement.

        Args:
            account_id: The account's id.
            year: The year.
        """
        return account_id

    message = (
        "there is no account 'checking'; accounts: acc-1 (Everyday checking), acc-2 (Savings), "
        "acc-4 (Joint (with Alex))"
    )
    found = near_match_values(
        LookupError(message), get_statement, {"account_id": "checking", "year": 2023}
    )
    assert found == {"account_id": "acc-1"}
