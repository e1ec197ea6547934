"""A bounded single-consumer mailbox, small enough for ten thousand idle actors.

A Trio memory channel costs two deques (~1.5 KB) even when empty; an idle conversation actor
needs only a short list and, while it waits, a reference to its own task. ``put_nowait`` never
blocks: a full mailbox raises ``trio.WouldBlock`` at once (the "busy" answer at the edge).
"""

from __future__ import annotations

from typing import Generic, TypeVar

import trio

__all__ = ["Mailbox"]

T = TypeVar("T")


class Mailbox(Generic[T]):
    """FIFO, bounded, one receiving task at a time."""

    __slots__ = ("_capacity", "_closed", "_items", "_waiter")

    def __init__(self, capacity: int) -> None:
        if capacity < 1:
            raise ValueError("a mailbox holds at least one message")
        self._capacity = capacity
        self._items: list[T] = []
        self._waiter: trio.lowlevel.Task | None = None
        self._closed = False

    def __len__(self) -> int:
        return len(self._items)

    def put_nowait(self, item: T, *, over_capacity: bool = False) -> None:
        """Deliver ``item``; ``trio.WouldBlock`` when full, ``ClosedResourceError`` when closed.

        ``over_capacity`` delivers even when full: for work that was accepted before (a turn
        resumed after a restart), never for new requests.
        """
        if self._closed:
            raise trio.ClosedResourceError("the mailbox is closed")
        if len(self._items) >= self._capacity and not over_capacity:
            raise trio.WouldBlock
        self._items.append(item)
        self._wake()

    def get_nowait(self) -> T:
        if self._items:
            return self._items.pop(0)
        if self._closed:
            raise trio.EndOfChannel
        raise trio.WouldBlock

    async def get(self) -> T:
        """The oldest message, waiting for one; ``trio.EndOfChannel`` once closed and empty."""
        await trio.lowlevel.checkpoint_if_cancelled()
        if not self._items and not self._closed:
            if self._waiter is not None:
                raise trio.BusyResourceError("another task is already receiving from this mailbox")
            self._waiter = trio.lowlevel.current_task()

            def abort(_: object) -> trio.lowlevel.Abort:
                self._waiter = None
                return trio.lowlevel.Abort.SUCCEEDED

            await trio.lowlevel.wait_task_rescheduled(abort)
        else:
            await trio.lowlevel.cancel_shielded_checkpoint()
        return self.get_nowait()

    def close(self) -> None:
        """Refuse further messages; a waiting receiver wakes up to ``EndOfChannel``."""
        self._closed = True
        self._wake()

    def _wake(self) -> None:
        waiter, self._waiter = self._waiter, None
        if waiter is not None:
            trio.lowlevel.reschedule(waiter)
