"""The word helpers every rule compares with: one split, one reading of a function's name,
one list of the words no comparison counts."""

from __future__ import annotations

import pytest

from goliath.turn import detail, requery, retrieval, threshold, write_gate
from goliath.turn.words import FUNCTION_WORDS, name_nouns, singular, words


@pytest.mark.parametrize(
    ("name", "nouns"),
    [
        ("list_events", {"event"}),
        ("get_list", {"list"}),
        ("list_lists", {"list"}),
        ("append_to_note", {"note"}),  # a preposition is not what the name is about
        ("add_to_playlist", {"playlist"}),
        ("moveEventInto", {"event"}),
        ("play", {"play"}),  # a one-word name is about itself
        ("", set()),
    ],
)
def test_name_nouns_are_the_singular_words_after_the_verb(name: str, nouns: set[str]) -> None:
    assert name_nouns(name) == nouns


def test_words_split_snake_camel_and_sentences_alike() -> None:
    assert words("search_notes") == words("searchNotes") == words("Search notes!")
    assert singular("stamps") == "stamp" and singular("batteries") == "battery"


@pytest.mark.parametrize(
    "skipped",
    [
        detail._PLAIN_WORDS,
        requery._STOP,
        retrieval._STOP,
        threshold._STOP,
        write_gate._STOP,
    ],
)
def test_every_rules_skip_list_holds_the_shared_function_words(skipped: frozenset[str]) -> None:
    assert skipped >= FUNCTION_WORDS
    assert "milk" not in skipped  # an item's word is never skipped
