"""A condition on a state ("if the front door is unlocked") or a day ("if it's Noor's birthday
today") is decided by the harness from what the reads found, not by a yes/no question."""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from goliath import Agent, Tool, tool
from goliath.events import CheckEvent
from goliath.records import StepRecord
from goliath.testing import FakeModel
from goliath.turn.clause import asks_then_acts, condition_at, spoken
from goliath.turn.flag import flag_met, found_flags
from goliath.turn.same_day import day_met, today_from


def read(result: str) -> StepRecord:
    return StepRecord(index=0, kind="tool", brief="", tool="read", result=result)


LOCKS = (
    "1. id: lock-1, name: Front door, locked: false, battery_pct: 81\n"
    "2. id: lock-2, name: Back door, locked: true, battery_pct: 67\n"
    "3. id: lock-3, name: Garage, locked: true, battery_pct: 14"
)
LIGHTS = (
    "1. id: light-1, name: Kitchen ceiling, room: Kitchen, on: true, brightness: 100\n"
    "2. id: light-2, name: Counter strip, room: Kitchen, on: false\n"
    "3. id: light-6, name: Porch light, room: Outside, on: true, brightness: 60"
)
TASKS = (
    '[{"id": 105, "title": "Renew car insurance", "done": false},'
    ' {"id": 102, "title": "Submit expense report", "done": true}]'
)
CONTACT = "1. name: Noor Haddad, label: friend, phone: +1 555 0241, birthday: 13 March 1992"
MONDAY = {"today": "Monday 10 March 2025"}


def clause_of(ask: str, word: str) -> tuple[str, bool] | None:
    text = spoken(ask)
    start = text.index(word)
    clause = condition_at(text, start, start + len(word))
    return None if clause is None else (clause.text, clause.go_when_true)


@pytest.mark.parametrize(
    ("ask", "word", "expected"),
    [
        ("if the door is unlocked, lock it", "unlocked", ("if the door is unlocked", True)),
        ("lock it unless it's locked", "locked", ("unless it's locked", False)),
        ("Is the porch light on? Turn it off if so.", "porch", ("is the porch light on", True)),
        ("Is the porch light on? If not, turn it on.", "porch", ("is the porch light on", False)),
        (
            "Check whether the door is locked, and lock it if it isn't.",
            "locked",
            ("the door is locked", False),
        ),
        ("front door unlocked? lock it then", "unlocked", ("front door unlocked", True)),
        ("porch light still on? if yes kill it", "porch", ("porch light still on", True)),
        ("Did I take it? Log it if I didn't.", "take", ("did i take it", False)),
    ],
)
def test_the_condition_and_which_way_the_change_goes(
    ask: str, word: str, expected: tuple[str, bool]
) -> None:
    assert clause_of(ask, word) == expected


@pytest.mark.parametrize(
    ("ask", "word"),
    [
        ("lock the front door", "front"),  # no condition
        ("Is the door locked?", "locked"),  # a question with no change hanging on it
        ("check whether the door is locked", "locked"),  # nothing says which way
    ],
)
def test_words_outside_a_condition_are_none(ask: str, word: str) -> None:
    assert clause_of(ask, word) is None


@pytest.mark.parametrize(
    ("ask", "arguments", "result", "go"),
    [
        ("if the front door is unlocked, lock it", {"name": "Front door"}, LOCKS, True),
        ("front door unlocked? lock it then", {"name": "Front door"}, LOCKS, True),
        (
            "Check whether the front door is locked, and lock it if it isn't.",
            {"name": "Front door"},
            LOCKS,
            True,
        ),
        ("if the back door is unlocked, lock it", {"name": "Back door"}, LOCKS, False),
        ("lock the garage unless it's already locked", {"name": "Garage"}, LOCKS, False),
        # the row the write names by its id
        ("if it is unlocked, lock it", {"lock_id": "lock-2"}, LOCKS, False),
        ("if the porch light is still on, switch it off", {"name": "Porch light"}, LIGHTS, True),
        ("Did I leave the porch light on? Turn it off if so.", {"name": "Porch"}, LIGHTS, True),
        ("if the counter strip is off, turn it on", {"name": "Counter strip"}, LIGHTS, True),
        ("if the kitchen ceiling is off, turn it on", {"name": "Kitchen ceiling"}, LIGHTS, False),
        (
            "Only if I haven't done the car insurance yet, reschedule it for Friday.",
            {"title": "car insurance"},
            TASKS,
            True,
        ),
        ("if the car insurance is still open, move it", {"title": "car insurance"}, TASKS, True),
        ("if the expense report is still open, tick it off", {"title": "expense"}, TASKS, False),
    ],
)
def test_a_named_state_is_read_from_its_flag(
    ask: str, arguments: dict[str, Any], result: str, go: bool
) -> None:
    decided = flag_met(arguments, ask, [read(result)])
    assert decided is not None and decided[0] is go


@pytest.mark.parametrize(
    ("ask", "arguments", "go"),
    [
        ("Before bed, are any doors unlocked? Lock them if so.", {"lock_id": "lock-1"}, True),
        ("Before bed, are any doors unlocked? Lock them if so.", {"lock_id": "lock-2"}, False),
        ("if any door is unlocked, lock it", {"name": "Front door", "locked": True}, True),
        ("are some of the doors locked? unlock them then", {"name": "Garage"}, True),
    ],
)
def test_any_row_in_the_state_is_the_row_the_write_names(
    ask: str, arguments: dict[str, Any], go: bool
) -> None:
    decided = flag_met(arguments, ask, [read(LOCKS)])
    assert decided is not None and decided[0] is go


@pytest.mark.parametrize(
    ("ask", "arguments"),
    [
        ("are any doors unlocked? lock them if so", {"locked": True}),  # which door: none named
        ("if no door is unlocked, arm the alarm", {"mode": "away"}),
        ("if anyone left a door unlocked, lock it", {"lock_id": "lock-1"}),
        ("if any door isn't locked, lock it", {"lock_id": "lock-1"}),  # a negation beside "any"
    ],
)
def test_other_quantifiers_are_not_decided(ask: str, arguments: dict[str, Any]) -> None:
    assert flag_met(arguments, ask, [read(LOCKS)]) is None


@pytest.mark.parametrize(
    ("ask", "arguments", "result"),
    [
        # "on" as a preposition is no state
        ("if there's nothing on Tuesday, turn on the porch light", {"name": "Porch"}, LIGHTS),
        # which door: the condition names none and the write names none
        ("if a door is unlocked, lock it", {"locked": True}, LOCKS),
        # a second condition, two negations
        ("if the front door is unlocked and I'm out, lock it", {"name": "Front door"}, LOCKS),
        ("if the front door isn't not locked, lock it", {"name": "Front door"}, LOCKS),
        # no flag read
        ("if the front door is unlocked, lock it", {"name": "Front door"}, "name: Front door"),
    ],
)
def test_the_harness_does_not_decide_what_it_cannot_read(
    ask: str, arguments: dict[str, Any], result: str
) -> None:
    assert flag_met(arguments, ask, [read(result)]) is None


def test_flags_are_read_from_json_lines_and_switch_states() -> None:
    flags = found_flags([read(TASKS), read("name: Heater\nstate: off\nwatts: 0")])
    assert [(f.row, f.key, f.value) for f in flags] == [
        ("Renew car insurance", "done", False),
        ("Submit expense report", "done", True),
        ("Heater", "on", False),
    ]


@pytest.mark.parametrize(
    ("ask", "facts", "go"),
    [
        ("if it's Noor's birthday today, text her happy birthday", MONDAY, False),
        ("Is today Noor's birthday? If it is, send her a birthday text.", MONDAY, False),
        ("Check whether Noor's birthday is today and wish her a happy one if so.", MONDAY, False),
        ("if it's Noor's birthday today, text her", {"today": "Thursday 13 March 2025"}, True),
        ("if it's Noor's birthday tomorrow, text her", {"today": "2025-03-12"}, True),
        ("text Noor unless it's her birthday today", {"today": "13 March 2025"}, False),
    ],
)
def test_a_day_is_compared_with_today(ask: str, facts: dict[str, str], go: bool) -> None:
    decided = day_met({"to": "Noor Haddad"}, ask, [read(CONTACT)], facts)
    assert decided is not None and decided[0] is go
    assert decided[1].line.startswith("Noor Haddad birthday: 13 March 1992; ")


@pytest.mark.parametrize(
    "ask",
    [
        "if it's Noor's birthday on Thursday, text her",  # no day word the harness reads
        "text noor happy bday but only if it's today",  # the condition names no key
        "if it's Noor's birthday today or tomorrow, text her",  # two days
    ],
)
def test_a_day_the_harness_cannot_read_is_left_to_the_check(ask: str) -> None:
    assert day_met({"to": "Noor"}, ask, [read(CONTACT)], MONDAY) is None


def test_today_is_the_apps_fact_else_the_clock() -> None:
    assert today_from(MONDAY) == datetime.date(2025, 3, 10)
    assert today_from({"date": "2025-12-24"}) == datetime.date(2025, 12, 24)
    assert today_from({"user": "Jordan"}) == datetime.date.today()
    # the app gives a today that is no whole date: its today is not the machine's
    assert today_from({"today": "Monday"}) is None
    assert today_from({"today": "Thursday 13 March"}) is None
    assert today_from({"now": "2025-03-10T09:00"}) == datetime.date(2025, 3, 10)


def locks_tools(front_locked: bool) -> tuple[list[str], list[Tool]]:
    done: list[str] = []

    @tool
    def list_locks() -> list[dict[str, Any]]:
        """The door locks."""
        return [
            {"id": "lock-1", "name": "Front door", "locked": front_locked},
            {"id": "lock-2", "name": "Back door", "locked": True},
        ]

    @tool(writes=True)
    def set_lock(name: str, locked: bool) -> str:
        """Lock or unlock a door.

        Args:
            name: The door.
            locked: True to lock.
        """
        done.append(name)
        return "ok"

    return done, [list_locks, set_lock]


def checks(result: Any) -> list[tuple[str, bool]]:
    return [(e.check, e.passed) for e in result.trace if isinstance(e, CheckEvent)]


async def lock_turn(front_locked: bool) -> tuple[list[str], Any, FakeModel]:
    locked, tools = locks_tools(front_locked)
    model = FakeModel(
        [
            {"json": {"call": "list_locks", "then": "set_lock"}},
            {"json": {"call": "set_lock"}},
            {"json": {"name": "Front door", "locked": True}},
            {"text": "Done."},
        ]
    )
    async with Agent(model, tools=tools, auto_approve=True, condition_check=True) as agent:
        result = await agent.run("if the front door is unlocked, lock it")
    return locked, result, model


async def test_an_unlocked_door_is_locked_with_no_yes_no_question() -> None:
    locked, result, model = await lock_turn(front_locked=False)
    assert locked == ["Front door"]
    assert checks(result) == [("state", True)]
    assert "condition" not in [call.label for call in model.calls]


async def test_a_locked_door_withholds_the_write_and_the_answer_is_told_why() -> None:
    locked, result, model = await lock_turn(front_locked=True)
    assert locked == []
    assert checks(result) == [("state", False)]
    answer = model.calls[-1].prompt
    assert "Front door locked: true" in answer and "condition is not met" in answer


async def test_a_birthday_that_is_not_today_sends_nothing() -> None:
    sent: list[str] = []

    @tool
    def find_contact(name: str) -> list[dict[str, str]]:
        """Find a contact.

        Args:
            name: Who.
        """
        return [{"name": "Noor Haddad", "phone": "+1 555 0241", "birthday": "13 March 1992"}]

    @tool(writes=True)
    def send_message(to: str, text: str) -> str:
        """Send a text.

        Args:
            to: Who.
            text: What.
        """
        sent.append(text)
        return "sent"

    model = FakeModel(
        [
            {"json": {"call": "find_contact", "then": "send_message"}},
            {"json": {"name": "Noor"}},
            {"json": {"call": "send_message"}},
            {"json": {"to": "Noor Haddad", "text": "Happy birthday!"}},
            {"text": "Her birthday is 13 March, so I sent nothing."},
        ]
    )
    async with Agent(
        model,
        tools=[find_contact, send_message],
        auto_approve=True,
        facts={"today": "Monday 10 March 2025"},
    ) as agent:
        result = await agent.run("if it's Noor's birthday today, text her happy birthday")
    assert sent == []
    assert checks(result) == [("day", False)]
    # the answer is told the found day and today's, so it does not call the 13th today
    assert "birthday: 13 March 1992; today is 10 March 2025" in model.calls[-1].prompt


def test_a_second_condition_is_no_answer_to_a_question() -> None:
    # "if it's open" states its own condition: it does not answer "...front door's locked?"
    ask = "Can you make sure the front door's locked? Only lock it if it's open."
    assert clause_of(ask, "locked") is None
    assert flag_met({"name": "Front door"}, ask, [read(LOCKS)]) is None


def test_a_question_that_opens_with_when_is_no_condition() -> None:
    assert clause_of("When is Mum's birthday? Remind me the day before.", "mum") is None
    assert clause_of("when it's under 18, put the heating on", "under") is not None


MEDICATION = (
    "1. time: 07:30, medication: Cetirizine 10 mg, status: taken at 07:31\n"
    "2. time: 08:00, medication: Vitamin D3 1000 IU, status: not logged yet\n"
    "3. time: 13:00, medication: Iron, status: skipped"
)


@pytest.mark.parametrize(
    ("ask", "medication", "go"),
    [
        ("did I take my vitamin D this morning? if not, log it now", "Vitamin D3", True),
        ("Have I logged the vitamin D today? Log it if I haven't.", "Vitamin D3", True),
        ("if I haven't logged my allergy tablet today, log it now", "Cetirizine", False),
        ("Did I take my hay fever pill? Log it if I didn't.", "Cetirizine 10 mg", False),
        ("if I skipped the iron, remind me tonight", "Iron", None),  # "skipped" names no flag
    ],
)
def test_a_status_in_words_is_read_as_done_or_not(
    ask: str, medication: str, go: bool | None
) -> None:
    decided = flag_met({"medication": medication}, ask, [read(MEDICATION)])
    assert (None if decided is None else decided[0]) is go


def test_the_row_is_never_chosen_by_the_state_words() -> None:
    # "logged" is in the condition and in one row's status: it must not pick that row
    ask = "if I haven't logged my allergy tablet today, log it now"
    assert flag_met({"medication": "allergy tablet"}, ask, [read(MEDICATION)]) is None
    decided = flag_met({"medication": "Cetirizine"}, ask, [read(MEDICATION)])
    assert decided is not None
    assert decided[1].line == "Cetirizine 10 mg status: taken at 07:31"


@pytest.mark.parametrize(
    ("ask", "expected"),
    [
        ("front door unlocked? lock it then", True),
        ("Did Hannah email? If so, reply that it's fine.", True),
        ("Check whether the door is locked, and lock it if it isn't.", True),
        ("Is the door locked?", False),
        ("What time is it? Set an alarm for 7.", False),
        ("check the door and lock it", False),
    ],
)
def test_a_question_the_change_hangs_on(ask: str, expected: bool) -> None:
    assert asks_then_acts(ask) is expected


async def test_a_write_planned_before_the_look_is_turned_round_for_a_question() -> None:
    done, tools = locks_tools(front_locked=False)
    model = FakeModel(
        [
            {"json": {"call": "set_lock", "then": "list_locks"}},
            {"json": {"call": "set_lock"}},
            {"json": {"name": "Front door", "locked": True}},
            {"text": "It was unlocked; I locked it."},
        ]
    )
    async with Agent(model, tools=tools, auto_approve=True) as agent:
        result = await agent.run("front door unlocked? lock it then")
    assert [step.tool for step in result.steps if step.kind == "tool"] == ["list_locks", "set_lock"]
    assert done == ["Front door"]
    assert checks(result) == [("state", True)]


# Asks built to break the rules (a review): each must be decided right, or not at all.
PAYMENTS = "1. id: t1, title: Car insurance renewal, status: in progress\n2. id: t2, title: Expense report, status: done"
ONE_LOCK = "1. id: lock-1, name: Front door, locked: false"
FRIDAY = "1. title: Pick up dry cleaning, due: Friday, done: false"
CONTACTS = (
    "1. name: Noor Haddad, birthday: 13 March 1992\n2. name: Sam Lee, birthday: 10 March 1990"
)


@pytest.mark.parametrize(
    ("ask", "arguments", "result", "go"),
    [
        # one row in the reads is not the row the condition names
        (
            "If I've finished the car insurance renewal, tick it off",
            {"task_id": "t1"},
            PAYMENTS,
            None,
        ),
        ("If the garage is unlocked, lock it", {"name": "Garage"}, ONE_LOCK, None),
        (
            "If Friday afternoon is still open, book the dentist then",
            {"title": "Dentist"},
            FRIDAY,
            None,
        ),
        # the condition's row, not the write's
        (
            "If the garage is unlocked, lock the front door as well",
            {"name": "Front door"},
            LOCKS,
            None,
        ),
        # a status read from its first part only, or not at all
        (
            "If I haven't taken my Metformin this morning, log it",
            {"medication": "Metformin"},
            "1. medication: Metformin, status: taken at 08:02, next dose due 20:00",
            False,
        ),
        (
            "If I haven't done the City Power bill yet, pay it",
            {"bill": "City Power"},
            "1. bill: City Power, status: paid, not yet cleared",
            False,
        ),
        (
            "If I'm still logged in on the old laptop, sign it out",
            {"device": "Old laptop"},
            "1. device: Old laptop, status: logged out",
            None,
        ),
        (
            "If the photo backup is complete, delete the photos",
            {"album": "Camera roll"},
            "1. name: Photo backup, status: completed with errors",
            None,
        ),
        # quantifiers, two branches, later days, a key's last word alone
        ("If nobody's home, arm the alarm", {"mode": "away"}, "name: Alex\nhome: true", None),
        (
            "If the expense report is done, tick it off; otherwise move it to Friday",
            {"id": 102, "due": "Friday"},
            TASKS,
            None,
        ),
        (
            "If I've got nothing else that day, book the dentist",
            {"title": "Dentist"},
            "1. title: Team offsite, all_day: true",
            None,
        ),
        (
            "If Tasca is open on Sunday, book a table",
            {"name": "Tasca"},
            "name: Tasca\nopen: true",
            None,
        ),
        # not a condition at all
        (
            "Not sure if I locked the front door, can you lock it?",
            {"name": "Front door"},
            LOCKS,
            None,
        ),
        ("Text Sam and ask him if the back door is unlocked", {"to": "Sam"}, LOCKS, None),
        (
            "Turn on the counter strip even if the porch light is on",
            {"name": "Counter strip"},
            LIGHTS,
            None,
        ),
        # the write is about something no row is
        (
            "if the back door's not locked, lock it. also turn off the porch light",
            {"name": "Porch light"},
            LOCKS,
            None,
        ),
    ],
)
def test_what_the_review_built_is_decided_right_or_not_at_all(
    ask: str, arguments: dict[str, Any], result: str, go: bool | None
) -> None:
    decided = flag_met(arguments, ask, [read(result)])
    assert (None if decided is None else decided[0]) is go


@pytest.mark.parametrize(
    ("ask", "arguments", "result"),
    [
        # the condition is Noor's birthday; the write goes to Sam
        (
            "If it's Noor's birthday today, remind Sam to bring the cake",
            {"to": "Sam Lee"},
            CONTACTS,
        ),
        # a range is no day; "from today", "by today" are not today
        (
            "Unless I'm on holiday today, set my 7am alarm",
            {"time": "07:00"},
            "holiday: 2025-03-08 to 2025-03-15",
        ),
        (
            "Order a cake for Noor unless her birthday is more than a week from today",
            {"item": "cake"},
            CONTACT,
        ),
        (
            "If the rent is due by today, pay it",
            {"payee": "Landlord"},
            "rent: 900\ndue: 2025-03-07",
        ),
        # "ask ... if" states no condition
        ("Ask Noor if it's her birthday today", {"to": "Noor Haddad"}, CONTACT),
    ],
)
def test_a_day_the_review_built_is_not_decided(
    ask: str, arguments: dict[str, Any], result: str
) -> None:
    assert day_met(arguments, ask, [read(result)], MONDAY) is None
