"""The bridge for asyncio hosts: the agent's Trio runtime as a guest inside a running asyncio loop.

Trio's guest mode (``trio.lowlevel.start_guest_run``) runs a Trio run on top of another event
loop, in the same thread: Trio's tasks and asyncio's callbacks take turns. An asyncio caller
hands a Trio function to :meth:`AsyncioHost.call` (or an async generator to
:meth:`AsyncioHost.stream`); it runs as a Trio task in the guest's nursery, and its outcome
comes back as an asyncio future. Cancelling the asyncio caller cancels the Trio task.

Not public API: ``Agent`` uses it when ``async with agent:`` runs under asyncio.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

import outcome
import trio

from .errors import GoliathError

__all__ = ["AsyncioHost", "running_library"]

T = TypeVar("T")
_END = object()


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


class AsyncioHost:
    """A Trio guest run inside the current asyncio loop, holding one async context open."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._token: trio.lowlevel.TrioToken | None = None
        self._nursery: trio.Nursery | None = None
        self._stop: trio.Event | None = None
        self._finished: asyncio.Future[outcome.Outcome[None]] | None = None

    async def start(
        self, context: Callable[[], contextlib.AbstractAsyncContextManager[Any]]
    ) -> None:
        """Start the guest run and enter ``context()`` in it; return once it is entered.

        Raises whatever entering the context raised.
        """
        loop = asyncio.get_running_loop()
        self._loop = loop
        ready: asyncio.Future[None] = loop.create_future()
        finished: asyncio.Future[outcome.Outcome[None]] = loop.create_future()
        self._finished = finished

        async def guest() -> None:
            async with context(), trio.open_nursery() as nursery:
                self._token = trio.lowlevel.current_trio_token()
                self._nursery = nursery
                self._stop = trio.Event()
                loop.call_soon_threadsafe(_settle, ready, None, None)
                await self._stop.wait()
                nursery.cancel_scope.cancel()

        def done(result: outcome.Outcome[None]) -> None:
            def settle() -> None:
                if not ready.done():
                    error = result.error if isinstance(result, outcome.Error) else None
                    _settle(ready, None, error or GoliathError("the runtime stopped at start"))
                if not finished.done():
                    finished.set_result(result)

            loop.call_soon_threadsafe(settle)

        trio.lowlevel.start_guest_run(
            guest,
            run_sync_soon_threadsafe=loop.call_soon_threadsafe,
            done_callback=done,
            host_uses_signal_set_wakeup_fd=True,
        )
        try:
            await ready
        except BaseException:
            with contextlib.suppress(BaseException):
                await asyncio.shield(finished)
            raise

    async def stop(self) -> None:
        """Leave the context, end the guest run, and raise what it raised (if anything)."""
        token, stop, finished = self._token, self._stop, self._finished
        assert token is not None and stop is not None and finished is not None
        token.run_sync_soon(stop.set)
        result = await asyncio.shield(finished)
        self._token = self._nursery = self._stop = None
        result.unwrap()

    def _check_loop(self) -> asyncio.AbstractEventLoop:
        loop = self._loop
        if loop is None or self._token is None:
            raise GoliathError("The agent is not running; use `async with agent:` first.")
        if asyncio.get_running_loop() is not loop:
            raise GoliathError(
                "This agent was started in another asyncio event loop; start and use it in "
                "the same loop (one `async with agent:` per loop)."
            )
        return loop

    async def call(self, function: Callable[..., Awaitable[T]], *args: Any, **kwargs: Any) -> T:
        """Run ``await function(*args, **kwargs)`` as a Trio task; its result or exception here.

        Cancellation: cancelling the asyncio caller cancels the Trio task.
        """
        loop = self._check_loop()
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

        self._spawn(task)
        try:
            return await future
        except asyncio.CancelledError:
            self._cancel(scope)
            raise

    async def stream(self, generator: Callable[[], AsyncIterator[T]]) -> AsyncIterator[T]:
        """Iterate a Trio async generator from asyncio, item by item as it yields them.

        Closing the asyncio iterator early (``break``) closes the Trio generator.
        """
        loop = self._check_loop()
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

        self._spawn(task)
        try:
            while True:
                item = await queue.get()
                if item is _END:
                    return
                if isinstance(item, _Raised):
                    raise item.error
                yield item
        finally:
            self._cancel(scope)

    def _spawn(self, task: Callable[[], Awaitable[None]]) -> None:
        nursery, token = self._nursery, self._token
        assert nursery is not None and token is not None
        token.run_sync_soon(nursery.start_soon, task)

    def _cancel(self, scope: trio.CancelScope) -> None:
        token = self._token
        if token is not None:
            with contextlib.suppress(trio.RunFinishedError):
                token.run_sync_soon(scope.cancel)


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
