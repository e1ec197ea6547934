"""The bounded single-consumer mailbox of a conversation actor, on its own."""

from __future__ import annotations

from typing import Any

import pytest
import trio
import trio.testing

from actors.mailbox import Mailbox


async def test_messages_come_out_in_the_order_they_went_in() -> None:
    """FIFO: three puts, three gets, same order."""
    box: Mailbox[int] = Mailbox(3)
    for item in (1, 2, 3):
        box.put_nowait(item)
    assert len(box) == 3
    assert [await box.get() for _ in range(3)] == [1, 2, 3]
    assert len(box) == 0


def test_a_full_mailbox_refuses_at_once_unless_the_work_was_accepted_before() -> None:
    """``put_nowait`` on a full mailbox raises WouldBlock and keeps what it had;
    ``over_capacity`` (a resumed turn) is delivered anyway."""
    box: Mailbox[str] = Mailbox(1)
    box.put_nowait("first")
    with pytest.raises(trio.WouldBlock):
        box.put_nowait("second")
    assert len(box) == 1
    box.put_nowait("resumed", over_capacity=True)
    assert [box.get_nowait(), box.get_nowait()] == ["first", "resumed"]
    with pytest.raises(trio.WouldBlock):
        box.get_nowait()


def test_a_mailbox_holds_at_least_one_message() -> None:
    with pytest.raises(ValueError, match="at least one"):
        Mailbox(0)


async def test_a_waiting_receiver_wakes_for_the_next_message(autojump_clock: Any) -> None:
    """``get`` waits for a put made later by another task, without polling."""
    box: Mailbox[str] = Mailbox(2)
    got: list[tuple[str, float]] = []

    async def receive() -> None:
        got.append((await box.get(), trio.current_time()))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(receive)
        await trio.sleep(5)
        assert got == []
        box.put_nowait("hello")
    assert got == [("hello", 5.0)]


async def test_only_one_task_may_receive_at_a_time() -> None:
    """A second concurrent receiver is a bug in the actor: BusyResourceError."""
    box: Mailbox[int] = Mailbox(1)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(box.get)
        await trio.testing.wait_all_tasks_blocked()
        with pytest.raises(trio.BusyResourceError):
            await box.get()
        box.put_nowait(1)


async def test_a_cancelled_receiver_leaves_the_mailbox_usable() -> None:
    """A ``get`` cancelled while waiting frees the receiver slot; the message waits for the
    next receiver instead of being lost."""
    box: Mailbox[str] = Mailbox(1)
    with trio.move_on_after(0.01):
        await box.get()
    box.put_nowait("kept")
    assert await box.get() == "kept"


async def test_closing_drains_what_is_queued_then_ends_the_channel() -> None:
    """After ``close`` new messages are refused; queued ones still come out, then
    EndOfChannel; a receiver waiting at the close wakes to EndOfChannel."""
    box: Mailbox[int] = Mailbox(2)
    box.put_nowait(1)
    box.close()
    with pytest.raises(trio.ClosedResourceError):
        box.put_nowait(2)
    assert await box.get() == 1
    with pytest.raises(trio.EndOfChannel):
        await box.get()

    waiting: Mailbox[int] = Mailbox(1)
    ended: list[bool] = []

    async def receive() -> None:
        try:
            await waiting.get()
        except trio.EndOfChannel:
            ended.append(True)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(receive)
        await trio.testing.wait_all_tasks_blocked()
        waiting.close()
    assert ended == [True]


async def test_get_is_a_checkpoint_even_when_a_message_is_ready() -> None:
    """A ready message does not let a cancelled task carry on: ``get`` raises Cancelled."""
    box: Mailbox[int] = Mailbox(1)
    box.put_nowait(1)
    with trio.CancelScope() as scope:
        scope.cancel()
        await box.get()
    assert scope.cancelled_caught
    assert len(box) == 1
