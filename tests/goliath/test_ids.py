"""The conversation-id rule is defined once (goliath.ids); the URL form is a subset of it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from goliath import ConfigError
from goliath.ids import MAX_CONVERSATION_ID, URL_SAFE_ID, check_conversation_id


@given(st.from_regex(URL_SAFE_ID, fullmatch=True))
def test_every_url_safe_id_follows_the_rule(conversation_id: str) -> None:
    """An id that works over HTTP works everywhere else too."""
    check_conversation_id(conversation_id)


@pytest.mark.parametrize("bad", ["", "   ", "a\nb", "x" * (MAX_CONVERSATION_ID + 1), 7, b"bytes"])
def test_blank_unprintable_too_long_or_not_a_string_is_refused(bad: object) -> None:
    """The rule refuses what it says it refuses, with a ConfigError."""
    with pytest.raises(ConfigError, match="conversation_id must"):
        check_conversation_id(bad)


def test_none_and_printable_ids_are_accepted() -> None:
    """None is the default conversation; spaces and any printable character are fine."""
    for good in (None, "user 1", "ümlaut", "x" * MAX_CONVERSATION_ID):
        check_conversation_id(good)
