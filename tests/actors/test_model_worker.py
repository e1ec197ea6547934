"""The model worker on its own: the one owner of the model, fair across conversations,
bounded, and prompt to stop a call nobody waits for."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest
import trio
import trio.testing

from actors.model_worker import ModelWorker
from goliath.errors import BusyError, ModelError
from goliath.models import GenerateRequest, Generation, ModelSource


def ask(prompt: str) -> GenerateRequest:
    return GenerateRequest(label="test", system="s", prompt=prompt)


class TimedModel:
    """Each call takes one second; the model records what it started, what was cancelled,
    and how many calls ran at once."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.cancelled: list[str] = []
        self.running = 0
        self.peak = 0
        self.loaded = 0

    async def generate(self, request: GenerateRequest) -> Generation:
        self.started.append(request.prompt)
        self.running += 1
        self.peak = max(self.peak, self.running)
        try:
            await trio.sleep(1)
        except trio.Cancelled:
            self.cancelled.append(request.prompt)
            raise
        finally:
            self.running -= 1
        return Generation(text=f"re: {request.prompt}", input_tokens=3, output_tokens=2)


@asynccontextmanager
async def serving(source: ModelSource, **options: Any) -> AsyncIterator[ModelWorker]:
    worker = ModelWorker(source, **options)
    async with trio.open_nursery() as nursery:
        await nursery.start(worker.serve)
        yield worker
        nursery.cancel_scope.cancel()


async def queue_in_order(
    nursery: trio.Nursery, worker: ModelWorker, calls: list[tuple[str, str]], into: list[str]
) -> None:
    """Start one caller per ``(conversation, prompt)``, each queued before the next starts."""

    async def call(conversation: str, prompt: str) -> None:
        generation = await worker.generate(ask(prompt), conversation=conversation)
        into.append(generation.text)

    for conversation, prompt in calls:
        nursery.start_soon(call, conversation, prompt)
        await trio.testing.wait_all_tasks_blocked()


async def test_calls_are_taken_round_robin_across_conversations(autojump_clock: Any) -> None:
    """Behind a busy model, a chatty conversation's three calls do not starve another's one:
    the order is a1, b1, a2, a3."""
    model = TimedModel()
    replies: list[str] = []
    async with serving(model) as worker, trio.open_nursery() as nursery:
        await queue_in_order(
            nursery,
            worker,
            [("z", "busy"), ("a", "a1"), ("a", "a2"), ("a", "a3"), ("b", "b1")],
            replies,
        )
        stats = worker.statistics()
        assert (stats.running, stats.queued, stats.conversations_waiting) == (1, 4, 2)
    assert model.started == ["busy", "a1", "b1", "a2", "a3"]
    assert replies == [f"re: {prompt}" for prompt in model.started]
    assert worker.statistics().completed == 5


async def test_no_more_calls_run_at_once_than_the_bridge_has_slots(autojump_clock: Any) -> None:
    """With two slots, four calls run two at a time: two seconds in all, never three at once."""
    model = TimedModel()
    start = trio.current_time()
    async with serving(model, slots=2) as worker, trio.open_nursery() as nursery:
        await queue_in_order(nursery, worker, [(f"c{n}", f"p{n}") for n in range(4)], [])
    assert model.peak == 2
    assert trio.current_time() - start == pytest.approx(2.0)


async def test_a_full_queue_answers_busy_at_once(autojump_clock: Any) -> None:
    """Past ``queue_limit`` waiting calls, a new one is refused with BusyError, not queued."""
    model = TimedModel()
    async with serving(model, queue_limit=1) as worker, trio.open_nursery() as nursery:
        await queue_in_order(nursery, worker, [("a", "running"), ("b", "waiting")], [])
        before = trio.current_time()
        with pytest.raises(BusyError, match="1 model calls are already waiting"):
            await worker.generate(ask("one too many"), conversation="c")
        assert trio.current_time() == before
    assert model.started == ["running", "waiting"]


async def test_a_worker_that_is_not_serving_refuses_calls() -> None:
    """Calling before ``serve`` started is a bug, said plainly."""
    with pytest.raises(RuntimeError, match="not running"):
        await ModelWorker(TimedModel()).generate(ask("early"), conversation="a")


async def test_the_queue_wait_is_reported_with_the_reply(autojump_clock: Any) -> None:
    """A call that waited one second behind another comes back with queue_ms 1000."""
    model = TimedModel()
    async with serving(model) as worker, trio.open_nursery() as nursery:
        nursery.start_soon(lambda: worker.generate(ask("first"), conversation="a"))
        await trio.testing.wait_all_tasks_blocked()
        second = await worker.generate(ask("second"), conversation="b")
    assert second.queue_ms == pytest.approx(1000.0)
    assert (second.text, second.input_tokens, second.output_tokens) == ("re: second", 3, 2)


async def test_a_queued_call_whose_caller_is_cancelled_never_reaches_the_model(
    autojump_clock: Any,
) -> None:
    """Cancelling a caller while its call waits drops the call; the next one runs instead."""
    model = TimedModel()
    replies: list[str] = []
    async with serving(model) as worker, trio.open_nursery() as nursery:
        await queue_in_order(nursery, worker, [("a", "running")], replies)
        with trio.CancelScope() as dropped:

            async def cancel_once_queued() -> None:
                await trio.testing.wait_all_tasks_blocked()
                assert worker.statistics().queued == 1
                dropped.cancel()

            nursery.start_soon(cancel_once_queued)
            await worker.generate(ask("dropped"), conversation="b")
        await queue_in_order(nursery, worker, [("c", "after")], replies)
    assert dropped.cancelled_caught
    assert model.started == ["running", "after"]
    assert replies == ["re: running", "re: after"]


async def test_a_running_call_whose_caller_is_cancelled_stops_and_frees_the_model(
    autojump_clock: Any,
) -> None:
    """Cancelling the caller cancels the bridge's call in the worker; the slot is freed for the
    next call at once, not after the abandoned call would have finished."""
    model = TimedModel()
    replies: list[str] = []
    async with serving(model) as worker, trio.open_nursery() as nursery:
        with trio.move_on_after(0.25):
            await worker.generate(ask("abandoned"), conversation="a")
        await trio.testing.wait_all_tasks_blocked()
        assert model.cancelled == ["abandoned"]
        assert worker.statistics().running == 0
        started = trio.current_time()
        await queue_in_order(nursery, worker, [("b", "next")], replies)
    assert replies == ["re: next"]
    assert trio.current_time() - started == pytest.approx(1.0)


async def test_a_factory_builds_a_model_per_call_and_its_failure_fails_one_call(
    autojump_clock: Any,
) -> None:
    """A zero-argument factory is called for each call; one that raises fails that call with
    its error, and the worker goes on serving the next."""
    built: list[TimedModel] = []

    def factory() -> TimedModel:
        if not built:
            built.append(TimedModel())
            raise OSError("weights not there yet")
        built.append(TimedModel())
        return built[-1]

    async with serving(factory) as worker:
        with pytest.raises(OSError, match="weights not there yet"):
            await worker.generate(ask("first"), conversation="a")
        second = await worker.generate(ask("second"), conversation="a")
        third = await worker.generate(ask("third"), conversation="a")
    assert (second.text, third.text) == ("re: second", "re: third")
    assert [model.started for model in built[1:]] == [["second"], ["third"]]


class LoadingModel(TimedModel):
    def __init__(self, fails: bool) -> None:
        super().__init__()
        self.fails = fails

    async def load(self) -> None:
        self.loaded += 1
        await trio.sleep(3)
        if self.fails:
            raise ModelError("still downloading")


@pytest.mark.parametrize("fails", [False, True])
async def test_a_model_with_load_is_loaded_before_the_worker_serves(
    autojump_clock: Any, fails: bool
) -> None:
    """``serve`` awaits ``load()`` before it reports started; a load that raises ModelError
    does not stop the worker (each call then meets the model as it is)."""
    model = LoadingModel(fails)
    start = trio.current_time()
    async with serving(model) as worker:
        assert model.loaded == 1 and trio.current_time() - start == pytest.approx(3.0)
        reply = await worker.generate(ask("hi"), conversation="a")
    assert reply.text == "re: hi"


class StreamingModel(TimedModel):
    async def generate_stream(
        self, request: GenerateRequest, on_text: Callable[[str], None]
    ) -> Generation:
        for piece in ("Hel", "lo"):
            await trio.sleep(0.5)
            on_text(piece)
        return Generation(text="Hello", output_tokens=2)


async def test_a_streaming_call_hands_its_text_over_as_it_is_written(autojump_clock: Any) -> None:
    """With ``on_text``, a model that streams gives the pieces as they come, in the caller's
    thread; without it the same model answers with plain ``generate``."""
    model = StreamingModel()
    pieces: list[tuple[str, float]] = []
    async with serving(model) as worker:
        start = trio.current_time()
        running = await worker.start(
            ask("stream"),
            conversation="a",
            on_text=lambda text: pieces.append((text, trio.current_time() - start)),
        )
        streamed = await running.result()
        plain = await worker.generate(ask("plain"), conversation="a")
    assert pieces == [("Hel", 0.5), ("lo", 1.0)]
    assert streamed.text == "".join(text for text, _ in pieces)
    assert plain.text == "re: plain" and model.started == ["plain"]
