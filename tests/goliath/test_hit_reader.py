"""A search's hits are read before the answer: the read that takes one hit's id runs first."""

from __future__ import annotations

from typing import Any

from goliath import Agent, Tool, tool
from goliath.events import CheckEvent
from goliath.records import StepRecord
from goliath.schema import DONE
from goliath.testing import FakeModel
from goliath.turn.detail import container_opener, described_hit, hit_reader, named_hit

EMAILS = [
    {"id": 5, "from": "ShipFast", "subject": "Your order has shipped", "date": "2025-03-09"},
    {"id": 8, "from": "Noor", "subject": "Lunch?", "date": "2025-03-10"},
]


def mail_tools() -> list[Tool]:
    @tool
    def search_emails(query: str) -> list[dict[str, Any]]:
        """Search the inbox.

        Args:
            query: Words to look for.
        """
        return [dict(email) for email in EMAILS if query.lower() in str(email).lower()]

    @tool
    def read_email(email_id: int) -> dict[str, Any]:
        """Read one email in full.

        Args:
            email_id: The email's id, from search_emails.
        """
        return {"id": email_id, "body": "Tracking number SF-4471, arriving Thursday."}

    @tool(writes=True)
    def archive_email(email_id: int) -> dict[str, Any]:
        """Archive an email.

        Args:
            email_id: The email's id.
        """
        return {"ok": True}

    @tool
    def read_note(note_id: str) -> dict[str, Any]:
        """Read a note.

        Args:
            note_id: The note's id.
        """
        return {"id": note_id, "text": "x"}

    @tool
    def list_tasks() -> list[dict[str, Any]]:
        """List the tasks."""
        return [{"id": 1, "title": "Buy milk"}]

    @tool
    def get_task(task_id: int) -> dict[str, Any]:
        """One task in full.

        Args:
            task_id: The task's id.
        """
        return {"id": task_id, "title": "Buy milk", "note": "oat"}

    return [search_emails, read_email, archive_email, read_note, list_tasks, get_task]


async def test_an_answer_after_a_search_reads_the_hit_first() -> None:
    model = FakeModel(
        [
            {"json": {"call": "search_emails", "then": DONE}},
            {"json": {"query": "2025"}},
            {"json": {"email_id": 5}},
            {"text": "Your tracking number is SF-4471."},
        ]
    )
    async with Agent(model, tools=mail_tools(), auto_approve=True) as agent:
        result = await agent.run("what's the tracking number?")  # describes neither hit
    tools = [step.tool for step in result.steps if step.kind == "tool"]
    assert tools == ["search_emails", "read_email"]
    assert [call.label for call in model.calls] == ["conductor", "arguments", "arguments", "answer"]
    assert result.steps[1].input == {"email_id": 5}  # of two hits, the worker picked
    assert "SF-4471" in model.calls[-1].prompt  # the answer sees the email itself
    assert result.text == "Your tracking number is SF-4471."


async def test_a_search_with_one_hit_opens_it_with_no_arguments_call() -> None:
    """One hit: nothing to pick. Left to fill the read, the 1.5B model copied the hit's whole
    line into the title, or the search's words over the hit's own title."""
    model = FakeModel(
        [
            {"json": {"call": "search_emails", "then": DONE}},
            {"json": {"query": "order"}},
            {"text": "Your tracking number is SF-4471."},
        ]
    )
    async with Agent(model, tools=mail_tools(), auto_approve=True) as agent:
        result = await agent.run("what's the tracking number for my order?")
    assert [step.tool for step in result.steps if step.kind == "tool"] == [
        "search_emails",
        "read_email",
    ]
    assert result.steps[1].input == {"email_id": 5}
    assert [call.label for call in model.calls] == ["conductor", "arguments", "answer"]
    assert result.text == "Your tracking number is SF-4471."


async def test_hits_over_the_records_size_cap_are_still_read() -> None:
    """A search of a large inbox returns more than ``raw_output_bytes``: the record leaves the
    output out, but the turn's rules still see the hits, and the hit is read first."""
    model = FakeModel(
        [
            {"json": {"call": "search_emails", "then": DONE}},
            {"json": {"query": "order"}},
            {"text": "Your tracking number is SF-4471."},
        ]
    )
    tools = mail_tools()
    async with Agent(model, tools=tools, auto_approve=True, raw_output_bytes=40) as agent:
        result = await agent.run("what's the tracking number for my order?")
    search = result.steps[0]
    assert search.tool == "search_emails" and search.output is None  # the record keeps the cap
    assert search.output_omitted is not None
    assert [step.tool for step in result.steps if step.kind == "tool"] == [
        "search_emails",
        "read_email",
    ]
    assert "SF-4471" in model.calls[-1].prompt


async def test_a_listing_that_is_the_answer_is_not_read_item_by_item() -> None:
    model = FakeModel(
        [{"json": {"call": "list_tasks", "then": DONE}}, {"text": "You have: Buy milk."}]
    )
    async with Agent(model, tools=mail_tools(), auto_approve=True) as agent:
        result = await agent.run("what's on my list?")
    assert [step.tool for step in result.steps if step.kind == "tool"] == ["list_tasks"]


def step(tool: str, output: Any, **fields: Any) -> StepRecord:
    return StepRecord(index=0, kind="tool", brief="b", tool=tool, output=output, **fields)


def test_only_a_read_of_the_same_kind_taking_just_the_id_is_chosen() -> None:
    tools = {t.name: t for t in mail_tools()}
    searched = [step("search_emails", EMAILS, input={"query": "order"})]
    assert hit_reader(list(tools.values()), searched) is tools["read_email"]
    # not the write that takes the same id, nor a read of another kind
    others = [tools["archive_email"], tools["read_note"], tools["get_task"]]
    assert hit_reader(others, searched) is None


def test_no_hit_read_after_a_failed_search_a_result_without_ids_or_a_second_time() -> None:
    tools = list(mail_tools())
    assert hit_reader(tools, [step("search_emails", [], input={"query": "x"})]) is None
    no_ids = [{"from": "ShipFast", "subject": "Shipped"}]
    assert hit_reader(tools, [step("search_emails", no_ids, input={"query": "x"})]) is None
    failed = step("search_emails", EMAILS, input={"query": "x"}, failed=True)
    assert hit_reader(tools, [failed]) is None
    again = [
        step("search_emails", EMAILS, input={"query": "x"}),
        step("read_email", {"id": 5, "body": "..."}),
        step("search_emails", EMAILS, input={"query": "y"}),
    ]
    assert hit_reader(tools, again) is None  # read_email already ran in this turn


def test_a_listing_called_with_a_query_counts_as_a_search() -> None:
    tools = {t.name: t for t in mail_tools()}
    listed = [step("list_tasks", [{"id": 1, "title": "Buy milk"}], input={"query": "milk"})]
    assert hit_reader(list(tools.values()), listed) is tools["get_task"]
    plain = [step("list_tasks", [{"id": 1, "title": "Buy milk"}], input={})]
    assert hit_reader(list(tools.values()), plain) is None


def note_tools() -> dict[str, Tool]:
    @tool
    def search_notes(query: str) -> list[dict[str, str]]:
        """Notes with the query's words, with a preview.

        Args:
            query: Words to look for.
        """
        return [{"title": "Quarterly planning", "preview": "Attendees: ..."}]

    @tool
    def read_note(title: str) -> str:
        """The full text of one note.

        Args:
            title: The note's title.
        """
        return "# Quarterly planning\n\nRelease moves to 8 April."

    @tool
    def get_contact(name: str) -> dict[str, str]:
        """One contact.

        Args:
            name: The contact's name.
        """
        return {"name": name}

    @tool
    def read_task(title: str, list_name: str) -> str:
        """One task.

        Args:
            title: The task.
            list_name: Its list.
        """
        return title

    return {t.name: t for t in (search_notes, read_note, get_contact, read_task)}


def test_a_read_keyed_by_a_title_every_hit_carries_is_chosen() -> None:
    tools = note_tools()
    hits = [{"title": "Quarterly planning", "preview": "Attendees: ..."}]
    searched = [step("search_notes", hits, input={"query": "planning"})]
    assert hit_reader(list(tools.values()), searched) is tools["read_note"]
    # not a reader of another kind, nor one that needs more than the title
    assert hit_reader([tools["get_contact"], tools["read_task"]], searched) is None
    # nor when the hits carry no title
    untitled = [step("search_notes", [{"preview": "..."}], input={"query": "planning"})]
    assert hit_reader(list(tools.values()), untitled) is None


async def test_an_answer_after_a_note_search_reads_the_note_first() -> None:
    tools = note_tools()
    model = FakeModel(
        [
            {"json": {"call": "search_notes", "then": DONE}},
            {"json": {"query": "planning"}},
            {"text": "The release moves to 8 April."},
        ]
    )
    async with Agent(model, tools=list(tools.values())) as agent:
        result = await agent.run("when is the release, per my planning notes?")
    assert [s.tool for s in result.steps if s.kind == "tool"] == ["search_notes", "read_note"]
    assert result.steps[1].input == {"title": "Quarterly planning"}  # the one hit, as titled
    assert result.text == "The release moves to 8 April."


LISTS = [
    {"name": "Groceries", "to_buy": 6},
    {"name": "Pharmacy", "to_buy": 3},
    {"name": "Noor's party", "to_buy": 4},
]


def list_tools() -> dict[str, Tool]:
    @tool
    def list_lists() -> list[dict[str, Any]]:
        """The shopping lists and how many items each still has to buy."""
        return [dict(item) for item in LISTS]

    @tool
    def get_list(list_name: str = "Groceries") -> list[dict[str, Any]]:
        """The items on one list.

        Args:
            list_name: Which list.
        """
        return [{"name": "ibuprofen"}] if list_name == "Pharmacy" else [{"name": "milk"}]

    @tool
    def get_contact(name: str) -> dict[str, str]:
        """One contact.

        Args:
            name: The contact's name.
        """
        return {"name": name}

    return {t.name: t for t in (list_lists, get_list, get_contact)}


def test_after_a_listing_the_one_thing_the_ask_names_is_opened() -> None:
    tools = list_tools()
    listed = [step("list_lists", LISTS, input={})]
    opener = hit_reader(list(tools.values()), listed, "what's on my pharmacy list?")
    assert opener is tools["get_list"]
    assert hit_reader(list(tools.values()), listed, "what's on the list for Noor's party?")
    # the ask names none of them, or two; or no read of the same things opens one by name
    assert hit_reader(list(tools.values()), listed, "which lists do I have?") is None
    both = "is paracetamol on the pharmacy or the groceries list?"
    assert hit_reader(list(tools.values()), listed, both) is None
    assert hit_reader([tools["get_contact"]], listed, "what's on my pharmacy list?") is None

    @tool
    def list_attendees(event_title: str) -> list[str]:
        """Who comes to an event.

        Args:
            event_title: The event.
        """
        return ["Ana"]

    events = [step("list_events", [{"title": "Standup"}, {"title": "Review"}], input={})]
    # the listing's verb is not what it lists: events, not attendees
    assert hit_reader([list_attendees], events, "who is at the standup?") is None


async def test_an_answer_after_a_listing_opens_the_named_list_first() -> None:
    tools = list_tools()
    model = FakeModel(
        [
            {"json": {"call": "list_lists", "then": DONE}},
            {"text": "Ibuprofen."},
        ]
    )
    async with Agent(model, tools=list(tools.values())) as agent:
        result = await agent.run("what's on my pharmacy list?")
    assert [s.tool for s in result.steps if s.kind == "tool"] == ["list_lists", "get_list"]
    assert "ibuprofen" in (result.steps[1].result or "")
    assert [call.label for call in model.calls] == ["conductor", "answer"]  # the name is given


@tool(writes=True)
def add_item(name: str, list_name: str) -> dict[str, Any]:
    """Add an item to a shopping list.

    Args:
        name: The item.
        list_name: Which list.
    """
    return {"added": name, "list": list_name}


async def test_a_conditional_add_after_a_listing_opens_the_named_list_first() -> None:
    """The listing names the lists, not what is on them: "unless it's there" is decided by
    the list the ask names, opened with no arguments call, and the add stays planned."""
    tools = [*list_tools().values(), add_item]
    plan = {"json": {"call": "list_lists", "then": "add_item"}}
    milk = {"json": {"name": "milk", "list_name": "Groceries"}}
    again = {"json": {"call": "add_item"}}
    model = FakeModel([plan, again, again, milk, {"text": "It's already there."}])
    async with Agent(model, tools=tools, auto_approve=True) as agent:
        result = await agent.run("add milk to groceries unless it's already there")
    ran = [(s.tool, s.input) for s in result.steps if s.kind == "tool"]
    assert ran == [("list_lists", {}), ("get_list", {"list_name": "Groceries"})]
    assert "already there" in model.calls[-1].prompt  # the add was withheld: milk is on it
    labels = ["conductor", "conductor", "conductor", "arguments", "answer"]
    assert [call.label for call in model.calls] == labels  # get_list's name was given

    oat_milk = {"json": {"name": "oat milk", "list_name": "Groceries"}}
    model = FakeModel([plan, again, again, oat_milk, {"text": "Added."}])
    async with Agent(model, tools=tools, auto_approve=True) as agent:
        result = await agent.run("add oat milk to groceries unless it's already there")
    assert [s.tool for s in result.steps if s.kind == "tool"] == [
        "list_lists",
        "get_list",
        "add_item",
    ]

    # an add with no condition is not delayed: the listing decides nothing for it
    assert container_opener(tools, result.steps[:1], "add oat milk to groceries") is tools[1]
    model = FakeModel([plan, again, oat_milk, {"text": "Added."}])
    async with Agent(model, tools=tools, auto_approve=True) as agent:
        result = await agent.run("add oat milk to groceries")
    assert [s.tool for s in result.steps if s.kind == "tool"] == ["list_lists", "add_item"]


async def test_the_hit_the_ask_names_is_opened_without_an_arguments_call() -> None:
    @tool
    def search_notes(query: str) -> list[dict[str, str]]:
        """Notes with the query's words, with a preview.

        Args:
            query: Words to look for.
        """
        return [
            {"title": "Present ideas", "preview": "Maya: a film camera"},
            {"title": "Film club", "preview": "Shared by Ines."},
        ]

    opened: list[str] = []

    @tool
    def read_note(title: str) -> str:
        """The full text of one note.

        Args:
            title: The note's title.
        """
        opened.append(title)
        return "Next: Past Lives, Thursday 27 March."

    model = FakeModel(
        [
            {"json": {"call": "search_notes", "then": DONE}},
            {"json": {"query": "film club"}},
            {"text": "Past Lives, on Thursday."},
        ]
    )
    async with Agent(model, tools=[search_notes, read_note]) as agent:
        result = await agent.run("what's the next film for film club?")
    assert opened == ["Film club"]
    assert [call.label for call in model.calls] == ["conductor", "arguments", "answer"]
    assert result.text == "Past Lives, on Thursday."


def test_a_hit_is_named_only_when_the_ask_names_exactly_one() -> None:
    tools = note_tools()
    hits = [{"title": "Film club", "preview": "..."}, {"title": "Book club", "preview": "..."}]
    searched = step("search_notes", hits, input={"query": "club"})
    assert named_hit(tools["read_note"], searched, "when is film club?") == {"title": "Film club"}
    assert named_hit(tools["read_note"], searched, "which clubs do I have?") is None
    assert named_hit(tools["read_note"], searched, "film club or book club?") is None
    emails = step("search_emails", [{"id": 5, "title": "Your order"}], input={"query": "o"})
    read_email = {t.name: t for t in mail_tools()}["read_email"]
    assert named_hit(read_email, emails, "what does your order say?") == {"email_id": 5}


async def test_a_planned_read_opens_the_one_hit_the_ask_describes() -> None:
    """ "what time is my flight to Porto?" found a sign-in warning and the airline's email; the
    1.5B model read the first line's id. Only one hit shares a word with the ask: the harness
    opens it, with no arguments call."""
    model = FakeModel(
        [
            {"json": {"call": "search_emails", "then": "read_email"}},
            {"json": {"query": "2025"}},
            {"text": "It arrives Thursday."},
        ]
    )
    async with Agent(model, tools=mail_tools(), auto_approve=True) as agent:
        result = await agent.run("when does my order arrive?")
    assert [step.tool for step in result.steps if step.kind == "tool"] == [
        "search_emails",
        "read_email",
    ]
    assert result.steps[1].input == {"email_id": 5}
    assert [call.label for call in model.calls] == ["conductor", "arguments", "answer"]
    checks = [(e.check, e.passed) for e in result.trace if isinstance(e, CheckEvent)]
    assert ("hit", True) in checks


async def test_a_planned_read_of_two_described_hits_is_left_to_the_worker() -> None:
    model = FakeModel(
        [
            {"json": {"call": "search_emails", "then": "read_email"}},
            {"json": {"query": "2025"}},
            {"json": {"email_id": 8}},
            {"text": "Lunch at one."},
        ]
    )
    async with Agent(model, tools=mail_tools(), auto_approve=True) as agent:
        result = await agent.run("did Noor reply about my order?")  # both hits described
    assert result.steps[1].input == {"email_id": 8}
    assert [call.label for call in model.calls] == ["conductor", "arguments", "arguments", "answer"]


def test_a_hit_is_described_only_when_it_alone_shares_a_word_with_the_ask() -> None:
    read_email = {t.name: t for t in mail_tools()}["read_email"]
    hits = [
        {"id": 3, "from": "Account Security", "subject": "Unusual sign-in", "date": "2025-03-10"},
        {"id": 8, "from": "AeroLuz", "subject": "Your flight to Porto", "date": "2025-03-02"},
        {"id": 9, "from": "Dad", "subject": "Photos", "date": "2025-03-10"},
    ]
    searched = step("search_emails", hits, input={"query": "flight"})
    assert described_hit(read_email, searched, "what time is my flight to Porto?") == {
        "email_id": 8
    }
    # words any ask says, dates and ids describe nothing
    assert described_hit(read_email, searched, "what did I get on 2025-03-10?") is None
    assert described_hit(read_email, searched, "what is the id 3 one?") is None
    # two hits described, or one hit only: not this rule's to pick
    assert described_hit(read_email, searched, "photos of the flight to Porto?") is None
    one = step("search_emails", hits[1:2], input={"query": "flight"})
    assert described_hit(read_email, one, "my flight to Porto?") is None
