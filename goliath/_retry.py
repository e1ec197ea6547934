"""Transport retries for HTTP calls to model servers and the cloud fallback, with stamina.

Retried: a connection that could not be made (nothing was sent), and the answers that mean
"later" — 429, 502, 503, 504 — waiting what ``Retry-After`` asks (seconds or an HTTP date,
at most :data:`MAX_RETRY_AFTER`), else an exponential backoff with jitter. A read timeout is
not retried: a slow model would only be asked twice. ``stamina.set_testing(True)`` turns the
waits off in an application's own tests.

Each retry is logged once, at INFO on ``goliath.retry``; stamina's own log hooks (a bare
``stamina.retry_scheduled`` WARNING, or a structlog line) skip Goliath's retries, and keep
reporting the application's own.
"""

from __future__ import annotations

import email.utils
import logging
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
import stamina
from stamina.instrumentation import get_on_retry_hooks, set_on_retry_hooks

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
RETRY_NAME = "goliath.retry"
"""The name stamina's hooks see for Goliath's retries (``RetryDetails.name``)."""


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


def _should_retry(error: BaseException) -> bool | float:
    if isinstance(error, RetryLater):
        logger.info("%s; retrying", error)
        return error.after if error.after is not None else True
    if isinstance(error, (httpx.ConnectError, httpx.ConnectTimeout)):
        logger.info("cannot connect (%s); retrying", error)
        return True
    return False


def _skips_ours(hook: Any) -> Any:
    """A stamina log hook that leaves Goliath's retries to ``goliath.retry``."""

    def hook_for_others(details: Any) -> Any:
        if details.name == RETRY_NAME:
            return None
        return hook(details)

    hook_for_others.goliath_skips_ours = True  # type: ignore[attr-defined]
    return hook_for_others


def _quiet_stamina_logs() -> None:
    """Wrap stamina's log hooks (once; again if the application set new ones) so they skip
    Goliath's retries; metric hooks (Prometheus) still count them."""
    hooks = get_on_retry_hooks()
    if all(getattr(hook, "goliath_skips_ours", False) or not _logs(hook) for hook in hooks):
        return
    set_on_retry_hooks(
        [
            _skips_ours(hook)
            if _logs(hook) and not getattr(hook, "goliath_skips_ours", False)
            else hook
            for hook in hooks
        ]
    )


def _logs(hook: Any) -> bool:
    module = getattr(hook, "__module__", "") or ""
    return module.endswith(("instrumentation._logging", "instrumentation._structlog"))


def attempts(count: int = DEFAULT_ATTEMPTS) -> AsyncIterator[stamina.Attempt]:
    """``async for attempt in attempts(): with attempt: ...`` — raise :class:`RetryLater` (or
    let a connection error escape) inside the block to try again; the last failure propagates.
    The waits are Trio sleeps (stamina detects the library), so cancellation ends them."""
    _quiet_stamina_logs()
    context: Any = stamina.retry_context(
        on=_should_retry,
        attempts=count,
        timeout=None,
        wait_initial=WAIT_INITIAL,
        wait_max=WAIT_MAX,
    )
    named: AsyncIterator[stamina.Attempt] = context.with_name(RETRY_NAME, (), {}).__aiter__()
    return named
