"""The Retry-After a model server or the cloud fallback sends is the wait before the next try."""

from __future__ import annotations

import email.utils
import time

import httpx
import pytest

from goliath._retry import MAX_RETRY_AFTER, RETRY_STATUSES, retry_after


def response(**headers: str) -> httpx.Response:
    return httpx.Response(429, headers=headers, request=httpx.Request("POST", "http://x/v1"))


@pytest.mark.parametrize(
    ("value", "expected"),
    [("2", 2.0), ("0.5", 0.5), ("-3", 0.0), ("3600", MAX_RETRY_AFTER), ("soon", None), ("", None)],
)
def test_retry_after_in_seconds_is_honoured_within_bounds(
    value: str, expected: float | None
) -> None:
    """Seconds are taken as given, never below zero nor above MAX_RETRY_AFTER; junk is ignored."""
    assert retry_after(response(**{"retry-after": value})) == expected


def test_retry_after_as_an_http_date_is_the_time_until_then() -> None:
    """An HTTP date five seconds ahead asks for about five seconds."""
    when = email.utils.formatdate(time.time() + 5, usegmt=True)
    wait = retry_after(response(**{"retry-after": when}))
    assert wait is not None and 3.0 <= wait <= 5.0


def test_no_header_leaves_the_backoff_to_decide() -> None:
    assert retry_after(response()) is None


def test_the_statuses_that_mean_later() -> None:
    assert frozenset({429, 502, 503, 504}) == RETRY_STATUSES


async def test_a_retry_is_logged_on_goliath_retry_only(caplog: pytest.LogCaptureFixture) -> None:
    """Goliath's retry is one INFO line on goliath.retry, not a bare `stamina.retry_scheduled`
    WARNING; an application's own stamina retries still reach stamina's logger (#24)."""
    import logging

    import stamina

    from goliath._retry import RetryLater, attempts

    later = RetryLater(response(**{"retry-after": "0"}), 0.0)
    caplog.set_level(logging.DEBUG)
    stamina.set_testing(True, attempts=2)
    try:
        tries = 0
        async for attempt in attempts():
            with attempt:
                tries += 1
                if tries == 1:
                    raise later
        assert tries == 2
        ours = [(r.name, r.levelno) for r in caplog.records]
        assert ("goliath.retry", logging.INFO) in ours
        assert not [r for r in caplog.records if r.name == "stamina"], ours

        caplog.clear()
        app_tries = 0
        async for attempt in stamina.retry_context(on=ValueError, attempts=2):
            with attempt:
                app_tries += 1
                if app_tries == 1:
                    raise ValueError("the app's own")
        assert [r.getMessage() for r in caplog.records if r.name == "stamina"] == [
            "stamina.retry_scheduled"
        ]
    finally:
        stamina.set_testing(False)
