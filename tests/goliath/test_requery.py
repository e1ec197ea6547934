"""A search that found nothing is tried once more with one other word of the ask
(goliath/turn/requery.py; docs/design.md, "A search that found nothing is tried once more")."""

from __future__ import annotations

from typing import Any, Literal

from goliath import tool
from goliath.testing import FakeModel
from goliath.tools import Tool
from goliath.turn.requery import query_parameter, retry_words
from goliath.turn.stages import STAGES

from ..spec.helpers import answer_plan, args, labels, run_turn, text, use


class Notes:
    """A notes app whose search matches the text as it is, like most apps' searches."""

    def __init__(self) -> None:
        self.searched: list[str] = []
        notes = self

        @tool
        def search_notes(query: str) -> list[dict[str, Any]]:
            """Find notes whose title or text holds the words.

            Args:
                query: Words the note holds.
            """
            notes.searched.append(query)
            if "bike" in query.lower():
                return [{"id": 7, "title": "Bike", "text": "tyre pressure 6.5 bar"}]
            return []

        @tool
        def find_contact(name: str) -> list[dict[str, Any]]:
            """Find a contact by name.

            Args:
                name: The contact's name.
            """
            notes.searched.append(name)
            return []

        self.tools: list[Tool] = [search_notes, find_contact]


def _word(value: str) -> dict[str, Any]:
    return {"json": {"word": value}}


async def test_an_empty_search_runs_once_more_with_the_word_the_model_picks() -> None:
    notes = Notes()
    model = FakeModel(
        [
            use("search_notes"),
            args(query="pressure"),
            _word("bike"),
            answer_plan(),
            text("6.5 bar"),
        ]
    )
    result = await run_turn(model, "what pressure do my bike tyres take?", tools=notes.tools)
    assert notes.searched == ["pressure", "bike"]
    requery = next(call for call in model.calls if call.label == "requery")
    assert requery.schema["properties"]["word"]["enum"] == ["bike", "tyre"]
    assert 'Searched search_notes for "pressure": nothing found.' in requery.prompt
    row = STAGES["requery"]  # its caps, from the stage table (test_stages.py)
    assert (requery.max_output_tokens, requery.max_string_length) == (
        row.output_tokens,
        row.string_length,
    )
    assert result.text == "6.5 bar"


async def test_a_search_is_tried_again_once_only() -> None:
    notes = Notes()
    model = FakeModel(
        [
            use("search_notes"),
            args(query="pressure"),
            _word("tyre"),
            answer_plan(),
            text("I found no note about that."),
        ]
    )
    result = await run_turn(model, "what pressure do my bike tyres take?", tools=notes.tools)
    assert notes.searched == ["pressure", "tyre"]  # the second empty search is the last
    assert labels(model).count("requery") == 1
    assert result.text == "I found no note about that."


async def test_one_word_left_is_searched_with_no_model_call() -> None:
    notes = Notes()
    model = FakeModel(
        [use("search_notes"), args(query="pressure"), answer_plan(), text("Nothing.")]
    )
    await run_turn(model, "what pressure does my bike take?", tools=notes.tools)
    assert notes.searched == ["pressure", "bike"]
    assert "requery" not in labels(model)


async def test_a_parameter_that_is_not_search_text_is_not_tried_again() -> None:
    notes = Notes()
    model = FakeModel(
        [use("find_contact"), args(name="landlord"), answer_plan(), text("No such contact.")]
    )
    await run_turn(model, "text my landlord that the boiler broke", tools=notes.tools)
    assert notes.searched == ["landlord"]
    assert "requery" not in labels(model)


async def test_no_retry_when_the_step_cap_leaves_no_room_after_it() -> None:
    notes = Notes()
    model = FakeModel(
        [use("search_notes"), args(query="pressure"), answer_plan(), text("Nothing.")]
    )
    await run_turn(model, "what pressure do my bike tyres take?", tools=notes.tools, max_steps=2)
    assert notes.searched == ["pressure"]


def test_the_words_tried_leave_out_function_names_verbs_days_and_the_other_values() -> None:
    @tool
    def search_files(
        query: str, kind: Literal["any", "pdf"] = "any", folder: str | None = None
    ) -> list[str]:
        """Find files.

        Args:
            query: Words of the file's name.
            kind: Only files of this kind.
            folder: Only files in this folder.
        """
        return []

    @tool
    def rename_file(file_id: str, new_name: str) -> str:
        """Rename a file.

        Args:
            file_id: The file.
            new_name: Its new name.
        """
        return new_name

    tools = [search_files, rename_file]
    ask = "please rename the scan in my Downloads from Friday to Parking fines"
    phrase = {"query": "Parking fines", "kind": "any", "folder": "Downloads"}
    # a phrase found nothing: any content word of the ask, the phrase's own included
    assert retry_words(ask, tools, "query", phrase) == ["scan", "parking", "fine"]
    # one word found nothing: another word of the ask, never the folder searched in
    assert retry_words(ask, tools, "query", {**phrase, "query": "fines"}) == ["scan", "parking"]
    assert retry_words("rename my parking fines scan", tools, "query", {"query": "scan"}) == [
        "parking",
        "fine",
    ]


def test_a_word_inside_a_function_name_or_holding_one_is_not_tried() -> None:
    """A word inside a function's name says what is searched, not which item: "mail" (of
    ``search_emails``' "email") retried "any mail from the bank?", found two unrelated emails,
    and the turn went on to open one instead of answering that the bank had not written
    (evals/suite, email-check-then-skip-bank-3)."""

    @tool
    def search_emails(query: str) -> list[str]:
        """Search emails.

        Args:
            query: Words of the subject or body.
        """
        return []

    ask = "any mail from the bank? if so reply i'll ring tmrw"
    assert retry_words(ask, [search_emails], "query", {"query": "bank"}) == []
    assert retry_words("if my bank emailed me", [search_emails], "query", {"query": "bank"}) == []


def test_pronouns_and_split_contractions_are_not_tried() -> None:
    @tool
    def search_notes(query: str) -> list[str]:
        """Search notes.

        Args:
            query: Words of the note.
        """
        return []

    ask = "check whether the wifi code isn't in them and open it if it doesn't"
    assert retry_words(ask, [search_notes], "query", {"query": "code"}) == ["wifi"]


def test_question_words_are_not_tried_and_only_the_searched_functions_name_is_kept_out() -> None:
    @tool
    def search_notes(query: str) -> list[str]:
        """Search notes.

        Args:
            query: Words of the note.
        """
        return []

    @tool(writes=True)
    def set_light(name: str, on: bool) -> str:
        """Switch a light.

        Args:
            name: The light.
            on: On or off.
        """
        return "ok"

    tools = [search_notes, set_light]
    assert retry_words("what time is my train?", tools, "query", {"query": "train"}) == []
    assert retry_words("how long is the warranty?", tools, "query", {"query": "warranty"}) == []
    # "flight" holds "light", a word of another function's name, not of the search's
    ask = "when is my flight to Porto?"
    assert retry_words(ask, tools, "query", {"query": "Porto"}, function=search_notes) == ["flight"]


def test_the_search_text_parameter_is_a_free_string_the_name_calls_a_search() -> None:
    @tool
    def search_library(
        query: str, kind: Literal["song", "album"] = "song", search_terms: str = ""
    ) -> list[str]:
        """Search the music library.

        Args:
            query: Words of the title.
            kind: Songs or albums.
            search_terms: More words.
        """
        return []

    @tool
    def search_emails(query: str, sender: str | None = None) -> list[str]:
        """Search emails.

        Args:
            query: Words of the subject or body.
            sender: Only from this sender.
        """
        return []

    @tool(writes=True)
    def archive_email(query: str) -> str:
        """Archive the email that matches.

        Args:
            query: Words of its subject.
        """
        return query

    assert query_parameter(search_emails) == "query"
    assert query_parameter(search_library) is None  # two of them: which one is unclear
    assert query_parameter(archive_email) is None  # a write is never tried again
