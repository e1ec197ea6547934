"""Transport retries for HTTP calls to model servers and the cloud fallback, with stamina.

Retried: a connection that could not be made (nothing was sent), and the answers that mean
"later" — 429, 502, 503, 504 — waiting what ``Retry-After`` asks (seconds or an HTTP date,
at most :data:`MAX_RETRY_AFTER`), else an exponential backoff with jitter. A read timeout is
not retried: a slow model would only be asked twice. ``stamina.set_testing(True)`` turns the
waits off in an application's own tests.
"""

from __future__ import annotations

import email.utils
import logging
import time
from collections.abc import AsyncIterator

import httpx
import stamina

__all__ = [
    "DEFAULT_ATTEMPTS",
    "MAX_RETRY_AFTER",
    "RETRY_STATUSES",
    "RetryLater",
    "attempts",
    "retry_after",
]

DEFAULT_ATTEMPTS = 3
"""Tries of one request, the first included."""
MAX_RETRY_AFTER = 30.0
"""The longest ``Retry-After`` honoured, in seconds (a longer one is cut to this)."""
RETRY_STATUSES = frozenset({429, 502, 503, 504})
"""Statuses that mean "try again later"."""
WAIT_INITIAL = 0.5
WAIT_MAX = 10.0

logger = logging.getLogger("goliath.retry")


class RetryLater(Exception):
    """Internal: a response whose status says to try again (``after``: what it asked for)."""

    def __init__(self, response: httpx.Response, after: float | None) -> None:
        super().__init__(f"HTTP {response.status_code} from {response.request.url}")
        self.response = response
        self.after = after


def retry_after(response: httpx.Response) -> float | None:
    """The wait a ``Retry-After`` header asks for, in seconds (``None`` without a usable one)."""
    value = response.headers.get("retry-after", "").strip()
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        seconds = when.timestamp() - time.time()
    return min(max(seconds, 0.0), MAX_RETRY_AFTER)


def _should_retry(error: Exception) -> bool | float:
    if isinstance(error, RetryLater):
        logger.info("%s; retrying", error)
        return error.after if error.after is not None else True
    if isinstance(error, (httpx.ConnectError, httpx.ConnectTimeout)):
        logger.info("cannot connect (%s); retrying", error)
        return True
    return False


def attempts(count: int = DEFAULT_ATTEMPTS) -> AsyncIterator[stamina.Attempt]:
    """``async for attempt in attempts(): with attempt: ...`` — raise :class:`RetryLater` (or
    let a connection error escape) inside the block to try again; the last failure propagates.
    The waits are Trio sleeps (stamina detects the library), so cancellation ends them."""
    return stamina.retry_context(
        on=_should_retry,
        attempts=count,
        timeout=None,
        wait_initial=WAIT_INITIAL,
        wait_max=WAIT_MAX,
    ).__aiter__()
