"""The bridge for asyncio hosts: the agents' Trio runtime as a guest inside a running asyncio loop.

Trio's guest mode (``trio.lowlevel.start_guest_run``) runs a Trio run on top of another event
loop, in the same thread: Trio's tasks and asyncio's callbacks take turns. Each asyncio loop
has at most one such guest run (:class:`_Guest`), shared by every agent started in it; an
agent's runtime is a task of that run (:class:`AsyncioHost`).

Both directions cross here:

- asyncio → Trio: :meth:`AsyncioHost.call` (or :meth:`AsyncioHost.stream`) runs a Trio
  function as a task of the guest run; its outcome comes back as an asyncio future, and
  cancelling the asyncio caller cancels the Trio task.
- Trio → asyncio: :func:`on_host` wraps the application's own coroutine functions (tools,
  confirm handlers, memory stores, hooks, the fallback, ``on_event``) so that, called from the
  runtime, they run as asyncio tasks on the host loop, where their asyncpg pools, aiohttp
  sessions and asyncio queues live; the result (or exception) is handed back to the Trio
  task, and cancelling that Trio task cancels the asyncio task and waits for it to unwind.

The maintained bridges do not do this: trio-asyncio runs an asyncio loop *inside* Trio (a
second loop, not the application's), and anyio's ``from_thread``/``to_thread`` cross threads,
not two libraries sharing one. Not public API: ``Agent`` uses it under asyncio.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import logging
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

import outcome
import trio

from .errors import GoliathError

__all__ = ["AsyncioHost", "host_loop", "on_host", "running_library", "thread_has_event_loop"]

T = TypeVar("T")
_END = object()
logger = logging.getLogger("goliath")

_HOST_LOOP: trio.lowlevel.RunVar[asyncio.AbstractEventLoop | None] = trio.lowlevel.RunVar(
    "goliath_host_loop", default=None
)
"""The asyncio loop a Trio run is the guest of (``None`` in a plain ``trio.run``)."""


def running_library() -> str:
    """``"trio"`` or ``"asyncio"``: the async library of the calling task.

    Raises:
        GoliathError: called outside both (another async library, or no event loop at all).
    """
    import sniffio

    try:
        library = sniffio.current_async_library()
    except sniffio.AsyncLibraryNotFoundError:
        library = "none"
    if library not in ("trio", "asyncio"):
        raise GoliathError(
            f"Goliath runs under Trio, or inside an asyncio event loop through Trio's guest "
            f"mode; this code runs under {library!r}. Call it from a Trio or asyncio task, or "
            "use agent.run_sync(...) from synchronous code."
        )
    return library


def thread_has_event_loop() -> bool:
    """Whether this thread runs an asyncio loop (a notebook's) or a Trio run, so a blocking
    ``trio.run`` here would either stall that loop's own callbacks or nest a Trio run."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        return True
    try:
        trio.lowlevel.current_trio_token()
    except RuntimeError:
        return False
    return True


def host_loop() -> asyncio.AbstractEventLoop | None:
    """The asyncio loop hosting the current Trio run, or ``None`` (plain Trio, or no Trio)."""
    try:
        return _HOST_LOOP.get()
    except RuntimeError:  # not inside a Trio run
        return None


# ---------------------------------------------------------------- Trio → asyncio


async def run_on_host(
    loop: asyncio.AbstractEventLoop, function: Callable[..., Awaitable[T]], *args: Any, **kw: Any
) -> T:
    """Run ``await function(*args, **kw)`` as an asyncio task on ``loop``; its result here.

    Called from a Trio task of the guest run. Cancelling the Trio task cancels the asyncio
    task and waits (shielded) for it to finish unwinding, so its ``finally`` blocks run before
    the turn goes on; the asyncio task being cancelled by anything else is an error here.
    """
    token = trio.lowlevel.current_trio_token()
    done = trio.Event()

    async def body() -> T:
        return await function(*args, **kw)

    task = loop.create_task(body())
    task.add_done_callback(lambda _task: token.run_sync_soon(done.set))
    try:
        await done.wait()
    except trio.Cancelled:
        task.cancel()
        with trio.CancelScope(shield=True):
            await done.wait()
        raise
    if task.cancelled():
        raise GoliathError(
            f"{getattr(function, '__qualname__', function)!r} was cancelled on the asyncio "
            "loop while the agent waited for it."
        )
    return task.result()


def on_host(function: Any, loop: asyncio.AbstractEventLoop) -> Any:
    """``function``, but a coroutine function's calls run on the host ``loop`` (see
    :func:`run_on_host`). Sync callables are returned as they are: the runtime already runs
    the blocking ones (tools, confirm handlers) in worker threads."""
    from .tools import is_async_callable

    if function is None or not callable(function) or not is_async_callable(function):
        return function
    if getattr(function, "__goliath_on_host__", None) is loop:
        return function

    @functools.wraps(function)
    async def hosted(*args: Any, **kwargs: Any) -> Any:
        return await run_on_host(loop, function, *args, **kwargs)

    hosted.__goliath_on_host__ = loop  # type: ignore[attr-defined]
    return hosted


def event_on_host(callback: Any, loop: asyncio.AbstractEventLoop) -> Any:
    """An ``on_event`` callback, made safe to call synchronously from the runtime: an async
    one becomes a task on the host loop (its failure is logged: events are observations)."""
    from .tools import is_async_callable

    if callback is None or not is_async_callable(callback):
        return callback

    def schedule(event: Any) -> None:
        task = loop.create_task(callback(event))
        task.add_done_callback(_log_failure)

    return schedule


def _log_failure(task: asyncio.Task[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:
        logger.warning("an async on_event callback failed", exc_info=task.exception())


# ---------------------------------------------------------------- the shared guest run


_GUESTS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Guest] = weakref.WeakKeyDictionary()


class _Guest:
    """The one Trio guest run of an asyncio loop: started by its first agent, ended by its last."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.token: trio.lowlevel.TrioToken | None = None
        self.nursery: trio.Nursery | None = None
        self.users = 0
        self._stop: trio.Event | None = None
        self._finished: asyncio.Future[outcome.Outcome[None]] = loop.create_future()
        self._ready: asyncio.Future[None] = loop.create_future()

    @classmethod
    async def join(cls) -> _Guest:
        """The running loop's guest run (started now if it has none), counted as one more user."""
        loop = asyncio.get_running_loop()
        guest = _GUESTS.get(loop)
        if guest is None or guest._finished.done():
            guest = cls(loop)
            _GUESTS[loop] = guest
            guest._start()
        guest.users += 1
        try:
            await asyncio.shield(guest._ready)
        except BaseException:
            await guest.leave()
            raise
        return guest

    def _start(self) -> None:
        loop, ready, finished = self.loop, self._ready, self._finished

        async def main() -> None:
            _HOST_LOOP.set(loop)
            self.token = trio.lowlevel.current_trio_token()
            self._stop = trio.Event()
            async with trio.open_nursery() as nursery:
                self.nursery = nursery
                loop.call_soon_threadsafe(_settle, ready, None, None)
                await self._stop.wait()
                nursery.cancel_scope.cancel()

        def done(result: outcome.Outcome[None]) -> None:
            def settle() -> None:
                if not ready.done():
                    error = result.error if isinstance(result, outcome.Error) else None
                    _settle(ready, None, error or GoliathError("the Trio guest run stopped"))
                if not finished.done():
                    finished.set_result(result)

            loop.call_soon_threadsafe(settle)

        trio.lowlevel.start_guest_run(
            main,
            run_sync_soon_threadsafe=loop.call_soon_threadsafe,
            done_callback=done,
            host_uses_signal_set_wakeup_fd=True,
        )

    def spawn(self, task: Callable[[], Awaitable[None]]) -> None:
        nursery, token = self.nursery, self.token
        assert nursery is not None and token is not None
        token.run_sync_soon(nursery.start_soon, task)

    def cancel(self, scope: trio.CancelScope) -> None:
        if self.token is not None:
            with contextlib.suppress(trio.RunFinishedError):
                self.token.run_sync_soon(scope.cancel)

    async def leave(self) -> None:
        """One user fewer; the last one ends the guest run (and raises what it raised)."""
        self.users -= 1
        if self.users > 0:
            return
        if _GUESTS.get(self.loop) is self:
            del _GUESTS[self.loop]
        if self.token is not None and self._stop is not None:
            with contextlib.suppress(trio.RunFinishedError):
                self.token.run_sync_soon(self._stop.set)
        result = await asyncio.shield(self._finished)
        result.unwrap()


class AsyncioHost:
    """One agent's runtime, held open as a task of its loop's shared Trio guest run."""

    def __init__(self) -> None:
        self._guest: _Guest | None = None
        self._stop: trio.Event | None = None
        self._finished: asyncio.Future[BaseException | None] | None = None

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        return self._guest.loop if self._guest is not None else None

    async def start(
        self, context: Callable[[], contextlib.AbstractAsyncContextManager[Any]]
    ) -> None:
        """Join the loop's guest run and enter ``context()`` in a task of it; return once it
        is entered. Raises whatever entering the context raised."""
        guest = await _Guest.join()
        loop = guest.loop
        ready: asyncio.Future[None] = loop.create_future()
        finished: asyncio.Future[BaseException | None] = loop.create_future()
        stop = trio.Event()

        async def hold() -> None:
            error: BaseException | None = None
            try:
                async with context():
                    loop.call_soon_threadsafe(_settle, ready, None, None)
                    await stop.wait()
            except BaseException as exc:  # handed to the asyncio side, never lost
                error = exc
            loop.call_soon_threadsafe(_settle, ready, None, error or GoliathError("stopped"))
            loop.call_soon_threadsafe(_settle, finished, error, None)

        guest.spawn(hold)
        try:
            await ready
        except BaseException:
            with contextlib.suppress(BaseException):
                await asyncio.shield(finished)
            await guest.leave()
            raise
        self._guest, self._stop, self._finished = guest, stop, finished

    async def stop(self) -> None:
        """Leave the context (the runtime drains), then the guest run; raise what failed."""
        guest, stop, finished = self._guest, self._stop, self._finished
        assert guest is not None and stop is not None and finished is not None
        self._guest = self._stop = self._finished = None
        assert guest.token is not None
        guest.token.run_sync_soon(stop.set)
        error = await asyncio.shield(finished)
        await guest.leave()
        if error is not None:
            raise error

    def _check_loop(self) -> _Guest:
        guest = self._guest
        if guest is None or guest.token is None:
            raise GoliathError("The agent is not running; use `async with agent:` first.")
        if asyncio.get_running_loop() is not guest.loop:
            raise GoliathError(
                "This agent was started in another asyncio event loop; start and use it in "
                "the same loop (`async with agent:` in the loop that runs it)."
            )
        return guest

    async def call(self, function: Callable[..., Awaitable[T]], *args: Any, **kwargs: Any) -> T:
        """Run ``await function(*args, **kwargs)`` as a Trio task; its result or exception here.

        Cancellation: cancelling the asyncio caller cancels the Trio task.
        """
        guest = self._check_loop()
        loop = guest.loop
        future: asyncio.Future[T] = loop.create_future()
        scope = trio.CancelScope()

        async def task() -> None:
            settled = False
            try:
                with scope:
                    value = await function(*args, **kwargs)
                    loop.call_soon_threadsafe(_settle, future, value, None)
                    settled = True
            except Exception as exc:
                loop.call_soon_threadsafe(_settle, future, None, exc)
                settled = True
            finally:
                if not settled:  # cancelled: by the caller, or the agent is stopping
                    loop.call_soon_threadsafe(future.cancel)

        guest.spawn(task)
        try:
            return await future
        except asyncio.CancelledError:
            guest.cancel(scope)
            raise

    async def stream(self, generator: Callable[[], AsyncIterator[T]]) -> AsyncIterator[T]:
        """Iterate a Trio async generator from asyncio, item by item as it yields them.

        Closing the asyncio iterator early (``break``) closes the Trio generator.
        """
        guest = self._check_loop()
        loop = guest.loop
        queue: asyncio.Queue[Any] = asyncio.Queue()
        scope = trio.CancelScope()

        async def task() -> None:
            try:
                with scope:
                    items = generator()
                    try:
                        async for item in items:
                            loop.call_soon_threadsafe(queue.put_nowait, item)
                    finally:
                        aclose = getattr(items, "aclose", None)
                        if aclose is not None:
                            await aclose()
                loop.call_soon_threadsafe(queue.put_nowait, _END)
            except Exception as exc:
                loop.call_soon_threadsafe(queue.put_nowait, _Raised(exc))
            finally:
                if scope.cancelled_caught:
                    loop.call_soon_threadsafe(queue.put_nowait, _END)

        guest.spawn(task)
        try:
            while True:
                item = await queue.get()
                if item is _END:
                    return
                if isinstance(item, _Raised):
                    raise item.error
                yield item
        finally:
            guest.cancel(scope)


class _Raised:
    def __init__(self, error: BaseException) -> None:
        self.error = error


def _settle(future: asyncio.Future[Any], value: Any, error: BaseException | None) -> None:
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(value)


# ---------------------------------------------------------------- what is the application's


_NATIVE_PACKAGES = frozenset({"goliath", "actors", "transports"})


def is_trio_native(value: Any) -> bool:
    """Whether ``value`` is Goliath's own (written for Trio: its filesystem tools, memory
    stores, extensions), as opposed to the application's, which runs on the host loop."""
    while isinstance(value, functools.partial):
        value = value.func
    value = getattr(value, "__wrapped__", value)
    module = getattr(value, "__module__", None)
    if not isinstance(module, str) and not isinstance(value, type):
        module = getattr(type(value), "__module__", None)
    return isinstance(module, str) and module.split(".", 1)[0] in _NATIVE_PACKAGES


def tool_on_host(tool: Any, loop: asyncio.AbstractEventLoop) -> Any:
    """A copy of ``tool`` whose coroutine functions run on the host loop (or the tool itself
    when it is Goliath's own or has none)."""
    import attrs

    if is_trio_native(getattr(tool, "__wrapped__", tool.execute)):
        return tool
    changes = {
        name: on_host(getattr(tool, name), loop)
        for name in ("execute", "resolve_input", "to_model_output")
    }
    if all(changes[name] is getattr(tool, name) for name in changes):
        return tool
    hosted = attrs.evolve(tool, **changes)
    wrapped = getattr(tool, "__wrapped__", None)
    if wrapped is not None:
        object.__setattr__(hosted, "__wrapped__", wrapped)
    return hosted


class MemoryOnHost:
    """An application's memory store whose async ``load``/``save`` run on the host loop."""

    def __init__(self, memory: Any, loop: asyncio.AbstractEventLoop) -> None:
        self._memory = memory
        self.load = on_host(memory.load, loop)
        self.save = on_host(memory.save, loop)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._memory, name)


def memory_on_host(memory: Any, loop: asyncio.AbstractEventLoop) -> Any:
    if is_trio_native(memory):
        return memory
    return MemoryOnHost(memory, loop)


class ExtensionOnHost:
    """An application's extension whose async hooks run on the host loop; every other
    attribute (``name``, ``observer_only``, its state) is the extension's own."""

    def __init__(self, extension: Any, hooks: dict[str, Any]) -> None:
        object.__setattr__(self, "_extension", extension)
        self.__dict__.update(hooks)  # found first, as an instance's own hooks are

    def __getattr__(self, name: str) -> Any:
        return getattr(object.__getattribute__(self, "_extension"), name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(object.__getattribute__(self, "_extension"), name, value)


def _hook(extension: Any, phase: str) -> Any:
    """The callable the turn runs for ``phase`` (as ``goliath.turn.hooks`` resolves it): the
    bound method, or a one-argument function written on the class without ``self``."""
    from .extensions import is_default_hook

    hook = getattr(extension, phase, None)
    if hook is None or not callable(hook) or is_default_hook(extension, phase):
        return None
    if phase not in getattr(extension, "__dict__", {}):
        raw = inspect.getattr_static(type(extension), phase, None)
        if inspect.isfunction(raw):
            params = list(inspect.signature(raw).parameters.values())
            if len(params) == 1 and params[0].name not in ("self", "cls"):
                return raw
    return hook


def extension_on_host(extension: Any, loop: asyncio.AbstractEventLoop) -> Any:
    from .extensions import HOOKS

    if isinstance(extension, type) or is_trio_native(extension):
        return extension
    hooks = {}
    for phase in HOOKS:
        hook = _hook(extension, phase)
        hosted = on_host(hook, loop) if hook is not None else None
        if hosted is not None and hosted is not hook:
            hooks[phase] = hosted
    return ExtensionOnHost(extension, hooks) if hooks else extension
