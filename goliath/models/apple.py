"""Apple Foundation Models through Apple's Python SDK (``apple-fm-sdk``), wrapped for Trio.

The SDK is asyncio-only, so the bridge confines it to one thread running its own asyncio event
loop: every SDK object is created and used there, and Trio code talks to it through
``asyncio.run_coroutine_threadsafe``. Cancelling the Trio caller cancels the asyncio task,
which makes the SDK cancel the native request.

Each call is a fresh ``LanguageModelSession`` whose instructions are the system prompt, so no
transcript accumulates between harness stages; guided generation passes the schema in Apple's
dialect (closed objects with ``x-order``) and greedy sampling. SDK errors are mapped by type
onto the harness's classes. Goliath never registers tools with Apple's session: tool
arguments are asked for as structured output, so every step stays in the harness's sight.
"""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

import trio

from ..budget import DEFAULT_WINDOW, estimate_tokens
from ..errors import (
    ContextWindowError,
    GuardrailError,
    InvalidOutputError,
    ModelError,
    ModelUnavailableError,
)
from . import GenerateRequest, Generation, TextSink
from ._json import parse_reply

__all__ = ["AppleModel", "apple_schema"]

T = TypeVar("T")

"""Apple's on-device window; used until the SDK reports ``context_size``."""
CANCEL_GRACE = 2.0
"""Seconds a cancelled call waits for the SDK to finish cancelling its native request."""
_INSTALL_HINT = "pip install 'goliath-harness[apple]'"
_REASONS = {
    "APPLE_INTELLIGENCE_NOT_ENABLED": "turn on Apple Intelligence in System Settings",
    "DEVICE_NOT_ELIGIBLE": "this device cannot run Apple Intelligence (Apple silicon needed)",
    "MODEL_NOT_READY": "the model is still downloading or preparing; try again later",
    "UNKNOWN": "the system gave no reason",
}


class AppleModel:
    """Apple's on-device model (macOS 26+, Apple Intelligence on).

    Args:
        use_case: a ``SystemLanguageModelUseCase`` name (``"GENERAL"``, ``"CONTENT_TAGGING"``).
        guardrails: a ``SystemLanguageModelGuardrails`` name (``"DEFAULT"``,
            ``"PERMISSIVE_CONTENT_TRANSFORMATIONS"``).
        count_usage: count each call's input and output tokens with the model's tokenizer
            (two extra on-device calls); otherwise estimate them.

    Raises (from :meth:`load` or the first call):
        ModelUnavailableError: the SDK is not installed (``pip install 'goliath-harness[apple]'``,
            macOS 26+), or the model is not available; the message gives the system's reason.

    Resource handling: the first call starts the SDK's thread; :meth:`close` stops it.
    """

    def __init__(
        self,
        *,
        use_case: str = "GENERAL",
        guardrails: str = "DEFAULT",
        count_usage: bool = True,
    ) -> None:
        self._use_case = use_case
        self._guardrails = guardrails
        self._count_usage = count_usage
        self._sdk: Any = None
        self._model: Any = None
        self._window: int | None = None
        self._can_count = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()
        self._load_lock = trio.Lock()

    def __repr__(self) -> str:
        return f"AppleModel(use_case={self._use_case!r}, guardrails={self._guardrails!r})"

    # ------------------------------------------------------------------ public surface

    def window(self) -> int:
        """The model's ``context_size`` once loaded; 4,096 (Apple's window) before."""
        return self._window or DEFAULT_WINDOW

    async def load(self) -> None:
        """Import the SDK, create the model and check that it is available.

        Raises:
            ModelUnavailableError: with the SDK's unavailability reason and what to do.
        """
        async with self._load_lock:
            if self._model is None:
                await self._run(self._setup)

    async def count_tokens(self, text: str) -> int:
        """Tokens ``text`` takes, by the model's ``token_count`` (macOS 26.4+), else estimated."""
        await self.load()
        if not self._can_count:
            return estimate_tokens(text)
        return await self._run(lambda: self._model.token_count(text))

    async def generate(self, request: GenerateRequest) -> Generation:
        """Answer one request in a fresh session; see the class docstring.

        Cancellation: the asyncio task is cancelled (the SDK cancels the native request) and
        the call waits up to ``CANCEL_GRACE`` seconds for that to finish.
        """
        await self.load()
        return await self._run(lambda: self._respond(request))

    async def generate_stream(self, request: GenerateRequest, on_text: TextSink) -> Generation:
        """Like :meth:`generate`, with the SDK's ``stream_response`` for prose: each snapshot of
        the reply so far is turned into the text it adds, handed to ``on_text`` in the Trio
        thread. Structured replies (a schema) are answered whole, as by :meth:`generate`."""
        if request.schema is not None:
            return await self.generate(request)
        await self.load()
        token = trio.lowlevel.current_trio_token()

        def emit(piece: str) -> None:  # on the SDK's thread: hop to Trio, in order
            try:
                token.run_sync_soon(on_text, piece)
            except trio.RunFinishedError:  # pragma: no cover - the caller is gone
                pass

        return await self._run(lambda: self._respond_streaming(request, emit))

    def close(self) -> None:
        """Stop the SDK's thread and drop the model; the next call starts them again."""
        with self._start_lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
            self._model = None
        if loop is not None and thread is not None:
            loop.call_soon_threadsafe(loop.stop)
            thread.join()
            loop.close()

    # ------------------------------------------------------------------ the asyncio side

    async def _setup(self) -> None:
        try:
            import apple_fm_sdk as sdk
        except ImportError as exc:
            needs = (
                "" if sys.platform == "darwin" else " It runs only on macOS 26+ (Apple silicon)."
            )
            raise ModelUnavailableError(
                f"Apple's Foundation Models SDK (apple-fm-sdk) is not installed.{needs} "
                f"Install it on a Mac with: {_INSTALL_HINT}"
            ) from exc
        try:
            use_case = sdk.SystemLanguageModelUseCase[self._use_case]
            guardrails = sdk.SystemLanguageModelGuardrails[self._guardrails]
        except KeyError as exc:
            raise ModelUnavailableError(f"Unknown AppleModel option: {exc}") from exc
        model = sdk.SystemLanguageModel(use_case=use_case, guardrails=guardrails)
        available, reason = model.is_available()
        if not available:
            name = getattr(reason, "name", str(reason))
            raise ModelUnavailableError(
                f"Apple's on-device model is not available ({name}): "
                f"{_REASONS.get(name, 'see the SDK documentation')}."
            )
        window = getattr(model, "context_size", None)
        self._window = window if isinstance(window, int) and window > 0 else DEFAULT_WINDOW
        self._can_count = await self._probe_counting(sdk, model)
        self._sdk = sdk
        self._model = model

    async def _probe_counting(self, sdk: Any, model: Any) -> bool:
        """Whether ``token_count`` works here (it needs SDK 0.2.1 and macOS 26.4)."""
        if not callable(getattr(model, "token_count", None)):
            return False
        try:
            await model.token_count("ok")
        except Exception:  # an OS before 26.4 raises; count with the estimator instead
            return False
        return True

    async def _respond(self, request: GenerateRequest) -> Generation:
        sdk = self._sdk
        options = sdk.GenerationOptions(
            sampling=sdk.SamplingMode.greedy(),
            maximum_response_tokens=request.max_output_tokens,
        )
        session = sdk.LanguageModelSession(instructions=request.system, model=self._model)
        try:
            if request.schema is None:
                reply = await session.respond(request.prompt, options=options)
                text = str(reply)
            else:
                content = await session.respond(
                    request.prompt, json_schema=apple_schema(request.schema), options=options
                )
                text = content.to_json()
        except sdk.FoundationModelsError as exc:
            raise _translate(sdk, exc) from exc
        if request.schema is not None:
            parse_reply(text, finished=True, max_output_tokens=request.max_output_tokens)
        input_tokens, output_tokens = await self._usage(request, text)
        return Generation(text=text, input_tokens=input_tokens, output_tokens=output_tokens)

    async def _respond_streaming(
        self, request: GenerateRequest, emit: Callable[[str], None]
    ) -> Generation:
        sdk = self._sdk
        options = sdk.GenerationOptions(
            sampling=sdk.SamplingMode.greedy(),
            maximum_response_tokens=request.max_output_tokens,
        )
        session = sdk.LanguageModelSession(instructions=request.system, model=self._model)
        if not callable(getattr(session, "stream_response", None)):  # an SDK without streaming
            generation = await self._respond(request)
            if generation.text:
                emit(generation.text)
            return generation
        text = ""
        try:
            async for snapshot in session.stream_response(request.prompt, options=options):
                current = str(snapshot)
                added = current[len(text) :] if current.startswith(text) else current
                text = current if current.startswith(text) else text + current
                if added:
                    emit(added)
        except sdk.FoundationModelsError as exc:
            raise _translate(sdk, exc) from exc
        input_tokens, output_tokens = await self._usage(request, text)
        return Generation(text=text, input_tokens=input_tokens, output_tokens=output_tokens)

    async def _usage(self, request: GenerateRequest, text: str) -> tuple[int, int]:
        if not (self._count_usage and self._can_count):
            return estimate_tokens(request.system) + estimate_tokens(
                request.prompt
            ), estimate_tokens(text)
        model = self._model
        system, prompt, output = await asyncio.gather(
            model.token_count(instructions=request.system),
            model.token_count(request.prompt),
            model.token_count(text),
        )
        return int(system) + int(prompt), int(output)

    # ------------------------------------------------------------------ the Trio side

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        with self._start_lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(
                    target=_serve, args=(loop,), name="goliath-apple-fm", daemon=True
                )
                thread.start()
                self._loop, self._thread = loop, thread
            return self._loop

    async def _run(self, factory: Callable[[], Awaitable[T]]) -> T:
        """Run ``factory()`` as a task on the SDK's loop; wait for it without blocking Trio.

        Cancellation: the asyncio task is cancelled and the caller waits (shielded, at most
        ``CANCEL_GRACE`` seconds) until it has really finished, then re-raises.
        """
        loop = self._ensure_loop()
        token = trio.lowlevel.current_trio_token()
        done = trio.Event()
        box: list[asyncio.Task[T]] = []

        def finished(_: object) -> None:
            try:
                token.run_sync_soon(done.set)
            except trio.RunFinishedError:  # the Trio run ended first: nobody is waiting
                pass

        def start() -> None:
            task = loop.create_task(_awaited(factory))
            task.add_done_callback(finished)
            box.append(task)

        loop.call_soon_threadsafe(start)
        try:
            await done.wait()
        except trio.Cancelled:
            loop.call_soon_threadsafe(lambda: box[0].cancel())  # start() has run: FIFO
            with trio.CancelScope(shield=True), trio.move_on_after(CANCEL_GRACE):
                await done.wait()
            raise
        return box[0].result()


async def _awaited(factory: Callable[[], Awaitable[T]]) -> T:
    return await factory()


def _serve(loop: asyncio.AbstractEventLoop) -> None:
    asyncio.set_event_loop(loop)
    loop.run_forever()


def _translate(sdk: Any, exc: BaseException) -> ModelError:
    """Map an SDK error onto the harness's classification, by type (most specific first)."""
    message = f"{type(exc).__name__}: {exc}"
    table: list[tuple[str, Callable[[str], ModelError]]] = [
        ("GuardrailViolationError", GuardrailError),
        ("RefusalError", GuardrailError),
        ("ExceededContextWindowSizeError", ContextWindowError),
        ("AssetsUnavailableError", ModelUnavailableError),
        ("UnsupportedLanguageOrLocaleError", ModelUnavailableError),
        ("DecodingFailureError", InvalidOutputError),
        ("InvalidGenerationSchemaError", lambda text: ModelError(text, code="INVALID_SCHEMA")),
        ("UnsupportedGuideError", lambda text: ModelError(text, code="UNSUPPORTED_GUIDE")),
        ("RateLimitedError", lambda text: ModelError(text, code="RATE_LIMITED")),
        ("ConcurrentRequestsError", lambda text: ModelError(text, code="CONCURRENT_REQUESTS")),
    ]
    for name, make in table:
        cls = getattr(sdk, name, None)
        if isinstance(cls, type) and isinstance(exc, cls):
            return make(message)
    return ModelError(message)


def apple_schema(schema: Mapping[str, Any], title: str = "Reply") -> dict[str, Any]:
    """``schema`` in Apple's dialect: every object closed, titled and ordered by ``x-order``."""
    converted: dict[str, Any] = _to_apple(dict(schema), title)
    return converted


def _to_apple(node: Any, title: str) -> Any:
    if isinstance(node, list):
        return [_to_apple(item, title) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in ("properties", "$defs") and isinstance(value, dict):
            out[key] = {name: _to_apple(sub, _title(name)) for name, sub in value.items()}
        elif key in ("items", "anyOf") or isinstance(value, (dict, list)):
            out[key] = _to_apple(value, title)
        else:
            out[key] = value
    if out.get("type") == "object":
        properties = out.setdefault("properties", {})
        out.setdefault("title", title)
        out.setdefault("additionalProperties", False)
        out.setdefault("x-order", list(properties))
        out.setdefault("required", [])
    return out


def _title(name: str) -> str:
    return (
        "".join(part[:1].upper() + part[1:] for part in name.replace("-", "_").split("_"))
        or "Value"
    )
