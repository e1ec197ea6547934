"""Any server that speaks OpenAI's Chat Completions API, through httpx (which runs under Trio).

Works with llama.cpp's ``llama_cpp.server``, Ollama, vLLM, LM Studio, Apple's ``fm serve`` and
OpenAI itself. Constrained output is requested in one of two dialects: OpenAI's
``{"type": "json_schema", "json_schema": {...}}``, or ``{"type": "json_object", "schema":
{...}}``, the only form ``llama_cpp.server`` accepts (it answers the other with HTTP 500). HTTP
failures are translated into the harness's error classes so a turn classifies them by type.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Literal
from urllib.parse import urlsplit

import httpx
from httpx_sse import EventSource, SSEError

from .._retry import DEFAULT_ATTEMPTS, RETRY_STATUSES, RetryLater, attempts, retry_after
from ..errors import (
    ConfigError,
    ContextWindowError,
    GuardrailError,
    ModelError,
    ModelUnavailableError,
)
from . import GenerateRequest, Generation, TextSink
from ._json import check_max_length, limit_strings, max_length_for, parse_reply, with_schema_note

__all__ = ["OpenAICompatibleModel", "ResponseFormatStyle"]

ResponseFormatStyle = Literal["json_object_schema", "json_schema"]
DEFAULT_TIMEOUT = 120.0
"""Seconds to wait for a reply (a small model on a CPU may take a minute for a long one)."""
CONNECT_TIMEOUT = 10.0
"""Seconds to wait for the TCP connection."""

_CONTEXT_CODES = {"context_length_exceeded", "context_window_exceeded", "string_above_max_length"}
_CONTEXT_TEXT = re.compile(
    r"context (length|window|size)|maximum context|too many tokens|exceeds? the context|"
    r"prompt is too long",
    re.IGNORECASE,
)
_GUARDRAIL_CODES = {"content_filter", "content_policy_violation", "guardrail"}


class OpenAICompatibleModel:
    """A model behind a Chat Completions endpoint.

    Args:
        base_url: the API root, e.g. ``http://127.0.0.1:8080/v1`` (``/v1`` is added when the
            URL has no path).
        model: the model name the server expects.
        api_key: sent as a Bearer token when given.
        window: the model's context window in tokens, as the harness should budget it.
        response_format_style: ``"json_object_schema"`` (llama.cpp's server, the default) or
            ``"json_schema"`` (OpenAI, vLLM, Ollama).
        strict: with ``"json_schema"``, ask for OpenAI's strict mode (every property required).
        max_string_length: ``maxLength`` for unbounded schema strings, as for
            :class:`~goliath.models.llamacpp.LlamaCppModel`; ``0`` adds none.
        schema_in_prompt: append the reply's JSON Schema to the system prompt.
        timeout: seconds to wait for a reply.
        headers: extra HTTP headers.
        transport: an httpx transport to use instead of the network (e.g. a Unix socket).
        max_attempts: tries of one request: a refused connection and a 429, 502, 503 or 504
            are tried again after the wait ``Retry-After`` asks for (else a short backoff);
            ``1`` never retries.

    Prose answers stream (``generate_stream``: ``"stream": true``, the deltas read as
    Server-Sent Events), so ``Agent.run_stream`` shows the text as the server sends it.

    Cancellation: cancelling the caller closes the HTTP request at once.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        *,
        window: int = 4096,
        response_format_style: ResponseFormatStyle = "json_object_schema",
        strict: bool = False,
        max_string_length: int | None = None,
        schema_in_prompt: bool = True,
        timeout: float = DEFAULT_TIMEOUT,
        headers: Mapping[str, str] | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        max_attempts: int = DEFAULT_ATTEMPTS,
    ) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ConfigError(
                f"OpenAICompatibleModel: base_url must be an http(s) URL such as "
                f"http://127.0.0.1:8080/v1, got {base_url!r}."
            )
        if not isinstance(model, str) or not model:
            raise ConfigError("OpenAICompatibleModel: model must be the server's model name.")
        if response_format_style not in ("json_object_schema", "json_schema"):
            raise ConfigError(
                "response_format_style must be 'json_object_schema' or 'json_schema', got "
                f"{response_format_style!r}."
            )
        if isinstance(window, bool) or not isinstance(window, int) or window <= 0:
            raise ConfigError(f"window must be a positive int, got {window!r}.")
        if not isinstance(timeout, (int, float)) or timeout <= 0:
            raise ConfigError(f"timeout must be a positive number of seconds, got {timeout!r}.")
        if isinstance(max_attempts, bool) or not isinstance(max_attempts, int) or max_attempts < 1:
            raise ConfigError(f"max_attempts must be an int ≥ 1, got {max_attempts!r}.")
        root = base_url.rstrip("/")
        self.base_url = root if parts.path.strip("/") else root + "/v1"
        self.model = model
        self.response_format_style = response_format_style
        self._window = window
        self._strict = strict
        self._max_string_length = check_max_length(max_string_length, "OpenAICompatibleModel")
        self._schema_in_prompt = schema_in_prompt
        self._timeout = httpx.Timeout(timeout, connect=min(CONNECT_TIMEOUT, timeout))
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._headers.update(headers or {})
        self._transport = transport
        self._attempts = max_attempts

    def __repr__(self) -> str:
        return f"OpenAICompatibleModel({self.base_url!r}, {self.model!r})"

    def window(self) -> int:
        """The window the harness budgets for (the ``window`` option)."""
        return self._window

    def body(self, request: GenerateRequest) -> dict[str, Any]:
        """The Chat Completions request body for ``request`` (useful for logging and tests)."""
        system = request.system
        if self._schema_in_prompt:
            system = with_schema_note(system, request.schema)
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": request.prompt},
            ],
            "max_tokens": request.max_output_tokens,
            "temperature": 0,
            "stream": False,
        }
        if request.schema is not None:
            schema = limit_strings(
                request.schema, max_length_for(self._max_string_length, request.max_string_length)
            )
            if self.response_format_style == "json_object_schema":
                body["response_format"] = {"type": "json_object", "schema": schema}
            else:
                body["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {
                        "name": request.label,
                        "schema": schema,
                        "strict": self._strict,
                    },
                }
        return body

    async def generate(self, request: GenerateRequest) -> Generation:
        """Send one request; failures raise the harness's ModelError family (``from`` httpx)."""
        async with self._client() as client:
            response = await self._send(client, self.body(request), stream=False)
        if response.status_code >= 400:
            raise _http_error(response)
        return _generation(response, request)

    async def generate_stream(self, request: GenerateRequest, on_text: TextSink) -> Generation:
        """Like :meth:`generate`, with ``"stream": true``: each content delta goes to
        ``on_text`` as it arrives. A server that answers without streaming still works."""
        body = {**self.body(request), "stream": True}
        parts: list[str] = []
        finish: str | None = None
        usage: dict[str, Any] = {}
        async with self._client() as client:
            response = await self._send(client, body, stream=True)
            try:
                if response.status_code >= 400:
                    await response.aread()
                    raise _http_error(response)
                if not response.headers.get("content-type", "").startswith("text/event-stream"):
                    await response.aread()
                    generation = _generation(response, request)
                    if generation.text:
                        on_text(generation.text)
                    return generation
                async for event in EventSource(response).aiter_sse():
                    if event.data.strip() == "[DONE]":
                        break
                    chunk = _chunk(event.data)
                    usage = chunk.get("usage") or usage
                    for choice in chunk.get("choices") or ():
                        delta = choice.get("delta") or {}
                        if delta.get("refusal"):
                            raise GuardrailError(f"The model refused: {delta['refusal']}")
                        piece = delta.get("content")
                        if isinstance(piece, str) and piece:
                            parts.append(piece)
                            on_text(piece)
                        finish = choice.get("finish_reason") or finish
            except (httpx.HTTPError, SSEError) as exc:
                raise self._transport_error(exc) from exc
            finally:
                await response.aclose()
        if finish == "content_filter":
            raise GuardrailError(
                "The model refused: content filter (finish_reason 'content_filter')."
            )
        text = "".join(parts)
        if request.schema is not None:
            parse_reply(
                text, finished=finish != "length", max_output_tokens=request.max_output_tokens
            )
            text = text.strip()
        return Generation(
            text=text,
            input_tokens=_int(usage.get("prompt_tokens")),
            output_tokens=_int(usage.get("completion_tokens")),
        )

    def _client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(
            timeout=self._timeout, headers=self._headers, transport=self._transport
        )

    async def _send(
        self, client: httpx.AsyncClient, body: dict[str, Any], *, stream: bool
    ) -> httpx.Response:
        """POST ``body``, trying again on a refused connection or a "later" status; the last
        answer is returned whatever its status (streamed: the caller closes it)."""
        url = f"{self.base_url}/chat/completions"
        try:
            async for attempt in attempts(self._attempts):
                with attempt:
                    response = await client.send(
                        client.build_request("POST", url, json=body), stream=stream
                    )
                    if response.status_code in RETRY_STATUSES and attempt.num < self._attempts:
                        await response.aclose()
                        raise RetryLater(response, retry_after(response))
                    return response
        except httpx.HTTPError as exc:
            raise self._transport_error(exc) from exc
        raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises

    def _transport_error(self, exc: Exception) -> ModelError:
        url = f"{self.base_url}/chat/completions"
        if isinstance(exc, httpx.TimeoutException):
            return ModelError(
                f"{url} did not answer within {self._timeout.read} s ({type(exc).__name__}); "
                "raise timeout= or check the server's load.",
                code="TIMEOUT",
            )
        if isinstance(exc, SSEError):
            return ModelError(f"{url} sent a malformed event stream: {exc}")
        return ModelError(
            f"Cannot reach the model server at {url}: {exc or type(exc).__name__}. Is it running?",
            code="CONNECTION_ERROR",
        )


def _chunk(data: str) -> dict[str, Any]:
    """One streamed Chat Completions chunk; an error chunk raises."""
    try:
        chunk = json.loads(data)
    except json.JSONDecodeError as exc:
        raise ModelError(f"The server streamed something that is not JSON: {data[:200]!r}") from exc
    if not isinstance(chunk, dict):
        raise ModelError(f"The server streamed a chunk that is not an object: {data[:200]!r}")
    error = chunk.get("error")
    if error:
        message = error.get("message") if isinstance(error, dict) else str(error)
        raise ModelError(f"The server reported an error mid-stream: {message}")
    return chunk


def _error_fields(response: httpx.Response) -> tuple[str, str]:
    """The provider's error message and code from an OpenAI-style error body, if any."""
    try:
        body = response.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        return response.text[:300], ""
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        return str(error.get("message") or "")[:500], str(
            error.get("code") or error.get("type") or ""
        )
    if isinstance(error, str):
        return error[:500], ""
    return response.text[:300], ""


def _http_error(response: httpx.Response) -> ModelError:
    status = response.status_code
    message, code = _error_fields(response)
    where = f"{response.request.method} {response.request.url} → HTTP {status}"
    text = f"{where}: {message}" if message else where
    lowered = code.lower()
    if lowered in _GUARDRAIL_CODES:
        return GuardrailError(text)
    if 400 <= status < 500 and (
        lowered in _CONTEXT_CODES or status == 413 or _CONTEXT_TEXT.search(message)
    ):
        return ContextWindowError(text)
    if status in (401, 403):
        return ModelUnavailableError(f"{text}. Check api_key.")
    if status == 404:
        return ModelUnavailableError(f"{text}. Check base_url and the model name.")
    if status == 429:
        return ModelError(text, code="RATE_LIMITED")
    return ModelError(text, code=code or f"HTTP_{status}")


def _generation(response: httpx.Response, request: GenerateRequest) -> Generation:
    try:
        data = response.json()
        choice = data["choices"][0]
        message = choice.get("message") or {}
        finish = choice.get("finish_reason")
        content = message.get("content")
        usage = data.get("usage") or {}
    except (
        json.JSONDecodeError,
        UnicodeDecodeError,
        KeyError,
        IndexError,
        TypeError,
        AttributeError,
    ) as exc:
        raise ModelError(
            f"The server's reply is not a Chat Completions response: {response.text[:200]!r}"
        ) from exc
    if message.get("refusal") or finish == "content_filter":
        raise GuardrailError(
            f"The model refused: {message.get('refusal') or 'content filter'} (finish_reason "
            f"{finish!r})."
        )
    text = content if isinstance(content, str) else ""
    if request.schema is not None:
        parse_reply(text, finished=finish != "length", max_output_tokens=request.max_output_tokens)
        text = text.strip()
    return Generation(
        text=text,
        input_tokens=_int(usage.get("prompt_tokens")),
        output_tokens=_int(usage.get("completion_tokens")),
    )


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0
