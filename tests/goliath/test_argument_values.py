"""What ``missing`` means, optional values filled with nothing, and a read filled again after it
failed on the form of a value (goliath/turn/arguments.py, run.py; docs/design.md)."""

from __future__ import annotations

from typing import Any

import pytest

from goliath import tool
from goliath.testing import FakeModel
from goliath.tools import Tool
from goliath.turn.arguments import named_parameters

from ..spec.helpers import answer_plan, args, calls, labels, reasons, run_turn, text, use


class Phone:
    """Contacts, a task list and a calendar, recording each call's arguments."""

    def __init__(self) -> None:
        self.inputs: dict[str, list[dict[str, Any]]] = {}
        phone = self

        @tool
        def find_contact(name: str) -> list[dict[str, Any]]:
            """Contacts whose name matches, with phone and email.

            Args:
                name: The name to look for.
            """
            phone.record("find_contact", name=name)
            return [{"name": "Diego Morales", "email": "diego@example.com"}]

        @tool
        def list_tasks(list_name: str | None = None, status: str = "open") -> list[dict[str, Any]]:
            """Tasks, optionally of one list.

            Args:
                list_name: Only this list's tasks.
                status: open or done.
            """
            phone.record("list_tasks", list_name=list_name, status=status)
            return [{"title": "Pick up prescription", "list": "Personal"}]

        @tool(writes=True)
        def create_task(title: str, list_name: str | None = None, due: str | None = None) -> str:
            """Add a task.

            Args:
                title: What to do.
                list_name: The list to add it to.
                due: When it is due.
            """
            phone.record("create_task", title=title, list_name=list_name, due=due)
            return "added"

        @tool
        def search_flights(
            origin: str,
            destination: str,
            passengers: int = 1,
            max_price_eur: float | None = None,
            max_stops: int | None = None,
            airlines: list[str] | None = None,
        ) -> list[dict[str, Any]]:
            """Flights between two airports.

            Args:
                origin: From (IATA code).
                destination: To (IATA code).
                passengers: How many travel.
                max_price_eur: Only flights at most this price.
                max_stops: Only flights with at most this many stops.
                airlines: Only these airlines.
            """
            phone.record(
                "search_flights",
                origin=origin,
                destination=destination,
                passengers=passengers,
                max_price_eur=max_price_eur,
                max_stops=max_stops,
                airlines=airlines,
            )
            return [{"flight": "HV 6123", "price_eur": 89}]

        @tool
        def list_events(date: str) -> list[dict[str, Any]]:
            """Events on one day.

            Args:
                date: today, tomorrow, a weekday or 2025-03-14.
            """
            phone.record("list_events", date=date)
            if date not in {"today", "tomorrow"}:
                raise ValueError(f"cannot read the day {date!r}; use today, tomorrow or 2025-03-14")
            return [{"time": "12:30", "title": "Lunch with Noor"}]

        @tool(writes=True)
        def move_event(title: str, date: str) -> str:
            """Move an event to another day.

            Args:
                title: The event.
                date: today, tomorrow or 2025-03-14.
            """
            phone.record("move_event", title=title, date=date)
            raise ValueError(f"cannot read the day {date!r}")

        @tool
        def weather(city: str) -> str:
            """The weather in a city.

            Args:
                city: The city.
            """
            phone.record("weather", city=city)
            raise LookupError(f"no city {city!r}")

        self.tools: list[Tool] = [
            find_contact,
            list_tasks,
            create_task,
            search_flights,
            list_events,
            move_event,
            weather,
        ]

    def record(self, function: str, /, **values: Any) -> None:
        self.inputs.setdefault(function, []).append(values)


@pytest.fixture
def phone() -> Phone:
    return Phone()


# ---------------------------------------------------------------- what `missing` means


async def test_a_read_with_its_required_values_runs_whatever_missing_says(phone: Phone) -> None:
    """The 1.5B model names what the ask wants to learn: the read is how it learns it."""
    model = FakeModel(
        [
            use("find_contact"),
            args(name="Diego", missing="email address"),
            answer_plan(),
            text("diego@example.com"),
        ]
    )
    result = await run_turn(model, "what's Diego's email?", tools=phone.tools)
    assert phone.inputs["find_contact"] == [{"name": "Diego"}]
    assert result.steps[0].skipped is False
    assert "diego@example.com" in result.steps[0].result


async def test_a_read_whose_missing_names_an_optional_filter_runs(phone: Phone) -> None:
    model = FakeModel(
        [use("list_tasks"), args(missing="list_name"), answer_plan(), text("One task.")]
    )
    result = await run_turn(model, "what's on my to-do list?", tools=phone.tools)
    assert phone.inputs["list_tasks"] == [{"list_name": None, "status": "open"}]
    assert result.steps[0].skipped is False


async def test_a_read_with_a_blank_required_value_still_skips(phone: Phone) -> None:
    model = FakeModel(
        [use("find_contact"), args(name="", missing="the name"), answer_plan(), text("Who?")]
    )
    result = await run_turn(model, "find my contact", tools=phone.tools)
    assert result.steps[0].skip_reason == "missing"
    assert "find_contact" not in phone.inputs


async def test_a_write_whose_missing_names_only_optional_parameters_runs(phone: Phone) -> None:
    model = FakeModel(
        [
            use("create_task"),
            args(title="buy stamps", missing="due, list name"),
            answer_plan(),
            text("Added."),
        ]
    )
    result = await run_turn(model, "add buy stamps", tools=phone.tools)
    assert phone.inputs["create_task"] == [{"title": "buy stamps", "list_name": None, "due": None}]
    assert result.steps[0].skipped is False


@pytest.mark.parametrize("what", ["the title", "title", "what to buy", "due and title"])
async def test_a_write_whose_missing_names_more_than_optional_parameters_skips(
    phone: Phone, what: str
) -> None:
    """A write runs only on what it was given: a ``missing`` that names a required
    parameter, or something that is no parameter at all, still skips it."""
    model = FakeModel(
        [use("create_task"), args(title="stuff", missing=what), answer_plan(), text("What?")]
    )
    result = await run_turn(model, "add a task", tools=phone.tools)
    assert result.steps[0].skip_reason == "missing"
    assert "create_task" not in phone.inputs


def test_named_parameters_reads_snake_camel_and_spaced_names(phone: Phone) -> None:
    flights = next(t for t in phone.tools if t.name == "search_flights")
    assert named_parameters(flights, "max price eur and the airlines") == {
        "max_price_eur",
        "airlines",
    }
    assert named_parameters(flights, "maxStops") == {"max_stops"}
    assert named_parameters(flights, "the price") == set()


# ---------------------------------------------------------------- optional values filled with nothing


async def test_optional_values_filled_with_nothing_take_their_defaults(phone: Phone) -> None:
    model = FakeModel(
        [
            use("search_flights"),
            args(
                origin="AMS",
                destination="LIS",
                passengers=2,
                max_price_eur=0.0,
                max_stops=0,
                airlines=[],
            ),
            answer_plan(),
            text("HV 6123."),
        ]
    )
    await run_turn(model, "flights from Amsterdam to Lisbon for two", tools=phone.tools)
    [call] = phone.inputs["search_flights"]
    assert call["max_price_eur"] is None
    assert call["max_stops"] is None
    assert call["airlines"] is None
    assert call["passengers"] == 2


@pytest.mark.parametrize(
    "ask", ["nonstop flights from Amsterdam to Lisbon", "flights AMS to LIS with 0 stops"]
)
async def test_a_zero_the_ask_says_is_kept(phone: Phone, ask: str) -> None:
    model = FakeModel(
        [
            use("search_flights"),
            args(origin="AMS", destination="LIS", max_stops=0),
            answer_plan(),
            text("HV 6123."),
        ]
    )
    await run_turn(model, ask, tools=phone.tools)
    assert phone.inputs["search_flights"][0]["max_stops"] == 0


async def test_a_zero_said_for_another_parameter_does_not_keep_this_one(phone: Phone) -> None:
    """ "nonstop" says ``max_stops`` is 0; it says nothing about ``max_price_eur``."""
    model = FakeModel(
        [
            use("search_flights"),
            args(origin="AMS", destination="LIS", max_stops=0, max_price_eur=0.0),
            answer_plan(),
            text("HV 6123."),
        ]
    )
    await run_turn(model, "nonstop flights from Amsterdam to Lisbon", tools=phone.tools)
    [call] = phone.inputs["search_flights"]
    assert (call["max_stops"], call["max_price_eur"]) == (0, None)


async def test_an_empty_optional_string_is_left_out_of_a_write(phone: Phone) -> None:
    model = FakeModel(
        [
            use("create_task"),
            args(title="buy stamps", due="", list_name="Personal"),
            answer_plan(),
            text("Added."),
        ]
    )
    result = await run_turn(model, "add buy stamps to Personal", tools=phone.tools)
    assert result.steps[0].input == {"title": "buy stamps", "list_name": "Personal", "due": None}


# ---------------------------------------------------------------- a read filled again


async def test_a_read_that_failed_on_a_value_is_filled_again_once(phone: Phone) -> None:
    model = FakeModel(
        [
            use("list_events"),
            args(date="Monday the 10th"),
            args(date="today"),  # the repair: no plan call, the error in view
            answer_plan(),
            text("Lunch with Noor at 12:30."),
        ]
    )
    result = await run_turn(model, "what's on today?", tools=phone.tools)
    assert [c["date"] for c in phone.inputs["list_events"]] == ["Monday the 10th", "today"]
    assert labels(model) == ["conductor", "arguments", "arguments", "conductor", "answer"]
    repair = calls(model, "arguments")[1]
    assert "That call failed: error: ValueError: cannot read the day" in repair.prompt
    assert [s.failed for s in result.steps if s.kind == "tool"] == [True, False]
    assert result.text == "Lunch with Noor at 12:30."


async def test_a_repair_that_changes_nothing_answers_from_the_failure(phone: Phone) -> None:
    model = FakeModel(
        [
            use("list_events"),
            args(date="Wednesday evening"),
            args(date="Wednesday evening"),
            text("I could not read that day."),
        ]
    )
    result = await run_turn(model, "what am I doing Wednesday evening?", tools=phone.tools)
    assert len(phone.inputs["list_events"]) == 1
    assert reasons(result) == []
    assert result.text == "I could not read that day."


async def test_a_repair_that_fails_again_is_two_failures(phone: Phone) -> None:
    """The repair is once per function; its failure joins the first, and two failures in a
    row hand the turn over as before."""
    model = FakeModel([use("list_events"), args(date="Wednesday"), args(date="Wed")])
    result = await run_turn(model, "what's on Wednesday?", tools=phone.tools)
    assert len(phone.inputs["list_events"]) == 2
    assert reasons(result) == ["tool-error"]


async def test_a_write_that_failed_on_a_values_form_is_never_filled_again(phone: Phone) -> None:
    """Only a near-miss "not found" fills a write again (test_plain_values.py): the measured
    write repair for a value's form gained nothing (the 1.5B model wrote the same value)."""
    model = FakeModel(
        [use("move_event"), args(title="dentist", date="next Tuesday"), answer_plan(), text("No.")]
    )
    await run_turn(model, "move the dentist to next Tuesday", tools=phone.tools)
    assert len(phone.inputs["move_event"]) == 1
    assert labels(model) == ["conductor", "arguments", "conductor", "answer"]


async def test_a_read_that_failed_for_another_reason_is_not_filled_again(phone: Phone) -> None:
    model = FakeModel([use("weather"), args(city="Atlantis"), answer_plan(), text("No such city.")])
    await run_turn(model, "weather in Atlantis?", tools=phone.tools)
    assert len(phone.inputs["weather"]) == 1
    assert labels(model) == ["conductor", "arguments", "conductor", "answer"]


async def test_a_repair_leaves_the_first_plans_later_calls_in_place(phone: Phone) -> None:
    """A plan of the same read twice ("today, then tomorrow"): the repair stands in for the
    failed first call, and the planned second call still runs."""
    model = FakeModel(
        [
            {"json": {"call": "list_events", "then": "list_events"}},
            args(date="Monday"),
            args(date="today"),  # the repair
            args(date="tomorrow"),  # the planned second read; then the answer
            text("Lunch with Noor both days."),
        ]
    )
    await run_turn(model, "what's on today and tomorrow?", tools=phone.tools)
    assert [c["date"] for c in phone.inputs["list_events"]] == ["Monday", "today", "tomorrow"]
