"""The model port: one small protocol every bridge implements.

Goliath never hands tool definitions to a model. Every call is a fresh context of one system
prompt and one user prompt, optionally constrained to a JSON Schema (guided generation), so the
same harness drives llama.cpp in-process, an OpenAI-compatible server or Apple's on-device
model. Bridges live in submodules and import their SDKs lazily:

- ``goliath.models.llamacpp.LlamaCppModel`` — in-process llama.cpp (the embedded default)
- ``goliath.models.openai.OpenAICompatibleModel`` — any Chat Completions server
- ``goliath.models.apple.AppleModel`` — Apple Foundation Models through ``apple-fm-sdk``
- ``goliath.testing.FakeModel`` — a scripted model for tests
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

import msgspec

__all__ = [
    "GenerateRequest",
    "Generation",
    "Model",
    "ModelSource",
    "Streaming",
    "TextSink",
    "TokenCounting",
    "Windowed",
]


class GenerateRequest(msgspec.Struct, frozen=True, kw_only=True):
    """One model call: a fresh context, a system and a user prompt, an optional schema, caps.

    ``schema`` is a JSON Schema; when present the reply must be constrained to it, and a bridge
    gives every string of it without a bound ``maxLength: max_string_length`` (``0``: none).
    ``max_output_tokens`` caps the reply. The caller sets the numbers (the turn takes them from
    its stage table; a caller that does not gets the tight defaults); ``label`` names the caller
    for traces and error messages only — a bridge decides nothing by it.
    ``score`` names a top-level ``enum`` property of the schema whose options a bridge that
    sees its logits (in-process llama.cpp) or the server's token log-probabilities (the OpenAI
    bridge) scores (:attr:`Generation.scores`); bridges that cannot ignore it.
    """

    label: str
    system: str
    prompt: str
    schema: dict[str, Any] | None = None
    max_output_tokens: int = 256
    max_string_length: int = 200
    score: str | None = None


class Generation(msgspec.Struct, frozen=True, kw_only=True):
    """A model's reply and what it cost, in tokens.

    ``cached_tokens``: of the ``input_tokens``, those the engine served from its prompt cache
    rather than evaluated (0 where it does not say).
    ``queue_ms`` is filled in by the model worker: how long the call waited for the model.
    ``scores``: for a request with ``score``, each option's log-probability at the token where
    that property's value began (``None`` when the bridge cannot tell).
    """

    text: str
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    queue_ms: float = 0.0
    scores: dict[str, float] | None = None


@runtime_checkable
class Model(Protocol):
    """Anything that can answer a :class:`GenerateRequest`.

    Bridges raise :class:`goliath.errors.ModelError` subclasses (with a provider ``code`` where
    there is one) so the harness classifies failures by type, and honour Trio cancellation:
    a cancelled call must stop generating promptly.
    """

    async def generate(self, request: GenerateRequest) -> Generation: ...


ModelSource = Model | Callable[[], Model] | str
"""A model, a zero-argument factory of one (the model worker calls it for each call), or a
spec naming one (``"local"``, the grammar of ``--model``), built when the agent starts."""

TextSink = Callable[[str], None]
"""Receives a reply's text as it is generated, one delta at a time (called in the Trio thread)."""


@runtime_checkable
class Streaming(Protocol):
    """A model that can hand over its reply's text while it generates it.

    ``generate_stream`` returns the same :class:`Generation` as ``generate`` and, along the way,
    calls ``on_text`` with each new piece of text (in the Trio thread, never from a worker
    thread); the pieces add up to the reply's text. The harness streams prose answers this way
    (``Agent.run_stream``, the daemon's ``token`` events); a model without it still works, its
    answer arriving in one piece.
    """

    async def generate_stream(self, request: GenerateRequest, on_text: TextSink) -> Generation: ...


@runtime_checkable
class Windowed(Protocol):
    """A model that knows its context window, in tokens."""

    def window(self) -> int: ...


@runtime_checkable
class TokenCounting(Protocol):
    """A model that counts tokens exactly, with its own tokenizer."""

    def count_tokens(self, text: str) -> int: ...
