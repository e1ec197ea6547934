"""The ``Agent`` facade: the one place in ``goliath`` that starts the actor runtime.

``async with agent:`` opens a nursery holding a supervisor (one actor per conversation,
activated on first use) and a model worker that owns the model. ``await agent.run(...)``
submits a run to the conversation's actor and waits for its result; ``agent.run_sync(...)``
does all of that for a script.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import math
import uuid
from collections.abc import (
    AsyncIterator,
    Awaitable,
    Callable,
    Iterable,
    Iterator,
    Mapping,
    Sequence,
)
from types import TracebackType
from typing import TYPE_CHECKING, Any, Generic, Self, overload

import attrs
import pydantic
import trio
from typing_extensions import TypeVar

from ._asyncio_host import AsyncioHost, host_loop, running_library, thread_has_event_loop
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
    FactsSource,
    Fallback,
    TurnRequest,
    WindowSource,
)
from .errors import ConfigError, GoliathError
from .events import Event, EventCallback
from .memory import InMemory, Memory
from .models import ModelSource, TextSink
from .records import Out, RunResult
from .session import Session
from .snapshot import DEFAULT_RAW_OUTPUT_BYTES
from .streaming import ResultEvent, StreamEvent, TokenEvent
from .tools import Deps, Tool, ToolErrors

if TYPE_CHECKING:
    from actors.cluster import Cluster
    from actors.runtime import Runtime, RuntimeLimits
    from actors.store import Store

__all__ = ["Agent"]

T = TypeVar("T", bound=pydantic.BaseModel)

logger = logging.getLogger("goliath")

CANCEL_GRACE = 10.0
"""Seconds a cancelled caller waits (shielded) for its turn to stop and run its observers."""

MemorySource = Memory | Callable[[str | None], "Memory | Awaitable[Memory]"]
TURN_OPTIONS = frozenset(field.name for field in attrs.fields(AgentConfig))
"""The options a turn reads: the fields of :class:`~goliath.config.AgentConfig`."""
RUNTIME_OPTIONS = frozenset({"memory", "runtime_limits", "store", "cluster"})
"""The options the runtime reads: where conversations live, and how many."""
OPTIONS = TURN_OPTIONS | RUNTIME_OPTIONS
"""Every keyword option of ``Agent(model, ...)``."""


class Agent(Generic[Deps, Out]):
    """An agent for a small local model: tools, memory, confirmation, fallback, extensions.

    Generic in the run's application context (``Deps``: ``Agent.run(context=...)``, what tools
    read as ``ToolContext[Deps].context``) and the structured answer (``Out``: the
    ``output_schema``), so ``Agent(model, output_schema=Weather)`` runs return
    ``RunResult[Weather]``; annotate ``agent: Agent[MyDeps, Weather]`` to fix both.

    Every option after ``model`` is a keyword. Construction checks everything it can
    (:class:`~goliath.errors.ConfigError`); nothing starts until ``async with agent:`` or
    ``agent.run_sync(...)``. The guides in ``docs/`` show each option at work.

    Args:
        model: a :class:`~goliath.models.Model` (something with async ``generate``), a
            zero-argument factory returning one (called when the runtime starts), or a spec
            string in ``--model``'s grammar (``"local"``, ``"openai:URL#model"``, ``"fake:PATH"``),
            built when the runtime starts, so the app imports without the model installed.
        tools: the tools, as an iterable or a mapping (keyed by each tool's own ``name``).
        memory: a :class:`~goliath.memory.Memory` for the default conversation, or a factory
            ``(conversation_id) -> Memory`` for one per conversation; default: in-process.
        fallback: the cloud hand-off, ``(FallbackRequest) -> str`` (sync or async).
        confirm: ``(ConfirmRequest) -> bool | Decision`` (sync or async), asked before writes;
            a sync handler runs in a worker thread. Without one (here or per run) a write is
            declined (``no confirmation handler``) unless ``auto_approve`` is set.
        auto_approve: approve writes when no handler is given (the TypeScript original's
            default); ``requires_confirmation`` tools still decline.
        window: the model's token window, or an (async) callable returning it; default: the
            model's ``window()``, else 4096.
        count_tokens: ``(str) -> int`` (sync or async); default: the model's, else an estimate.
        budgets: :class:`~goliath.Budgets` for tool results and retrieved context.
        max_steps: steps a turn may take before it escalates ``too-many-steps``.
        instructions: the system instructions every stage starts from.
        on_event: called with every trace event of every run.
        facts: ``dict[str, str]`` the conductor knows, or a callable returning one per turn.
        examples: worked plans shown to the conductor.
        tool_retrieval: show the first plan only this many functions that best match the ask
            by name, description and parameters (for toolsets of dozens; ``None``: all of
            them). Measured on 38 functions: a dev gain, no held-out change, more seconds
            (docs/evals.md).
        hand_off_check: before the first plan, ask the model on its own what kind of request
            the ask is, and hand it over when the kind needs the cloud (one short call a turn,
            docs/design.md); ``None``: on for a model that reports option log-probabilities
            (llama.cpp), which its margin was tuned on.
        cloud_needs: the app's own description of what needs the cloud, shown to that check
            instead of the harness's general one.
        hand_off_margin: how much more likely (log-probability) the cloud must be than the
            device before that check hands over (``None``: the tuned default).
        world_check: before the first plan of a question that names nothing a function
            holds, ask the model on its own whether the answer is general knowledge or the
            user's own; general knowledge is answered with no call (one short call for such a
            question, docs/design.md, "The world check"); ``None``: on for a model that
            reports option log-probabilities, which its margin was tuned on.
        world_margin: how much more likely (log-probability) "world" must be than "mine"
            before that check answers without a call (``None``: the tuned default).
        write_intent_check: before each write, ask the model on its own whether the request
            asks for that change; a write it did not ask for is not called (docs/design.md);
            ``None``: on for a model that reports option log-probabilities.
        condition_check: before a write that follows a look-up, ask the model on its own
            whether what was found meets the request's condition ("unless it's already
            there", "if I'm free"); a write whose condition fails is not called
            (docs/design.md); ``None``: on for a model that reports option log-probabilities.
        answer_check: send back once an answer that names nothing the last read returned
            ("You have 6 tasks left.", "Yes, you have unread emails."), asking for what the
            ask wants from the results (docs/design.md); ``None``: on for a model that reports
            option log-probabilities, like the checks (a scripted model needs no extra reply).
        pick_check: when the words of the ask point at another function of the first plan's
            kind than the one it picked, ask the model on its own, between just those two,
            which the ask wants, once in each order, and take the other only when it wins
            both (two short calls where the words disagree; docs/design.md, "The pick
            check"); ``None``: on for a model that reports option log-probabilities, like
            the checks.
        named_pick_check: when the first plan picks a function the ask shares no word with
            and the ask names another of its kind (reads for a read, writes for a write), ask
            the first plan again among the named ones (docs/design.md, "A pick the ask never
            names"); off by default: on the held-out half it lost three asks and won none
            (docs/evals.md, 2026-12-05 fifth session), where dev gained two and lost one.
        extensions: :class:`~goliath.Extension` objects, run in this order.
        output_schema: a pydantic model class for structured answers.
        session_retry_after: seconds before a conversation handed to the fallback probes the
            device again (``None``: never).
        confirm_timeout: seconds a write waits for its confirmation; then it is declined.
        model_timeout: seconds one model call may take once the model started on it.
        tool_timeout: seconds one tool call may take before the step fails.
        raw_output_bytes: the JSON size of a tool's raw output a step keeps (``StepRecord.output``,
            which travels in results, turn records and memory); a larger one is omitted and
            ``output_omitted`` says so (``None``: no cap). The model's summary, and the
            turn's own checks of what a read found, still see it.
        tool_errors: ``"report"``: a tool that raises is a failed step the model reads
            (``error: KeyError: 'Paris'. ...``), logged with its traceback on ``goliath.tools``;
            ``"raise"``: the run raises the tool's own exception (what a test wants).
        runtime_limits: bounds of the runtime (:class:`actors.RuntimeLimits`).
        store: where a daemon keeps memory and turn records (:class:`actors.store.Store`).
        cluster: this node's fleet membership (:class:`actors.cluster.Cluster`).
    """

    def __init__(
        self,
        model: ModelSource,
        *,
        tools: Iterable[Tool] | Mapping[str, Tool] = (),
        memory: MemorySource | None = None,
        fallback: Fallback | None = None,
        confirm: ConfirmHandler | None = None,
        auto_approve: bool = False,
        window: WindowSource | None = None,
        count_tokens: TokenCounter | None = None,
        budgets: Budgets | None = None,
        max_steps: int = DEFAULT_MAX_STEPS,
        instructions: str = DEFAULT_INSTRUCTIONS,
        on_event: EventCallback | None = None,
        facts: FactsSource | None = None,
        examples: Sequence[Mapping[str, Any]] | None = None,
        tool_retrieval: int | None = None,
        hand_off_check: bool | None = None,
        cloud_needs: str | None = None,
        hand_off_margin: float | None = None,
        world_check: bool | None = None,
        world_margin: float | None = None,
        write_intent_check: bool | None = None,
        condition_check: bool | None = None,
        answer_check: bool | None = None,
        pick_check: bool | None = None,
        named_pick_check: bool = False,
        extensions: Sequence[Any] = (),
        output_schema: type[Out] | None = None,
        session_retry_after: float | None = DEFAULT_SESSION_RETRY_AFTER,
        confirm_timeout: float | None = DEFAULT_CONFIRM_TIMEOUT,
        model_timeout: float | None = DEFAULT_MODEL_TIMEOUT,
        tool_timeout: float | None = DEFAULT_TOOL_TIMEOUT,
        raw_output_bytes: int | None = DEFAULT_RAW_OUTPUT_BYTES,
        tool_errors: ToolErrors = "report",
        runtime_limits: RuntimeLimits | None = None,
        store: Store | None = None,
        cluster: Cluster | None = None,
    ) -> None:
        options = {name: value for name, value in locals().items() if name in OPTIONS}
        model = _checked_model(model)
        _check_tools_argument(tools)
        _check_handler("confirm", confirm)
        _check_handler("fallback", fallback)
        _check_handler("on_event", on_event)
        self.model: Any = model
        self._options = options
        self.config = self._config_for(model)
        _warn_if_writes_fail_closed(self.config)
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
        self._runtime: Runtime | None = None
        self._exit_stack: contextlib.AsyncExitStack | None = None
        self._nursery: trio.Nursery | None = None
        self._host: AsyncioHost | None = None
        self._observers: trio.Nursery | None = None
        """Where an async ``on_event`` runs under Trio (its tasks finish before the agent stops)."""

    def _config_for(self, model: Any) -> AgentConfig:
        """The turn options, with the window and token counter of ``model`` unless given."""
        turn_options = {name: self._options[name] for name in TURN_OPTIONS}
        if turn_options["window"] is None:
            turn_options["window"] = _model_window(model)
        if turn_options["count_tokens"] is None:
            turn_options["count_tokens"] = _model_counter(model)
        for check in (
            "hand_off_check",
            "world_check",
            "write_intent_check",
            "condition_check",
            "answer_check",
            "pick_check",
        ):
            if turn_options[check] is None:
                turn_options[check] = _model_scores(model)
        return AgentConfig(**turn_options)

    @contextlib.contextmanager
    def override(self, *, model: ModelSource) -> Iterator[Self]:
        """Run this agent on another ``model`` inside the block (a test's ``TestModel``).

        For an agent built elsewhere (a module-level ``agent`` an app imports): ``with
        app.agent.override(model=TestModel()): ...`` runs ``run_sync`` or ``async with agent:``
        on the test model, and the agent's own model is back after the block.

        Raises:
            GoliathError: the agent is running (its model worker holds the model it started
                with); enter the override before ``async with agent:``.
        """
        if self._runtime is not None or self._host is not None:
            raise GoliathError(
                "agent.override(model=...) cannot swap the model of a running agent; enter "
                "the override first, then `async with agent:` (or call run_sync) inside it."
            )
        replacement = _checked_model(model)
        saved = (self.model, self.config)
        self.model, self.config = replacement, self._config_for(replacement)
        try:
            yield self
        finally:
            self.model, self.config = saved

    def with_options(self, **changes: Any) -> Agent[Any, Any]:
        """A new agent with the same options except ``changes`` (e.g. another ``memory``)."""
        unknown = set(changes) - OPTIONS - {"model"}
        if unknown:
            raise ConfigError(f"Agent has no option(s) {sorted(unknown)}.")
        model = changes.pop("model", self.model)
        with runs_bring_confirm():  # this agent already said so, once, if it had to
            return Agent(model, **{**self._options, **changes})

    # ---------------------------------------------------------------- lifecycle

    @property
    def runtime(self) -> Runtime | None:
        """The running :class:`actors.Runtime` (for transports); ``None`` when not started."""
        return self._runtime

    @property
    def tools(self) -> Mapping[str, Tool]:
        return self.config.tools

    async def __aenter__(self) -> Self:
        """Start the runtime: under Trio in a nursery of the caller's task; under asyncio
        (FastAPI, Jupyter) as a Trio guest run inside the running asyncio loop."""
        if self._exit_stack is not None or self._host is not None:
            raise GoliathError(
                "This agent is already running; `async with agent:` cannot be nested."
            )
        if running_library() == "asyncio":
            host = AsyncioHost()
            await host.start(self._running)
            self._host = host
            return self
        await self._start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        host = self._host
        if host is not None:
            self._host = None
            await host.stop()
            return None
        await self._stop(exc_type, exc, tb)
        return None

    @contextlib.asynccontextmanager
    async def _running(self) -> AsyncIterator[None]:
        """The runtime, started and stopped inside a Trio run (the asyncio host's guest)."""
        await self._start()
        try:
            yield
        except BaseException as exc:
            await self._stop(type(exc), exc, exc.__traceback__)
            raise
        await self._stop(None, None, None)

    def _hosted_config(self) -> AgentConfig:
        """The config a runtime runs with: under an asyncio host, the application's coroutine
        functions (tools, confirm, fallback, hooks, facts, on_event) run on the host loop."""
        loop = host_loop()
        config = self.config
        if loop is None:
            on_event = self._trio_event_callback(config.on_event)
            return (
                config if on_event is config.on_event else attrs.evolve(config, on_event=on_event)
            )
        from ._asyncio_host import event_on_host, extension_on_host, on_host, tool_on_host

        changes: dict[str, Any] = {
            "tools": {name: tool_on_host(tool, loop) for name, tool in config.tools.items()},
            "confirm": on_host(config.confirm, loop),
            "fallback": on_host(config.fallback, loop),
            "on_event": event_on_host(config.on_event, loop),
            "extensions": tuple(extension_on_host(item, loop) for item in config.extensions),
        }
        if callable(config.facts):
            changes["facts"] = on_host(config.facts, loop)
        for name in ("window", "count_tokens"):  # the model's own stay on Trio
            if self._options[name] is not None:
                changes[name] = on_host(getattr(config, name), loop)
        return attrs.evolve(config, **changes)

    async def _start(self) -> None:
        from actors.runtime import Runtime, RuntimeLimits

        model = _guarded(self.model)

        stack = contextlib.AsyncExitStack()
        observers = await stack.enter_async_context(trio.open_nursery())  # closed last: waited
        self._observers = observers
        nursery = await stack.enter_async_context(trio.open_nursery())
        cluster = self._cluster
        runtime = Runtime(
            config=self._hosted_config(),
            model=model,
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

    async def _stop(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
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

    async def _make_session(self, conversation_id: str | None) -> Session:
        memory = self._memory
        if memory is None and self._store is not None:
            from actors.store import StoreMemory

            fence = self._cluster.fence if self._cluster is not None else None
            resolved: Any = StoreMemory(self._store, conversation_id, fence)
        elif memory is None:
            resolved = InMemory()
        elif self._memory_is_factory:
            factory: Any = memory
            loop = host_loop()
            if loop is not None:
                from ._asyncio_host import on_host

                factory = on_host(factory, loop)
            resolved = await maybe_await(factory(conversation_id))
            if not _is_memory(resolved):
                raise ConfigError(
                    f"The memory factory returned {resolved!r} for conversation "
                    f"{conversation_id!r}; it must return a Memory (async load/save)."
                )
        else:
            resolved = memory
        loop = host_loop()
        if loop is not None:  # the application's store runs on the host loop
            from ._asyncio_host import memory_on_host

            resolved = memory_on_host(resolved, loop)
        return Session(memory=resolved, conversation_id=conversation_id)

    # ---------------------------------------------------------------- runs

    @overload
    async def run(
        self,
        ask: str,
        *,
        conversation_id: str | None = None,
        confirm: ConfirmHandler | None = None,
        output_schema: None = None,
        on_event: EventCallback | None = None,
        context: Deps | None = None,
        turn_id: str | None = None,
    ) -> RunResult[Out]: ...

    @overload
    async def run(
        self,
        ask: str,
        *,
        conversation_id: str | None = None,
        confirm: ConfirmHandler | None = None,
        output_schema: type[T],
        on_event: EventCallback | None = None,
        context: Deps | None = None,
        turn_id: str | None = None,
    ) -> RunResult[T]: ...

    async def run(
        self,
        ask: str,
        *,
        conversation_id: str | None = None,
        confirm: ConfirmHandler | None = None,
        output_schema: type[pydantic.BaseModel] | None = None,
        on_event: EventCallback | None = None,
        context: Deps | None = None,
        turn_id: str | None = None,
    ) -> RunResult[Any]:
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
        if running_library() == "asyncio" and self._host is not None:
            return await self._host.call(
                self.run,
                ask,
                conversation_id=conversation_id,
                confirm=confirm,
                output_schema=output_schema,
                on_event=on_event,
                context=context,
                turn_id=turn_id,
            )
        request = self._request(
            ask,
            conversation_id=conversation_id,
            confirm=confirm,
            output_schema=output_schema,
            on_event=on_event,
            context=context,
            turn_id=turn_id,
        )
        runtime = self._started("run")
        ticket = await runtime.submit(request)
        try:
            await ticket.done.wait()
        except trio.Cancelled:
            runtime.cancel(ticket.turn_id, "caller cancelled")
            with trio.CancelScope(shield=True) as scope:
                scope.deadline = trio.current_time() + CANCEL_GRACE
                await ticket.done.wait()
            raise
        return ticket.unwrap()

    async def run_stream(
        self,
        ask: str,
        *,
        conversation_id: str | None = None,
        confirm: ConfirmHandler | None = None,
        output_schema: type[pydantic.BaseModel] | None = None,
        on_event: EventCallback | None = None,
        context: Deps | None = None,
        turn_id: str | None = None,
    ) -> AsyncIterator[StreamEvent]:
        """Run one turn and yield its events as they happen, then its result.

        ``async for event in agent.run_stream(ask):`` sees each trace event, the prose answer's
        text in :class:`~goliath.streaming.TokenEvent` pieces while the model writes it (from
        models that stream: llama.cpp, OpenAI-compatible servers, Apple's model), and last a
        :class:`~goliath.streaming.ResultEvent` holding the :class:`~goliath.RunResult`. The
        options are :meth:`run`'s. Works under Trio and, after ``async with agent:``, asyncio.

        Raises: what :meth:`run` raises, from the iteration (a failed turn raises its error
        where the result would have been).

        Cancellation: leaving the loop early (``break``), or cancelling the iterating task,
        cancels the turn.
        """
        options: dict[str, Any] = {
            "conversation_id": conversation_id,
            "confirm": confirm,
            "output_schema": output_schema,
            "on_event": on_event,
            "context": context,
            "turn_id": turn_id,
        }
        if running_library() == "asyncio" and self._host is not None:
            async for item in self._host.stream(lambda: self._stream(ask, options)):
                yield item
            return
        async for item in self._stream(ask, options):
            yield item

    async def _stream(self, ask: str, options: dict[str, Any]) -> AsyncIterator[StreamEvent]:
        send, receive = trio.open_memory_channel[StreamEvent](math.inf)
        _, user_on_event = self._run_callables(None, options.pop("on_event"))

        def on_event(event: Event) -> None:
            send.send_nowait(event)
            if user_on_event is not None:
                user_on_event(event)

        def on_token(text: str) -> None:
            send.send_nowait(TokenEvent(text=text))

        request = self._request(ask, on_event=on_event, on_token=on_token, **options)
        runtime = self._started("run_stream")
        nursery = self._nursery
        assert nursery is not None
        ticket = await runtime.submit(request)

        async def close_when_done() -> None:
            await ticket.done.wait()
            send.close()

        nursery.start_soon(close_when_done)
        try:
            async for item in receive:
                yield item
            yield ResultEvent(result=ticket.unwrap())
        finally:
            if not ticket.done.is_set():
                runtime.cancel(ticket.turn_id, "the stream was closed")

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
        on_token: TextSink | None = None,
    ) -> TurnRequest:
        confirm, on_event = self._run_callables(confirm, on_event)
        request = TurnRequest(
            ask=ask,
            turn_id=turn_id or uuid.uuid4().hex,
            conversation_id=conversation_id,
            context=context,
            confirm=confirm,
            output_schema=output_schema,
            on_event=on_event,
            on_token=on_token,
        )
        if conversation_id is not None and self._memory is not None and not self._memory_is_factory:
            raise ConfigError(
                "Named conversations require a memory factory: pass "
                "memory=lambda conversation_id: ... so each conversation gets its own Memory. "
                "A single Memory object serves only the default conversation."
            )
        return request

    def _run_callables(
        self, confirm: ConfirmHandler | None, on_event: EventCallback | None
    ) -> tuple[ConfirmHandler | None, EventCallback | None]:
        """A run's own confirm handler and event callback, where their author expects them:
        coroutines on the asyncio host loop; an async ``on_event`` scheduled, never dropped."""
        loop = host_loop()
        if loop is not None:
            from ._asyncio_host import event_on_host, on_host

            return on_host(confirm, loop), event_on_host(on_event, loop)
        return confirm, self._trio_event_callback(on_event)

    def _trio_event_callback(self, on_event: EventCallback | None) -> EventCallback | None:
        """Under Trio, an async ``on_event`` runs as a task of the runtime's nursery (the turn
        calls callbacks synchronously); its failure is logged, as events are observations."""
        from .tools import is_async_callable

        if on_event is None or not is_async_callable(on_event):
            return on_event
        callback: Any = on_event

        async def observe(event: Event) -> None:
            try:
                await callback(event)
            except Exception:
                logger.warning("an async on_event callback failed", exc_info=True)

        def schedule(event: Event) -> None:
            observers = self._observers
            if observers is not None:
                observers.start_soon(observe, event)

        return schedule

    def _started(self, method: str) -> Runtime:
        runtime = self._runtime
        if runtime is None:
            raise GoliathError(
                f"agent.{method}() was called before the runtime started. Wrap your calls in "
                "`async with agent:` (under Trio or asyncio), or call agent.run_sync(...) from "
                "synchronous code."
            )
        return runtime

    def run_sync(
        self,
        ask: str,
        *,
        conversation_id: str | None = None,
        confirm: ConfirmHandler | None = None,
        output_schema: type[pydantic.BaseModel] | None = None,
        on_event: EventCallback | None = None,
        context: Deps | None = None,
        turn_id: str | None = None,
    ) -> RunResult[Out]:
        """Start Trio and the runtime, run one turn, stop. For scripts and the REPL.

        Takes :meth:`run`'s options. In-process memory survives between calls on the same
        agent. Called from inside a running event loop (a notebook cell, an asyncio app) it runs
        Trio in a worker thread and blocks that loop until the turn ends; there, prefer
        ``async with agent:`` and ``await agent.run(...)``, which keep the loop serving and run
        the app's coroutines on it.
        """

        async def main() -> RunResult[Any]:
            async with self:
                return await self.run(
                    ask,
                    conversation_id=conversation_id,
                    confirm=confirm,
                    output_schema=output_schema,
                    on_event=on_event,
                    context=context,
                    turn_id=turn_id,
                )

        if thread_has_event_loop():  # a notebook's loop, or a Trio run: Trio runs in a thread
            import concurrent.futures

            with concurrent.futures.ThreadPoolExecutor(1, "goliath-run-sync") as pool:
                threaded: RunResult[Out] = pool.submit(trio.run, main).result()
            return threaded
        result: RunResult[Out] = trio.run(main)
        return result

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


_RUNS_BRING_CONFIRM: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "goliath_runs_bring_confirm", default=False
)


@contextlib.contextmanager
def runs_bring_confirm() -> Iterator[None]:
    """Agents built inside say nothing about writes failing closed: whoever builds them here
    (``goliath serve``, ``goliath run --agent``) gives each run a confirm handler, so the
    warning would be false."""
    token = _RUNS_BRING_CONFIRM.set(True)
    try:
        yield
    finally:
        _RUNS_BRING_CONFIRM.reset(token)


def _warn_if_writes_fail_closed(config: AgentConfig) -> None:
    """One warning for an agent whose writes will all be declined unless each run brings a
    confirm handler (docs/design.md, D13)."""
    if config.confirm is not None or config.auto_approve or _RUNS_BRING_CONFIRM.get():
        return
    writes = sorted(name for name, tool in config.tools.items() if tool.writes)
    if writes:
        logger.warning(
            "Agent has write tools (%s) but neither confirm= nor auto_approve=True: each write "
            "is declined ('no confirmation handler') unless its run brings a confirm handler "
            "(as the daemon's runs do).",
            ", ".join(writes),
        )


def _is_memory(value: object) -> bool:
    return callable(getattr(value, "load", None)) and callable(getattr(value, "save", None))


def _model_window(model: object) -> WindowSource:
    window = getattr(model, "window", None)
    if callable(window) and hasattr(model, "generate"):
        return window  # type: ignore[no-any-return]
    return DEFAULT_WINDOW


def _model_scores(model: object) -> bool:
    """Whether ``model`` reports option log-probabilities (``scores_options``)."""
    return getattr(model, "scores_options", False) is True and hasattr(model, "generate")


def _model_counter(model: object) -> TokenCounter | None:
    counter = getattr(model, "count_tokens", None)
    if callable(counter) and hasattr(model, "generate"):
        return counter  # type: ignore[no-any-return]
    return None


def _checked_model(model: Any) -> Any:
    """A model, a factory of one, or a spec (made a :class:`~goliath.resolve.LazyModel`)."""
    if isinstance(model, str):
        from .resolve import LazyModel

        return LazyModel(model)
    if isinstance(model, type):
        made = "()" if hasattr(model, "generate") else "(...)"
        raise ConfigError(
            f"model is the class {model.__qualname__}, not a model: pass an instance, "
            f"Agent({model.__qualname__}{made}, ...), or a spec string such as 'local'."
        )
    if model is None or not (hasattr(model, "generate") or callable(model)):
        raise ConfigError(
            f"model must be a goliath.models.Model (something with async generate()), a "
            f"zero-argument factory returning one, or a spec such as 'local'; got {model!r}."
        )
    return model


def _check_tools_argument(tools: Any) -> None:
    """``tools=one_tool`` (a Tool, not a list of them) is a common slip: say the fix."""
    if isinstance(tools, Tool) or (callable(tools) and not isinstance(tools, Mapping)):
        shown = getattr(tools, "name", None) or getattr(tools, "__name__", repr(tools))
        raise ConfigError(
            f"tools must be a list (or mapping) of tools; got the single {shown!r}. Write "
            f"tools=[{shown}]."
        )
    if isinstance(tools, (str, bytes)):
        raise ConfigError(f"tools must be a list of Tool objects, got the string {tools!r}.")


def _check_handler(name: str, handler: Any) -> None:
    if handler is not None and not callable(handler):
        hint = (
            " For approving every write use auto_approve=True; confirm= takes a function "
            "(ConfirmRequest) -> bool."
            if name == "confirm"
            else ""
        )
        raise ConfigError(f"{name} must be a function, got {handler!r}.{hint}")


def _guarded(model: Any) -> Any:
    """The model, checked against the test guard (``goliath.testing.forbid_model_requests``):
    a model or spec now, a factory's model each time it makes one."""
    from .resolve import LazyModel
    from .testing import check_model_allowed, requests_forbidden

    if not requests_forbidden():
        return model
    if hasattr(model, "generate"):
        check_model_allowed(model.spec if isinstance(model, LazyModel) else model)
        return model

    def checked_factory() -> Any:
        made = model()
        check_model_allowed(made)
        return made

    return checked_factory
