"""A stand-in for Apple's ``apple_fm_sdk`` (0.2.1) that runs on Linux, for the bridge's tests.

It mimics the real package's public names and behaviour that the bridge relies on: the
classes ``SystemLanguageModel`` and ``LanguageModelSession``, their asyncio methods, the enums,
``GenerationOptions``/``SamplingMode``, ``GeneratedContent.to_json()`` and the error classes.
Nothing here talks to a model: ``FAKE`` scripts the replies and records every call, the thread
and event loop it ran on, and any cancellation.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from enum import IntEnum, StrEnum
from typing import Any

__version__ = "0.2.1-fake"


class FoundationModelsError(Exception):
    """Base exception for Foundation Models errors."""


class GenerationError(FoundationModelsError):
    """Base class for generation-specific errors."""


class InvalidGenerationSchemaError(FoundationModelsError):
    """Error thrown when a generation schema is invalid."""


class ExceededContextWindowSizeError(GenerationError):
    """Error thrown when the context window size is exceeded."""


class AssetsUnavailableError(GenerationError):
    """Error thrown when required assets are unavailable."""


class GuardrailViolationError(GenerationError):
    """Error thrown when a guardrail violation occurs."""


class UnsupportedGuideError(GenerationError):
    """Error thrown when an unsupported guide is used."""


class UnsupportedLanguageOrLocaleError(GenerationError):
    """Error thrown when an unsupported language or locale is used."""


class DecodingFailureError(GenerationError):
    """Error thrown when decoding fails."""


class RateLimitedError(GenerationError):
    """Error thrown when rate limited."""


class ConcurrentRequestsError(GenerationError):
    """Error thrown when there are too many concurrent requests."""


class RefusalError(GenerationError):
    """Error thrown when the model refuses to generate content."""


class ToolCallError(FoundationModelsError):
    """Error thrown when a tool call fails."""


class SystemLanguageModelUnavailableReason(IntEnum):
    APPLE_INTELLIGENCE_NOT_ENABLED = 0
    DEVICE_NOT_ELIGIBLE = 1
    MODEL_NOT_READY = 2
    UNKNOWN = 0xFF


class SystemLanguageModelUseCase(IntEnum):
    GENERAL = 0
    CONTENT_TAGGING = 1


class SystemLanguageModelGuardrails(IntEnum):
    DEFAULT = 0
    PERMISSIVE_CONTENT_TRANSFORMATIONS = 1


class SamplingModeType(StrEnum):
    GREEDY = "greedy"
    RANDOM = "random"


@dataclass
class SamplingMode:
    mode_type: SamplingModeType
    top: int | None = None
    probability_threshold: float | None = None
    seed: int | None = None

    @classmethod
    def greedy(cls) -> SamplingMode:
        return cls(mode_type=SamplingModeType.GREEDY)


@dataclass
class GenerationOptions:
    sampling: SamplingMode | None = None
    temperature: float | None = None
    maximum_response_tokens: int | None = None


class GeneratedContent:
    def __init__(self, content_dict: dict[str, Any] | None = None) -> None:
        self._content_dict = content_dict or {}

    def to_json(self) -> str:
        return json.dumps(self._content_dict)


@dataclass
class Call:
    """One recorded ``respond`` call."""

    instructions: str | None
    prompt: str
    json_schema: dict[str, Any] | None
    options: GenerationOptions | None
    thread: int
    loop: asyncio.AbstractEventLoop


Reply = Callable[[Call], Any]


@dataclass
class FakeState:
    """The script: availability, window, replies (values, exceptions or callables) and records."""

    available: tuple[bool, SystemLanguageModelUnavailableReason | None] = (True, None)
    context_size: int = 4096
    token_count_error: Exception | None = None
    replies: list[Any] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    threads: set[int] = field(default_factory=set)
    cancelled: list[Call] = field(default_factory=list)
    streamed: list[Call] = field(default_factory=list)
    started: threading.Event = field(default_factory=threading.Event)
    count_calls: int = 0

    def note_thread(self) -> None:
        asyncio.get_running_loop()  # the SDK is asyncio-only: this raises outside a loop
        self.threads.add(threading.get_ident())


FAKE = FakeState()


def reset() -> None:
    """Forget the script and records (each test starts clean)."""
    global FAKE
    FAKE = FakeState()


def _tokens(text: str) -> int:
    return len(text.split()) + 1


class SystemLanguageModel:
    def __init__(
        self,
        use_case: SystemLanguageModelUseCase = SystemLanguageModelUseCase.GENERAL,
        guardrails: SystemLanguageModelGuardrails = SystemLanguageModelGuardrails.DEFAULT,
    ) -> None:
        FAKE.note_thread()
        self.use_case = use_case
        self.guardrails = guardrails

    def is_available(self) -> tuple[bool, SystemLanguageModelUnavailableReason | None]:
        return FAKE.available

    @property
    def context_size(self) -> int:
        return FAKE.context_size

    async def token_count(self, value: Any = None, *, instructions: str | None = None) -> int:
        FAKE.note_thread()
        FAKE.count_calls += 1
        if FAKE.token_count_error is not None:
            raise FAKE.token_count_error
        text = instructions if instructions is not None else value
        if not isinstance(text, str):
            raise ValueError("token_count() requires either a value or instructions")
        return _tokens(text)


class LanguageModelSession:
    def __init__(
        self,
        instructions: str | None = None,
        model: SystemLanguageModel | None = None,
        tools: list[Any] | None = None,
    ) -> None:
        FAKE.note_thread()
        if tools:
            raise AssertionError("Goliath never registers tools with Apple's session")
        self.instructions = instructions
        self.model = model
        self._request_lock = asyncio.Lock()

    async def respond(
        self,
        prompt: str,
        generating: Any = None,
        *,
        schema: Any = None,
        json_schema: dict[str, Any] | None = None,
        options: GenerationOptions | None = None,
    ) -> Any:
        FAKE.note_thread()
        async with self._request_lock:
            call = Call(
                instructions=self.instructions,
                prompt=prompt,
                json_schema=json_schema,
                options=options,
                thread=threading.get_ident(),
                loop=asyncio.get_running_loop(),
            )
            FAKE.calls.append(call)
            if not FAKE.replies:
                raise AssertionError("the fake SDK has no scripted reply left")
            reply = FAKE.replies.pop(0)
            if callable(reply) and not isinstance(reply, type):
                reply = reply(call)
            if asyncio.iscoroutine(reply):
                FAKE.started.set()
                try:
                    reply = await reply
                except asyncio.CancelledError:
                    FAKE.cancelled.append(call)  # the real SDK calls FMTaskCancel here
                    raise
            if isinstance(reply, BaseException):
                raise reply
            if json_schema is not None:
                return GeneratedContent(reply)
            return str(reply)

    async def stream_response(
        self, prompt: str, *, options: GenerationOptions | None = None
    ) -> AsyncIterator[str]:
        """Like the real SDK: snapshots of the whole reply so far, one more word each time."""
        FAKE.note_thread()
        async with self._request_lock:
            call = Call(
                instructions=self.instructions,
                prompt=prompt,
                json_schema=None,
                options=options,
                thread=threading.get_ident(),
                loop=asyncio.get_running_loop(),
            )
            FAKE.calls.append(call)
            FAKE.streamed.append(call)
            if not FAKE.replies:
                raise AssertionError("the fake SDK has no scripted reply left")
            reply = FAKE.replies.pop(0)
            if callable(reply) and not isinstance(reply, type):
                reply = reply(call)
            if isinstance(reply, BaseException):
                raise reply
            words = str(reply).split(" ")
            for end in range(1, len(words) + 1):
                await asyncio.sleep(0)
                yield " ".join(words[:end])


def never() -> Callable[[Call], Any]:
    """A reply that waits until cancelled, like a long native generation."""

    async def wait_forever() -> None:
        await asyncio.Event().wait()

    return lambda _call: wait_forever()
