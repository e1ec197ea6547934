"""A phone-wide assistant: the ``assistant`` toolset of 38 functions from every domain, and asks
whose one needed function must be found among them.

The phone toolsets of :mod:`evals.suite.phone` hold eight tools each; a real assistant on a
phone exposes the tasks, calendar, contacts, notes, mail, reminders, clock, shopping lists,
home, locks, music, trips, health, money, files, workouts, recipes and flight search of the
same user at once, with near neighbours side by side (``start_timer`` and
``start_interval_timer``, ``add_reminder`` and ``create_task``, ``flight_status`` and
``search_flights``, ``get_activity`` and ``log_workout``). The world is the one the domain
toolsets show (fresh tools over fresh data per attempt).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from goliath import Tool

from . import (
    calendar,
    contacts,
    email,
    files,
    health,
    home,
    media,
    money,
    notes,
    reminders,
    shopping,
    tasks,
    travel,
    typed,
)
from .case import Ask, Case

__all__ = ["CASES", "TOOLS", "TOOLSETS", "assistant_tools"]

NOTHING: list[str] = []

TOOLS = (
    # tasks, calendar, people
    "list_tasks",
    "create_task",
    "complete_task",
    "list_events",
    "create_event",
    "find_contact",
    "upcoming_birthdays",
    "send_message",
    # notes, mail, files
    "search_notes",
    "search_emails",
    "send_email",
    "search_files",
    # reminders and the clock
    "list_reminders",
    "add_reminder",
    "list_alarms",
    "set_alarm",
    "start_timer",
    "list_timers",
    # shopping
    "get_list",
    "add_item",
    # home
    "list_lights",
    "set_light",
    "get_thermostat",
    "set_thermostat",
    "run_scene",
    "list_locks",
    "set_lock",
    # music
    "search_library",
    "play",
    # trips
    "get_itinerary",
    "flight_status",
    "search_flights",
    # health and workouts
    "get_sleep",
    "get_activity",
    "log_workout",
    "search_recipes",
    # money, read only
    "get_budgets",
    "upcoming_bills",
)
"""The assistant's functions, in the order the planner is shown them."""

_FACTORIES: tuple[Callable[[], list[Tool]], ...] = (
    tasks.task_tools,
    calendar.calendar_tools,
    contacts.contact_tools,
    notes.note_tools,
    email.email_tools,
    files.drive_tools,
    reminders.reminder_tools,
    reminders.clock_tools,
    shopping.list_tools,
    home.home_tools,
    home.security_tools,
    media.music_tools,
    travel.travel_tools,
    typed.travel_tools,
    health.health_tools,
    typed.fitness_tools,
    typed.kitchen_tools,
    money.money_tools,
)


def _pick(names: Iterable[str], factories: Iterable[Callable[[], list[Tool]]]) -> list[Tool]:
    """The named tools, in the order named, from fresh tools of the given domains; a name two
    domains define is an error, not a silent choice."""
    available: dict[str, Tool] = {}
    wanted = set(names)
    for factory in factories:
        for item in factory():
            if item.name in wanted and item.name in available:
                raise ValueError(f"two domains define {item.name!r} (one is {factory.__name__})")
            available[item.name] = item
    missing = [name for name in names if name not in available]
    if missing:
        raise KeyError(f"no tools {missing} in the domains")
    return [available[name] for name in names]


def assistant_tools() -> list[Tool]:
    """The 38 functions of :data:`TOOLS`, over fresh data of every domain."""
    return _pick(TOOLS, _FACTORIES)


TOOLSETS = {"assistant": assistant_tools}


CASES: list[Case] = [
    Case(
        id="assistant-remind-landlord",
        category="add",
        toolset="assistant",
        asks=[
            "remind me to email the landlord tomorrow at 9am",
            "Can you set a reminder for tomorrow, 9 in the morning, to email my landlord?",
            "remind me tmrw 9am email landlord",
            "Tomorrow at nine I need to send the landlord an email; please remind me.",
        ],
        tools=["add_reminder"],
        arguments=[{"title": "Email the landlord", "day": "tomorrow", "time": "9am"}],
        arg_mentions={"add_reminder.title": ["landlord"], "add_reminder.time": ["9"]},
        mentions=["landlord"],
        writes=["add_reminder"],
    ),
    Case(
        id="assistant-hardware-lightbulbs",
        category="add",
        toolset="assistant",
        asks=[
            "add lightbulbs to the hardware list",
            "Put light bulbs on my hardware shopping list, please.",
            "hardware list + lightbulbs",
            Ask(
                "We need 4 lightbulbs, add them to the hardware list.",
                arguments=[{"name": "Lightbulbs", "quantity": 4, "list_name": "Hardware"}],
                arg_values={"add_item.quantity": 4},
            ),
        ],
        tools=["add_item"],
        arguments=[{"name": "Lightbulbs", "list_name": "Hardware"}],
        arg_mentions={"add_item.name": ["bulb"], "add_item.list_name": ["hardware"]},
        arg_values={"add_item.quantity": 1},
        mentions=["bulb"],
        writes=["add_item"],
    ),
    Case(
        id="assistant-pasta-timer",
        category="add",
        toolset="assistant",
        asks=[
            "start a 12 minute timer for the pasta",
            "Could you time 12 minutes for the pasta, please?",
            "pasta timer 12 min",
            "The pasta's on; set a countdown of twelve minutes.",
        ],
        tools=["start_timer"],
        arguments=[{"minutes": 12, "label": "Pasta"}],
        arg_values={"start_timer.minutes": 12, "start_timer.seconds": 0},
        mentions=["pasta"],
        writes=["start_timer"],
    ),
    Case(
        id="assistant-sourdough-timer-ends",
        category="read",
        toolset="assistant",
        asks=[
            "when does the sourdough timer go off?",
            "What time will the sourdough proofing timer ring?",
            "sourdough timer ends when",
            "I need to shape the bread dough when its timer finishes; what time is that?",
        ],
        tools=["list_timers"],
        mentions=["10:12"],
        writes=NOTHING,
    ),
    Case(
        id="assistant-active-minutes-yesterday",
        category="read",
        toolset="assistant",
        asks=[
            "how many active minutes did I get yesterday?",
            "What did my watch count as active minutes yesterday?",
            "active mins yday",
            "Was I active enough yesterday? Tell me how many minutes of activity I had.",
        ],
        tools=["get_activity"],
        arguments=[{"day": "yesterday"}],
        arg_mentions={"get_activity.day": ["yesterday"]},
        mentions=["74"],
        writes=NOTHING,
    ),
    Case(
        id="assistant-reading-light-on",
        category="update",
        toolset="assistant",
        asks=[
            "switch the reading light on",
            "Could you turn on the reading light in the living room?",
            "reading light on",
            "I want to read on the sofa; put the reading lamp on, please.",
        ],
        tools=["set_light"],
        arguments=[{"name": "Reading light", "on": True}],
        arg_mentions={"set_light.name": ["reading"]},
        arg_values={"set_light.on": True, "set_light.brightness": None},
        mentions=["reading"],
        writes=["set_light"],
    ),
    Case(
        id="assistant-gym-alarm-time",
        category="read",
        toolset="assistant",
        asks=[
            "what time is my gym alarm set for?",
            "When does the gym alarm ring?",
            "gym alarm time",
            "I forgot when I set the alarm for the gym; what time is it?",
        ],
        tools=["list_alarms"],
        mentions=["6:45"],
        writes=NOTHING,
    ),
    Case(
        id="assistant-transport-budget",
        category="read",
        toolset="assistant",
        asks=[
            "how much is left in my transport budget this month?",
            "What have I got left to spend on transport for March?",
            "transport budget left?",
            "Before I top up my travel card, how much of the transport budget remains?",
        ],
        tools=["get_budgets"],
        mentions=["58.8"],
        writes=NOTHING,
    ),
    Case(
        id="assistant-vodafone-bill",
        category="read",
        toolset="assistant",
        asks=[
            "how much is the Vodafone bill and when is it due?",
            "When do I have to pay Vodafone, and how much is it?",
            "vodafone bill?",
            "My phone bill, the Vodafone one: what's the amount and the due date?",
        ],
        tools=["upcoming_bills"],
        mentions=["32.5"],
        writes=NOTHING,
    ),
    Case(
        id="assistant-marrakech-flight-time",
        category="read",
        toolset="assistant",
        asks=[
            "what time is my flight to Marrakech?",
            "When does my flight for Noor's wedding leave?",
            "marrakech flight time",
            "For the Marrakech trip in May, what time do I fly out?",
        ],
        tools=["get_itinerary"],
        arguments=[{"trip": "Marrakech"}],
        mentions=["10:20"],
        forbids=["postponed"],
        writes=NOTHING,
    ),
    Case(
        id="assistant-log-yoga",
        category="add",
        toolset="assistant",
        asks=[
            "log 30 minutes of yoga for today",
            "Please record a 30-minute yoga session today.",
            "yoga 30 min today, log it",
            "I did half an hour of yoga this morning; add it to my workouts.",
        ],
        tools=["log_workout"],
        arguments=[{"kind": "yoga", "minutes": 30, "day": "today"}],
        arg_values={
            "log_workout.kind": "yoga",
            "log_workout.minutes": 30,
            "log_workout.distance_km": None,
        },
        mentions=["yoga"],
        writes=["log_workout"],
    ),
    Case(
        id="assistant-vegan-recipes",
        category="read",
        toolset="assistant",
        asks=[
            "what vegan recipes do I have?",
            "Which of my saved recipes are vegan?",
            "vegan recipes pls",
            "A vegan friend is coming for dinner; what can I cook from my recipes?",
        ],
        tools=["search_recipes"],
        arguments=[{"diet": "vegan"}],
        arg_values={"search_recipes.diet": "vegan"},
        mentions=["lentil", "ceci"],
        forbids=["shakshuka"],
        writes=NOTHING,
    ),
    Case(
        id="assistant-capital-australia",
        category="knowledge",
        toolset="assistant",
        asks=[
            "what's the capital of Australia?",
            "Which city is Australia's capital?",
            "capital of australia",
            "My quiz team is stuck: what's the capital city of Australia?",
        ],
        mentions=["canberra"],
        writes=NOTHING,
    ),
    Case(
        id="assistant-book-restaurant",
        category="escalate",
        toolset="assistant",
        handled_by="cloud",
        asks=[
            "book a table for four at an Italian restaurant near me tonight at 8",
            "Can you find a good Italian place nearby and reserve a table for 4 at 20:00?",
            "book italian dinner 4 ppl 8pm tonight",
            "Sort out a restaurant booking for tonight: Italian, four people, eight o'clock.",
        ],
    ),
]
