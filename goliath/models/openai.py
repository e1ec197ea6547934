"""Any server that speaks OpenAI's Chat Completions API, through httpx (which runs under Trio).

Works with llama.cpp's C++ ``llama-server`` and its Python ``llama_cpp.server``, Ollama, vLLM,
LM Studio, Apple's ``fm serve`` and OpenAI itself. Constrained output is requested in the
dialect the server understands (``response_format_style``): OpenAI's ``{"type":
"json_schema", ...}``; ``{"type": "json_object", "schema": {...}}``, the only form
``llama_cpp.server`` accepts (it answers the other with HTTP 500); ``llama-server``'s own
``json_schema`` or ``grammar`` parameter; or vLLM's ``structured_outputs`` (``guided_json``
before vLLM 0.12).

What a llama.cpp server offers beyond OpenAI is used when asked for: ``cache_prompt`` (the slot
reuses the KV cache of the prefix its previous prompt shares), ``slots=N`` (each conversation's
calls go to one ``id_slot``, so its stage prompts stay warm in that slot's cache; see
``slots.py``), and token log-probabilities (``logprobs``, read by :meth:`generate_scored`).
Prompt tokens the server served from its cache are counted (:meth:`statistics`). HTTP failures
are translated into the harness's error classes so a turn classifies them by type.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Literal
from urllib.parse import urlsplit

import attrs
import httpx
import msgspec
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
from .slots import CONVERSATION, SlotPins

__all__ = [
    "OpenAICompatibleModel",
    "OpenAIStatistics",
    "ResponseFormatStyle",
    "ScoredGeneration",
    "TokenLogprob",
]

ResponseFormatStyle = Literal[
    "json_object_schema", "json_schema", "llama_json_schema", "llama_grammar", "vllm", "vllm_guided"
]
STYLES: tuple[str, ...] = (
    "json_object_schema",
    "json_schema",
    "llama_json_schema",
    "llama_grammar",
    "vllm",
    "vllm_guided",
)
"""Where a schema goes: ``response_format`` as ``json_object`` + ``schema`` (llama_cpp.server)
or as OpenAI's ``json_schema``; llama-server's top-level ``json_schema``, or ``grammar`` (GBNF
made here with llama-cpp-python's converter); vLLM's ``structured_outputs.json``, or its
``guided_json`` (vLLM before 0.12)."""
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
MAX_TOP_LOGPROBS = 20
"""The most alternatives per token OpenAI's API (and llama-server's default) returns."""


class TokenLogprob(msgspec.Struct, frozen=True):
    """One generated token, its log-probability, and the most likely alternatives at that step
    (``top``: token text → log-probability, as many as ``logprobs=N`` asked for)."""

    token: str
    logprob: float
    top: dict[str, float] = msgspec.field(default_factory=dict)


class ScoredGeneration(msgspec.Struct, frozen=True):
    """A reply with the log-probabilities of its tokens (empty when the server sent none)."""

    generation: Generation
    tokens: list[TokenLogprob]

    def logprob(self) -> float:
        """The reply's log-probability: the sum over its tokens (to compare options)."""
        return sum(token.logprob for token in self.tokens)


@attrs.frozen
class OpenAIStatistics:
    """What the server did for this bridge so far: calls, prompt tokens, and how many of those
    it served from its prompt cache (``usage.prompt_tokens_details.cached_tokens``, or
    llama-server's ``timings.cache_n``; 0 from a server that reports neither)."""

    calls: int
    prompt_tokens: int
    cached_tokens: int
    output_tokens: int


class OpenAICompatibleModel:
    """A model behind a Chat Completions endpoint.

    Args:
        base_url: the API root, e.g. ``http://127.0.0.1:8080/v1`` (``/v1`` is added when the
            URL has no path).
        model: the model name the server expects.
        api_key: sent as a Bearer token when given.
        window: the model's context window in tokens, as the harness should budget it.
        response_format_style: where the schema goes (see :data:`STYLES`):
            ``"json_object_schema"`` (llama_cpp.server, the default), ``"json_schema"``
            (OpenAI, Ollama, vLLM, llama-server), ``"llama_json_schema"`` or ``"llama_grammar"``
            (llama-server's own parameters), ``"vllm"`` (``structured_outputs``) or
            ``"vllm_guided"`` (``guided_json``, vLLM before 0.12).
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
        cache_prompt: send llama.cpp's ``"cache_prompt": true`` (the slot keeps the prompt's
            KV cache for the next call sharing its prefix; llama-server's default too).
        slots: the server's slot count (llama-server's ``--parallel``): each conversation's
            calls carry the ``id_slot`` it was pinned to; ``0`` sends none.
        logprobs: ask for token log-probabilities: ``True`` for the chosen tokens, an int
            ``N`` (1-20) for ``N`` alternatives per token as well; read by
            :meth:`generate_scored`.

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
        cache_prompt: bool = False,
        slots: int = 0,
        logprobs: bool | int = False,
    ) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ConfigError(
                f"OpenAICompatibleModel: base_url must be an http(s) URL such as "
                f"http://127.0.0.1:8080/v1, got {base_url!r}."
            )
        if not isinstance(model, str) or not model:
            raise ConfigError("OpenAICompatibleModel: model must be the server's model name.")
        if response_format_style not in STYLES:
            raise ConfigError(
                f"response_format_style must be one of {', '.join(STYLES)}; got "
                f"{response_format_style!r}."
            )
        if isinstance(window, bool) or not isinstance(window, int) or window <= 0:
            raise ConfigError(f"window must be a positive int, got {window!r}.")
        if not isinstance(timeout, (int, float)) or timeout <= 0:
            raise ConfigError(f"timeout must be a positive number of seconds, got {timeout!r}.")
        if isinstance(max_attempts, bool) or not isinstance(max_attempts, int) or max_attempts < 1:
            raise ConfigError(f"max_attempts must be an int ≥ 1, got {max_attempts!r}.")
        if isinstance(slots, bool) or not isinstance(slots, int) or slots < 0:
            raise ConfigError(f"slots must be an int ≥ 0 (0: no id_slot), got {slots!r}.")
        if not isinstance(logprobs, (bool, int)) or not 0 <= int(logprobs) <= MAX_TOP_LOGPROBS:
            raise ConfigError(
                f"logprobs must be True, False or an int 0-{MAX_TOP_LOGPROBS} (alternatives per "
                f"token), got {logprobs!r}."
            )
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
        self._cache_prompt = bool(cache_prompt)
        self._pins = SlotPins(slots) if slots else None
        self._logprobs = logprobs
        self._grammars: dict[str, str] = {}
        self._counts = [0, 0, 0, 0]  # calls, prompt, cached, output tokens (Trio thread only)

    def __repr__(self) -> str:
        return f"OpenAICompatibleModel({self.base_url!r}, {self.model!r})"

    def window(self) -> int:
        """The window the harness budgets for (the ``window`` option)."""
        return self._window

    @property
    def slots(self) -> int:
        """The server slots calls are pinned to (0: the server picks)."""
        return self._pins.slots if self._pins is not None else 0

    def statistics(self) -> OpenAIStatistics:
        """Calls and tokens so far, with the prompt tokens the server's cache served."""
        calls, prompt, cached, output = self._counts
        return OpenAIStatistics(
            calls=calls, prompt_tokens=prompt, cached_tokens=cached, output_tokens=output
        )

    def body(self, request: GenerateRequest, *, slot: int | None = None) -> dict[str, Any]:
        """The Chat Completions request body for ``request`` (useful for logging and tests);
        ``slot`` is the ``id_slot`` to send."""
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
        if self._cache_prompt:
            body["cache_prompt"] = True
        if slot is not None:
            body["id_slot"] = slot
        if self._logprobs is not False:
            body["logprobs"] = True
            if self._logprobs is not True and self._logprobs:
                body["top_logprobs"] = int(self._logprobs)
        if request.schema is not None:
            schema = limit_strings(
                request.schema, max_length_for(self._max_string_length, request.max_string_length)
            )
            body.update(self._constraint(schema, request.label))
        return body

    def _constraint(self, schema: dict[str, Any], label: str) -> dict[str, Any]:
        """The body fields that constrain the reply to ``schema``, in the server's dialect."""
        style = self.response_format_style
        if style == "json_object_schema":
            return {"response_format": {"type": "json_object", "schema": schema}}
        if style == "llama_json_schema":
            return {"json_schema": schema}
        if style == "llama_grammar":
            return {"grammar": self._grammar(schema)}
        if style == "vllm":
            return {"structured_outputs": {"json": schema}}
        if style == "vllm_guided":
            return {"guided_json": schema}
        return {
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": label, "schema": schema, "strict": self._strict},
            }
        }

    def _grammar(self, schema: dict[str, Any]) -> str:
        """GBNF for ``schema`` by llama-cpp-python's converter (the one llama.cpp's server runs
        itself for ``json_schema``), made once per schema."""
        key = json.dumps(schema, sort_keys=True)
        grammar = self._grammars.get(key)
        if grammar is None:
            try:
                from llama_cpp.llama_grammar import json_schema_to_gbnf
            except ImportError as exc:
                raise ModelUnavailableError(
                    "response_format_style='llama_grammar' converts the schema to GBNF with "
                    "llama-cpp-python, which is not installed: ./install.sh local (or use "
                    "'llama_json_schema', which the server converts itself)."
                ) from exc
            grammar = self._grammars[key] = json_schema_to_gbnf(key)
        return grammar

    async def generate(self, request: GenerateRequest) -> Generation:
        """Send one request; failures raise the harness's ModelError family (``from`` httpx)."""
        return (await self.generate_scored(request)).generation

    async def generate_scored(self, request: GenerateRequest) -> ScoredGeneration:
        """Like :meth:`generate`, with the reply tokens' log-probabilities where the server
        returned them (ask with ``logprobs=``), so options can be scored by likelihood."""
        slot = self._acquire()
        try:
            async with self._client() as client:
                response = await self._send(client, self.body(request, slot=slot), stream=False)
        finally:
            self._release(slot)
        if response.status_code >= 400:
            raise _http_error(response)
        generation, tokens, cached = _generation(response, request)
        self._count(generation, cached)
        return ScoredGeneration(generation=generation, tokens=tokens)

    def _acquire(self) -> int | None:
        return self._pins.acquire(CONVERSATION.get()) if self._pins is not None else None

    def _release(self, slot: int | None) -> None:
        if self._pins is not None and slot is not None:
            self._pins.release(slot)

    def _count(self, generation: Generation, cached: int) -> None:
        self._counts[0] += 1
        self._counts[1] += generation.input_tokens
        self._counts[2] += cached
        self._counts[3] += generation.output_tokens

    async def generate_stream(self, request: GenerateRequest, on_text: TextSink) -> Generation:
        """Like :meth:`generate`, with ``"stream": true``: each content delta goes to
        ``on_text`` as it arrives. A server that answers without streaming still works."""
        slot = self._acquire()
        try:
            return await self._stream(request, on_text, slot)
        finally:
            self._release(slot)

    async def _stream(
        self, request: GenerateRequest, on_text: TextSink, slot: int | None
    ) -> Generation:
        body = {**self.body(request, slot=slot), "stream": True}
        parts: list[str] = []
        finish: str | None = None
        usage: dict[str, Any] = {}
        timings: dict[str, Any] = {}
        async with self._client() as client:
            response = await self._send(client, body, stream=True)
            try:
                if response.status_code >= 400:
                    await response.aread()
                    raise _http_error(response)
                if not response.headers.get("content-type", "").startswith("text/event-stream"):
                    await response.aread()
                    generation, _tokens, cached = _generation(response, request)
                    self._count(generation, cached)
                    if generation.text:
                        on_text(generation.text)
                    return generation
                async for event in EventSource(response).aiter_sse():
                    if event.data.strip() == "[DONE]":
                        break
                    chunk = _chunk(event.data)
                    usage = chunk.get("usage") or usage
                    timings = chunk.get("timings") or timings
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
        generation = Generation(
            text=text,
            input_tokens=_int(usage.get("prompt_tokens")),
            output_tokens=_int(usage.get("completion_tokens")),
        )
        self._count(generation, _cached(usage, timings))
        return generation

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


def _generation(
    response: httpx.Response, request: GenerateRequest
) -> tuple[Generation, list[TokenLogprob], int]:
    """The reply, its tokens' log-probabilities, and the prompt tokens served from cache."""
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
    generation = Generation(
        text=text,
        input_tokens=_int(usage.get("prompt_tokens")),
        output_tokens=_int(usage.get("completion_tokens")),
    )
    timings = data.get("timings") if isinstance(data, dict) else None
    return generation, _logprobs(choice.get("logprobs")), _cached(usage, timings)


def _cached(usage: Any, timings: Any) -> int:
    """Prompt tokens served from the server's cache: OpenAI's ``prompt_tokens_details``, else
    llama-server's ``timings.cache_n``."""
    details = usage.get("prompt_tokens_details") if isinstance(usage, dict) else None
    if isinstance(details, dict) and "cached_tokens" in details:
        return _int(details.get("cached_tokens"))
    return _int(timings.get("cache_n")) if isinstance(timings, dict) else 0


def _logprobs(value: Any) -> list[TokenLogprob]:
    """OpenAI's ``choice.logprobs.content`` as tokens; anything else (absent, malformed) is
    no log-probabilities rather than a failed call."""
    content = value.get("content") if isinstance(value, dict) else None
    if not isinstance(content, list):
        return []
    tokens: list[TokenLogprob] = []
    for item in content:
        if not isinstance(item, dict) or not isinstance(item.get("logprob"), (int, float)):
            continue
        top = {
            str(alt["token"]): float(alt["logprob"])
            for alt in item.get("top_logprobs") or ()
            if isinstance(alt, dict) and isinstance(alt.get("logprob"), (int, float))
        }
        tokens.append(TokenLogprob(str(item.get("token", "")), float(item["logprob"]), top))
    return tokens


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0
