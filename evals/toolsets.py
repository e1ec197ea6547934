"""Toolsets of the everyday fixtures: at most five tools each, over a fresh copy of the world.

Each factory builds new tools over new data, so an attempt's writes never leak into the next.
Tools fail like real ones do — with an error that says what was wrong and what would work —
when asked for something that is not there.
"""

from __future__ import annotations

from typing import Any

from goliath import Tool, tool

from . import world

__all__ = [
    "calendar_tools",
    "day_tools",
    "inbox_tools",
    "message_tools",
    "money_tools",
    "note_tools",
    "task_tools",
]


def _match(items: list[dict[str, Any]], key: str, wanted: str) -> list[dict[str, Any]]:
    needle = wanted.strip().lower()
    return [item for item in items if needle and needle in str(item[key]).lower()]


# ---------------------------------------------------------------- tasks


def _task_tools(tasks: list[dict[str, Any]]) -> tuple[Tool, Tool, Tool]:
    @tool
    def list_tasks() -> list[dict[str, Any]]:
        """The user's open tasks, with due dates."""
        return [{"title": task["title"], "due": task["due"]} for task in tasks if not task["done"]]

    @tool(writes=True)
    def create_task(title: str, due: str | None = None) -> dict[str, Any]:
        """Add a task to the to-do list.

        Args:
            title: What needs doing, in a few words.
            due: When it is due (a date or weekday), if the user said.
        """
        if not title.strip():
            raise ValueError("the title is empty; say what the task is")
        due_date = world.parse_day(due).isoformat() if due else None
        tasks.append({"title": title.strip(), "due": due_date, "done": False})
        return {"ok": True, "title": title.strip(), "due": due_date}

    @tool(writes=True)
    def complete_task(title: str) -> dict[str, Any]:
        """Mark an open task as done.

        Args:
            title: The task's title, or a distinctive part of it.
        """
        open_tasks = [task for task in tasks if not task["done"]]
        found = _match(open_tasks, "title", title)
        if len(found) != 1:
            titles = ", ".join(task["title"] for task in open_tasks)
            problem = "no open task matches" if not found else "several open tasks match"
            raise LookupError(f"{problem} {title!r}; open tasks: {titles}")
        found[0]["done"] = True
        return {"ok": True, "done": found[0]["title"]}

    return list_tasks, create_task, complete_task


def task_tools() -> list[Tool]:
    """``list_tasks``, ``create_task``, ``complete_task`` over a fresh to-do list."""
    return list(_task_tools(world.tasks()))


# ---------------------------------------------------------------- calendar


def _list_events(events: list[dict[str, Any]]) -> Tool:
    @tool
    def list_events(date: str = "today") -> list[dict[str, Any]]:
        """The user's calendar events on one day.

        Args:
            date: The day: today, tomorrow, a weekday or a date like 2025-03-14.
        """
        day = world.parse_day(date)
        return [
            {"day": world.day_name(day), "time": event["time"], "title": event["title"]}
            for event in sorted(events, key=lambda event: event["time"])
            if event["date"] == day.isoformat()
        ]

    return list_events


def calendar_tools() -> list[Tool]:
    """``list_events``, ``create_event``, ``cancel_event`` over a fresh calendar."""
    events = world.events()

    @tool(writes=True)
    def create_event(title: str, date: str, time: str) -> dict[str, Any]:
        """Add an event to the calendar.

        Args:
            title: What the event is.
            date: The day: a date like 2025-03-14, a weekday, today or tomorrow.
            time: The start time, like 13:00 or 1pm.
        """
        day, start = world.parse_day(date), world.parse_time(time)
        events.append({"date": day.isoformat(), "time": start, "title": title.strip()})
        return {"ok": True, "title": title.strip(), "day": world.day_name(day), "time": start}

    @tool(writes=True)
    def cancel_event(title: str, date: str) -> dict[str, Any]:
        """Remove an event from the calendar.

        Args:
            title: The event's title, or a distinctive part of it.
            date: The event's day: a date, a weekday, today or tomorrow.
        """
        day = world.parse_day(date).isoformat()
        on_day = [event for event in events if event["date"] == day]
        found = _match(on_day, "title", title)
        if len(found) != 1:
            titles = ", ".join(event["title"] for event in on_day) or "none"
            raise LookupError(f"no single event matches {title!r} on {day}; events: {titles}")
        events.remove(found[0])
        return {"ok": True, "cancelled": found[0]["title"], "day": day}

    return [_list_events(events), create_event, cancel_event]


# ---------------------------------------------------------------- notes


def note_tools() -> list[Tool]:
    """``search_notes``, ``read_note`` (content mode), ``create_note`` over fresh notes."""
    notes = world.notes()

    @tool
    def search_notes(query: str) -> list[dict[str, str]]:
        """Find notes whose title or text contains any of the query's words.

        Args:
            query: One or a few words to look for.
        """
        words = [word for word in query.lower().split() if len(word) > 2] or [query.lower()]
        found = [
            note
            for note in notes
            if any(word in (note["title"] + " " + note["text"]).lower() for word in words)
        ]
        return [{"title": note["title"], "preview": note["text"][:80]} for note in found]

    @tool(output_mode="content")
    def read_note(title: str) -> str:
        """The full text of one note.

        Args:
            title: The note's title, or a distinctive part of it.
        """
        found = _match(notes, "title", title)
        if not found:
            titles = ", ".join(note["title"] for note in notes)
            raise LookupError(f"no note is titled {title!r}; notes: {titles}")
        return f"# {found[0]['title']}\n\n{found[0]['text']}"

    @tool(writes=True)
    def create_note(title: str, text: str) -> dict[str, Any]:
        """Save a new note.

        Args:
            title: A short title.
            text: What the note says.
        """
        notes.append({"title": title.strip(), "text": text})
        return {"ok": True, "title": title.strip()}

    return [search_notes, read_note, create_note]


# ---------------------------------------------------------------- messages


def _send_message(sent: list[dict[str, str]]) -> Tool:
    @tool(writes=True)
    def send_message(to: str, text: str) -> dict[str, Any]:
        """Send a text message.

        Args:
            to: Who receives it: a contact's name or a phone number.
            text: The message itself.
        """
        if not to.strip() or not text.strip():
            raise ValueError("a message needs both a recipient and a text")
        sent.append({"to": to.strip(), "text": text.strip()})
        return {"ok": True, "to": to.strip(), "text": text.strip()}

    return send_message


def message_tools() -> list[Tool]:
    """``list_messages`` and ``send_message`` over a fresh inbox of texts."""
    messages = world.messages()

    @tool
    def list_messages() -> list[dict[str, Any]]:
        """The user's recent text messages, newest first."""
        return [dict(message) for message in messages]

    return [list_messages, _send_message([])]


# ---------------------------------------------------------------- email (large output)


def inbox_tools() -> list[Tool]:
    """``list_emails`` (thousands of them), ``read_email``, ``archive_email``."""
    emails = world.emails()

    @tool
    def list_emails() -> list[dict[str, Any]]:
        """Every email in the inbox, newest first, with its id."""
        return [dict(email) for email in emails]

    def find(email_id: int) -> dict[str, Any]:
        for email in emails:
            if email["id"] == email_id:
                return email
        raise LookupError(f"there is no email with id {email_id}; list_emails shows the ids")

    @tool(requires=["list_emails"])
    def read_email(email_id: int) -> str:
        """The text of one email.

        Args:
            email_id: The email's id, as list_emails shows it.
        """
        email = find(email_id)
        return world.EMAIL_BODIES.get(email_id, f"{email['subject']}. Unsubscribe at any time.")

    @tool(writes=True, requires=["list_emails"])
    def archive_email(email_id: int) -> dict[str, Any]:
        """Move one email out of the inbox.

        Args:
            email_id: The email's id, as list_emails shows it.
        """
        email = find(email_id)
        emails.remove(email)
        return {"ok": True, "archived": email["subject"], "from": email["from"]}

    return [list_emails, read_email, archive_email]


# ---------------------------------------------------------------- money (read-only)


def money_tools() -> list[Tool]:
    """``get_balance`` and ``list_transactions``: reading only; moving money is not here."""

    @tool
    def get_balance() -> dict[str, str]:
        """The checking account's current balance."""
        return {"account": "Everyday checking", "balance": "950.25 EUR"}

    @tool
    def list_transactions() -> list[dict[str, str]]:
        """The checking account's transactions of the last seven days, newest first."""
        return world.transactions()

    return [get_balance, list_transactions]


# ---------------------------------------------------------------- a day (five tools)


def day_tools() -> list[Tool]:
    """Five tools across a day: events, tasks, weather, messages, a new task."""
    list_tasks, create_task, _ = _task_tools(world.tasks())

    @tool
    def get_weather(date: str = "today") -> dict[str, str]:
        """The weather forecast for one day.

        Args:
            date: The day: today, tomorrow, a weekday or a date like 2025-03-14.
        """
        return world.weather(world.parse_day(date))

    return [_list_events(world.events()), list_tasks, get_weather, _send_message([]), create_task]
