"""The model worker: the one owner of the model bridge.

A small on-device model serves one request at a time, so model calls from every conversation
queue here. The queue is fair — round-robin across conversations — so one chatty conversation
cannot starve the others; a ``CapacityLimiter`` sized to the bridge's slots bounds concurrency;
and a cancelled turn's call is cancelled in the worker (bridges check between tokens), freeing
the model promptly.
"""

from __future__ import annotations

import collections
import contextlib
import inspect
from collections.abc import Awaitable, Callable
from typing import Any, NoReturn

import attrs
import msgspec
import outcome
import trio

from goliath.errors import BusyError, ModelError
from goliath.models import GenerateRequest, Generation, Model, ModelSource, TextSink
from goliath.models.slots import CONVERSATION

from .messages import Generate

__all__ = ["ModelSource", "ModelWorker", "ModelWorkerStatistics", "RunningCall", "StartCall"]

DEFAULT_QUEUE_LIMIT = 10_000
"""Model calls that may wait at once across all conversations before callers get BusyError."""


@attrs.define(eq=False)
class _Job:
    message: Generate
    key: str
    enqueued_at: float
    started: trio.Event = attrs.field(factory=trio.Event)
    done: trio.Event = attrs.field(factory=trio.Event)
    result: outcome.Outcome[Generation] | None = None
    scope: trio.CancelScope | None = None
    abandoned: bool = False
    started_at: float | None = None
    on_text: TextSink | None = None

    def abandon(self) -> None:
        """The caller is gone: drop the call if queued, cancel it in the worker if running."""
        self.abandoned = True
        if self.scope is not None:
            self.scope.cancel()


class RunningCall:
    """A model call the worker has started: its queue wait, and its result to await."""

    def __init__(self, job: _Job) -> None:
        self._job = job
        assert job.started_at is not None
        self.queue_ms = round((job.started_at - job.enqueued_at) * 1000, 3)

    async def result(self) -> Generation:
        """The reply; cancelling the caller cancels the call in the worker."""
        job = self._job
        try:
            await job.done.wait()
        except trio.Cancelled:
            job.abandon()
            raise
        assert job.result is not None
        return msgspec.structs.replace(job.result.unwrap(), queue_ms=self.queue_ms)

    def cancel(self) -> None:
        self._job.abandon()


StartCall = Callable[[GenerateRequest, str, str, TextSink | None], Awaitable[RunningCall]]
"""How an actor starts a model call: ``(request, conversation key, turn id, on_text)``."""


@attrs.frozen
class ModelWorkerStatistics:
    """A snapshot of the worker: queued and running calls, slots, and totals."""

    queued: int
    running: int
    slots: int
    completed: int
    conversations_waiting: int


class ModelWorker:
    """Runs every model call of an agent, fairly, within the bridge's slots."""

    def __init__(
        self,
        model: ModelSource,
        *,
        slots: int = 1,
        queue_limit: int = DEFAULT_QUEUE_LIMIT,
    ) -> None:
        self._source = model
        self._slots = slots
        self._queue_limit = queue_limit
        self._queues: dict[str, collections.deque[_Job]] = {}
        self._ready: collections.deque[str] = collections.deque()
        self._queued = 0
        self._running = 0
        self._completed = 0
        self._wakeup = trio.Event()
        self._limiter: trio.CapacityLimiter | None = None
        self._nursery: trio.Nursery | None = None

    def _model(self) -> Model:
        source: Any = self._source
        if hasattr(source, "generate"):
            return source  # type: ignore[no-any-return]
        return source()  # type: ignore[no-any-return]  # a factory: a fresh model per call

    async def _call(self, request: GenerateRequest, on_text: TextSink | None) -> Generation:
        # A factory that raises fails this one call (a model error), never the worker.
        model = self._model()
        stream = getattr(model, "generate_stream", None)
        if on_text is not None and callable(stream):
            generation: Generation = await stream(request, on_text)
            return generation
        return await model.generate(request)

    async def serve(
        self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> NoReturn:
        """Dispatch queued calls until cancelled. Start with ``await nursery.start(worker.serve)``.

        A model that offers ``async load()`` is loaded first (weights read in a worker thread,
        not during the first user's turn). A model that is not available now (``ModelError``)
        does not stop the runtime: each call then reports it, and turns escalate
        ``model-unavailable`` — availability can change (Apple's model may still be downloading).
        """
        load = getattr(self._source, "load", None)
        if hasattr(self._source, "generate") and callable(load):
            with contextlib.suppress(ModelError):
                result = load()
                if inspect.isawaitable(result):
                    await result
        self._limiter = trio.CapacityLimiter(self._slots)
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            task_status.started()
            while True:
                slot = object()  # the limiter tracks borrowers; each call borrows a fresh one
                await self._limiter.acquire_on_behalf_of(slot)
                job = await self._next_job()
                nursery.start_soon(self._run, job, slot)

    async def _next_job(self) -> _Job:
        while True:
            while self._ready:
                key = self._ready.popleft()
                queue = self._queues[key]
                job = queue.popleft()
                if queue:
                    self._ready.append(key)
                else:
                    del self._queues[key]
                self._queued -= 1
                if not job.abandoned:
                    return job
            self._wakeup = trio.Event()
            await self._wakeup.wait()

    async def _run(self, job: _Job, slot: object) -> None:
        assert self._limiter is not None
        self._running += 1
        job.started_at = trio.current_time()
        job.started.set()
        CONVERSATION.set(job.key)  # this task's own context: a bridge may pin a server slot
        try:
            with trio.CancelScope() as job.scope:
                if job.abandoned:
                    job.scope.cancel()
                job.result = await outcome.acapture(self._call, job.message.request, job.on_text)
        finally:
            self._running -= 1
            self._completed += 1
            self._limiter.release_on_behalf_of(slot)
            job.done.set()

    def _enqueue(
        self,
        request: GenerateRequest,
        conversation: str,
        turn_id: str,
        on_text: TextSink | None = None,
    ) -> _Job:
        if self._nursery is None:
            raise RuntimeError(
                "the model worker is not running; start it with nursery.start(serve)"
            )
        if self._queued >= self._queue_limit:
            raise BusyError(
                f"{self._queued} model calls are already waiting; try again when the load drops."
            )
        job = _Job(
            message=Generate(turn_id=turn_id, request=request, conversation_id=conversation),
            key=conversation,
            enqueued_at=trio.current_time(),
            on_text=on_text,
        )
        queue = self._queues.get(conversation)
        if queue is None:
            queue = self._queues[conversation] = collections.deque()
            self._ready.append(conversation)
        queue.append(job)
        self._queued += 1
        self._wakeup.set()
        return job

    async def start(
        self,
        request: GenerateRequest,
        *,
        conversation: str,
        turn_id: str = "",
        on_text: TextSink | None = None,
    ) -> RunningCall:
        """Queue one call for ``conversation`` and wait until the model starts on it.

        Returns a :class:`RunningCall` (how long it waited, and its result to await). Two phases
        let the turn report the queue wait before the reply arrives. With ``on_text`` a model
        that streams (``generate_stream``) hands it the reply's text as it is generated.

        Cancellation: cancelling the caller drops the queued call.
        """
        job = self._enqueue(request, conversation, turn_id, on_text)
        try:
            await job.started.wait()
        except trio.Cancelled:
            job.abandon()
            raise
        return RunningCall(job)

    async def generate(
        self, request: GenerateRequest, *, conversation: str, turn_id: str = ""
    ) -> Generation:
        """Queue one call for ``conversation`` and wait for its reply.

        Cancellation: cancelling the caller drops a queued call, or cancels a running one in the
        worker (the bridge stops between tokens); the slot is released once the bridge returns.
        """
        call = await self.start(request, conversation=conversation, turn_id=turn_id)
        return await call.result()

    def statistics(self) -> ModelWorkerStatistics:
        return ModelWorkerStatistics(
            queued=self._queued,
            running=self._running,
            slots=self._slots,
            completed=self._completed,
            conversations_waiting=len(self._queues),
        )
