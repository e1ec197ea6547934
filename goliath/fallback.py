"""The cloud hand-off over HTTP: POST the fallback request as JSON, read the reply's ``text``.

Built on httpx, which runs under Trio. The request carries the ask, the rolling brief, the
recent exchanges and every step with its raw output — never a transcript — so a cloud agent can
pick up where the device stopped.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import httpx
import msgspec

from ._retry import DEFAULT_ATTEMPTS, RETRY_STATUSES, RetryLater, attempts, retry_after
from .errors import GoliathError
from .records import FallbackRequest
from .snapshot import json_snapshot

__all__ = ["HttpFallbackError", "http_fallback"]

Headers = Mapping[str, str] | Callable[[], "Mapping[str, str] | Awaitable[Mapping[str, str]]"]
DEFAULT_TIMEOUT = httpx.Timeout(60.0, connect=10.0)


class HttpFallbackError(GoliathError):
    """The cloud endpoint answered with an error status or without a ``text`` string."""


def http_fallback(
    url: str,
    headers: Headers | None = None,
    client: httpx.AsyncClient | None = None,
    *,
    timeout: httpx.Timeout | float = DEFAULT_TIMEOUT,
    max_attempts: int = DEFAULT_ATTEMPTS,
) -> Callable[[FallbackRequest], Awaitable[str]]:
    """A fallback that POSTs the request to ``url`` and returns the reply's ``text``.

    Args:
        url: the cloud agent's endpoint.
        headers: extra headers, or a (sync or async) function returning them — e.g. to attach
            a freshly rotated token on every call.
        client: an ``httpx.AsyncClient`` to reuse (connection pooling, proxies, test transports).
            Without one, each call opens and closes its own client.
        timeout: seconds (or an ``httpx.Timeout``) for calls made without ``client``.
        max_attempts: tries of one hand-off: a refused connection and a 429, 502, 503 or 504
            are tried again after the wait ``Retry-After`` asks for (else a short backoff).

    Raises (from the returned function): :class:`HttpFallbackError` on a non-2xx status or a
    reply without a ``text`` string; ``httpx.HTTPError`` subclasses on transport failures.
    """

    async def fallback(request: FallbackRequest) -> str:
        extra: Any = headers() if callable(headers) else headers
        if extra is not None and hasattr(extra, "__await__"):
            extra = await extra
        merged = {"content-type": "application/json", **dict(extra or {})}
        body = msgspec.json.encode(_payload(request))
        if client is not None:
            response = await _post(client, url, body, merged, max_attempts)
        else:
            async with httpx.AsyncClient(timeout=timeout) as own:
                response = await _post(own, url, body, merged, max_attempts)
        if not response.is_success:
            raise HttpFallbackError(f"http_fallback: {response.status_code} from {url}")
        try:
            data = response.json()
        except ValueError as exc:
            raise HttpFallbackError(f"http_fallback: the reply from {url} was not JSON") from exc
        text = data.get("text") if isinstance(data, dict) else None
        if not isinstance(text, str):
            raise HttpFallbackError(f"http_fallback: response from {url} had no `text` string")
        return text

    return fallback


async def _post(
    client: httpx.AsyncClient, url: str, body: bytes, headers: dict[str, str], tries: int
) -> httpx.Response:
    async for attempt in attempts(tries):
        with attempt:
            response = await client.post(url, content=body, headers=headers)
            if response.status_code in RETRY_STATUSES and attempt.num < tries:
                raise RetryLater(response, retry_after(response))
            return response
    raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises


def _payload(request: FallbackRequest) -> dict[str, Any]:
    data = json_snapshot(request)
    assert isinstance(data, dict)
    data.pop("conversation_id", None)
    return data
