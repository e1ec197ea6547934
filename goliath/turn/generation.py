"""The one way the harness calls a model: counted, budgeted, reported, then sent.

Every stage goes through :class:`ModelCaller.call`: it counts the prompt (tokenizer or
estimate), compacts it once when the stage allows, emits a ``budget`` event, refuses a prompt
over the stage's limit before anything is generated, and tags provider failures with the
``model`` origin so the turn can escalate them.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, Literal

import attrs
import trio

from .._origin import mark, origin
from ..budget import PROMPT_OVERHEAD_TOKENS, TokenCounter, count_text, estimate_tokens
from ..errors import BudgetError, ModelError
from ..events import BudgetEvent, Event
from ..models import GenerateRequest, Generation, TextSink
from .stages import stage

__all__ = ["ModelCall", "ModelCallObserver", "ModelCaller", "ModelPort", "Usage"]

ModelPort = Callable[[GenerateRequest], Awaitable[Generation]]
"""The turn's way to the model: a request in, a generation out (the model worker, or a direct call)."""


@attrs.define
class Usage:
    """What the device model did during one turn."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    queue_ms: float = 0.0
    model_ms: float = 0.0


@attrs.frozen
class ModelCall:
    """One finished (or failed) model call, for observers such as tracing."""

    label: str
    ms: float
    max_output_tokens: int
    queue_ms: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0
    error: BaseException | None = None


ModelCallObserver = Callable[[ModelCall], Awaitable[None]]


@attrs.define
class ModelCaller:
    generate: ModelPort
    window: int
    count_tokens: TokenCounter | None
    emit: Callable[[Event], None]
    usage: Usage = attrs.field(factory=Usage)
    observe: ModelCallObserver | None = None
    timeout: float | None = None
    on_text: TextSink | None = None
    """Where a prose answer's text goes as the model writes it (``Agent.run_stream``, the
    daemon's ``token`` events); other stages never stream."""

    def _emit(self, event: BudgetEvent) -> None:
        with origin("event"):
            self.emit(event)

    async def _generate(
        self,
        request: GenerateRequest,
        tokens: int,
        limit: int,
        source: Literal["tokenizer", "estimate"],
    ) -> Generation:
        """Report the budget once the model is free for this call (with the queue wait), then
        wait for the reply. A plain port (a function) has no queue: report, then call."""
        start = getattr(self.generate, "start", None)
        sink = self.on_text if request.label == "answer" and request.schema is None else None
        if start is None:
            self._emit(BudgetEvent(label=request.label, tokens=tokens, limit=limit, source=source))
            with self._deadline(request.label):
                return await self.generate(request)
        running = await (start(request) if sink is None else start(request, on_text=sink))
        try:
            self._emit(
                BudgetEvent(
                    label=request.label,
                    tokens=tokens,
                    limit=limit,
                    source=source,
                    queue_ms=running.queue_ms,
                )
            )
            with self._deadline(request.label):
                generation: Generation = await running.result()
        except BaseException:
            running.cancel()
            raise
        return generation

    @contextlib.contextmanager
    def _deadline(self, label: str) -> Iterator[None]:
        """A model that hangs fails this call (a model error), and the model worker frees the model."""
        if self.timeout is None:
            yield
            return
        try:
            with trio.fail_after(self.timeout):
                yield
        except trio.TooSlowError as exc:
            raise ModelError(
                f"the model did not answer the {label} call within {self.timeout:g} s",
                code="TIMEOUT",
            ) from exc

    async def count(self, system: str, schema: dict[str, Any] | None, prompt: str) -> int:
        """Tokens of system + schema + prompt, plus the template overhead."""
        schema_text = json.dumps(schema, separators=(",", ":")) if schema is not None else ""
        if self.count_tokens is None:
            total = estimate_tokens(system) + estimate_tokens(schema_text) + estimate_tokens(prompt)
        else:
            joined = "\n\n".join(part for part in (system, schema_text, prompt) if part)
            try:
                total = await count_text(self.count_tokens, joined)
            except Exception as exc:
                mark(exc, "model")  # a failing tokenizer is a failure of the stage's provider
                raise
        return total + PROMPT_OVERHEAD_TOKENS

    async def call(
        self,
        label: str,
        system: str,
        prompt: Callable[[bool], str],
        schema: dict[str, Any] | None = None,
        *,
        compactable: bool,
        score: str | None = None,
    ) -> Generation:
        """Count, maybe compact, report, check and send one model call.

        ``prompt(compact)`` renders the user prompt; ``compact=True`` asks for the compacted
        step log. ``label`` names the stage; its caps come from the stage table. Raises
        :class:`BudgetError` (origin ``budget``) when the prompt cannot fit, and re-raises
        provider failures tagged with origin ``model``.
        """
        await trio.lowlevel.checkpoint_if_cancelled()
        caps = stage(label)
        limit = caps.input_limit(self.window)
        text = prompt(False)
        tokens = await self.count(system, schema, text)
        if tokens > limit and compactable:
            text = prompt(True)
            tokens = await self.count(system, schema, text)
        source: Literal["tokenizer", "estimate"] = (
            "estimate" if self.count_tokens is None else "tokenizer"
        )
        if tokens > limit:
            self._emit(BudgetEvent(label=label, tokens=tokens, limit=limit, source=source))
            error = BudgetError(label, tokens, limit)
            mark(error, "budget")
            raise error
        await trio.lowlevel.checkpoint_if_cancelled()
        request = GenerateRequest(
            label=label,
            system=system,
            prompt=text,
            schema=schema,
            max_output_tokens=caps.output_tokens,
            max_string_length=caps.string_length,
            score=score,
        )
        started = trio.current_time()
        try:
            with origin("model"):
                generation = await self._generate(request, tokens, limit, source)
        except Exception as exc:
            if self.observe is not None:
                elapsed = (trio.current_time() - started) * 1000
                await self.observe(
                    ModelCall(
                        label=label,
                        ms=round(elapsed, 3),
                        max_output_tokens=caps.output_tokens,
                        error=exc,
                    )
                )
            raise
        elapsed = round((trio.current_time() - started) * 1000, 3)
        usage = self.usage
        usage.calls += 1
        usage.input_tokens += generation.input_tokens
        usage.output_tokens += generation.output_tokens
        usage.queue_ms += generation.queue_ms
        usage.model_ms += elapsed - generation.queue_ms
        if self.observe is not None:
            await self.observe(
                ModelCall(
                    label=label,
                    ms=elapsed,
                    max_output_tokens=caps.output_tokens,
                    queue_ms=generation.queue_ms,
                    input_tokens=generation.input_tokens,
                    output_tokens=generation.output_tokens,
                )
            )
        return generation
