"""Four rules measured on dev on 2026-12-05 (third session): nothing read after the asked change,
a number said as a time is no id, a write that left out a value its error names is filled
again, and an add whose condition is "unless it's already there" goes ahead when every read
found nothing (goliath/turn/run.py, lookup.py, repair.py, write_gate.py; docs/design.md)."""

from __future__ import annotations

from typing import Any

import pytest

from goliath import Agent, tool
from goliath.events import CheckEvent
from goliath.testing import FakeModel
from goliath.tools import Tool
from goliath.turn.handoff import asks_to_be_told
from goliath.turn.lookup import ungrounded_ids
from goliath.turn.repair import names_an_empty_value

from ..spec.helpers import args, labels, run_turn, text


class Home:
    """A task list, an inbox and a thermostat, recording each call's arguments."""

    def __init__(self) -> None:
        self.inputs: dict[str, list[dict[str, Any]]] = {}
        self.tasks: list[str] = ["Pick up prescription"]
        self.playlist: list[str] = []
        home = self

        @tool
        def list_tasks() -> list[dict[str, Any]]:
            """The open tasks."""
            home.record("list_tasks")
            return [{"title": title} for title in home.tasks]

        @tool(writes=True)
        def create_task(title: str, list_name: str | None = None) -> str:
            """Add a task.

            Args:
                title: What to do.
                list_name: The list to add it to.
            """
            home.record("create_task", title=title)
            home.tasks.append(title)
            return "added"

        @tool
        def list_emails() -> list[dict[str, Any]]:
            """The inbox, newest first, with each email's id."""
            home.record("list_emails")
            return [{"id": 7, "from": "Noor Haddad", "subject": "Lunch - Thai place?"}]

        @tool(writes=True)
        def reply_to_email(email_id: int, body: str) -> str:
            """Reply to an email.

            Args:
                email_id: The email's id, as list_emails shows it.
                body: The reply.
            """
            home.record("reply_to_email", email_id=email_id, body=body)
            return "sent"

        @tool(writes=True)
        def set_thermostat(target_c: float | None = None, mode: str | None = None) -> str:
            """Set the heating.

            Args:
                target_c: The temperature to heat to, in °C.
                mode: heat, cool or off.
            """
            home.record("set_thermostat", target_c=target_c, mode=mode)
            if target_c is None and mode is None:
                raise ValueError("give a target temperature (target_c) or a mode")
            return "set"

        @tool
        def get_playlist(name: str, search: str | None = None) -> list[dict[str, Any]]:
            """A playlist's songs, optionally only those matching a search.

            Args:
                name: The playlist.
                search: Only songs whose title matches.
            """
            home.record("get_playlist", name=name, search=search)
            return [{"title": title} for title in home.playlist if not search or search in title]

        @tool(writes=True)
        def add_to_playlist(playlist: str, song: str) -> str:
            """Add a song to a playlist.

            Args:
                playlist: The playlist.
                song: The song's title.
            """
            home.record("add_to_playlist", playlist=playlist, song=song)
            home.playlist.append(song)
            return "added"

        self.tools: list[Tool] = [
            list_tasks,
            create_task,
            list_emails,
            reply_to_email,
            set_thermostat,
            get_playlist,
            add_to_playlist,
        ]

    def record(self, function: str, /, **values: Any) -> None:
        self.inputs.setdefault(function, []).append(values)


@pytest.fixture
def home() -> Home:
    return Home()


# ---------------------------------------------------------------- nothing read after the change


async def test_a_read_planned_after_the_asked_change_is_not_run(home: Home) -> None:
    model = FakeModel(
        [
            {"json": {"call": "create_task", "then": "list_tasks"}},
            args(title="Call the bank about my card"),
            text("Added 'Call the bank about my card' to your to-do list."),
        ]
    )
    result = await run_turn(
        model, "add call the bank about my card to my to-do list", tools=home.tools
    )
    assert "list_tasks" not in home.inputs
    assert [step.tool for step in result.steps if step.kind == "tool"] == ["create_task"]
    assert labels(model) == ["conductor", "arguments", "answer"]


async def test_a_read_the_ask_asks_for_still_runs_after_the_change(home: Home) -> None:
    model = FakeModel(
        [
            {"json": {"call": "create_task", "then": "list_tasks"}},
            args(title="Call the bank"),
            text("Added it; you have two tasks."),
        ]
    )
    await run_turn(model, "add call the bank and tell me what's left", tools=home.tools)
    assert home.inputs["list_tasks"] == [{}]


async def test_a_read_after_a_change_that_did_not_run_still_runs(home: Home) -> None:
    """Nothing changed (the person declined): the planned read is the turn's to make."""
    model = FakeModel(
        [
            {"json": {"call": "create_task", "then": "list_tasks"}},
            args(title="Call the bank"),
            text("Nothing added; you have one task."),
        ]
    )
    await run_turn(
        model,
        "add call the bank to my to-do list",
        tools=home.tools,
        auto_approve=False,
        confirm=lambda request: False,
    )
    assert home.tasks == ["Pick up prescription"]
    assert home.inputs["list_tasks"] == [{}]


@pytest.mark.parametrize(
    ("ask", "told"),
    [
        ("add call the bank about my card to my to-do list", False),
        ("put dish soap on my shopping list", False),
        ("add milk and tell me what's left on the list", True),
        ("move it to Friday, then show me Friday", True),
        ("add bread, and let me know if anything else is due", True),
        ("is the porch light on? switch it off", True),
        ("add eggs to my list and give me the whole list", True),
        ("add milk and list everything on it", True),
        ("delete the spam email and open the one from my boss", True),
        ("text Mum I'm on my way and get me directions home", True),
        ("move the dentist to Friday, anything else on that day", True),
        ("add bread and display my list", True),
    ],
)
def test_asks_to_be_told(ask: str, told: bool) -> None:
    assert asks_to_be_told(ask) is told


# ---------------------------------------------------------------- a time is no id


@pytest.mark.parametrize(
    "ask",
    [
        "reply to Noor's email saying Baan Thai at 1 is perfect",
        "reply that 7pm works",
        "tell her 7:30 is fine",
        "reply that the 3rd works",
        "reply that 7 March is fine",
        "reply to Sam's email saying I'll be 7 minutes late",
        "reply that a table for 3 is perfect",
        "reply that 1 works for me",
        "reply that I can do 1 o\u2019clock",
    ],
)
def test_a_number_said_as_a_time_or_day_is_no_id(home: Home, ask: str) -> None:
    reply = next(t for t in home.tools if t.name == "reply_to_email")
    value = next(word for word in ("1", "7", "3") if word in ask)
    assert ungrounded_ids(reply, {"email_id": int(value), "body": "ok"}, [], [ask]) == ["email_id"]


@pytest.mark.parametrize(
    "ask", ["reply to email 4", "reply to #4", "answer number 4 with ok", "reply to id: 4"]
)
def test_a_number_said_as_the_item_is_an_id(home: Home, ask: str) -> None:
    reply = next(t for t in home.tools if t.name == "reply_to_email")
    assert ungrounded_ids(reply, {"email_id": 4, "body": "ok"}, [], [ask]) == []


def test_a_number_a_result_showed_is_an_id(home: Home) -> None:
    from goliath.records import StepRecord

    reply = next(t for t in home.tools if t.name == "reply_to_email")
    found = StepRecord(index=0, kind="tool", brief="b", tool="list_emails", result="1. id: 4")
    assert ungrounded_ids(reply, {"email_id": 4, "body": "ok"}, [found], ["reply at 4"]) == []


async def test_an_id_said_only_as_a_time_is_looked_up_first(home: Home) -> None:
    model = FakeModel(
        [
            {"json": {"call": "reply_to_email", "then": "answer_the_user"}},
            args(email_id=1, body="Baan Thai at 1 is perfect"),
            {"json": {"call": "list_emails"}},  # the look-up
            {"json": {"call": "reply_to_email"}},
            args(email_id=7, body="Baan Thai at 1 is perfect"),
            text("Replied to Noor."),
        ]
    )
    await run_turn(
        model, "reply to Noor's email saying Baan Thai at 1 is perfect", tools=home.tools
    )
    assert home.inputs["list_emails"] == [{}]
    assert home.inputs["reply_to_email"] == [{"email_id": 7, "body": "Baan Thai at 1 is perfect"}]


# ---------------------------------------------------------------- a value left out, named


async def test_a_write_that_left_out_a_value_its_error_names_is_filled_again(home: Home) -> None:
    model = FakeModel(
        [
            {"json": {"call": "set_thermostat", "then": "answer_the_user"}},
            args(target_c=None, mode=None),
            args(target_c=20.5, mode=None),  # the repair: the error in view, no plan call
            text("The heating is set to 20.5."),
        ]
    )
    result = await run_turn(model, "put the heating up to 20.5", tools=home.tools)
    assert [c["target_c"] for c in home.inputs["set_thermostat"]] == [None, 20.5]
    assert labels(model) == ["conductor", "arguments", "arguments", "answer"]
    assert "That call failed" in model.calls[2].prompt
    assert [s.failed for s in result.steps if s.kind == "tool"] == [True, False]


def test_an_error_about_a_value_given_is_not_a_value_left_out(home: Home) -> None:
    thermostat = next(t for t in home.tools if t.name == "set_thermostat")
    given = ValueError("target_c 45 is above the maximum of 30")
    assert not names_an_empty_value(given, thermostat, {"target_c": 45, "mode": None})
    advice = ValueError("target_c 35 is above the maximum 30; use mode 'boost'")
    assert not names_an_empty_value(advice, thermostat, {"target_c": 35, "mode": None})
    left_out = ValueError("give a target temperature (target_c) or a mode")
    assert names_an_empty_value(left_out, thermostat, {"target_c": None, "mode": None})
    assert not names_an_empty_value(
        LookupError("give target_c"), thermostat, {"target_c": None, "mode": None}
    )


# ---------------------------------------------------------------- every read found nothing


async def test_an_add_unless_there_goes_ahead_when_the_read_found_nothing(home: Home) -> None:
    model = FakeModel(
        [
            {"json": {"call": "get_playlist", "then": "add_to_playlist"}},
            args(name="Running", search="Coastline Radio"),
            {"json": {"word": "coastline"}},  # the empty search's other word (requery.py)
            {"json": {"call": "add_to_playlist"}},
            args(playlist="Running", song="Coastline Radio"),
            text("Added Coastline Radio to Running."),
        ]
    )
    async with Agent(model, tools=home.tools, auto_approve=True, condition_check=True) as agent:
        result = await agent.run(
            "add Coastline Radio to my Running playlist unless it's already on it"
        )
    # both searches found nothing: the phrase, then one of its words (test_requery.py)
    assert [c["search"] for c in home.inputs["get_playlist"]] == ["Coastline Radio", "coastline"]
    assert "condition" not in labels(model)  # no yes/no question: nothing there to be it
    assert home.playlist == ["Coastline Radio"]
    assert not [e for e in result.trace if isinstance(e, CheckEvent) and e.check == "condition"]


async def test_an_add_unless_there_is_asked_about_when_the_read_found_items(home: Home) -> None:
    home.playlist = ["Coastline Radio (live)"]
    model = FakeModel(
        [
            {"json": {"call": "get_playlist", "then": "add_to_playlist"}},
            args(name="Running", search="Coastline"),
            {"json": {"call": "add_to_playlist"}},
            args(playlist="Running", song="Coastline Radio"),
            {"json": {"go": "no"}, "scores": {"yes": -2.0, "no": -0.1}},
            text("It is already there."),
        ]
    )
    async with Agent(model, tools=home.tools, auto_approve=True, condition_check=True) as agent:
        await agent.run("add Coastline Radio to my Running playlist unless it's already on it")
    assert "condition" in labels(model)
    assert home.playlist == ["Coastline Radio (live)"]


# ---------------------------------------------------------------- a placeholder is no value


@pytest.mark.parametrize(
    ("title", "copied"),
    [
        ("add something to my list", True),
        ("something", True),
        ("something for Noor", False),
        ("buy something nice", False),
    ],
)
def test_a_value_that_only_stands_for_one_is_the_request_copied(title: str, copied: bool) -> None:
    from goliath.turn.given import copied_ask

    @tool(writes=True)
    def create_task(title: str, list_name: str | None = None) -> str:
        """Add a task.

        Args:
            title: What to do.
            list_name: The list.
        """
        return "added"

    ask = "add something to my list for Wednesday, something for Noor, buy something nice"
    assert bool(copied_ask(create_task, {"title": title}, ask)) is copied


async def test_an_add_of_something_unsaid_asks_the_user(home: Home) -> None:
    model = FakeModel(
        [
            {"json": {"call": "create_task", "then": "answer_the_user"}},
            args(title="add something to my list"),
            args(title="something"),  # the retry, with the copy note: still no value
            text("What should I add to your list?"),
        ]
    )
    result = await run_turn(model, "add something to my list for Wednesday", tools=home.tools)
    assert "create_task" not in home.inputs
    assert [s.skipped for s in result.steps if s.kind == "tool"] == [True]
    assert "copied the request into title" in model.calls[2].prompt


# ---------------------------------------------------------------- guessed lists and numbers


def test_a_guessed_list_or_number_is_dropped_from_a_read_that_found_nothing() -> None:
    from goliath.turn.given import widened_filters

    @tool
    def search_recipes(
        query: str,
        ingredients: list[str] | None = None,
        max_minutes: int | None = None,
        servings: int = 4,
    ) -> list[str]:
        """Recipes.

        Args:
            query: Words of the name.
            ingredients: Only recipes with all of these.
            max_minutes: Only recipes at most this long.
            servings: For how many.
        """
        return []

    guessed = {
        "query": "spinach pie",
        "ingredients": ["spinach", "feta cheese", "flour", "eggs", "butter"],
        "max_minutes": 30,
        "servings": 6,
    }
    ask = "how much feta do I need to make the spinach pie for 6 people?"
    assert widened_filters(search_recipes, guessed, ask) == ["ingredients", "max_minutes"]
    said = {**guessed, "ingredients": ["spinach", "feta"], "max_minutes": 45}
    assert (
        widened_filters(search_recipes, said, "a spinach and feta pie for 6, under 45 minutes")
        == []
    )
    assert widened_filters(search_recipes, {**guessed, "servings": 4}, ask) == [
        "ingredients",
        "max_minutes",
    ]  # the default is no guess
    # a number in words may be it; a list half said stays
    assert widened_filters(search_recipes, guessed, "feta for the spinach pie, under thirty") == [
        "ingredients"
    ]
    half = {"query": "pie", "ingredients": ["spinach", "feta", "flour", "eggs"]}
    assert widened_filters(search_recipes, half, "a spinach and feta pie") == []


def test_a_window_of_days_or_a_year_is_never_a_guessed_number() -> None:
    from goliath.turn.given import widened_filters

    @tool
    def list_transactions(days: int | None = None, year: int | None = None) -> list[str]:
        """Transactions.

        Args:
            days: Only the last this many days.
            year: Only this year.
        """
        return []

    values = {"days": 14, "year": 2024}
    assert widened_filters(list_transactions, values, "what did I spend last year?") == []


def test_a_presence_condition_names_a_place_and_a_failed_read_saw_nothing() -> None:
    from goliath.records import StepRecord
    from goliath.turn.write_gate import names_the_place, read_nothing

    assert names_the_place("add Coastline Radio to my Running playlist unless it's already on it")
    assert names_the_place("add milk if it's not on my shopping list")
    assert not names_the_place("add a BBQ on Saturday if it's not going to rain")
    empty = StepRecord(index=0, kind="tool", brief="b", tool="get_list", result="none")
    failed = StepRecord(index=1, kind="tool", brief="b", tool="search_notes", failed=True)
    assert read_nothing([empty])
    assert not read_nothing([empty, failed])
    assert not read_nothing([])
