"""Real-world parameter types: the ``typed-home``, ``typed-fitness``, ``typed-travel`` and
``typed-kitchen`` toolsets and their asks.

The other domains mostly take strings; real app APIs take numbers (a temperature of 21.5, a
price limit), integers (minutes, rounds, nights), booleans, enums, arrays (rooms, tags,
amenities, shopping items), nested objects (a recurrence ``{every, unit}``, a goal
``{amount, unit}``, a date range) and optional parameters with defaults. These asks check that
the values arrive with their type and value: a number not changed on the way (``arg_values``
compares numbers as numbers), a string without words the description rules out, a list with
no item repeated, an optional value not invented.

The world is Monday 10 March 2025, 09:00, in Jordan's flat in Amsterdam:

- ``typed-home`` (a climate and robot-vacuum app): three heating zones, the bedroom at 16.5 °C
  and the study at 17.4 °C; the vacuum cleans the living room and kitchen weekly.
- ``typed-fitness`` (a workout log): twelve workouts since 25 February (last Friday a 52-minute,
  21.4 km commute ride) and March goals (40 km of running, 120 minutes of yoga, 4 swims).
- ``typed-travel`` (a flight and hotel *search* app: it books nothing, buying stays with the
  cloud): fares from Amsterdam to Lisbon, Barcelona, Reykjavik and Porto; Porto hotels.
- ``typed-kitchen`` (a recipe app with a pantry, a shopping list and a connected oven).
"""

from __future__ import annotations

import datetime
import re
from typing import Annotated, Any, Literal

import pydantic
from typing_extensions import TypedDict

from goliath import Tool, tool

from ._lenient import TODAY, find_one, iso, parse_day, parse_past_day, parse_time
from .case import Ask, Case

__all__ = ["CASES", "TOOLSETS", "fitness_tools", "home_tools", "kitchen_tools", "travel_tools"]

NOTHING: list[str] = []

# ---------------------------------------------------------------- home

Zone = Literal["Living room", "Bedroom", "Study"]
Room = Literal["Kitchen", "Living room", "Hallway", "Bedroom", "Study", "Bathroom"]
Suction = Literal["quiet", "standard", "max"]


class Repeat(TypedDict):
    """How often a schedule comes back: every 2 weeks is ``{"every": 2, "unit": "week"}``."""

    every: Annotated[
        int, pydantic.Field(ge=1, le=12, description="How many units apart, e.g. 2 for fortnightly")
    ]
    unit: Annotated[Literal["day", "week", "month"], pydantic.Field(description="The unit")]


def zones_data() -> list[dict[str, Any]]:
    return [
        {"zone": "Living room", "current_c": 19.5, "target_c": 20.0, "humidity_pct": 52},
        {"zone": "Bedroom", "current_c": 16.5, "target_c": 17.0, "humidity_pct": 60},
        {"zone": "Study", "current_c": 17.4, "target_c": 19.0, "humidity_pct": 48},
    ]


def schedules_data() -> list[dict[str, Any]]:
    return [
        {"id": "vs-1", "rooms": ["Living room", "Kitchen"], "time": "10:30",
         "repeat": {"every": 1, "unit": "week"}, "suction": "standard", "mop": False,
         "next_run": "2025-03-13"},
    ]  # fmt: skip


def _amount(value: float) -> float | int:
    rounded = round(value, 1)
    return int(rounded) if rounded == int(rounded) else rounded


def _clock_after(minutes: float) -> str:
    moment = datetime.datetime.combine(TODAY, datetime.time(9, 0))
    return (moment + datetime.timedelta(minutes=minutes)).strftime("%H:%M")


def home_tools() -> list[Tool]:
    """``get_climate``, ``set_temperature``, ``set_climate_mode``, ``vacuum_status``,
    ``start_cleaning``, ``schedule_cleaning`` over a fresh flat."""
    zones = zones_data()
    climate: dict[str, Any] = {"mode": "heat", "outdoor_c": 6.5, "eco_c": 16.0}
    schedules = schedules_data()

    @tool
    def get_climate() -> list[dict[str, Any]]:
        """Read the heating, zone by zone: temperature now, target, humidity and the mode."""
        return [{**zone, "mode": climate["mode"]} for zone in zones]

    @tool(writes=True)
    def set_temperature(
        zone: Zone, target_c: float, hold_hours: int | None = None
    ) -> dict[str, Any]:
        """Set one heating zone's target temperature.

        Args:
            zone: The zone to heat.
            target_c: The target in °C, to one decimal (5-30), e.g. 21.5.
            hold_hours: Keep this target for this many hours (1-24), then go back to the
                schedule; leave out to keep it until changed.
        """
        if not 5 <= target_c <= 30:
            raise ValueError("the target must be between 5 and 30 °C")
        if hold_hours is not None and not 1 <= hold_hours <= 24:
            raise ValueError("hold_hours is a whole number of hours from 1 to 24")
        found = next(item for item in zones if item["zone"] == zone)
        found["target_c"] = round(float(target_c), 1)
        until = _clock_after(hold_hours * 60) if hold_hours else None
        return {"ok": True, **found, "held_until": until, "mode": climate["mode"]}

    @tool(writes=True)
    def set_climate_mode(mode: Literal["heat", "cool", "auto", "eco", "off"]) -> dict[str, Any]:
        """Switch the whole heating system's mode.

        Args:
            mode: heat, cool, auto (follows the schedule), eco (16 °C everywhere) or off.
        """
        climate["mode"] = mode
        return {"ok": True, "mode": mode}

    @tool
    def vacuum_status() -> dict[str, Any]:
        """Read the robot vacuum: battery, how full its bin is and its cleaning schedules."""
        return {
            "battery_pct": 86,
            "bin_full_pct": 70,
            "docked": True,
            "schedules": [dict(item) for item in schedules],
        }

    @tool(writes=True)
    def start_cleaning(
        rooms: list[Room] | None = None,
        suction: Suction = "standard",
        mop: bool = False,
        passes: int = 1,
    ) -> dict[str, Any]:
        """Send the robot vacuum to clean now.

        Args:
            rooms: The rooms to clean, each once in the list; leave out for the whole flat.
            suction: quiet, standard or max.
            mop: Mop the hard floors as well.
            passes: How many times to go over each room (1-3).
        """
        if not 1 <= passes <= 3:
            raise ValueError("passes is 1, 2 or 3")
        chosen = list(dict.fromkeys(rooms or ["Kitchen", "Living room", "Hallway", "Bedroom",
                                              "Study", "Bathroom"]))  # fmt: skip
        minutes = 9 * len(chosen) * passes + (6 if mop else 0)
        return {"ok": True, "cleaning": chosen, "suction": suction, "mop": mop,
                "passes": passes, "done_by": _clock_after(minutes)}  # fmt: skip

    @tool(writes=True)
    def schedule_cleaning(
        rooms: list[Room],
        time: str,
        repeat: Repeat,
        suction: Suction = "standard",
        mop: bool = False,
    ) -> dict[str, Any]:
        """Add a repeating cleaning schedule for the robot vacuum.

        Args:
            rooms: The rooms it cleans, each once in the list.
            time: The start time, like 10:00.
            repeat: How often: e.g. every 1 week, every 2 weeks (fortnightly), every 1 day.
            suction: quiet, standard or max.
            mop: Mop the hard floors as well.
        """
        if not rooms:
            raise ValueError("say which rooms the schedule cleans")
        start = parse_time(time)
        item = {
            "id": f"vs-{len(schedules) + 1}",
            "rooms": list(dict.fromkeys(rooms)),
            "time": start,
            "repeat": dict(repeat),
            "suction": suction,
            "mop": mop,
            "next_run": iso(TODAY + datetime.timedelta(days=0 if start > "09:00" else 1)),
        }
        schedules.append(item)
        return {"ok": True, **item}

    return [
        get_climate,
        set_temperature,
        set_climate_mode,
        vacuum_status,
        start_cleaning,
        schedule_cleaning,
    ]


# ---------------------------------------------------------------- fitness

Kind = Literal["run", "ride", "swim", "walk", "strength", "yoga"]


class Target(TypedDict):
    """A goal's size: an amount of a unit."""

    amount: Annotated[float, pydantic.Field(gt=0, description="How much, e.g. 50")]
    unit: Annotated[Literal["km", "minutes", "sessions"], pydantic.Field(description="The unit")]


def workouts_data() -> list[dict[str, Any]]:
    """Jordan's workouts since 25 February, newest first."""
    rows = [
        ("2025-03-09", "run", 62, 11.2, ["long run"]),
        ("2025-03-08", "yoga", 45, None, ["mobility"]),
        ("2025-03-07", "ride", 52, 21.4, ["commute"]),
        ("2025-03-06", "strength", 40, None, ["gym"]),
        ("2025-03-05", "run", 28, 5.0, []),
        ("2025-03-04", "ride", 49, 20.8, ["commute"]),
        ("2025-03-03", "swim", 35, 1.5, []),
        ("2025-03-02", "yoga", 30, None, []),
        ("2025-03-01", "run", 55, 10.1, []),
        ("2025-02-28", "ride", 50, 21.0, ["commute"]),
        ("2025-02-26", "strength", 45, None, ["gym"]),
        ("2025-02-25", "run", 31, 5.6, []),
    ]
    return [
        {"id": f"w-{31 - n}", "date": day, "kind": kind, "minutes": minutes,
         "distance_km": km, "tags": tags}
        for n, (day, kind, minutes, km, tags) in enumerate(rows)
    ]  # fmt: skip


def goals_data() -> list[dict[str, Any]]:
    return [
        {"kind": "run", "target": {"amount": 40.0, "unit": "km"}, "period": "month"},
        {"kind": "yoga", "target": {"amount": 120.0, "unit": "minutes"}, "period": "month"},
        {"kind": "swim", "target": {"amount": 4.0, "unit": "sessions"}, "period": "month"},
    ]


def _goal_row(goal: dict[str, Any], done: float) -> dict[str, Any]:
    """A goal as the app lists it: one line, the target's amount and unit side by side."""
    target = goal["target"]
    return {"kind": goal["kind"], "period": goal["period"], "target": _amount(target["amount"]),
            "unit": target["unit"], "done": done}  # fmt: skip


def fitness_tools() -> list[Tool]:
    """``list_workouts``, ``log_workout``, ``get_goals``, ``set_goal``,
    ``start_interval_timer`` over a fresh workout log."""
    workouts = workouts_data()
    goals = goals_data()

    def progress(goal: dict[str, Any]) -> float | int:
        start = (
            TODAY.replace(day=1)
            if goal["period"] == "month"
            else TODAY - datetime.timedelta(days=TODAY.weekday())
        )
        done = [w for w in workouts if w["kind"] == goal["kind"] and w["date"] >= iso(start)]
        unit = goal["target"]["unit"]
        if unit == "km":
            return _amount(sum(w["distance_km"] or 0 for w in done))
        if unit == "minutes":
            return _amount(sum(w["minutes"] for w in done))
        return len(done)

    @tool
    def list_workouts(days: int = 7, kind: Kind | None = None) -> list[dict[str, Any]]:
        """List logged workouts, newest first.

        Args:
            days: How many days back to look, today included (1-90).
            kind: Only this kind of workout; leave out for all.
        """
        if not 1 <= days <= 90:
            raise ValueError("days is a whole number from 1 to 90")
        since = iso(TODAY - datetime.timedelta(days=days))
        return [
            dict(w) for w in workouts if w["date"] > since and (kind is None or w["kind"] == kind)
        ]

    @tool(writes=True)
    def log_workout(
        kind: Kind,
        minutes: int,
        distance_km: float | None = None,
        day: str = "today",
        tags: list[str] | None = None,
    ) -> dict[str, Any]:
        """Log a workout that was done.

        Args:
            kind: What it was.
            minutes: How long it took, in whole minutes.
            distance_km: The distance in km, as given (e.g. 18.5); leave out for yoga,
                strength or when not given.
            day: The day it was done: today, yesterday, a weekday or 8 March.
            tags: Short labels, one word or two each (e.g. commute), each once.
        """
        if not 1 <= minutes <= 600:
            raise ValueError("minutes is a whole number from 1 to 600")
        if distance_km is not None and not 0 < distance_km <= 300:
            raise ValueError("distance_km must be above 0 and at most 300")
        item = {"id": f"w-{32 + len(workouts) - 12}", "date": iso(parse_past_day(day)),
                "kind": kind, "minutes": minutes, "distance_km": distance_km,
                "tags": list(tags or [])}  # fmt: skip
        workouts.insert(0, item)
        return {"ok": True, **item}

    @tool
    def get_goals() -> list[dict[str, Any]]:
        """Show the workout goals and how much of each is done so far this period."""
        return [_goal_row(goal, progress(goal)) for goal in goals]

    @tool(writes=True)
    def set_goal(
        kind: Kind, target: Target, period: Literal["week", "month"] = "month"
    ) -> dict[str, Any]:
        """Set (or replace) the goal for one kind of workout.

        Args:
            kind: The kind of workout the goal is for.
            target: How much: an amount and its unit (km, minutes or sessions).
            period: Whether the goal is per week or per month.
        """
        goal = {"kind": kind, "target": dict(target), "period": period}
        goals[:] = [g for g in goals if g["kind"] != kind] + [goal]
        return {"ok": True, **_goal_row(goal, progress(goal))}

    @tool(writes=True)
    def start_interval_timer(
        rounds: int,
        work_seconds: int,
        rest_seconds: int,
        warmup_minutes: int = 0,
        voice_cues: bool = True,
    ) -> dict[str, Any]:
        """Start an interval timer: rounds of work then rest, after an optional warm-up.

        Args:
            rounds: How many rounds (1-50).
            work_seconds: Seconds of work in each round (5-600).
            rest_seconds: Seconds of rest after each round (0-600).
            warmup_minutes: Minutes of warm-up before the first round.
            voice_cues: Announce each round out loud.
        """
        if not 1 <= rounds <= 50:
            raise ValueError("rounds is a whole number from 1 to 50")
        if not 5 <= work_seconds <= 600 or not 0 <= rest_seconds <= 600:
            raise ValueError("work_seconds is 5-600 and rest_seconds 0-600")
        total = warmup_minutes * 60 + rounds * (work_seconds + rest_seconds)
        return {"ok": True, "rounds": rounds, "work_seconds": work_seconds,
                "rest_seconds": rest_seconds, "warmup_minutes": warmup_minutes,
                "total": f"{total // 60} min {total % 60:02d} s",
                "ends": _clock_after(total / 60)}  # fmt: skip

    return [list_workouts, log_workout, get_goals, set_goal, start_interval_timer]


# ---------------------------------------------------------------- travel

AIRPORTS = {
    "AMS": ("amsterdam", "schiphol"),
    "LIS": ("lisbon", "lisboa"),
    "BCN": ("barcelona", "el prat"),
    "KEF": ("reykjavik", "reykjavík", "keflavik", "iceland"),
    "OPO": ("porto", "oporto"),
}

FARES: dict[tuple[str, str], list[tuple[str, str, str, str, int, str | None, float]]] = {
    ("AMS", "LIS"): [
        ("IB 3421", "Iberia", "11:10", "16:55", 1, "Madrid", 128.0),
        ("HV 5951", "Transavia", "06:15", "08:40", 0, None, 142.0),
        ("TP 663", "TAP Air Portugal", "12:10", "14:35", 0, None, 176.0),
        ("KL 1691", "KLM", "07:05", "09:30", 0, None, 189.0),
    ],
    ("AMS", "BCN"): [
        ("VY 8316", "Vueling", "10:25", "12:40", 0, None, 96.0),
        ("HV 6103", "Transavia", "18:50", "21:05", 0, None, 109.0),
        ("KL 1671", "KLM", "07:00", "09:15", 0, None, 134.0),
        ("LH 989", "Lufthansa", "06:30", "11:20", 1, "Frankfurt", 151.0),
    ],
    ("AMS", "KEF"): [
        ("OG 201", "PLAY", "06:00", "07:40", 0, None, 163.0),
        ("FI 503", "Icelandair", "14:00", "15:45", 0, None, 212.0),
    ],
    ("AMS", "OPO"): [
        ("HV 5355", "Transavia", "09:50", "12:00", 0, None, 118.0),
        ("TP 659", "TAP Air Portugal", "13:20", "17:45", 1, "Lisbon", 139.0),
    ],
}
CABINS = {"economy": 1.0, "premium": 1.9, "business": 3.4}
FULL_SERVICE = ("KLM", "TAP Air Portugal", "Iberia", "Lufthansa", "Icelandair")

Amenity = Literal["wifi", "breakfast", "pool", "parking", "gym"]

HOTELS: dict[str, list[dict[str, Any]]] = {
    "Porto": [
        {"hotel": "Casa da Ribeira", "area": "Ribeira", "per_night_eur": 98.0,
         "amenities": ["wifi", "breakfast"], "rating": 8.9},
        {"hotel": "Hotel Aliados Boutique", "area": "Baixa", "per_night_eur": 115.0,
         "amenities": ["wifi", "breakfast", "gym"], "rating": 8.6},
        {"hotel": "Douro Riverside Apartments", "area": "Vila Nova de Gaia",
         "per_night_eur": 88.0, "amenities": ["wifi", "parking"], "rating": 8.3},
        {"hotel": "Porto Poets Hostel", "area": "Cedofeita", "per_night_eur": 45.0,
         "amenities": ["wifi"], "rating": 8.1},
        {"hotel": "Torel Palace Porto", "area": "Baixa", "per_night_eur": 210.0,
         "amenities": ["wifi", "breakfast", "pool"], "rating": 9.4},
    ],
    "Barcelona": [
        {"hotel": "Hotel Casa Bonay", "area": "Eixample", "per_night_eur": 165.0,
         "amenities": ["wifi", "gym"], "rating": 9.0},
        {"hotel": "Sant Pere Apartments", "area": "El Born", "per_night_eur": 119.0,
         "amenities": ["wifi"], "rating": 8.4},
    ],
    "Lisbon": [
        {"hotel": "Casa do Largo", "area": "Alfama", "per_night_eur": 131.0,
         "amenities": ["wifi", "breakfast"], "rating": 9.1},
        {"hotel": "Lisbon Lounge Hostel", "area": "Baixa", "per_night_eur": 52.0,
         "amenities": ["wifi", "breakfast"], "rating": 8.8},
    ],
}  # fmt: skip


class DateRange(TypedDict):
    """The travel dates a price alert watches: any day from ``earliest`` to ``latest``."""

    earliest: Annotated[str, pydantic.Field(description="The first day, e.g. 1 June")]
    latest: Annotated[str, pydantic.Field(description="The last day, e.g. 15 June")]


def _airport(text: str) -> str:
    cleaned = re.sub(r"\(.*?\)", " ", text.lower()).strip(" .,")
    for code, names in AIRPORTS.items():
        if cleaned == code.lower() or re.search(rf"\b{code.lower()}\b", text.lower()):
            return code
        if any(re.search(rf"\b{re.escape(name)}\b", cleaned) for name in names):
            return code
    listed = ", ".join(f"{code} ({names[0].title()})" for code, names in AIRPORTS.items())
    raise LookupError(f"no airport matches {text!r}; this app flies between: {listed}")


def travel_tools() -> list[Tool]:
    """``search_flights``, ``search_hotels``, ``get_traveller_profile``, ``list_price_alerts``,
    ``create_price_alert``: searching and watching fares, never buying."""
    alerts: list[dict[str, Any]] = [
        {"id": "pa-1", "origin": "AMS", "destination": "OPO", "max_price_eur": 90.0,
         "travel_dates": {"earliest": "2025-04-01", "latest": "2025-04-30"}, "passengers": 1,
         "nonstop_only": True, "lowest_seen_eur": 118.0},
    ]  # fmt: skip

    @tool
    def search_flights(
        origin: str,
        destination: str,
        date: str,
        passengers: int = 1,
        cabin: Literal["economy", "premium", "business"] = "economy",
        nonstop_only: bool = False,
        max_price_eur: float | None = None,
    ) -> list[dict[str, Any]]:
        """Search one-way flights on one day, cheapest first (it books nothing).

        Args:
            origin: The departure city or airport code, e.g. Amsterdam or AMS.
            destination: The arrival city or airport code, e.g. Lisbon or LIS.
            date: The day of travel: 4 April, 2025-04-04 or a weekday.
            passengers: How many people fly (1-9).
            cabin: economy, premium or business.
            nonstop_only: Only direct flights.
            max_price_eur: Only fares up to this price per person, in euros; leave out for
                any price.
        """
        if not 1 <= passengers <= 9:
            raise ValueError("passengers is a whole number from 1 to 9")
        start, end = _airport(origin), _airport(destination)
        day = parse_day(date)
        route = FARES.get((start, end))
        if route is None:
            routes = ", ".join(f"{a}-{b}" for a, b in FARES)
            raise LookupError(f"no flights {start}-{end} in this app; routes: {routes}")
        offers = []
        for number, airline, depart, arrive, stops, via, price in route:
            if cabin != "economy" and airline not in FULL_SERVICE:
                continue
            fare = round(price * CABINS[cabin], 2)
            if (nonstop_only and stops) or (max_price_eur is not None and fare > max_price_eur):
                continue
            offers.append({"flight": number, "airline": airline, "from": start, "to": end,
                           "date": iso(day), "depart": depart, "arrive": arrive,
                           "stops": stops, "via": via, "cabin": cabin,
                           "price_per_person_eur": fare,
                           "total_eur": round(fare * passengers, 2)})  # fmt: skip
        return sorted(offers, key=lambda offer: offer["price_per_person_eur"])

    @tool
    def search_hotels(
        city: str,
        check_in: str,
        nights: int,
        guests: int = 2,
        max_price_per_night: float | None = None,
        amenities: list[Amenity] | None = None,
    ) -> list[dict[str, Any]]:
        """Search hotels with rooms free for a stay, best rated first (it books nothing).

        Args:
            city: The city name only, e.g. Porto.
            check_in: The day of arrival: 18 April or 2025-04-18.
            nights: How many nights (1-30).
            guests: How many people share the room.
            max_price_per_night: Only rooms up to this price per night, in euros.
            amenities: What the hotel must have, each once.
        """
        if not 1 <= nights <= 30:
            raise ValueError("nights is a whole number from 1 to 30")
        name = find_one([{"name": c} for c in HOTELS], "name", city, "city")["name"]
        arrive = parse_day(check_in)
        leave = arrive + datetime.timedelta(days=nights)
        wanted = set(amenities or [])
        found = [
            {**hotel, "check_in": iso(arrive), "check_out": iso(leave), "guests": guests,
             "total_eur": round(hotel["per_night_eur"] * nights, 2)}
            for hotel in HOTELS[name]
            if wanted <= set(hotel["amenities"])
            and (max_price_per_night is None or hotel["per_night_eur"] <= max_price_per_night)
        ]  # fmt: skip
        return sorted(found, key=lambda hotel: -hotel["rating"])

    @tool
    def get_traveller_profile() -> dict[str, Any]:
        """Read the traveller's profile: name, home airport, loyalty card, seat preference."""
        return {
            "name": "Jordan",
            "home_airport": "AMS",
            "home_airport_name": "Amsterdam Schiphol",
            "loyalty": "Flying Blue 2048 7731 (Silver)",
            "seat": "aisle",
            "passport_expires": "2031-08-19",
        }

    @tool
    def list_price_alerts() -> list[dict[str, Any]]:
        """List the fare alerts being watched, with the lowest fare seen so far."""
        return [dict(alert) for alert in alerts]

    @tool(writes=True)
    def create_price_alert(
        origin: str,
        destination: str,
        max_price_eur: float,
        travel_dates: DateRange,
        passengers: int = 1,
        nonstop_only: bool = False,
    ) -> dict[str, Any]:
        """Watch a route's fares and notify the user when one drops below a price.

        Args:
            origin: The departure city or airport code.
            destination: The arrival city or airport code.
            max_price_eur: Notify when a fare per person is at or below this, in euros.
            travel_dates: The range of days to watch.
            passengers: How many people would fly.
            nonstop_only: Only watch direct flights.
        """
        earliest = parse_day(travel_dates["earliest"])
        latest = parse_day(travel_dates["latest"])
        if latest < earliest:
            raise ValueError("the latest day is before the earliest one")
        if max_price_eur <= 0:
            raise ValueError("max_price_eur must be above 0")
        alert = {"id": f"pa-{len(alerts) + 1}", "origin": _airport(origin),
                 "destination": _airport(destination), "max_price_eur": float(max_price_eur),
                 "travel_dates": {"earliest": iso(earliest), "latest": iso(latest)},
                 "passengers": passengers, "nonstop_only": nonstop_only,
                 "lowest_seen_eur": None}  # fmt: skip
        alerts.append(alert)
        return {"ok": True, **alert}

    return [
        search_flights,
        search_hotels,
        get_traveller_profile,
        list_price_alerts,
        create_price_alert,
    ]


# ---------------------------------------------------------------- kitchen

Diet = Literal["any", "vegetarian", "vegan", "gluten-free"]

RECIPES: list[dict[str, Any]] = [
    {"id": "r-101", "name": "Shakshuka", "minutes": 30, "serves": 2,
     "diet": ["vegetarian", "gluten-free"],
     "ingredients": [("eggs", 4, ""), ("tinned tomatoes", 400, "g"), ("red pepper", 1, ""),
                     ("onion", 1, ""), ("feta", 60, "g"), ("ground cumin", 1, "tsp")]},
    {"id": "r-102", "name": "Spinach and feta pie", "minutes": 55, "serves": 4,
     "diet": ["vegetarian"],
     "ingredients": [("spinach", 500, "g"), ("feta", 200, "g"), ("filo pastry", 270, "g"),
                     ("eggs", 2, ""), ("dill", 1, "bunch"), ("butter", 50, "g")]},
    {"id": "r-103", "name": "Red lentil soup", "minutes": 35, "serves": 4,
     "diet": ["vegan", "vegetarian", "gluten-free"],
     "ingredients": [("red lentils", 250, "g"), ("carrots", 2, ""), ("onion", 1, ""),
                     ("vegetable stock", 1200, "ml"), ("ground cumin", 2, "tsp"),
                     ("lemon", 1, "")]},
    {"id": "r-104", "name": "Chicken tikka traybake", "minutes": 45, "serves": 4,
     "diet": ["gluten-free"],
     "ingredients": [("chicken thighs", 600, "g"), ("yoghurt", 150, "g"),
                     ("tikka paste", 3, "tbsp"), ("cauliflower", 1, ""), ("red onions", 2, "")]},
    {"id": "r-105", "name": "Pasta e ceci", "minutes": 25, "serves": 2,
     "diet": ["vegan", "vegetarian"],
     "ingredients": [("pasta", 160, "g"), ("chickpeas", 1, "tin"), ("garlic", 2, "cloves"),
                     ("rosemary", 1, "sprig"), ("tinned tomatoes", 200, "g")]},
    {"id": "r-106", "name": "Mushroom risotto", "minutes": 40, "serves": 3,
     "diet": ["vegetarian", "gluten-free"],
     "ingredients": [("risotto rice", 240, "g"), ("mushrooms", 300, "g"), ("parmesan", 60, "g"),
                     ("vegetable stock", 900, "ml"), ("white wine", 100, "ml")]},
    {"id": "r-107", "name": "Miso salmon with greens", "minutes": 20, "serves": 2,
     "diet": [],
     "ingredients": [("salmon fillets", 2, ""), ("white miso", 2, "tbsp"), ("pak choi", 2, ""),
                     ("rice", 150, "g")]},
]  # fmt: skip


def pantry_data() -> list[dict[str, Any]]:
    return [
        {"item": "Eggs", "quantity": 6, "unit": ""},
        {"item": "Parmesan", "quantity": 120, "unit": "g"},
        {"item": "Red lentils", "quantity": 500, "unit": "g"},
        {"item": "Tinned tomatoes", "quantity": 2, "unit": "tins"},
        {"item": "Onions", "quantity": 3, "unit": ""},
        {"item": "Risotto rice", "quantity": 1, "unit": "kg"},
        {"item": "Ground cumin", "quantity": 1, "unit": "jar"},
    ]


def _loose(text: str) -> str:
    return re.sub(r"(\w{3,})s\b", r"\1", text.lower().strip())


def kitchen_tools() -> list[Tool]:
    """``search_recipes``, ``get_recipe``, ``get_pantry``, ``get_shopping_list``,
    ``add_to_shopping_list``, ``set_oven`` over a fresh kitchen."""
    pantry = pantry_data()
    shopping: list[dict[str, Any]] = [
        {"item": "Oat milk", "store": "supermarket"},
        {"item": "Bananas", "store": "market"},
        {"item": "Dill", "store": "market"},
    ]
    oven: dict[str, Any] = {"on": False}

    def summary(recipe: dict[str, Any]) -> dict[str, Any]:
        return {key: recipe[key] for key in ("id", "name", "minutes", "serves", "diet")}

    @tool
    def search_recipes(
        query: str | None = None,
        ingredients: list[str] | None = None,
        max_minutes: int | None = None,
        diet: Diet = "any",
    ) -> list[dict[str, Any]]:
        """Search the recipe book; every filter given must hold.

        Args:
            query: Words of the dish's name, e.g. lentil soup.
            ingredients: Ingredients the recipe must use, one per item.
            max_minutes: Only recipes ready in at most this many minutes.
            diet: any, vegetarian (vegan recipes count), vegan or gluten-free.
        """
        found = []
        for recipe in RECIPES:
            names = [_loose(name) for name, _, _ in recipe["ingredients"]]
            if query and not all(
                _loose(word) in _loose(recipe["name"])
                for word in re.findall(r"[a-z]+", query.lower())
                if word not in ("the", "a", "and", "recipe", "with")
            ):
                continue
            if ingredients and not all(
                any(_loose(wanted) in name for name in names) for wanted in ingredients
            ):
                continue
            if max_minutes is not None and recipe["minutes"] > max_minutes:
                continue
            if diet != "any" and diet not in recipe["diet"]:
                continue
            found.append(summary(recipe))
        return found

    @tool
    def get_recipe(recipe_id: str, servings: int | None = None) -> dict[str, Any]:
        """Read one recipe's ingredients, scaled to a number of servings.

        Args:
            recipe_id: The recipe's id from search_recipes (e.g. r-103) or its name.
            servings: How many people to cook for; leave out for the recipe's own number.
        """
        recipe = find_one(RECIPES, "name", recipe_id, "recipe")
        serves = servings or recipe["serves"]
        if not 1 <= serves <= 24:
            raise ValueError("servings is a whole number from 1 to 24")
        factor = serves / recipe["serves"]
        return {
            **summary(recipe),
            "servings": serves,
            "ingredients": [
                f"{_amount(amount * factor)}{' ' + unit if unit else ''} {name}"
                for name, amount, unit in recipe["ingredients"]
            ],
        }

    @tool
    def get_pantry() -> list[dict[str, Any]]:
        """List what is in the kitchen cupboards and fridge, with quantities."""
        return [dict(item) for item in pantry]

    @tool
    def get_shopping_list() -> list[dict[str, Any]]:
        """List what is on the shopping list, and which store each item is for."""
        return [dict(item) for item in shopping]

    @tool(writes=True)
    def add_to_shopping_list(
        items: list[str], store: Literal["supermarket", "market", "pharmacy"] = "supermarket"
    ) -> dict[str, Any]:
        """Put items on the shopping list.

        Args:
            items: The items, each once and each just the thing to buy (e.g. eggs, feta).
            store: Which store they are for.
        """
        if not items or not all(item.strip() for item in items):
            raise ValueError("give at least one item, each a non-empty name")
        there = {_loose(row["item"]) for row in shopping}
        added, already = [], []
        for item in dict.fromkeys(item.strip() for item in items):
            if _loose(item) in there:
                already.append(item)
                continue
            shopping.append({"item": item, "store": store})
            there.add(_loose(item))
            added.append(item)
        return {"ok": True, "added": added, "already_there": already, "store": store}

    @tool(writes=True)
    def set_oven(
        temperature_c: int,
        mode: Literal["fan", "conventional", "grill"] = "fan",
        timer_minutes: int | None = None,
        preheat_alert: bool = True,
    ) -> dict[str, Any]:
        """Switch the oven on at a temperature, optionally with a cooking timer.

        Args:
            temperature_c: The temperature in °C (50-250).
            mode: fan, conventional (top and bottom heat) or grill.
            timer_minutes: A timer in whole minutes that starts now; leave out for none.
            preheat_alert: Notify the phone when the oven is up to temperature.
        """
        if not 50 <= temperature_c <= 250:
            raise ValueError("the oven goes from 50 to 250 °C")
        if timer_minutes is not None and not 1 <= timer_minutes <= 300:
            raise ValueError("timer_minutes is a whole number from 1 to 300")
        oven.update(on=True, temperature_c=temperature_c, mode=mode)
        return {"ok": True, **oven, "preheated_by": _clock_after(temperature_c / 20),
                "timer_ends": _clock_after(timer_minutes) if timer_minutes else None,
                "preheat_alert": preheat_alert}  # fmt: skip

    return [
        search_recipes,
        get_recipe,
        get_pantry,
        get_shopping_list,
        add_to_shopping_list,
        set_oven,
    ]


TOOLSETS = {
    "typed-home": home_tools,
    "typed-fitness": fitness_tools,
    "typed-travel": travel_tools,
    "typed-kitchen": kitchen_tools,
}


CASES: list[Case] = [
    # ------------------------------------------------------------ home
    Case(
        id="typed-bedroom-temperature",
        category="read",
        toolset="typed-home",
        asks=[
            "how warm is it in the bedroom right now?",
            "What's the temperature in the bedroom at the moment?",
            "bedroom temp rn",
            "Is it cold in the room I sleep in? How many degrees is it there?",
        ],
        tools=["get_climate"],
        mentions=["16.5"],
        writes=NOTHING,
    ),
    Case(
        id="typed-living-room-21-5",
        category="update",
        toolset="typed-home",
        asks=[
            "set the living room to 21.5 degrees",
            "Could you heat the living room to 21.5 °C, please?",
            "living room 21.5",
            Ask(
                "Warm the living room up to 21.5 for the next 3 hours, please.",
                arguments=[{"zone": "Living room", "target_c": 21.5, "hold_hours": 3}],
                arg_values={
                    "set_temperature.zone": "Living room",
                    "set_temperature.target_c": 21.5,
                    "set_temperature.hold_hours": 3,
                },
            ),
        ],
        tools=["set_temperature"],
        arguments=[{"zone": "Living room", "target_c": 21.5}],
        arg_values={
            "set_temperature.zone": "Living room",
            "set_temperature.target_c": 21.5,
            "set_temperature.hold_hours": None,
        },
        mentions=["21.5"],
        writes=["set_temperature"],
    ),
    Case(
        id="typed-vacuum-fortnightly",
        category="add",
        toolset="typed-home",
        asks=[
            "schedule the robot vacuum to clean the bedroom and the study every 2 weeks at 10:00",
            "Can you set the vacuum to do the bedroom and study fortnightly at 10am?",
            "robot vac: bedroom + study, every other week, 10:00",
            "Every second week at ten in the morning, I'd like the robot to clean the study and "
            "the bedroom.",
        ],
        tools=["schedule_cleaning"],
        arguments=[
            {"rooms": ["Bedroom", "Study"], "time": "10:00", "repeat": {"every": 2, "unit": "week"}}
        ],
        arg_values={
            "schedule_cleaning.rooms": ["Bedroom", "Study"],
            "schedule_cleaning.repeat": {"every": 2, "unit": "week"},
            "schedule_cleaning.mop": False,
        },
        arg_mentions={"schedule_cleaning.time": ["10"]},
        mentions=["bedroom", "study"],
        writes=["schedule_cleaning"],
    ),
    Case(
        id="typed-study-heat-if-cold",
        category="check-then-act",
        toolset="typed-home",
        asks=[
            "if the study is below 18 degrees, set it to 19.5",
            "Is it under 18 °C in the study? If so, please heat it to 19.5.",
            "study < 18? then 19.5",
            "Check the study's temperature and, only if it's colder than 18, turn it up to 19.5.",
        ],
        tools=["get_climate", "set_temperature"],
        arguments=[{"zone": "Study", "target_c": 19.5}],
        arg_values={"set_temperature.zone": "Study", "set_temperature.target_c": 19.5},
        mentions=["19.5"],
        writes=["set_temperature"],
    ),
    Case(
        id="typed-vacuum-kitchen-twice",
        category="add",
        toolset="typed-home",
        asks=[
            "vacuum the kitchen and the hallway twice on max suction",
            "Can you run the robot vacuum in the kitchen and hallway, two passes at max power?",
            "vacuum kitchen+hallway x2 max",
            "The hallway and kitchen are filthy; send the robot round them twice on maximum "
            "suction.",
        ],
        tools=["start_cleaning"],
        arguments=[{"rooms": ["Kitchen", "Hallway"], "suction": "max", "passes": 2}],
        arg_values={
            "start_cleaning.rooms": ["Kitchen", "Hallway"],
            "start_cleaning.suction": "max",
            "start_cleaning.passes": 2,
            "start_cleaning.mop": False,
        },
        mentions=["kitchen", "hallway"],
        writes=["start_cleaning"],
    ),
    # ------------------------------------------------------------ fitness
    Case(
        id="typed-log-commute-ride",
        category="add",
        toolset="typed-fitness",
        asks=[
            "log a 45 minute bike ride today, 18.5 km, tag it commute",
            "Please record a ride: 45 minutes, 18.5 kilometres, tagged commute.",
            "log ride 45min 18.5km #commute",
            "I just cycled to work, 18.5 km in 45 minutes. Log it as a commute ride.",
        ],
        tools=["log_workout"],
        arguments=[
            {
                "kind": "ride",
                "minutes": 45,
                "distance_km": 18.5,
                "day": "today",
                "tags": ["commute"],
            }
        ],
        arg_values={
            "log_workout.kind": "ride",
            "log_workout.minutes": 45,
            "log_workout.distance_km": 18.5,
            "log_workout.tags": ["commute"],
        },
        mentions=["18.5"],
        writes=["log_workout"],
    ),
    Case(
        id="typed-interval-timer",
        category="add",
        toolset="typed-fitness",
        asks=[
            "start an interval timer: 8 rounds of 40 seconds work and 20 seconds rest",
            "Could you set up intervals, eight rounds, 40 s on and 20 s off?",
            "hiit timer 8x 40/20",
            Ask(
                "Tabata please: 8 rounds, 20 seconds on, 10 seconds off, after a 5 minute warm-up.",
                arguments=[
                    {"rounds": 8, "work_seconds": 20, "rest_seconds": 10, "warmup_minutes": 5}
                ],
                arg_values={
                    "start_interval_timer.rounds": 8,
                    "start_interval_timer.work_seconds": 20,
                    "start_interval_timer.rest_seconds": 10,
                    "start_interval_timer.warmup_minutes": 5,
                },
                mentions=["9:09"],
            ),
        ],
        tools=["start_interval_timer"],
        arguments=[{"rounds": 8, "work_seconds": 40, "rest_seconds": 20}],
        arg_values={
            "start_interval_timer.rounds": 8,
            "start_interval_timer.work_seconds": 40,
            "start_interval_timer.rest_seconds": 20,
            "start_interval_timer.warmup_minutes": 0,
        },
        mentions=["9:08"],
        writes=["start_interval_timer"],
    ),
    Case(
        id="typed-running-goal-50",
        category="update",
        toolset="typed-fitness",
        asks=[
            "change my monthly running goal to 50 km",
            "Could you raise my running target for the month to 50 kilometres?",
            "run goal 50km/month",
            "Let's aim higher: make it 50 km of running a month.",
        ],
        tools=["set_goal"],
        arguments=[{"kind": "run", "target": {"amount": 50, "unit": "km"}, "period": "month"}],
        arg_values={
            "set_goal.kind": "run",
            "set_goal.target": {"amount": 50, "unit": "km"},
            "set_goal.period": "month",
        },
        mentions=["50"],
        writes=["set_goal"],
    ),
    Case(
        id="typed-yoga-goal-if-met",
        category="check-then-act",
        toolset="typed-fitness",
        asks=[
            "if I've already hit my yoga goal this month, raise it to 200 minutes",
            "Have I reached my monthly yoga target yet? If I have, bump it up to 200 minutes.",
            "yoga goal done? if so make it 200 min",
            "Check my yoga minutes for March; only if the goal's met, set a new one of 200.",
        ],
        tools=["get_goals"],
        mentions=["75"],
        writes=NOTHING,
        withheld=[("set_goal", {"kind": "yoga", "target": 200, "period": "month"})],
    ),
    Case(
        id="typed-repeat-friday-ride",
        category="two-step",
        toolset="typed-fitness",
        asks=[
            "log the same ride as last Friday again for today",
            "I did Friday's bike ride again this morning; can you log it with the same numbers?",
            "same ride as fri, log it for today",
            "Copy last Friday's ride into today's log, same time and distance.",
        ],
        tools=["list_workouts", "log_workout"],
        arguments=[
            {"days": 7, "kind": "ride"},
            {
                "kind": "ride",
                "minutes": 52,
                "distance_km": 21.4,
                "day": "today",
            },
        ],
        arg_values={
            "log_workout.kind": "ride",
            "log_workout.minutes": 52,
            "log_workout.distance_km": 21.4,
        },
        mentions=["21.4"],
        writes=["log_workout"],
    ),
    Case(
        id="typed-log-swim-missing",
        category="missing",
        toolset="typed-fitness",
        asks=[
            "log a swim for today",
            "Please record today's swim.",
            "log swim",
            "I went swimming this morning, can you add it to my workouts?",
        ],
        tools=["log_workout"],
        arguments=[{"missing": "how many minutes the swim took"}],
        alternatives=[[]],
        writes=NOTHING,
    ),
    # ------------------------------------------------------------ travel
    Case(
        id="typed-nonstop-lisbon-two",
        category="read",
        toolset="typed-travel",
        asks=[
            "find nonstop flights from Amsterdam to Lisbon on 4 April for 2 people",
            "Can you look up direct flights Amsterdam to Lisbon on April 4th for two of us?",
            "ams to lisbon 4 april nonstop 2 ppl",
            "Alex and I want to fly to Lisbon on 4 April; are there direct flights from Amsterdam?",
        ],
        tools=["search_flights"],
        arguments=[
            {
                "origin": "Amsterdam",
                "destination": "Lisbon",
                "date": "4 April",
                "passengers": 2,
                "nonstop_only": True,
            }
        ],
        arg_values={
            "search_flights.passengers": 2,
            "search_flights.nonstop_only": True,
            "search_flights.cabin": "economy",
            "search_flights.max_price_eur": None,
        },
        mentions=["transavia"],
        forbids=["iberia"],
        writes=NOTHING,
    ),
    Case(
        id="typed-porto-hotels",
        category="read",
        toolset="typed-travel",
        asks=[
            "find hotels in Porto for 3 nights from 18 April with breakfast and wifi, under 120 "
            "euros a night",
            "I need a hotel in Porto from 18 April, three nights, breakfast and wi-fi included, "
            "max €120 per night.",
            "porto hotel 18 apr 3 nights <120/night wifi+breakfast",
            "Look for places to stay in Porto: check in on the 18th of April for 3 nights, must "
            "have breakfast and wifi, no more than 120 a night.",
        ],
        tools=["search_hotels"],
        arguments=[
            {
                "city": "Porto",
                "check_in": "18 April",
                "nights": 3,
                "max_price_per_night": 120,
                "amenities": ["breakfast", "wifi"],
            }
        ],
        arg_values={
            "search_hotels.city": "Porto",
            "search_hotels.nights": 3,
            "search_hotels.max_price_per_night": 120,
            "search_hotels.amenities": ["breakfast", "wifi"],
        },
        mentions=["casa da ribeira", "aliados"],
        forbids=["torel"],
        writes=NOTHING,
    ),
    Case(
        id="typed-reykjavik-price-alert",
        category="add",
        toolset="typed-travel",
        asks=[
            "alert me if flights from Amsterdam to Reykjavik drop below 150 euros, for any date "
            "between 1 and 15 June",
            "Set up a price alert for Amsterdam to Reykjavik under €150, travelling 1-15 June.",
            "price alert ams->kef below 150 eur 1-15 june",
            "Watch fares to Reykjavik from Amsterdam for me and tell me if one goes under 150 "
            "euros between the 1st and 15th of June.",
        ],
        tools=["create_price_alert"],
        arguments=[
            {
                "origin": "Amsterdam",
                "destination": "Reykjavik",
                "max_price_eur": 150,
                "travel_dates": {"earliest": "1 June", "latest": "15 June"},
            }
        ],
        arg_values={
            "create_price_alert.max_price_eur": 150,
            "create_price_alert.passengers": 1,
            "create_price_alert.nonstop_only": False,
        },
        mentions=["150"],
        writes=["create_price_alert"],
    ),
    Case(
        id="typed-flights-from-home-airport",
        category="two-step",
        toolset="typed-travel",
        asks=[
            "search flights from my home airport to Barcelona on 21 March",
            "Which flights go from my usual airport to Barcelona on 21 March?",
            "flights home airport -> bcn 21/3",
            "I'm thinking of Barcelona on the 21st of March; what flights are there from the "
            "airport I normally fly from?",
        ],
        tools=["get_traveller_profile", "search_flights"],
        arguments=[{"origin": "AMS", "destination": "Barcelona", "date": "21 March"}],
        arg_mentions={"search_flights.origin": ["ams"]},
        arg_values={"search_flights.passengers": 1, "search_flights.max_price_eur": None},
        mentions=["vueling"],
        writes=NOTHING,
    ),
    Case(
        id="typed-book-lisbon-flight",
        category="escalate",
        toolset="typed-travel",
        handled_by="cloud",
        asks=[
            "book the cheapest nonstop flight to Lisbon on 4 April for me and Alex",
            "Buy two tickets on the Transavia flight to Lisbon on 4 April and pay with my card.",
            "book ams-lis 4 apr cheapest direct x2",
            "Please reserve and pay for the 06:15 flight to Lisbon on April 4 for two people.",
        ],
    ),
    Case(
        id="typed-iceland-currency",
        category="knowledge",
        toolset="typed-travel",
        asks=[
            "what currency do they use in Iceland?",
            "Which money will I need in Iceland?",
            "iceland currency?",
            "Before my Reykjavik trip: what's the local currency there?",
        ],
        mentions=["kr"],
        writes=NOTHING,
    ),
    # ------------------------------------------------------------ kitchen
    Case(
        id="typed-quick-vegetarian",
        category="read",
        toolset="typed-kitchen",
        asks=[
            "which vegetarian recipes can I make in 30 minutes or less?",
            "Any veggie dinners in my recipes that take half an hour at most?",
            "vegetarian recipes under 30 min",
            "I've only got 30 minutes tonight; what vegetarian recipes fit?",
        ],
        tools=["search_recipes", "get_recipe"],  # reading a hit is as right (design.md)
        arguments=[{"diet": "vegetarian", "max_minutes": 30}, {"recipe_id": "r-101"}],
        alternatives=[["search_recipes"]],
        arg_values={"search_recipes.diet": "vegetarian", "search_recipes.max_minutes": 30},
        mentions=["shakshuka", "pasta e ceci"],
        forbids=["salmon"],
        writes=NOTHING,
    ),
    Case(
        id="typed-add-eggs-spinach-feta",
        category="add",
        toolset="typed-kitchen",
        asks=[
            "add eggs, spinach and feta to my shopping list",
            "Please put eggs, spinach and feta on the shopping list.",
            "shopping list: eggs spinach feta",
            "We need feta, eggs and some spinach; can you add them to the list?",
        ],
        tools=["add_to_shopping_list"],
        arguments=[{"items": ["eggs", "spinach", "feta"]}],
        arg_values={
            "add_to_shopping_list.items": ["eggs", "spinach", "feta"],
            "add_to_shopping_list.store": "supermarket",
        },
        mentions=["feta"],
        writes=["add_to_shopping_list"],
    ),
    Case(
        id="typed-oven-200-fan",
        category="update",
        toolset="typed-kitchen",
        asks=[
            "preheat the oven to 200 degrees on fan and set a 25 minute timer",
            "Could you heat the oven to 200 °C, fan setting, with a timer for 25 minutes?",
            "oven 200 fan 25min timer",
            Ask(
                "Oven on please: 180 conventional, timer 40 minutes.",
                arguments=[{"temperature_c": 180, "mode": "conventional", "timer_minutes": 40}],
                arg_values={
                    "set_oven.temperature_c": 180,
                    "set_oven.mode": "conventional",
                    "set_oven.timer_minutes": 40,
                },
                mentions=["180"],
            ),
        ],
        tools=["set_oven"],
        arguments=[{"temperature_c": 200, "mode": "fan", "timer_minutes": 25}],
        arg_values={
            "set_oven.temperature_c": 200,
            "set_oven.mode": "fan",
            "set_oven.timer_minutes": 25,
        },
        mentions=["200"],
        writes=["set_oven"],
    ),
    Case(
        id="typed-parmesan-unless-stocked",
        category="check-then-act",
        toolset="typed-kitchen",
        asks=[
            "add parmesan to the shopping list unless I already have some",
            "Do I have parmesan at home? If not, put it on the shopping list.",
            "parmesan on the list if we're out",
            "Check the cupboard for parmesan and only add it to the list if there's none left.",
        ],
        tools=["get_pantry"],
        mentions=["120"],
        writes=NOTHING,
        withheld=[("add_to_shopping_list", {"items": ["parmesan"]})],
    ),
    Case(
        id="typed-feta-for-six",
        category="two-step",
        toolset="typed-kitchen",
        asks=[
            "how much feta do I need to make the spinach pie for 6 people?",
            "I'm making the spinach and feta pie for six; how much feta should I buy?",
            "spinach pie x6 ppl, feta amount?",
            "Six of us for dinner and I'm doing that spinach pie recipe: what's the feta quantity?",
        ],
        tools=["search_recipes", "get_recipe"],
        alternatives=[["get_recipe"]],
        arguments=[{"query": "spinach pie"}, {"recipe_id": "r-102", "servings": 6}],
        arg_values={"get_recipe.servings": 6},
        mentions=["300"],
        writes=NOTHING,
    ),
    Case(
        id="typed-preheat-missing",
        category="missing",
        toolset="typed-kitchen",
        asks=[
            "preheat the oven",
            "Could you start preheating the oven for me?",
            "oven on pls",
            "Get the oven warming up, I'm about to bake.",
        ],
        tools=["set_oven"],
        arguments=[{"missing": "the temperature"}],
        alternatives=[[]],
        writes=NOTHING,
    ),
    Case(
        id="typed-chat-shakshuka",
        category="chat",
        toolset="typed-kitchen",
        asks=[
            "that shakshuka was amazing",
            "Dinner turned out great, thanks for the recipe!",
            "yum that was good",
            "Honestly the best soup I've made in ages.",
        ],
        writes=NOTHING,
    ),
]
