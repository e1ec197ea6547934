"""A write's text the worker left blank is written by a call of its own (compose.py)."""

from __future__ import annotations

from typing import Any

import pytest

from goliath import tool
from goliath.testing import FakeModel
from goliath.tools import Tool
from goliath.turn.arguments import Missing
from goliath.turn.compose import blank_text

from ..spec.helpers import args, run_turn, text

ASK = "email olivia@example.com to ask if the customer survey draft is ready"


class Outbox:
    """Emails and notes that record what was sent or added."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.appended: list[dict[str, Any]] = []
        box = self

        @tool(writes=True)
        def send_email(to: str, subject: str, body: str) -> str:
            """Send an email.

            Args:
                to: The address.
                subject: The subject line.
                body: The email's text.
            """
            box.sent.append({"to": to, "subject": subject, "body": body})
            return "sent"

        @tool(writes=True)
        def append_to_note(title: str, text: str) -> str:
            """Add text to the end of a note.

            Args:
                title: The note's title.
                text: What to add.
            """
            box.appended.append({"title": title, "text": text})
            return "added"

        @tool(writes=True)
        def send_message(to: str, text: str) -> str:
            """Send a text message.

            Args:
                to: Who gets it.
                text: The message.
            """
            box.sent.append({"to": to, "text": text})
            return "sent"

        @tool(writes=True)
        def reply_to_email(email_id: int, body: str) -> str:
            """Reply to an email.

            Args:
                email_id: The email's id.
                body: The reply.
            """
            return "sent"

        self.reply_to_email = reply_to_email
        self.send_email = send_email
        self.tools: list[Tool] = [send_email, append_to_note, send_message]


def _script(call: str, filled: dict[str, Any], *composed: dict[str, Any]) -> FakeModel:
    return FakeModel(
        [
            {"json": {"call": call, "then": "answer_the_user"}},
            args(**filled),
            *({"json": reply} for reply in composed),
            text("Done."),
        ]
    )


async def test_a_blank_body_whose_missing_names_no_parameter_is_written_alone() -> None:
    box = Outbox()
    filled = {"to": "olivia@example.com", "subject": "Survey draft", "body": ""}
    model = _script(
        "send_email",
        {**filled, "missing": "time now"},
        {"body": "is the customer survey draft ready?"},
    )
    await run_turn(model, ASK, tools=box.tools, facts={"time now": "09:00"})
    assert box.sent == [{**filled, "body": "is the customer survey draft ready?"}]
    compose = model.calls[2]
    assert (compose.label, compose.max_output_tokens, compose.max_string_length) == (
        "compose",
        128,
        300,
    )
    assert list(compose.schema["properties"]) == ["body"]
    assert f"Request: {ASK}" in compose.prompt
    assert "to: olivia@example.com" in compose.prompt  # what the call already has
    assert "Write body (The email's text.), in one short sentence" in compose.prompt


async def test_a_composed_copy_of_the_request_is_cut_to_its_item() -> None:
    box = Outbox()
    model = _script(
        "append_to_note",
        {"title": "Camping checklist", "text": "", "missing": "day"},
        {"text": "Add a first-aid kit to my camping checklist."},
    )
    await run_turn(model, "add a first-aid kit to my camping checklist", tools=box.tools)
    assert box.appended == [{"title": "Camping checklist", "text": "a first-aid kit"}]


@pytest.mark.parametrize(
    "composed", ["Hi Olivia, I hope this email finds you well. Kind regards, Jordan", ""]
)
async def test_a_composed_text_empty_or_in_words_the_user_never_said_is_not_sent(
    composed: str,
) -> None:
    box = Outbox()
    model = _script(
        "send_email",
        {"to": "olivia@example.com", "subject": "Survey", "body": "", "missing": "time now"},
        {"body": composed},
    )
    result = await run_turn(model, ASK, tools=box.tools)
    assert box.sent == []
    [step] = [step for step in result.steps if step.tool == "send_email"]
    assert step.skipped and "missing: time now" in (step.result or "")


async def test_a_missing_that_names_the_text_asks_the_user_with_no_compose_call() -> None:
    """ "text Yuki" says nothing to send: the worker names ``text``, and the user is asked."""
    box = Outbox()
    model = _script("send_message", {"to": "Yuki", "text": "", "missing": "text"})
    result = await run_turn(model, "text Yuki", tools=box.tools)
    assert box.sent == []
    assert "compose" not in [call.label for call in model.calls]
    [step] = [step for step in result.steps if step.tool == "send_message"]
    assert step.skipped and "missing: text" in (step.result or "")


def test_only_blank_free_texts_of_a_write_are_composed() -> None:
    box = Outbox()
    blank_body = {"to": "a@example.com", "subject": "Hi", "body": ""}
    assert blank_text(box.send_email, Missing("time now", blank_body)) == "body"
    assert blank_text(box.send_email, Missing("body", blank_body)) is None  # a parameter
    assert blank_text(box.send_email, Missing("the text", blank_body)) is None  # its description
    no_address = {"to": "", "subject": "Hi", "body": ""}
    assert blank_text(box.send_email, Missing("time now", no_address)) is None  # whom, too
    no_subject = {"to": "a@example.com", "subject": "", "body": "Hi"}
    assert blank_text(box.send_email, Missing("time now", no_subject)) is None  # not what it says
    no_id = {"email_id": None, "body": ""}
    assert blank_text(box.reply_to_email, Missing("time now", no_id)) is None  # an id: a read's
    assert blank_text(box.send_email, Missing("time now", {**blank_body, "body": "x"})) is None


@pytest.mark.parametrize(
    "composed", ["The email's text.", "Hello Diego", "Hi Diego, hope you are well!"]
)
async def test_a_request_that_dictates_nothing_sends_nothing_composed(composed: str) -> None:
    """ "email Diego": the description echoed, or only whom it is for, is not a text the user
    gave; the write waits for the user."""
    box = Outbox()
    model = _script(
        "send_email",
        {"to": "Diego", "subject": "Hello", "body": "", "missing": "time now"},
        {"body": composed},
    )
    result = await run_turn(model, "email Diego", tools=box.tools)
    assert box.sent == []
    [step] = [step for step in result.steps if step.tool == "send_email"]
    assert step.skipped
