"""In-process transport: memory channels straight to a runtime (our ``ASGITransport``)."""

from __future__ import annotations

import math
from collections.abc import AsyncIterator
from typing import Any

import trio

from actors.messages import Failure, Inbound, Outbound, Run
from actors.runtime import RequestError, Runtime

from .base import TERMINAL, Transport

__all__ = ["InProcTransport", "replies"]


def _runtime(target: Any) -> Runtime:
    runtime = getattr(target, "runtime", target)
    if not isinstance(runtime, Runtime):
        raise TypeError(
            f"Expected a running Agent or an actors.Runtime, got {target!r}. "
            "Start the agent with `async with agent:` first."
        )
    return runtime


async def replies(runtime: Runtime, message: Inbound) -> AsyncIterator[Outbound]:
    """Hand ``message`` to ``runtime`` and yield its replies until the terminal one.

    The runtime takes the request before the first reply is yielded (a run is queued, its
    replies wait in an unbounded channel), so no task is left behind the generator: a caller
    that stops reading early (a refusal it raises on) closes it cleanly.
    """
    send, receive = trio.open_memory_channel[Outbound](math.inf)
    try:
        await runtime.handle(message, send.send_nowait)
    except RequestError as exc:
        send.send_nowait(Failure(turn_id=message.turn_id, code=exc.code, message=exc.message))
    async with receive:
        async for reply in receive:
            yield reply
            if reply.type in TERMINAL and (
                not isinstance(message, Run) or reply.turn_id == message.turn_id
            ):
                break


class InProcTransport(Transport):
    """Talks to an agent (or runtime) in the same process, with no sockets."""

    def __init__(self, target: Any) -> None:
        self._target = target

    def send(self, message: Inbound) -> AsyncIterator[Outbound]:
        return replies(_runtime(self._target), message)
