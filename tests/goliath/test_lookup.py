"""Ids come from a look-up: a call needing an id nothing has shown gets the read that finds it."""

from __future__ import annotations

from typing import Any

from goliath import Agent, tool
from goliath.memory import InMemory
from goliath.records import Exchange, MemoryState, StepRecord
from goliath.testing import FakeModel
from goliath.tools import Tool
from goliath.turn.detail import ordinal_ids
from goliath.turn.lookup import id_parameters, ungrounded_ids, unshown_ids

EMAILS = [
    {"id": 41, "from": "Parcelly", "subject": "Your order has shipped"},
    {"id": 42, "from": "Noor", "subject": "Lunch?"},
]


def mail_tools() -> tuple[list[int], list[Tool]]:
    opened: list[int] = []

    @tool
    def search_emails(query: str) -> list[dict[str, Any]]:
        """Emails whose subject has the query's words, with ids.

        Args:
            query: Words to look for.
        """
        return [e for e in EMAILS if query.lower() in e["subject"].lower()]

    @tool
    def read_email(email_id: int) -> dict[str, Any]:
        """The text of one email.

        Args:
            email_id: The email's id.
        """
        opened.append(email_id)
        return {"id": email_id, "text": "Tracking number: PX-7781"}

    return opened, [search_emails, read_email]


PLAN_READ_FIRST = {"json": {"call": "read_email", "then": "answer_the_user"}}


async def test_an_id_nothing_showed_gets_a_look_up_first() -> None:
    opened, tools = mail_tools()
    model = FakeModel(
        [
            PLAN_READ_FIRST,
            {"json": {"email_id": 7}},  # an id no step returned
            {"json": {"call": "search_emails"}},  # the look-up, among the reads
            {"json": {"query": "u"}},  # both emails
            {"json": {"email_id": 41}},  # asked again, with the hits in view
            {"text": "Your tracking number is PX-7781."},
        ]
    )
    async with Agent(model, tools=tools) as agent:
        result = await agent.run("what's the tracking number?")  # describes neither hit
    assert [s.tool for s in result.steps if s.kind == "tool"] == ["search_emails", "read_email"]
    assert opened == [41]
    look_up = model.calls[2]
    assert look_up.label == "conductor"
    assert look_up.schema["properties"]["call"]["enum"] == ["search_emails"]
    assert "read_email needs the email_id" in look_up.prompt
    assert "Your order has shipped" in model.calls[4].prompt  # the worker sees the hits
    assert result.text == "Your tracking number is PX-7781."


async def test_after_the_look_up_its_one_hit_is_opened_by_the_harness() -> None:
    opened, tools = mail_tools()
    model = FakeModel(
        [
            PLAN_READ_FIRST,
            {"json": {"email_id": 7}},  # an id no step returned
            {"json": {"call": "search_emails"}},
            {"json": {"query": "order"}},  # one hit: nothing for the worker to pick
            {"text": "Your tracking number is PX-7781."},
        ]
    )
    async with Agent(model, tools=tools) as agent:
        result = await agent.run("what's the tracking number for my order?")
    assert opened == [41]
    assert [call.label for call in model.calls].count("arguments") == 2
    assert result.text == "Your tracking number is PX-7781."


async def test_an_id_the_steps_showed_needs_no_look_up() -> None:
    opened, tools = mail_tools()
    model = FakeModel(
        [
            {"json": {"call": "search_emails", "then": "read_email"}},
            {"json": {"query": "u"}},  # both emails
            {"json": {"email_id": 41}},
            {"text": "PX-7781."},
        ]
    )
    async with Agent(model, tools=tools) as agent:
        result = await agent.run("tracking number?")  # describes neither hit
    assert opened == [41] and result.text == "PX-7781."
    assert len(model.calls) == 4


async def test_an_id_from_the_last_exchange_needs_no_look_up() -> None:
    opened, tools = mail_tools()
    memory = InMemory(
        MemoryState(recent=[Exchange(ask="any mail?", answer="Email 42 from Noor.", at=1.0)])
    )
    model = FakeModel(
        [PLAN_READ_FIRST, {"json": {"email_id": 42}}, {"text": "Noor asks about lunch."}]
    )
    async with Agent(model, tools=tools, memory=memory) as agent:
        await agent.run("open that one")
    assert opened == [42]


async def test_a_look_up_happens_once_and_an_id_it_did_not_show_is_never_used() -> None:
    opened, tools = mail_tools()
    model = FakeModel(
        [
            PLAN_READ_FIRST,
            {"json": {"email_id": 7}},
            {"json": {"call": "search_emails"}},
            {"json": {"query": "invoice"}},  # finds nothing
            {"json": {"email_id": 7}},  # still unseen: sent back once
            {"json": {"email_id": 7}},  # and again: the read is skipped, the user asked
            {"text": "I could not find the invoice email. Which one do you mean?"},
        ]
    )
    async with Agent(model, tools=tools) as agent:
        result = await agent.run("open the invoice email")
    assert opened == []
    # one look-up; the ask has no other word to search for ("open" says what to do, not
    # which email: requery.py), and no second look-up follows
    tool_steps = [s for s in result.steps if s.kind == "tool"]
    assert [(s.tool, s.input) for s in tool_steps] == [
        ("search_emails", {"query": "invoice"}),
        ("read_email", {"email_id": 7}),
    ]
    assert tool_steps[-1].skipped and "missing: email_id" in (tool_steps[-1].result or "")
    assert "requery" not in [call.label for call in model.calls]
    assert "email_id 7, which no result above shows" in model.calls[5].prompt


async def test_after_a_read_an_id_no_result_showed_is_filled_once_more() -> None:
    opened, tools = mail_tools()
    model = FakeModel(
        [
            {"json": {"call": "search_emails", "then": "read_email"}},
            {"json": {"query": "u"}},  # both emails: 41 and 42
            {"json": {"email_id": 1995}},  # a made-up id
            {"json": {"email_id": 41}},  # told so, it copies one shown
            {"text": "PX-7781."},
        ]
    )
    async with Agent(model, tools=tools) as agent:
        result = await agent.run("tracking number?")  # describes neither hit
    assert opened == [41]
    refill = model.calls[3]
    assert refill.label == "arguments"
    assert "email_id 1995, which no result above shows" in refill.prompt
    assert ("id", False) in [(e.check, e.passed) for e in result.trace if hasattr(e, "check")]


async def test_an_id_the_user_said_is_not_sent_back() -> None:
    opened, tools = mail_tools()
    model = FakeModel(
        [
            {"json": {"call": "search_emails", "then": "read_email"}},
            {"json": {"query": "u"}},
            {"json": {"email_id": 1995}},  # not shown, but said as the email's number
            {"text": "Done."},
        ]
    )
    async with Agent(model, tools=tools) as agent:
        await agent.run("search my mail, then open email 1995")
    assert opened == [1995] and len(model.calls) == 4


def test_an_unshown_id_is_one_with_a_number_that_no_result_holds() -> None:
    _, (search, read) = mail_tools()
    found = [StepRecord(index=0, kind="tool", brief="", tool="search", result="1. id: 41, from: X")]
    assert unshown_ids(read, {"email_id": 1995}, found, ["read it"]) == ["email_id"]
    assert unshown_ids(read, {"email_id": 41}, found, ["read it"]) == []
    assert unshown_ids(read, {"email_id": 1}, found, ["read it"]) == []  # the line's number
    assert unshown_ids(read, {"email_id": 1995}, found, ["it said 1995"]) == []  # seen
    assert unshown_ids(read, {"email_id": "lunch with noor"}, found, [""]) == []  # a name
    assert unshown_ids(search, {"query": "1995"}, found, [""]) == []  # no id parameter


def test_id_parameters_are_the_required_ids() -> None:
    _, (search, read) = mail_tools()
    assert id_parameters(read) == ["email_id"] and id_parameters(search) == []


def test_an_id_is_grounded_by_any_text_the_turn_saw() -> None:
    _, (_, read) = mail_tools()
    step = StepRecord(index=0, kind="tool", brief="b", tool="search_emails", output=EMAILS)
    assert ungrounded_ids(read, {"email_id": 41}, [step], []) == []
    assert ungrounded_ids(read, {"email_id": 7}, [step], []) == ["email_id"]
    assert ungrounded_ids(read, {"email_id": 7}, [], ["email 7 from Ana"]) == []
    assert ungrounded_ids(read, {}, [step], []) == ["email_id"]


def test_an_id_must_appear_as_a_whole_token() -> None:
    """``1`` is not shown by "10 March 2025", nor ``f-12`` by ``f-123``; and ``10`` is not
    shown by it either, since a number said as a day is no id (test_after_the_change.py)."""
    _, (_, read) = mail_tools()
    assert ungrounded_ids(read, {"email_id": 1}, [], ["today: Monday 10 March 2025"]) == [
        "email_id"
    ]
    assert ungrounded_ids(read, {"email_id": 10}, [], ["today: Monday 10 March 2025"]) == [
        "email_id"
    ]
    assert ungrounded_ids(read, {"email_id": 10}, [], ["open email 10, from Ana"]) == []


def test_a_name_of_words_in_an_id_is_not_an_id() -> None:
    """ "take the tile museum off my itinerary": ``item_id="tile museum"`` is what the user
    calls the item; its id is still to be found."""
    _, (_, read) = mail_tools()
    ask = ["take the tile museum off my itinerary"]
    assert ungrounded_ids(read, {"email_id": "tile museum"}, [], ask) == ["email_id"]
    assert ungrounded_ids(read, {"email_id": "it 3"}, [], ["remove it 3"]) == []
    # a file name copied from the last answer is a name too, digits and all
    said = ["delete the old one", "I found 'CV Jordan 2019.docx' in Documents/Work/old."]
    assert ungrounded_ids(read, {"email_id": "CV Jordan 2019.docx"}, [], said) == ["email_id"]


async def test_a_result_lines_number_given_as_an_id_opens_that_lines_item() -> None:
    """Shown "2. id: 42, from: Noor ...", the 1.5B model fills ``email_id: 2``, the line's
    number: the email on that line is opened (detail.ordinal_ids)."""
    opened, tools = mail_tools()
    model = FakeModel(
        [
            {"json": {"call": "search_emails", "then": "read_email"}},
            {"json": {"query": "u"}},  # both emails
            {"json": {"email_id": 2}},  # the second line's number, not its id
            {"text": "Noor asks about lunch."},
        ]
    )
    async with Agent(model, tools=tools) as agent:
        result = await agent.run("what did that email say?")  # describes neither hit
    assert "2. id: 42" in (result.steps[0].result or "")
    assert opened == [42]


async def test_a_number_the_user_said_is_not_taken_for_a_line() -> None:
    opened, tools = mail_tools()
    model = FakeModel(
        [
            {"json": {"call": "search_emails", "then": "read_email"}},
            {"json": {"query": "u"}},
            {"json": {"email_id": 2}},
            {"text": "Done."},
        ]
    )
    async with Agent(model, tools=tools) as agent:
        await agent.run("search my mail and open email 2")
    assert opened == [2]


def test_an_id_a_read_returned_is_kept_though_it_is_also_a_lines_number() -> None:
    _, (_search, read) = mail_tools()
    hits = [{"id": 2, "from": "Ana"}, {"id": 9, "from": "Ben"}]
    step = StepRecord(
        index=0,
        kind="tool",
        brief="b",
        tool="search_emails",
        output=hits,
        result="1. id: 2, from: Ana\n2. id: 9, from: Ben",
    )
    assert ordinal_ids(read, {"email_id": 2}, [step], "open Ana's email") == {}
    assert ordinal_ids(read, {"email_id": 1}, [step], "open Ana's email") == {"email_id": 2}
    assert ordinal_ids(read, {"email_id": 3}, [step], "open Ana's email") == {}  # no third line


def test_a_lines_number_is_only_taken_for_an_id_of_the_kind_listed() -> None:
    @tool
    def complete_task(task_id: int) -> str:
        """Mark a task done.

        Args:
            task_id: The task's id.
        """
        return "done"

    step = StepRecord(
        index=0,
        kind="tool",
        brief="b",
        tool="search_emails",
        output=[{"id": 14, "subject": "Invoice"}],
        result="1. id: 14, subject: Invoice",
    )
    # a task's id is not on a line of emails
    assert ordinal_ids(complete_task, {"task_id": 1}, [step], "mark the milk task done") == {}
    _, (_search, read) = mail_tools()
    # a number the conversation showed is left alone
    seen = ["Email 1 is from your landlord."]
    assert ordinal_ids(read, {"email_id": 1}, [step], "open it", seen) == {}
    assert ordinal_ids(read, {"email_id": "\u00b2"}, [step], "open it") == {}  # not a digit


async def test_a_conditional_write_whose_item_no_read_showed_is_withheld_with_no_step() -> None:
    replied: list[int] = []
    _, (search, read) = mail_tools()

    @tool(writes=True)
    def reply_to_email(email_id: int, body: str) -> str:
        """Reply to one email.

        Args:
            email_id: The email's id.
            body: What to say.
        """
        replied.append(email_id)
        return "sent"

    model = FakeModel(
        [
            {"json": {"call": "search_emails", "then": "reply_to_email"}},
            {"json": {"query": "bank"}},  # finds nothing
            {"json": {"call": "reply_to_email"}},
            {"json": {"email_id": 0, "body": "I'll call them tomorrow"}},  # unshown: no retry
            {"text": "There is no email from your bank, so I sent nothing."},
        ]
    )
    async with Agent(model, tools=[search, read, reply_to_email], auto_approve=True) as agent:
        result = await agent.run("if my bank emailed me, reply that I'll call them tomorrow")
    assert replied == []
    assert [s.tool for s in result.steps if s.kind == "tool"] == ["search_emails"]
    assert "no result showed the item reply_to_email needs (email_id)" in model.calls[-1].prompt
