"""Rules measured on dev on 2026-12-05 (fourth session): the user's own name is no one else,
a ``missing`` that names only a key the worker read lacks nothing, a day of the month alone
(and "next Monday" said on a Monday) is dated from today, and a request copied twice into a
title is cut to its item (goliath/turn/given.py, arguments.py, dates.py; the near-match
repair's copied verb is in test_plain_values.py; docs/design.md)."""

from __future__ import annotations

import datetime
import re
from typing import Any, Literal

import pytest

from goliath import tool
from goliath.testing import FakeModel
from goliath.tools import Tool
from goliath.turn.arguments import Missing, names_only_shown_keys
from goliath.turn.dates import day_of_month, next_weekday, plain_days
from goliath.turn.given import (
    copied_search,
    cut_request,
    self_as_other,
    unsaid_choices,
    unsaid_today,
)
from goliath.turn.handoff import only_thanks

from ..spec.helpers import args, run_turn, text

FACTS = {"today": "Monday 10 March 2025", "user": "Jordan"}


class Photos:
    """Albums that can be shared, recording each share."""

    def __init__(self) -> None:
        self.shared: list[dict[str, Any]] = []
        photos = self

        @tool
        def list_albums() -> list[dict[str, Any]]:
            """The albums, with each album's id."""
            return [{"id": "alb-1", "name": "Iceland 2023", "shared_with": "nobody"}]

        @tool(writes=True)
        def share_album(album_id: str, person: str) -> str:
            """Share an album with someone.

            Args:
                album_id: The album's id, as list_albums shows it.
                person: Whom to share it with.
            """
            photos.shared.append({"album_id": album_id, "person": person})
            return "shared"

        self.share_album = share_album
        self.tools: list[Tool] = [list_albums, share_album]


@pytest.mark.parametrize(
    ("ask", "values", "flagged"),
    [
        ("share the Iceland album", {"album_id": "alb-1", "person": "Jordan"}, ["person"]),
        ("share the Iceland album", {"album_id": "alb-1", "person": " jordan "}, ["person"]),
        ("share the Iceland album with me", {"album_id": "alb-1", "person": "Jordan"}, []),
        ("share the Iceland album with Jordan", {"album_id": "alb-1", "person": "Jordan"}, []),
        ("share the Iceland album", {"album_id": "alb-1", "person": "Hannah"}, []),
        ("share the Iceland album", {"album_id": "alb-1", "person": "Jordan Lee"}, []),
    ],
)
def test_the_users_own_name_names_no_one_else(
    ask: str, values: dict[str, Any], flagged: list[str]
) -> None:
    assert self_as_other(Photos().share_album, values, FACTS, ask) == flagged


def test_the_users_name_beside_others_or_in_a_read_stands() -> None:
    @tool(writes=True)
    def create_event(title: str, attendees: list[str]) -> str:
        """Add an event.

        Args:
            title: The event.
            attendees: Who comes.
        """
        return title

    @tool
    def find_contact(name: str) -> str:
        """Find a contact.

        Args:
            name: The name.
        """
        return name

    group = {"title": "Lunch", "attendees": ["Hannah", "Jordan"]}
    assert self_as_other(create_event, group, FACTS, "lunch with Hannah on Friday") == []
    alone = {"title": "Lunch", "attendees": ["Jordan"]}
    assert self_as_other(create_event, alone, FACTS, "book lunch on Friday") == ["attendees"]
    assert self_as_other(find_contact, {"name": "Jordan"}, FACTS, "find my card") == []
    assert self_as_other(create_event, alone, {"today": "Monday"}, "book lunch") == []


async def test_a_share_with_nobody_named_asks_whom_instead_of_the_user() -> None:
    photos = Photos()
    model = FakeModel(
        [
            {"json": {"call": "list_albums", "then": "share_album"}},
            args(),
            {"json": {"call": "share_album", "then": "answer_the_user"}},
            args(album_id="alb-1", person="Jordan"),
            text("Who should I share Iceland 2023 with?"),
        ]
    )
    result = await run_turn(model, "share the Iceland album", tools=photos.tools, facts=FACTS)
    assert photos.shared == []
    shares = [step for step in result.steps if step.tool == "share_album"]
    assert [step.skipped for step in shares] == [True]
    assert "missing: person" in (shares[0].result or "")


# ---------------------------------------------------------------- "missing" naming a key it read


class Inbox:
    """A searchable inbox whose emails can be archived."""

    def __init__(self) -> None:
        self.archived: list[int] = []
        inbox = self

        @tool
        def search_emails(query: str) -> list[dict[str, Any]]:
            """Search the inbox; each hit with its id.

            Args:
                query: Words to look for.
            """
            return [{"id": 4, "from": "Riverside Leisure Centre", "subject": "Swim pass"}]

        @tool(writes=True)
        def archive_email(email_id: int) -> str:
            """Archive an email.

            Args:
                email_id: The email's id, as search_emails shows it.
            """
            inbox.archived.append(email_id)
            return "archived"

        self.archive_email = archive_email
        self.tools: list[Tool] = [search_emails, archive_email]


def _archive_script(missing: str) -> FakeModel:
    return FakeModel(
        [
            {"json": {"call": "search_emails", "then": "archive_email"}},
            args(query="leisure centre"),
            {"json": {"call": "archive_email", "then": "answer_the_user"}},
            args(email_id=4, missing=missing),
            text("Archived the email from Riverside Leisure Centre."),
        ]
    )


@pytest.mark.parametrize("missing", ["from", "From", "time now", "from, subject"])
async def test_a_write_missing_only_a_key_it_was_shown_is_made(missing: str) -> None:
    inbox = Inbox()
    await run_turn(
        _archive_script(missing),
        "archive the email from the leisure centre",
        tools=inbox.tools,
        facts={"time now": "09:00"},
    )
    assert inbox.archived == [4]


@pytest.mark.parametrize("missing", ["which email", "email_id", "from, reason"])
async def test_a_write_missing_anything_else_is_skipped(missing: str) -> None:
    """A parameter, or a word no line showed, is what the model says it lacks: the write waits."""
    inbox = Inbox()
    result = await run_turn(
        _archive_script(missing),
        "archive the email from the leisure centre",
        tools=inbox.tools,
        facts={"time now": "09:00"},
    )
    assert inbox.archived == []
    archive = [step for step in result.steps if step.tool == "archive_email"]
    assert [step.skipped for step in archive] == [True]


# ---------------------------------------------------------------- a day of the month alone


@pytest.mark.parametrize(
    ("value", "today", "dated"),
    [
        ("15th", datetime.date(2025, 3, 10), "2025-03-15"),
        ("the 15th", datetime.date(2025, 3, 10), "2025-03-15"),
        ("on the 2nd", datetime.date(2025, 3, 10), "2025-04-02"),  # passed: next month's
        ("10th", datetime.date(2025, 3, 10), "2025-03-10"),  # today is the 10th
        ("the 31st", datetime.date(2025, 4, 5), "2025-05-31"),  # April has no 31st
        ("5th", datetime.date(2025, 12, 20), "2026-01-05"),  # over the year's end
        ("15", datetime.date(2025, 3, 10), "15"),  # no ordinal: may be a count
        ("15th March", datetime.date(2025, 3, 10), "15th March"),  # has its month
        ("15th", None, "15th"),  # no today: left as written
    ],
)
def test_a_day_of_the_month_alone_is_dated_from_today(
    value: str, today: datetime.date | None, dated: str
) -> None:
    assert day_of_month(value, today) == dated


async def test_a_due_day_given_as_the_15th_reaches_the_tool_as_a_date() -> None:
    moved: list[str] = []

    @tool(writes=True)
    def reschedule_task(title: str, due: str) -> str:
        """Move a task to another day.

        Args:
            title: The task.
            due: The new day: today, tomorrow, a weekday, 2025-03-14 or 14 March.
        """
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", due):
            raise ValueError(f"cannot read the day {due!r}")
        moved.append(due)
        return "moved"

    model = FakeModel(
        [
            {"json": {"call": "reschedule_task", "then": "answer_the_user"}},
            args(title="Get a present for Maya", due="15th"),
            text("Moved it to Saturday 15 March."),
        ]
    )
    await run_turn(
        model, "make the Maya present task due on the 15th", tools=[reschedule_task], facts=FACTS
    )
    assert moved == ["2025-03-15"]


@pytest.mark.parametrize(
    ("value", "said", "dated"),
    [
        ("monday", "what reminders do I have next Monday?", "2025-03-17"),
        ("Mon", "anything on next mon?", "2025-03-17"),
        ("next Monday", "what's on next Monday", "2025-03-17"),
        ("monday", "what reminders do I have on Monday?", "monday"),  # today, as said
        ("tuesday", "what do I have next Tuesday?", "tuesday"),  # not today's weekday: the tool's
        ("monday", "what do I have next week?", "monday"),  # "next" not before the weekday
    ],
)
def test_next_weekday_said_on_that_weekday_is_a_week_away(
    value: str, said: str, dated: str
) -> None:
    assert next_weekday(value, said, datetime.date(2025, 3, 10)) == dated  # a Monday


# ---------------------------------------------------------------- a request copied twice, cut


@pytest.mark.parametrize(
    ("value", "item"),
    [
        ("put dish soap on my shopping list", "dish soap"),
        ("add buy stamps to my to-do list", "buy stamps"),
        ("Please add oat milk to the shopping list.", "oat milk"),
        ("add Coastline Radio to my Running playlist", "Coastline Radio"),
        ("add milk and eggs to my weekly shopping list", "milk and eggs"),
        ("add get milk for the kids to my list", "get milk for the kids"),  # the last place
        ("add pay rent on the 1st to my list", "pay rent on the 1st"),
        ("add something to my list", None),  # a placeholder: the user is asked
        ("add dish soap", None),  # no list after it: not a frame this cuts
        ("put a note on my fridge", None),  # not a list
        ("dish soap on my shopping list", None),  # no request verb before it
    ],
)
def test_a_request_copied_twice_is_cut_to_its_item(value: str, item: str | None) -> None:
    assert cut_request(value) == item


async def test_a_title_copied_twice_is_the_item_the_request_names() -> None:
    added: list[str] = []

    @tool(writes=True)
    def create_task(title: str, list_name: str | None = None) -> str:
        """Add a task.

        Args:
            title: What to do.
            list_name: The list to add it to.
        """
        added.append(title)
        return "added"

    model = FakeModel(
        [
            {"json": {"call": "create_task", "then": "answer_the_user"}},
            args(title="put dish soap on my shopping list"),
            args(title="put dish soap on my shopping list"),  # the retry copies it again
            text("Added dish soap to your shopping list."),
        ]
    )
    await run_turn(model, "put dish soap on my shopping list", tools=[create_task])
    assert added == ["dish soap"]


# ---------------------------------------------------------------- a search that copies the question


@pytest.mark.parametrize(
    ("ask", "query", "copied"),
    [
        ("what time is my flight to Porto?", "what time is my flight to Porto?", True),
        ("when does my swim pass renew, do you know?", "when does my swim pass renew", True),
        ("what time is my flight to Porto?", "flight to Porto", False),
        ("what's the wifi password at the Porto flat?", "wifi password at the Porto flat", False),
        ("reply to Noor's email and say 1 is perfect", "Noor's email 1 is perfect", False),
        ("flight time?", "flight time", False),  # a short ask may be the search itself
        ("play Where Is My Mind by the Pixies", "Where Is My Mind by the Pixies", False),
    ],
)
def test_a_search_that_copies_the_question_is_asked_again(
    ask: str, query: str, copied: bool
) -> None:
    assert bool(copied_search(Inbox().tools[0], {"query": query}, ask)) is copied


async def test_a_copied_question_is_searched_by_the_words_the_retry_gives() -> None:
    queries: list[str] = []

    @tool
    def search_emails(query: str) -> list[dict[str, Any]]:
        """Search the inbox.

        Args:
            query: Words to look for.
        """
        queries.append(query)
        return [{"id": 8, "from": "AeroLuz", "subject": "Booking confirmed"}]

    model = FakeModel(
        [
            {"json": {"call": "search_emails", "then": "answer_the_user"}},
            args(query="what time is my flight to Porto?"),
            args(query="flight Porto"),
            text("AeroLuz confirmed your booking."),
        ]
    )
    await run_turn(model, "what time is my flight to Porto?", tools=[search_emails])
    assert queries == ["flight Porto"]
    assert "copied the whole request into query" in model.calls[2].prompt


# ---------------------------------------------------------------- thanks, and nothing else


@pytest.mark.parametrize(
    ("ask", "thanks"),
    [
        ("you're a star, thanks", True),
        ("thanks, that helps me plan the month", True),
        ("Thank you so much!", True),
        ("cheers", True),
        ("thanks, now book me a flight to Porto", False),  # another request
        ("thanks but the time is wrong", False),  # a complaint
        ("thanks! what is on my list?", False),  # a question
        ("thanks, can you add milk", False),
        ("I finally ran a full 5k without stopping!", False),  # no thanks in it
        ("Thanks! That was really helpful.", True),
        # a review's cases: replies, and requests with other verbs
        ("Hannah, thanks", False),  # a name: a reply to "whom?"
        ("21 degrees thanks", False),
        ("yes, thanks", False),
        ("thanks, go ahead", False),
        ("thanks, mark it done", False),
        ("Thanks, share it with Hannah", False),
        ("thanks, schedule it for friday", False),
        # what the thanks is for, at any length; a request after it still counts
        ("Thanks for keeping my inbox under control!", True),
        ("ugh, so many emails. thanks for helping", True),
        ("thank you for all the help today", True),
        ("thanks for the help with the move", False),  # "move": a request word
        ("thanks for checking, now add milk", False),
        ("thanks for the list, can you email it to Theo", False),
        ("thanks for the list, what's due tomorrow?", False),
        ("thanks for booking 2 tables", False),  # a digit
        ("thanks for sorting out Noor's party", False),  # a name
    ],
)
def test_only_thanks(ask: str, thanks: bool) -> None:
    assert only_thanks(ask) is thanks


def test_thanks_in_reply_to_a_question_is_an_answer() -> None:
    assert only_thanks("the shopping one, thanks")
    assert not only_thanks("the shopping one, thanks", "Which list should I add it to?")


class _ScoringModel(FakeModel):
    """Scores options, like llama.cpp: the hand-off check is on."""

    scores_options = True


async def test_a_thank_you_is_answered_with_no_plan_and_no_hand_off_check() -> None:
    model = _ScoringModel([text("You're welcome!")])
    result = await run_turn(model, "you're a star, thanks", tools=Photos().tools)
    assert result.text == "You're welcome!" and result.handled_by == "device"
    assert [call.label for call in model.calls] == ["answer"]


# ---------------------------------------------------------------- a write of unsaid choices only


@tool(writes=True)
def set_thermostat(
    target_c: float | None = None, mode: Literal["heat", "eco", "off"] | None = None
) -> str:
    """Change the heating.

    Args:
        target_c: The temperature, in °C.
        mode: heat, eco or off.
    """
    return "set"


@tool(writes=True)
def set_lock(door: str, state: Literal["locked", "unlocked"]) -> str:
    """Lock or unlock a door.

    Args:
        door: The door.
        state: locked or unlocked.
    """
    return state


@pytest.mark.parametrize(
    ("tool_", "values", "said", "flagged"),
    [
        (set_thermostat, {"mode": "heat"}, "change the temperature on the thermostat", ["mode"]),
        (set_thermostat, {"mode": "heat"}, "set the temperature please", ["mode"]),
        # no value named that the call left out: the choice is the model's reading of the ask
        (set_thermostat, {"target_c": None, "mode": "heat"}, "adjust the thermostat", []),
        (set_thermostat, {"mode": "heat"}, "warm the house up", []),
        (set_thermostat, {"mode": "heat"}, "change the heating", []),  # "heating": a form of it
        (set_thermostat, {"mode": "eco"}, "switch the heating to eco", []),  # said
        (set_thermostat, {"mode": "off"}, "turn the heating off", []),
        (set_thermostat, {"target_c": 21.0, "mode": "heat"}, "make it 21 degrees", []),
        (set_lock, {"door": "front", "state": "locked"}, "lock the front door", []),  # a name
    ],
)
def test_a_write_of_choices_nobody_said_sets_nothing_asked(
    tool_: Tool, values: dict[str, Any], said: str, flagged: list[str]
) -> None:
    assert unsaid_choices(tool_, values, said, []) == flagged


def test_a_choice_a_result_showed_is_seen() -> None:
    assert unsaid_choices(set_thermostat, {"mode": "heat"}, "change it back", ["mode: heat"]) == []


@pytest.mark.parametrize(
    ("target_c", "missing"),
    [
        (None, "mode"),
        # "change the temperature" also filled an unsaid target_c: 22; once it is dropped,
        # what is left only sets a choice nobody said, and the dropped value is asked for
        (22.0, "target_c"),
    ],
)
async def test_a_thermostat_change_with_no_value_asks_what_to_set(
    target_c: float | None, missing: str
) -> None:
    model = FakeModel(
        [
            {"json": {"call": "set_thermostat", "then": "answer_the_user"}},
            args(target_c=target_c, mode="heat"),
            text("What temperature should I set?"),
        ]
    )
    result = await run_turn(
        model, "change the temperature on the thermostat", tools=[set_thermostat]
    )
    steps = [step for step in result.steps if step.tool == "set_thermostat"]
    assert [step.skipped for step in steps] == [True]
    assert f"missing: {missing}" in (steps[0].result or "")


# ---------------------------------------------------------------- today, when no day was said


@tool(writes=True)
def add_itinerary_item(trip: str, title: str, day: str, note: str | None = None) -> str:
    """Add a plan to a trip.

    Args:
        trip: The trip.
        title: What is planned.
        day: The day.
        note: A note.
    """
    return title


@tool(writes=True)
def create_task(title: str, due: str | None = None) -> str:
    """Add a task.

    Args:
        title: What to do.
        due: The due day.
    """
    return title


TODAY = datetime.date(2025, 3, 10)


@pytest.mark.parametrize(
    ("day", "said", "flagged"),
    [
        ("2025-03-10", "add dinner with the Almeidas to my Lisbon trip", ["day"]),
        ("10 March", "add dinner with the Almeidas to my Lisbon trip", ["day"]),
        ("today", "add dinner with the Almeidas to my Lisbon trip", ["day"]),
        ("2025-03-10", "add dinner with the Almeidas today", []),  # said
        ("2025-03-10", "add dinner at 8pm to my Lisbon trip", []),  # a time says today
        ("2025-03-15", "add dinner with the Almeidas to my Lisbon trip", []),  # not today
        ("2025-03-10", "add drinks with the team after work", []),  # today, said another way
        ("2025-03-10", "add lunch with Sam, it's later on", []),
        ("2025-03-10", "yes please. Shall I add it for today?", []),  # the last answer's day
    ],
)
def test_today_as_a_default_nobody_chose_is_not_given(
    day: str, said: str, flagged: list[str]
) -> None:
    values = {"trip": "Lisbon", "title": "Dinner", "day": day}
    assert unsaid_today(add_itinerary_item, values, TODAY, said) == flagged
    assert unsaid_today(add_itinerary_item, values, None, said) == []  # no today: no rule


def test_a_record_of_what_happened_is_dated_today() -> None:
    @tool(writes=True)
    def add_journal_entry(text: str, date: str) -> str:
        """Add a journal entry.

        Args:
            text: The entry.
            date: The day.
        """
        return text

    values = {"text": "felt great after the swim", "date": "2025-03-10"}
    said = "add a journal entry: felt great after the swim"
    assert unsaid_today(add_journal_entry, values, TODAY, said) == []


def test_an_optional_day_set_to_today_is_left_out_not_asked() -> None:
    values = {"title": "Buy milk", "due": "2025-03-10"}
    assert unsaid_today(create_task, values, TODAY, "add buy milk") == []
    assert unsaid_today(create_task, values, TODAY, "add buy milk", optional=True) == ["due"]


async def test_a_plan_with_no_day_said_asks_for_the_day() -> None:
    model = FakeModel(
        [
            {"json": {"call": "add_itinerary_item", "then": "answer_the_user"}},
            args(trip="Lisbon", title="Dinner with the Almeidas", day="2025-03-10"),
            text("Which day should the dinner be?"),
        ]
    )
    result = await run_turn(
        model,
        "add dinner with the Almeidas to my Lisbon trip",
        tools=[add_itinerary_item],
        facts=FACTS,
    )
    steps = [step for step in result.steps if step.tool == "add_itinerary_item"]
    assert [step.skipped for step in steps] == [True]
    assert "missing: day" in (steps[0].result or "")


# ---------------------------------------------------------------- a review's cases, kept


def test_the_users_name_where_the_user_acts_stands() -> None:
    @tool(writes=True)
    def book_table(restaurant: str, name: str, assignee: str | None = None) -> str:
        """Book a table.

        Args:
            restaurant: Where.
            name: The booking's name.
            assignee: Who handles it.
        """
        return name

    values = {"restaurant": "Nando's", "name": "Jordan", "assignee": "Jordan"}
    assert self_as_other(book_table, values, FACTS, "book a table at Nando's") == []


def test_a_missing_key_that_is_a_parameters_word_still_waits() -> None:
    @tool(writes=True)
    def create_event(title: str, date: str, start_time: str | None = None) -> str:
        """Add an event.

        Args:
            title: The event.
            date: The day.
            start_time: When it starts.
        """
        return title

    missing = Missing("time", {"title": "Dentist", "date": "Friday", "start_time": "09:00"})
    assert not names_only_shown_keys(create_event, missing, frozenset({"time", "title"}))


def test_a_day_of_the_month_is_dated_only_where_a_write_sets_a_day() -> None:
    @tool
    def list_spending(date: str) -> str:
        """Spending on a day.

        Args:
            date: The day.
        """
        return date

    @tool(writes=True)
    def add_bill(title: str, day_of_month: str) -> str:
        """Add a monthly bill.

        Args:
            title: The bill.
            day_of_month: The day it is paid every month.
        """
        return title

    assert plain_days(list_spending, {"date": "3rd"}, today=TODAY) == {"date": "3rd"}
    bill = {"title": "Rent", "day_of_month": "1st"}
    assert plain_days(add_bill, bill, today=TODAY) == bill
    due = plain_days(create_task, {"title": "Rent", "due": "the 15th"}, today=TODAY)
    assert due == {"title": "Rent", "due": "2025-03-15"}


def test_next_monday_beside_a_plain_monday_is_left_to_the_tool() -> None:
    said = "move my gym session from monday to next monday"
    assert next_weekday("monday", said, TODAY) == "monday"
    assert next_weekday("monday", "remind me on monday about next month's rent", TODAY) == "monday"
