"""Answers state only what the steps found (docs/design.md, "Answers state only what the steps
found"): an invented number is retried once, then replaced by a summary of the steps; an answer
that echoes its own instructions or repeats a line is never shown."""

from __future__ import annotations

from goliath import StepRecord
from goliath.testing import FakeModel
from goliath.turn.grounding import ungrounded_numbers
from goliath.turn.run import NO_ANSWER

from .helpers import TaskBox, answer_plan, args, calls, run_turn, text, use


async def test_an_answer_with_a_number_no_step_returned_is_retried_with_the_number_named(
    box: TaskBox,
) -> None:
    fake = FakeModel(
        [
            use("list_tasks"),
            answer_plan(),
            text("You have 7 tasks: Buy milk and Call mom."),
            text("You have two tasks: Buy milk and Call mom."),
        ]
    )
    result = await run_turn(fake, tools=box.tools)
    assert result.text == "You have two tasks: Buy milk and Call mom."
    first, retry = calls(fake, "answer")
    assert "Your previous reply stated" not in first.prompt
    assert "Your previous reply stated 7, which the results above do not show" in retry.prompt


async def test_an_answer_that_still_invents_after_the_retry_is_replaced_by_the_step_summary(
    box: TaskBox,
) -> None:
    fake = FakeModel(
        [
            use("list_tasks"),
            answer_plan(),
            text("Your dentist is at 4:30."),
            text("Your dentist is at 4:30 on the 12th."),
        ]
    )
    result = await run_turn(fake, tools=box.tools)
    assert "4:30" not in result.text
    assert result.text.startswith("Here is what I found:")
    assert "Buy milk" in result.text and "Call mom" in result.text


async def test_numbers_from_the_ask_and_the_results_need_no_retry(box: TaskBox) -> None:
    box.tasks.append({"title": "Pay rent", "due": "2025-03-14"})
    fake = FakeModel(
        [use("list_tasks"), answer_plan(), text("Pay rent is due on 2025-03-14; that is 3 tasks.")]
    )
    result = await run_turn(fake, "do I have 3 tasks?", tools=box.tools)
    assert result.text == "Pay rent is due on 2025-03-14; that is 3 tasks."
    assert len(calls(fake, "answer")) == 1


async def test_an_answer_that_echoes_its_instructions_is_replaced_by_the_step_summary(
    box: TaskBox,
) -> None:
    echo = "Say what was done; a change that was skipped or declined was not done."
    fake = FakeModel([use("list_tasks"), answer_plan(), text(echo)])
    result = await run_turn(fake, tools=box.tools)
    assert result.text.startswith("Here is what I found:")
    assert "skipped or declined" not in result.text


async def test_an_answer_that_repeats_a_line_is_never_shown() -> None:
    line = "I am here to help you with anything you need today."
    fake = FakeModel([text(f"{line}\n{line}")])
    result = await run_turn(fake, "hello", tools=[])
    assert result.text == NO_ANSWER


async def test_a_best_effort_answer_that_echoes_its_instructions_is_replaced(
    box: TaskBox,
) -> None:
    """The README's first failure: the best-effort answer was the prompt's own instruction."""
    fake = FakeModel(
        [
            use("list_tasks"),
            use("list_tasks"),
            use("list_tasks"),  # the third read escalates repeated-tool-call
            text(
                "You could not finish this. In one or two short sentences, tell the user what "
                "you found."
            ),
        ]
    )
    result = await run_turn(fake, tools=box.tools)
    assert "You could not finish this" not in result.text
    assert "Buy milk" in result.text


def test_numbers_compare_in_one_spelling() -> None:
    """04:50 grounds 4:50, 11482 grounds 11,482, 47.40 grounds 47.4, 15:00 grounds 3 pm."""
    step = StepRecord(
        index=0,
        kind="tool",
        brief="",
        tool="t",
        result="at: 04:50, steps: 11482, total: 47.40, end: 15:00",
    )
    assert ungrounded_numbers("4:50, 11,482 steps, 47.4 and 3 pm", [step]) == []
    assert ungrounded_numbers("at 5:50", [step]) == ["5:50"]


async def test_an_answer_that_denies_what_the_read_returned_is_retried_once(box: TaskBox) -> None:
    """A wrong negative ("you have no tasks" over a list of two) gets one retry naming the count;
    the retry's answer stands."""
    fake = FakeModel(
        [
            use("list_tasks"),
            answer_plan(),
            text("There are no tasks on your list."),
            text("You have Buy milk and Call mom."),
        ]
    )
    result = await run_turn(fake, tools=box.tools)
    assert result.text == "You have Buy milk and Call mom."
    first, retry = calls(fake, "answer")
    assert "said nothing was found" not in first.prompt
    assert "said nothing was found, but the results above hold 2 items" in retry.prompt


async def test_a_bare_no_over_a_read_that_returned_items_is_retried(box: TaskBox) -> None:
    """An answer of only "No new tasks." over a list of two is a wrong negative too."""
    fake = FakeModel(
        [
            use("list_tasks"),
            answer_plan(),
            text("No new tasks."),
            text("You have Buy milk and Call mom."),
        ]
    )
    result = await run_turn(fake, "any new tasks?", tools=box.tools)
    assert result.text == "You have Buy milk and Call mom."
    assert "said nothing was found" in calls(fake, "answer")[1].prompt


async def test_a_denial_retry_that_names_nothing_found_gets_the_found_lines(box: TaskBox) -> None:
    """The retry of "No new tasks." said nothing of the two tasks either: the lines follow it."""
    fake = FakeModel(
        [
            use("list_tasks"),
            answer_plan(),
            text("No new tasks."),
            text("The ask wants to know if there are any new tasks."),
        ]
    )
    result = await run_turn(fake, "any new tasks?", tools=box.tools)
    assert result.text.startswith("The ask wants to know if there are any new tasks.\nHere is")
    assert "Buy milk" in result.text and "Call mom" in result.text
    assert len(calls(fake, "answer")) == 2


async def test_a_negative_over_an_empty_read_or_a_plain_no_needs_no_retry(box: TaskBox) -> None:
    box.tasks.clear()
    fake = FakeModel([use("list_tasks"), answer_plan(), text("There are no tasks on your list.")])
    result = await run_turn(fake, tools=box.tools)
    assert result.text == "There are no tasks on your list." and len(calls(fake, "answer")) == 1
    box.tasks.append({"title": "Buy milk"})
    fake = FakeModel([use("list_tasks"), answer_plan(), text("No, eggs are not on your list.")])
    result = await run_turn(fake, "are eggs on my list?", tools=box.tools)
    assert result.text == "No, eggs are not on your list." and len(calls(fake, "answer")) == 1


async def test_a_negative_that_survives_its_retry_is_kept(box: TaskBox) -> None:
    """One retry only: a second negative is the model's answer (it may be right: the item the
    ask wants is not among the results)."""
    fake = FakeModel(
        [
            use("list_tasks"),
            answer_plan(),
            text("You have no dentist task."),
            text("There is no dentist task on your list."),
        ]
    )
    result = await run_turn(fake, "is the dentist on my list?", tools=box.tools)
    assert result.text == "There is no dentist task on your list."
    assert len(calls(fake, "answer")) == 2


async def test_an_answer_that_names_nothing_the_read_returned_is_retried_once(
    box: TaskBox,
) -> None:
    """A vague answer ("You have two things to do.") over a read that returned items gets one
    retry asking for what the ask wants from the results; the retry's answer stands."""
    fake = FakeModel(
        [
            use("list_tasks"),
            answer_plan(),
            text("You have a couple of things to do."),
            text("You have Buy milk and Call mom."),
        ]
    )
    result = await run_turn(fake, "what's on my list?", tools=box.tools, answer_check=True)
    assert result.text == "You have Buy milk and Call mom."
    first, retry = calls(fake, "answer")
    assert "named nothing from the results" not in first.prompt
    assert "Your previous reply named nothing from the results above" in retry.prompt
    assert [(e.check, e.passed) for e in result.trace if e.type == "check"] == [("answer", False)]


async def test_a_retry_that_still_names_nothing_found_is_followed_by_the_found_lines(
    box: TaskBox,
) -> None:
    """The 1.5B model answers "You have 2 tasks." again when asked for the titles: the user
    then gets the read's lines after that answer, not the count alone."""
    fake = FakeModel(
        [
            use("list_tasks"),
            answer_plan(),
            text("You have a couple of things to do."),
            text("You have two things to do."),
        ]
    )
    result = await run_turn(fake, "what's on my list?", tools=box.tools, answer_check=True)
    assert result.text.startswith("You have two things to do.\nHere is what I found:")
    assert "Buy milk" in result.text and "Call mom" in result.text
    assert len(calls(fake, "answer")) == 2


async def test_an_answer_naming_what_was_found_or_a_plain_no_is_not_retried(box: TaskBox) -> None:
    for reply, ask in (
        ("Call mom is on your list.", "what's on my list?"),
        ("No, you have nothing about eggs.", "anything about eggs?"),
    ):
        fake = FakeModel([use("list_tasks"), answer_plan(), text(reply)])
        result = await run_turn(fake, ask, tools=box.tools, answer_check=True)
        assert result.text == reply and len(calls(fake, "answer")) == 1


# ---------------------------------------------------------------- the answer names the change


async def test_an_answer_that_names_nothing_of_a_declined_write_gets_the_change_named(
    box: TaskBox,
) -> None:
    from goliath.records import Decision

    fake = FakeModel(
        [use("create_task"), args(title="Pay rent"), answer_plan(), text("I skipped it.")]
    )
    result = await run_turn(
        fake,
        "add pay rent",
        tools=box.tools,
        auto_approve=False,
        confirm=lambda request: Decision(approved=False, reason="not now"),
    )
    assert box.ran("create_task") == 0
    assert result.text == "I skipped it.\nNot done, as you declined: create task: Pay rent."


async def test_an_answer_that_names_the_write_is_left_alone(box: TaskBox) -> None:
    fake = FakeModel(
        [use("create_task"), args(title="Pay rent"), answer_plan(), text("Added Pay rent.")]
    )
    result = await run_turn(fake, "add pay rent", tools=box.tools)
    assert result.text == "Added Pay rent."


async def test_a_write_given_only_an_id_is_named_by_its_result() -> None:
    from goliath import tool

    @tool(writes=True)
    def archive_email(email_id: int) -> dict[str, object]:
        """Archive one email."""
        return {"ok": True, "archived": "Your order has shipped", "from": "ShipFast"}

    fake = FakeModel(
        [use("archive_email"), args(email_id=5), answer_plan(), text("Email 5 is archived.")]
    )
    result = await run_turn(fake, "archive email 5", tools=[archive_email])
    assert (
        result.text
        == "Email 5 is archived.\nDone: archive email: Your order has shipped, ShipFast."
    )


def test_a_write_skipped_for_a_missing_value_is_left_to_the_answer() -> None:
    from goliath.turn.grounding import with_change

    for fields in ({"skipped": True, "skip_reason": "missing"},):
        step = _write("create_task", {"title": "Pay rent"}, result="missing: due", **fields)
        assert with_change("When is it due?", [step]) == "When is it due?"


def test_a_failed_write_the_answer_calls_done_gets_a_line_saying_it_failed() -> None:
    """ "Marked the high-priority work task as done." over a ``complete_task`` that failed
    (dev, 2026-12-05): the user would believe the change was made."""
    from goliath.turn.grounding import with_change

    step = _write(
        "complete_task",
        {"title": "high-priority work"},
        result="error: LookupError: no open task matches 'high-priority work'; there are: "
        "Pick up prescription, Submit expense report. Try different arguments or another tool.",
        failed=True,
    )
    claimed = "Marked the high-priority work task as done."
    assert with_change(claimed, [step]) == (
        f"{claimed}\nNot done: complete task failed: no open task matches 'high-priority work'."
    )
    said = "I couldn't find a high-priority work task, so nothing was marked."
    assert with_change(said, [step]) == said
    assert with_change("When is it due?", [step]).endswith(
        "complete task failed: no open task matches 'high-priority work'."
    )


def test_a_skipped_write_the_answer_calls_done_gets_a_line_saying_what_it_needs() -> None:
    """ "I deleted the file 'CV Jordan 2019.docx'." over a ``delete_file`` skipped for a missing
    id (dev, 2026-12-05, seventh session): an answer that asks, or says it did not happen,
    stands."""
    from goliath.turn.grounding import with_change

    step = _write(
        "delete_file",
        {"file_id": "CV Jordan 2019.docx"},
        result="missing: The file's id (f-…), as search_files shows it.. Ask the user or use "
        "another tool.",
        skipped=True,
        skip_reason="missing",
    )
    claimed = "I deleted the file 'CV Jordan 2019.docx'."
    assert with_change(claimed, [step]) == (
        f"{claimed}\nNot done: delete file needs the file's id (f-…), as search_files shows it."
    )
    for stands in ("Which file do you mean?", "I could not delete it: which file is it?"):
        assert with_change(stands, [step]) == stands
    assert with_change("I didn't delete anything yet.", [step]) == "I didn't delete anything yet."


def _write(tool: str, values: dict[str, object], **fields: object) -> StepRecord:
    return StepRecord(
        index=1,
        kind="tool",
        brief="",
        tool=tool,
        writes=True,
        input=values,
        **{"result": "declined by the user: not now. Do not retry unless asked.", **fields},  # type: ignore[arg-type]
    )


def _search(result: str) -> StepRecord:
    """A search for "shipping" that ran, showing ``result``."""
    return StepRecord(
        index=0,
        kind="tool",
        brief="",
        tool="search_emails",
        writes=False,
        input={"query": "shipping"},
        result=result,
    )


def test_an_answer_that_says_only_when_gets_the_changed_item_named() -> None:
    """ "Declined to create an event for Friday at 21:00" names the day and time, not the
    drinks with Ines: the change is named after it."""
    from goliath.turn.grounding import with_change

    step = _write(
        "create_event",
        {"title": "Drinks with Ines", "date": "Friday", "time": "21:00"},
        skipped=True,
        skip_reason="confirmation",
    )
    answer = "You declined to create an event for Friday at 21:00."
    assert with_change(answer, [step]) == (
        f"{answer}\nNot done, as you declined: create event: Drinks with Ines, Friday, 21:00."
    )
    named = "You declined drinks with Ines on Friday."
    assert with_change(named, [step]) == named


def test_a_declined_write_given_only_an_id_is_named_by_the_read_that_showed_it() -> None:
    """A declined write's result is the refusal, not the item: the line of an earlier read
    with that id names it."""
    from goliath.turn.grounding import with_change

    read = _search(
        "1. id: 10, from: Bargain Hunter, subject: Patio sets half price\n"
        "2. id: 11, from: ShipFast, subject: Your order has shipped"
    )
    step = _write("archive_email", {"email_id": 10}, skipped=True, skip_reason="confirmation")
    assert with_change("I left it.", [read, step]) == (
        "I left it.\nNot done, as you declined: archive email: Bargain Hunter, Patio sets half price."
    )


def test_an_answer_that_calls_a_declined_write_done_gets_the_line() -> None:
    """ "I moved it to the archive." over an archive the user declined names the email, and
    tells the user it was moved: the line says it was not."""
    from goliath.turn.grounding import with_change

    step = _write("archive_email", {"email_id": 10}, skipped=True, skip_reason="confirmation")
    read = _search("1. id: 10, from: Bargain Hunter, subject: Patio sets half price")
    claimed = "I found the email from Bargain Hunter. I moved it to the archive."
    assert with_change(claimed, [read, step]) == (
        f"{claimed}\nNot done, as you declined: archive email: Bargain Hunter, Patio sets half "
        "price."
    )
    for honest in (
        "You declined, so the Bargain Hunter email stays in your inbox.",
        "The Bargain Hunter email was not archived.",
    ):
        assert with_change(honest, [read, step]) == honest
