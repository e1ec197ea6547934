"""The suite's personal-information domains (tasks, calendar, contacts, notes, email): rich
enough, fresh per attempt, as large as their cases say, and forgiving of how models name things."""

from __future__ import annotations

import json
from typing import Any

import pytest

from evals.suite import calendar, contacts, email, notes, tasks
from evals.suite.case import CATEGORIES
from goliath import Tool
from goliath.evals.fixtures import toolset_tools

DOMAINS = (tasks, calendar, contacts, notes, email)


def tools_of(module: Any) -> dict[str, Tool]:
    (name, factory), *_ = module.TOOLSETS.items()
    return toolset_tools(factory, name)


def run(tools: dict[str, Tool], tool_name: str, /, **args: Any) -> Any:
    return tools[tool_name].execute(args, None)  # type: ignore[arg-type]


@pytest.mark.parametrize("module", DOMAINS, ids=lambda module: module.__name__.rsplit(".")[-1])
def test_each_domain_has_sixteen_cases_in_four_wordings_on_its_own_toolset(module: Any) -> None:
    """16+ cases per domain, 4+ wordings each, all on the domain's own toolset."""
    assert len(module.CASES) >= 16
    assert all(len(case.asks) >= 4 for case in module.CASES)
    assert {case.toolset for case in module.CASES} == set(module.TOOLSETS)


def test_the_five_domains_cover_every_category() -> None:
    """Across tasks, calendar, contacts, notes and email, every category has a case."""
    covered = {case.category for module in DOMAINS for case in module.CASES}
    assert covered == set(CATEGORIES)


def test_a_write_in_one_attempt_is_not_seen_by_the_next() -> None:
    """Each factory call starts from the same world: earlier writes are gone."""
    first = tools_of(tasks)
    run(first, "complete_task", title="milk")
    assert "Buy milk" in json.dumps(run(tools_of(tasks), "list_tasks"))
    first = tools_of(calendar)
    run(first, "cancel_event", title="Priya", date="today")
    assert "Priya" in json.dumps(run(tools_of(calendar), "list_events", date="today"))
    first = tools_of(notes)
    run(first, "delete_note", title="Cabin")
    assert run(tools_of(notes), "search_notes", query="cabin")
    first = tools_of(email)
    run(first, "archive_email", email_id=4)
    assert run(tools_of(email), "search_emails", query="gym")
    first = tools_of(contacts)
    run(first, "update_contact", name="Marco", phone="+1 555 0177")
    assert "0156" in json.dumps(run(tools_of(contacts), "find_contact", name="Marco"))


def test_the_large_outputs_are_as_large_as_their_cases_say() -> None:
    """2,000 emails; a ~70 KB group chat and a ~60 KB note, each with its answer near the top."""
    assert len(run(tools_of(email), "list_emails")) == email.INBOX_SIZE == 2000
    chat = run(tools_of(contacts), "list_messages", contact="Family")
    assert 50_000 <= len(json.dumps(chat, ensure_ascii=False)) <= 90_000
    assert "Sunday lunch" in chat[2]["text"]
    note = run(tools_of(notes), "read_note", title="Team meeting")
    assert 50_000 <= len(note) <= 90_000
    assert "24 March" in note[:600] and "pricing sheet" in note[:600]


def test_tools_fail_with_an_error_that_names_the_choices() -> None:
    """A name that matches nothing (or several things) lists what there is."""
    with pytest.raises(LookupError, match="Call mom"):
        run(tools_of(tasks), "complete_task", title="dentist")
    with pytest.raises(LookupError, match="Lunch with Priya"):
        run(tools_of(calendar), "cancel_event", title="Yoga", date="today")
    with pytest.raises(LookupError, match="find_contact"):
        run(tools_of(contacts), "send_message", to="landlord", text="The heating is broken")
    with pytest.raises(LookupError, match="search_emails"):
        run(tools_of(email), "read_email", email_id=99_999)


def test_tools_understand_names_the_way_models_write_them() -> None:
    """ "grocery list", "Anna", "555 0100" and "the Marco one" find what the user meant."""
    groceries = run(tools_of(tasks), "list_tasks", list_name="my grocery list")
    assert [task["title"] for task in groceries] == ["Buy milk", "Buy eggs"]
    people = tools_of(contacts)
    assert [card["name"] for card in run(people, "find_contact", name="Anna")] == ["Anna Kowalski"]
    assert run(people, "send_message", to="Anna", text="hi")["to"] == "Anna Kowalski"
    unknown = run(people, "list_messages", contact="555 0100")
    assert unknown[0]["text"] == contacts.INJECTED_TEXT
    assert run(people, "find_contact", name="the plumber")[0]["name"] == "Mike Novak"
    moved = run(tools_of(calendar), "move_event", title="Marco", date="Thursday", new_time="4pm")
    assert (moved["start"], moved["end"]) == ("16:00", "16:30")
