"""The ``Agent`` facade: the one place in ``goliath`` that starts the actor runtime.

``async with agent:`` opens a nursery holding a supervisor (one actor per conversation,
activated on first use) and a model worker that owns the model. ``await agent.run(...)``
submits a run to the conversation's actor and waits for its result; ``agent.run_sync(...)``
does all of that for a script.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from types import TracebackType
from typing import Any

import pydantic
import trio

from ._util import maybe_await
from .budget import DEFAULT_WINDOW, Budgets, TokenCounter
from .config import (
    DEFAULT_CONFIRM_TIMEOUT,
    DEFAULT_INSTRUCTIONS,
    DEFAULT_MAX_STEPS,
    DEFAULT_MODEL_TIMEOUT,
    DEFAULT_SESSION_RETRY_AFTER,
    DEFAULT_TOOL_TIMEOUT,
    AgentConfig,
    ConfirmHandler,
    EventCallback,
    FactsSource,
    Fallback,
    TurnRequest,
    WindowSource,
)
from .errors import ConfigError, GoliathError
from .extensions import check_extensions
from .ids import check_conversation_id
from .memory import InMemory, Memory
from .records import RunResult
from .session import Session
from .tools import Tool, tools_by_name

__all__ = ["Agent"]

CANCEL_GRACE = 10.0
"""Seconds a cancelled caller waits (shielded) for its turn to stop and run its observers."""

MemorySource = Memory | Callable[[str | None], "Memory | Awaitable[Memory]"]


class Agent:
    """An agent for a small local model: tools, memory, confirmation, fallback, extensions.

    See ``docs/`` and ``spec/API.md`` for every option. Construction validates everything it
    can (:class:`~goliath.errors.ConfigError`); nothing starts until ``async with agent:`` or
    ``agent.run_sync(...)``.
    """

    def __init__(
        self,
        model: Any,
        tools: Iterable[Tool] | Mapping[str, Tool] = (),
        memory: MemorySource | None = None,
        fallback: Fallback | None = None,
        confirm: ConfirmHandler | None = None,
        window: WindowSource | None = None,
        count_tokens: TokenCounter | None = None,
        budgets: Budgets | None = None,
        max_steps: int = DEFAULT_MAX_STEPS,
        instructions: str = DEFAULT_INSTRUCTIONS,
        on_event: EventCallback | None = None,
        facts: FactsSource | None = None,
        examples: Sequence[Mapping[str, Any]] | None = None,
        extensions: Sequence[Any] = (),
        output_schema: type[pydantic.BaseModel] | None = None,
        session_retry_after: float | None = DEFAULT_SESSION_RETRY_AFTER,
        confirm_timeout: float | None = DEFAULT_CONFIRM_TIMEOUT,
        *,
        runtime_limits: Any = None,
        store: Any = None,
        cluster: Any = None,
        model_timeout: float | None = DEFAULT_MODEL_TIMEOUT,
        tool_timeout: float | None = DEFAULT_TOOL_TIMEOUT,
    ) -> None:
        self._options = {
            name: value for name, value in locals().items() if name not in ("self", "__class__")
        }
        if model is None or not (hasattr(model, "generate") or callable(model)):
            raise ConfigError(
                f"model must be a goliath.models.Model (something with async generate()) or a "
                f"zero-argument factory returning one; got {model!r}."
            )
        if window is None:
            window = _model_window(model)
        if isinstance(window, bool) or (
            not callable(window) and (not isinstance(window, int) or window <= 0)
        ):
            raise ConfigError(f"window must be a positive integer token count, got {window!r}.")
        if isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 0:
            raise ConfigError(f"max_steps must be a nonnegative integer, got {max_steps!r}.")
        if not isinstance(instructions, str):
            raise ConfigError(f"instructions must be a string, got {instructions!r}.")
        if output_schema is not None and not (
            isinstance(output_schema, type) and issubclass(output_schema, pydantic.BaseModel)
        ):
            raise ConfigError(
                f"output_schema must be a pydantic model class, got {output_schema!r}."
            )
        for name, value in (
            ("confirm_timeout", confirm_timeout),
            ("session_retry_after", session_retry_after),
            ("model_timeout", model_timeout),
            ("tool_timeout", tool_timeout),
        ):
            if value is not None and (not isinstance(value, (int, float)) or value < 0):
                raise ConfigError(f"{name} must be a number of seconds ≥ 0 or None, got {value!r}.")
        if count_tokens is None:
            count_tokens = _model_counter(model)
        self.model = model
        self.config = AgentConfig(
            tools=tools_by_name(tools),
            instructions=instructions,
            max_steps=max_steps,
            window=window,
            count_tokens=count_tokens,
            budgets=budgets,
            fallback=fallback,
            confirm=confirm,
            on_event=on_event,
            facts=facts,
            examples=examples,
            extensions=check_extensions(list(extensions)),
            output_schema=output_schema,
            confirm_timeout=confirm_timeout,
            session_retry_after=session_retry_after,
            model_timeout=model_timeout,
            tool_timeout=tool_timeout,
        )
        self._memory = memory
        self._memory_is_factory = memory is not None and not _is_memory(memory) and callable(memory)
        if memory is not None and not _is_memory(memory) and not callable(memory):
            raise ConfigError(
                f"memory must be a Memory (async load/save) or a factory of one per conversation; "
                f"got {memory!r}."
            )
        self._sessions: dict[str, Session] = {}
        self._runtime_limits = runtime_limits
        self._store = store
        self._cluster = cluster
        self._runtime: Any = None
        self._exit_stack: contextlib.AsyncExitStack | None = None
        self._nursery: trio.Nursery | None = None

    def with_options(self, **changes: Any) -> Agent:
        """A new agent with the same options except ``changes`` (e.g. another ``memory``)."""
        unknown = set(changes) - set(self._options)
        if unknown:
            raise ConfigError(f"Agent has no option(s) {sorted(unknown)}.")
        options = {**self._options, **changes}
        model = options.pop("model")
        return Agent(model, **options)

    # ---------------------------------------------------------------- lifecycle

    @property
    def runtime(self) -> Any:
        """The running :class:`actors.Runtime` (for transports); ``None`` when not started."""
        return self._runtime

    @property
    def tools(self) -> Mapping[str, Tool]:
        return self.config.tools

    async def __aenter__(self) -> Agent:
        if self._exit_stack is not None:
            raise GoliathError(
                "This agent is already running; `async with agent:` cannot be nested."
            )
        from actors.runtime import Runtime, RuntimeLimits

        stack = contextlib.AsyncExitStack()
        nursery = await stack.enter_async_context(trio.open_nursery())
        cluster = self._cluster
        runtime = Runtime(
            config=self.config,
            model=self.model,
            make_session=self._make_session,
            limits=self._runtime_limits or RuntimeLimits(),
            sessions=self._sessions,
            store=self._store,
            node=cluster.node_id if cluster is not None else None,
            fence=cluster.fence if cluster is not None else None,
            recover_on_start=cluster is None,
        )
        try:
            await nursery.start(runtime.serve)
        except BaseException:
            nursery.cancel_scope.cancel()
            await stack.aclose()
            raise
        self._runtime = runtime
        self._exit_stack = stack
        self._nursery = nursery
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        stack, runtime, nursery = self._exit_stack, self._runtime, self._nursery
        self._exit_stack = None
        self._runtime = None
        assert stack is not None and runtime is not None and nursery is not None
        try:
            if exc is None:
                await runtime.drain()
        finally:
            nursery.cancel_scope.cancel()
            await _close_unwrapped(stack, exc_type, exc, tb)
        return None

    async def _make_session(self, conversation_id: str | None) -> Session:
        memory = self._memory
        if memory is None and self._store is not None:
            from actors.store import StoreMemory

            fence = self._cluster.fence if self._cluster is not None else None
            resolved: Any = StoreMemory(self._store, conversation_id, fence)
        elif memory is None:
            resolved = InMemory()
        elif self._memory_is_factory:
            resolved = await maybe_await(memory(conversation_id))  # type: ignore[operator]
            if not _is_memory(resolved):
                raise ConfigError(
                    f"The memory factory returned {resolved!r} for conversation "
                    f"{conversation_id!r}; it must return a Memory (async load/save)."
                )
        else:
            resolved = memory
        return Session(memory=resolved, conversation_id=conversation_id)

    # ---------------------------------------------------------------- runs

    def _request(
        self,
        ask: str,
        *,
        conversation_id: str | None,
        confirm: ConfirmHandler | None,
        output_schema: type[pydantic.BaseModel] | None,
        on_event: EventCallback | None,
        context: Any,
        turn_id: str | None,
    ) -> TurnRequest:
        if not isinstance(ask, str):
            raise ConfigError(f"ask must be a string, got {type(ask).__name__}.")
        check_conversation_id(conversation_id)
        if conversation_id is not None and self._memory is not None and not self._memory_is_factory:
            raise ConfigError(
                "Named conversations require a memory factory: pass "
                "memory=lambda conversation_id: ... so each conversation gets its own Memory. "
                "A single Memory object serves only the default conversation."
            )
        if output_schema is not None and not (
            isinstance(output_schema, type) and issubclass(output_schema, pydantic.BaseModel)
        ):
            raise ConfigError(
                f"output_schema must be a pydantic model class, got {output_schema!r}."
            )
        return TurnRequest(
            ask=ask,
            turn_id=turn_id or uuid.uuid4().hex,
            conversation_id=conversation_id,
            context=context,
            confirm=confirm,
            output_schema=output_schema,
            on_event=on_event,
        )

    async def run(
        self,
        ask: str,
        *,
        conversation_id: str | None = None,
        confirm: ConfirmHandler | None = None,
        output_schema: type[pydantic.BaseModel] | None = None,
        on_event: EventCallback | None = None,
        context: Any = None,
        turn_id: str | None = None,
    ) -> RunResult:
        """Run one turn and return its result.

        Runs of one conversation are serialized; different conversations run concurrently.

        Raises:
            GoliathError: the runtime is not started (use ``async with agent:``).
            BusyError: the conversation already has too many runs queued.
            actors.runtime.RequestError: ``turn_id`` already names a turn of another
                conversation (a repeated turn id of this one returns that turn's result).
            Exception: the original error of a tool hook, memory store, confirm handler,
                fallback or event callback that made the run fail.

        Cancellation: cancelling the caller's scope cancels the turn inside its actor; the
        call waits (shielded, at most ``CANCEL_GRACE`` seconds) for the turn to stop and its
        ``on_error``/``on_finish`` observers to run, then raises ``trio.Cancelled``.
        """
        request = self._request(
            ask,
            conversation_id=conversation_id,
            confirm=confirm,
            output_schema=output_schema,
            on_event=on_event,
            context=context,
            turn_id=turn_id,
        )
        runtime = self._runtime
        if runtime is None:
            raise GoliathError(
                "agent.run() was called before the runtime started. Wrap your calls in "
                "`async with agent:`, or call agent.run_sync(...) from synchronous code."
            )
        ticket = await runtime.submit(request)
        try:
            await ticket.done.wait()
        except trio.Cancelled:
            runtime.cancel(ticket.turn_id, "caller cancelled")
            with trio.CancelScope(shield=True) as scope:
                scope.deadline = trio.current_time() + CANCEL_GRACE
                await ticket.done.wait()
            raise
        return ticket.unwrap()  # type: ignore[no-any-return]

    def run_sync(self, ask: str, **options: Any) -> RunResult:
        """Start Trio and the runtime, run one turn, stop. For scripts and the REPL."""

        async def main() -> RunResult:
            async with self:
                return await self.run(ask, **options)

        return trio.run(main)

    def is_session_fallback(self, conversation_id: str | None = None) -> bool:
        """Whether this conversation's turns are currently handed straight to the fallback."""
        session = self._sessions.get(conversation_id or "")
        if session is None:
            return False
        return session.hands_over(
            has_fallback=self.config.fallback is not None,
            retry_after=self.config.session_retry_after,
        )


async def _close_unwrapped(
    stack: contextlib.AsyncExitStack,
    exc_type: type[BaseException] | None,
    exc: BaseException | None,
    tb: TracebackType | None,
) -> None:
    """Close the runtime's nursery; callers see their own exception, never a group of one."""
    try:
        await stack.__aexit__(exc_type, exc, tb)
    except BaseExceptionGroup as group:
        leaves = _leaves(group)
        if exc is not None and leaves == [exc]:
            return  # Python re-raises the body's own exception
        if len(leaves) == 1:
            raise leaves[0] from None
        raise


def _leaves(group: BaseExceptionGroup[BaseException]) -> list[BaseException]:
    out: list[BaseException] = []
    for item in group.exceptions:
        out.extend(_leaves(item) if isinstance(item, BaseExceptionGroup) else [item])
    return out


def _is_memory(value: object) -> bool:
    return callable(getattr(value, "load", None)) and callable(getattr(value, "save", None))


def _model_window(model: object) -> WindowSource:
    window = getattr(model, "window", None)
    if callable(window) and hasattr(model, "generate"):
        return window  # type: ignore[no-any-return]
    return DEFAULT_WINDOW


def _model_counter(model: object) -> TokenCounter | None:
    counter = getattr(model, "count_tokens", None)
    if callable(counter) and hasattr(model, "generate"):
        return counter  # type: ignore[no-any-return]
    return None
