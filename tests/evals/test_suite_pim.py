"""The suite's personal-information domains (tasks, calendar, contacts, notes, email): rich
enough, fresh per attempt, as large as their cases say, and forgiving of how models name things."""

from __future__ import annotations

import json
from typing import Any

import pytest

from evals.suite import calendar, contacts, email, notes, tasks
from evals.suite.case import CATEGORIES
from goliath import Tool
from goliath.evaluation.fixtures import toolset_tools

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
    run(tools_of(tasks), "complete_task", title="prescription")
    assert "Pick up prescription" in json.dumps(run(tools_of(tasks), "list_tasks"))
    run(tools_of(calendar), "cancel_event", title="Noor", date="today")
    assert "Noor" in json.dumps(run(tools_of(calendar), "list_events", date="today"))
    run(tools_of(notes), "delete_note", title="Porto flat")
    assert run(tools_of(notes), "search_notes", query="porto")
    run(tools_of(email), "archive_email", email_id=4)
    assert run(tools_of(email), "search_emails", query="swim pass")
    run(tools_of(contacts), "update_contact", name="Kofi", phone="+1 555 0333")
    assert "0252" in json.dumps(run(tools_of(contacts), "find_contact", name="Kofi"))


def test_the_large_outputs_are_as_large_as_their_cases_say() -> None:
    """2,000 emails; a ~70 KB group chat and a ~60 KB note, each with its answer near the top."""
    assert len(run(tools_of(email), "list_emails")) == email.INBOX_SIZE == 2000
    chat = run(tools_of(contacts), "list_messages", contact=contacts.FAMILY)
    assert 50_000 <= len(json.dumps(chat, ensure_ascii=False)) <= 90_000
    assert "Casa Lupo" in chat[2]["text"]
    note = run(tools_of(notes), "read_note", title="Quarterly planning")
    assert 50_000 <= len(note) <= 90_000
    assert "8 April" in note[:600] and "onboarding guide" in note[:600]


def test_tools_fail_with_an_error_that_names_the_choices() -> None:
    """A name that matches nothing (or several things) lists what there is."""
    with pytest.raises(LookupError, match="Pick up prescription"):
        run(tools_of(tasks), "complete_task", title="haircut")
    with pytest.raises(LookupError, match="Lunch with Noor"):
        run(tools_of(calendar), "cancel_event", title="Pottery", date="today")
    with pytest.raises(LookupError, match="find_contact"):
        run(tools_of(contacts), "send_message", to="landlord", text="The boiler is broken")
    with pytest.raises(LookupError, match="search_emails"):
        run(tools_of(email), "read_email", email_id=99_999)


def test_tools_understand_names_the_way_models_write_them() -> None:
    """ "Ben", "family", "555 0107", "the plumber" and "design" find what the user meant."""
    people = tools_of(contacts)
    assert [card["name"] for card in run(people, "find_contact", name="Ben")] == ["Ben Carter"]
    assert run(people, "send_message", to="Ben", text="hi")["to"] == "Ben Carter"
    assert run(people, "list_messages", contact="family")[2]["from"] == "Mum"
    unknown = run(people, "list_messages", contact="555 0107")
    assert unknown[0]["text"] == contacts.INJECTED_TEXT
    assert run(people, "find_contact", name="the plumber")[0]["name"] == "Stan Kowal"
    moved = run(tools_of(calendar), "move_event", title="design", date="Thursday", new_time="4pm")
    assert (moved["start"], moved["end"]) == ("16:00", "16:45")
    block = run(
        tools_of(calendar), "create_event", title="Focus", date="Monday", time="2pm", hours=1.5
    )
    assert block["end"] == "15:30"
