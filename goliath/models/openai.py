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

A request that names a field to ``score`` gets the server's token log-probabilities with
``top_logprobs`` alternatives, and :attr:`Generation.scores` is read from them at the token where
that field's value begins, as the in-process bridge reads its logits (``_choices.py``). A server
that sends none gives ``scores=None``; one that refuses the parameter is asked again without it,
and from then on never scores.

Usage is read from every reply, streamed or not: streams ask for it with OpenAI's
``stream_options.include_usage`` (llama-server, vLLM and OpenAI send it in the last chunk), and
llama-server's ``timings`` (``prompt_n``, ``cache_n``) fill what ``usage`` leaves out. Prompt
tokens the server served from its cache are in :attr:`Generation.cached_tokens` and
:meth:`statistics`. A reply larger than ``max_reply_bytes``, or whose text is not valid Unicode,
fails its own call with a ModelError; HTTP failures are translated into the harness's error
classes so a turn classifies them by type.
"""

from __future__ import annotations

import json
import logging
import math
import re
from collections.abc import AsyncIterator, Mapping
from typing import Any, Literal
from urllib.parse import urlsplit

import attrs
import httpx
import msgspec

from .._retry import DEFAULT_ATTEMPTS, RETRY_STATUSES, RetryLater, attempts, retry_after
from ..errors import (
    ConfigError,
    ContextWindowError,
    GuardrailError,
    ModelError,
    ModelUnavailableError,
)
from . import GenerateRequest, Generation, TextSink
from ._choices import ChoiceScorer, enum_of
from ._json import check_max_length, limit_strings, max_length_for, parse_reply, with_schema_note
from .slots import CONVERSATION, SlotPins

__all__ = [
    "OpenAICompatibleModel",
    "OpenAIStatistics",
    "ResponseFormatStyle",
    "ScoredGeneration",
    "TokenLogprob",
]

logger = logging.getLogger("goliath.models.openai")

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
SCORE_ALTERNATIVES = 20
"""Alternatives per token a scored request asks for (``top_logprobs``): an option none of whose
first tokens is among them at the value's first token scores ``-inf``."""
MAX_SCORE_ALTERNATIVES = 100
"""The most a bridge may ask for to score (llama-server takes more than OpenAI's 20)."""
MAX_REPLY_BYTES = 16 * 2**20
"""16 MiB: the largest reply read (20 alternatives per token take about 2 KB a token); a larger
one fails its call with a ModelError rather than filling the daemon's memory."""
REFUSED_STATUSES = (400, 422, 500, 501)
"""Answers that may mean "I do not take that parameter" (llama_cpp.server answers 500 to
``logprobs`` on a model loaded without ``logits_all``; strict servers 400 or 422)."""


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
        score_alternatives: ``top_logprobs`` sent with a request that names a field to
            ``score`` (1-100; OpenAI takes at most 20); ``0`` never asks, so ``scores`` stay
            ``None``.
        stream_usage: ask a stream for its usage (``stream_options.include_usage``).
        max_reply_bytes: the largest reply read; a larger one fails its call.

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
        score_alternatives: int = SCORE_ALTERNATIVES,
        stream_usage: bool = True,
        max_reply_bytes: int = MAX_REPLY_BYTES,
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
        if (
            isinstance(score_alternatives, bool)
            or not isinstance(score_alternatives, int)
            or not 0 <= score_alternatives <= MAX_SCORE_ALTERNATIVES
        ):
            raise ConfigError(
                f"score_alternatives must be an int 0-{MAX_SCORE_ALTERNATIVES} (0: never score), "
                f"got {score_alternatives!r}."
            )
        if (
            isinstance(max_reply_bytes, bool)
            or not isinstance(max_reply_bytes, int)
            or max_reply_bytes < 1024
        ):
            raise ConfigError(f"max_reply_bytes must be an int ≥ 1024, got {max_reply_bytes!r}.")
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
        self._score_alternatives = score_alternatives
        self._stream_usage = bool(stream_usage)
        self._max_reply = max_reply_bytes
        self._refused: set[str] = set()  # parameters sent unasked that the server refused
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

    def body(
        self, request: GenerateRequest, *, slot: int | None = None, stream: bool = False
    ) -> dict[str, Any]:
        """The Chat Completions request body for ``request`` (useful for logging and tests);
        ``slot`` is the ``id_slot`` to send; ``stream`` asks for Server-Sent Events (and, unless
        ``stream_usage=False``, for the usage in the last one)."""
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
            "stream": stream,
        }
        if stream and self._stream_usage and "stream_options" not in self._refused:
            body["stream_options"] = {"include_usage": True}
        if self._cache_prompt:
            body["cache_prompt"] = True
        if slot is not None:
            body["id_slot"] = slot
        if self._logprobs is not False:
            body["logprobs"] = True
            if self._logprobs is not True and self._logprobs:
                body["top_logprobs"] = int(self._logprobs)
        if self._scored(request):
            body["logprobs"] = True
            body["top_logprobs"] = max(int(body.get("top_logprobs", 0)), self._score_alternatives)
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
        returned them (ask with ``logprobs=``, or name a field to ``score``)."""
        slot = self._acquire()
        try:
            async with self._client() as client:
                response = await self._open(client, request, slot, stream=False)
                content = await self._read(response)
        finally:
            self._release(slot)
        if response.status_code >= 400:
            raise _http_error(response, content)
        generation, tokens = _generation(content, request)
        self._count(generation)
        return ScoredGeneration(generation=generation, tokens=tokens)

    def _scored(self, request: GenerateRequest) -> bool:
        """Whether to ask the server for log-probabilities to score ``request``'s field."""
        return (
            request.score is not None
            and self._score_alternatives > 0
            and "logprobs" not in self._refused
            and bool(enum_of(request.schema, request.score))
        )

    async def _open(
        self, client: httpx.AsyncClient, request: GenerateRequest, slot: int | None, *, stream: bool
    ) -> httpx.Response:
        """POST ``request``; the caller reads the response (bounded) and it is closed then.

        A server that answers a plain error to what this bridge adds unasked
        (``stream_options``, a scored request's ``logprobs``) is asked once more without them;
        when that succeeds, they are never sent to it again (its scores are ``None`` then)."""
        body = self.body(request, slot=slot, stream=stream)
        response = await self._send(client, body)
        extras = {"stream_options", "logprobs"} & set(body)
        if self._logprobs is not False:
            extras.discard("logprobs")  # the caller asked for them: a refusal is its error
        if not extras or response.status_code not in REFUSED_STATUSES:
            return response
        error = _http_error(response, await self._read(response))
        if type(error) is not ModelError:  # a context, guardrail or key error says what it is
            raise error
        dropped = extras | ({"top_logprobs"} if "logprobs" in extras else set())
        plain = {key: value for key, value in body.items() if key not in dropped}
        again = await self._send(client, plain)
        if again.status_code < 400:
            self._refused |= extras
            logger.warning(
                "%s refused %s (%s); they are not sent to it again",
                self.base_url,
                " and ".join(sorted(extras)),
                error,
            )
        return again

    async def _read(self, response: httpx.Response) -> bytes:
        """The whole body of ``response`` (closed then), at most ``max_reply_bytes`` of it."""
        declared = response.headers.get("content-length", "")
        try:
            if declared.isdigit() and int(declared) > self._max_reply:
                raise self._too_large(int(declared))
            parts: list[bytes] = []
            size = 0
            async for chunk in response.aiter_bytes():
                size += len(chunk)
                if size > self._max_reply:
                    raise self._too_large(size)
                parts.append(chunk)
        except httpx.HTTPError as exc:
            raise self._transport_error(exc) from exc
        finally:
            await response.aclose()
        return b"".join(parts)

    def _too_large(self, size: int) -> ModelError:
        return ModelError(
            f"{self.base_url}/chat/completions sent a reply of {size:,} bytes or more; this "
            f"bridge reads at most {self._max_reply:,} (max_reply_bytes=). Ask for fewer "
            "tokens or log-probabilities.",
            code="REPLY_TOO_LARGE",
        )

    def _acquire(self) -> int | None:
        return self._pins.acquire(CONVERSATION.get()) if self._pins is not None else None

    def _release(self, slot: int | None) -> None:
        if self._pins is not None and slot is not None:
            self._pins.release(slot)

    def _count(self, generation: Generation) -> None:
        self._counts[0] += 1
        self._counts[1] += generation.input_tokens
        self._counts[2] += generation.cached_tokens
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
        parts: list[str] = []
        finish: str | None = None
        usage: dict[str, Any] = {}
        timings: dict[str, Any] = {}
        logprobs: list[Any] = []
        async with self._client() as client:
            response = await self._open(client, request, slot, stream=True)
            if response.status_code >= 400:
                raise _http_error(response, await self._read(response))
            if not response.headers.get("content-type", "").startswith("text/event-stream"):
                generation, _tokens = _generation(await self._read(response), request)
                self._count(generation)
                if generation.text:
                    on_text(generation.text)
                return generation
            try:
                async for data in self._events(response):
                    if data.strip() == "[DONE]":
                        break
                    chunk = _chunk(data)
                    usage = _dict(chunk.get("usage")) or usage
                    timings = _dict(chunk.get("timings")) or timings
                    for choice in chunk.get("choices") or ():
                        if not isinstance(choice, dict):
                            continue
                        delta = _dict(choice.get("delta"))
                        if delta.get("refusal"):
                            raise GuardrailError(f"The model refused: {delta['refusal']}")
                        piece = delta.get("content")
                        if isinstance(piece, str) and piece:
                            parts.append(_unicode(piece))
                            on_text(piece)
                        content = _dict(choice.get("logprobs")).get("content")
                        if isinstance(content, list):
                            logprobs.extend(content)
                        finish = choice.get("finish_reason") or finish
            except httpx.HTTPError as exc:
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
        tokens = _logprobs({"content": logprobs})
        generation = _usage(text, usage, timings, scores=_scores(request, tokens, text))
        self._count(generation)
        return generation

    async def _events(self, response: httpx.Response) -> AsyncIterator[str]:
        """The ``data`` of each Server-Sent Event in ``response``, reading at most
        ``max_reply_bytes`` in all (so no line, however long, outgrows the bound)."""
        buffer = b""
        data: list[str] = []
        size = 0

        def field(line: bytes) -> str | None:
            """One line's effect: the event's data when the line ends an event."""
            if not line:
                event = "\n".join(data) if data else None
                data.clear()
                return event
            name, _, value = line.partition(b":")
            if name == b"data":
                try:
                    data.append(value.removeprefix(b" ").decode("utf-8"))
                except UnicodeDecodeError as exc:
                    raise ModelError(
                        f"The server streamed bytes that are not UTF-8: {exc}"
                    ) from exc
            return None  # comments (":..."), event:, id: and retry: say nothing needed here

        async for chunk in response.aiter_bytes():
            size += len(chunk)
            if size > self._max_reply:
                raise self._too_large(size)
            buffer += chunk
            if b"\n" not in chunk and b"\r" not in chunk:
                continue  # the line goes on: nothing to split yet
            lines = buffer.splitlines(keepends=True)
            # A line is complete at its end of line; a lone CR may be half of a CRLF.
            buffer = lines.pop() if lines and not lines[-1].endswith(b"\n") else b""
            for line in lines:
                event = field(line.rstrip(b"\r\n"))
                if event is not None:
                    yield event
        for line in buffer.splitlines():
            event = field(line)
            if event is not None:
                yield event
        if data:
            yield "\n".join(data)

    def _client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(
            timeout=self._timeout, headers=self._headers, transport=self._transport
        )

    async def _send(self, client: httpx.AsyncClient, body: dict[str, Any]) -> httpx.Response:
        """POST ``body``, trying again on a refused connection or a "later" status; the last
        answer is returned whatever its status, unread (the caller reads and closes it)."""
        url = f"{self.base_url}/chat/completions"
        try:
            async for attempt in attempts(self._attempts):
                with attempt:
                    response = await client.send(
                        client.build_request("POST", url, json=body), stream=True
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
        return ModelError(
            f"Cannot reach the model server at {url}: {exc or type(exc).__name__}. Is it running?",
            code="CONNECTION_ERROR",
        )


def _chunk(data: str) -> dict[str, Any]:
    """One streamed Chat Completions chunk; an error chunk raises."""
    try:
        chunk = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise ModelError(f"The server streamed something that is not JSON: {data[:200]!r}") from exc
    if not isinstance(chunk, dict):
        raise ModelError(f"The server streamed a chunk that is not an object: {data[:200]!r}")
    error = chunk.get("error")
    if error:
        message = error.get("message") if isinstance(error, dict) else str(error)
        raise ModelError(f"The server reported an error mid-stream: {message}")
    return chunk


def _error_fields(content: bytes) -> tuple[str, str]:
    """The provider's error message and code from an OpenAI-style error body, if any."""
    text = content[:300].decode("utf-8", "replace")
    try:
        body = json.loads(content)
    except (ValueError, RecursionError):
        return text, ""
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        return str(error.get("message") or "")[:500], str(
            error.get("code") or error.get("type") or ""
        )
    if isinstance(error, str):
        return error[:500], ""
    return text, ""


def _http_error(response: httpx.Response, content: bytes) -> ModelError:
    status = response.status_code
    message, code = _error_fields(content)
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


def _generation(content: bytes, request: GenerateRequest) -> tuple[Generation, list[TokenLogprob]]:
    """The reply (with its usage and scores) and its tokens' log-probabilities."""
    try:
        data = json.loads(content)
        choice = data["choices"][0]
        message = choice.get("message") or {}
        finish = choice.get("finish_reason")
        text = message.get("content")
        usage = _dict(data.get("usage"))
    except (ValueError, RecursionError, KeyError, IndexError, TypeError, AttributeError) as exc:
        raise ModelError(
            "The server's reply is not a Chat Completions response: "
            f"{content[:200].decode('utf-8', 'replace')!r}"
        ) from exc
    if message.get("refusal") or finish == "content_filter":
        raise GuardrailError(
            f"The model refused: {message.get('refusal') or 'content filter'} (finish_reason "
            f"{finish!r})."
        )
    text = _unicode(text) if isinstance(text, str) else ""
    if request.schema is not None:
        parse_reply(text, finished=finish != "length", max_output_tokens=request.max_output_tokens)
        text = text.strip()
    tokens = _logprobs(choice.get("logprobs"))
    generation = _usage(
        text, usage, _dict(data.get("timings")), scores=_scores(request, tokens, text)
    )
    return generation, tokens


def _usage(
    text: str, usage: dict[str, Any], timings: dict[str, Any], *, scores: dict[str, float] | None
) -> Generation:
    """The reply with the tokens it cost: OpenAI's ``usage``, else llama-server's ``timings``
    (``prompt_n`` evaluated + ``cache_n`` from cache; ``predicted_n`` generated)."""
    prompt = _int(usage.get("prompt_tokens"))
    if not prompt and ("prompt_n" in timings or "cache_n" in timings):
        prompt = _int(timings.get("prompt_n")) + _int(timings.get("cache_n"))
    output = _int(usage.get("completion_tokens")) or _int(timings.get("predicted_n"))
    cached = _cached(usage, timings)
    return Generation(
        text=text,
        input_tokens=prompt,
        output_tokens=output,
        cached_tokens=min(cached, prompt) if prompt else cached,
        scores=scores,
    )


def _unicode(text: str) -> str:
    """``text`` if it can be written as UTF-8; a reply with a lone surrogate (JSON's
    ``"\\ud800"``) would fail later, wherever it is written, so its call fails here."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ModelError(
            f"The server's reply is not valid Unicode ({exc.reason} at character {exc.start}): "
            f"{text[max(0, exc.start - 40) : exc.start + 40]!r}",
            code="INVALID_REPLY",
        ) from None
    return text


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _scores(
    request: GenerateRequest, tokens: list[TokenLogprob], text: str
) -> dict[str, float] | None:
    """The options of the request's ``score`` field, scored from the reply's token
    log-probabilities as the in-process bridge scores them from its logits: at the token where
    the value begins, each option gets the log-probability of the alternatives there that start
    it. ``None`` when the server sent no alternatives at that token (or none at all), or when
    its tokens up to there do not spell the start of the reply ``text`` (one was malformed)."""
    options = enum_of(request.schema, request.score) if request.score else []
    if not options or not tokens:
        return None
    here: list[tuple[str, float]] = []  # the alternatives at the token being observed

    def token_ids(piece: str) -> list[int]:
        return [index for index, (token, _) in enumerate(here) if token == piece]

    def logprobs(ids: Any) -> list[float]:
        return [here[index][1] for index in ids]

    assert request.score is not None
    scorer = ChoiceScorer(request.score, options, token_ids)
    spelled = ""
    for token in tokens:
        if not scorer.pending:
            break
        spelled += token.token
        alternatives = {token.token: token.logprob} if token.top else {}
        for alternative, value in token.top.items():
            alternatives.setdefault(alternative, value)
        here[:] = alternatives.items()
        scorer.observe(token.token, logprobs)
        if scorer.scores is not None and not token.top:
            return None  # the server gave no alternatives: it cannot tell the options apart
    if scorer.scores is not None and not text.lstrip().startswith(spelled.lstrip()):
        return None
    return scorer.scores


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
        if not isinstance(item, dict) or not _logprob(item.get("logprob")):
            continue
        alternatives = item.get("top_logprobs")
        top: dict[str, float] = {}
        for alt in alternatives if isinstance(alternatives, list) else ():
            if isinstance(alt, dict) and _logprob(alt.get("logprob")):
                top.setdefault(str(alt.get("token", "")), float(alt["logprob"]))
        tokens.append(TokenLogprob(str(item.get("token", "")), float(item["logprob"]), top))
    return tokens


def _logprob(value: Any) -> bool:
    """A log-probability: a number, ``-inf`` included, never NaN or above 0 (rounding aside)."""
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and not math.isnan(value)
        and value <= 1e-6
    )


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0
