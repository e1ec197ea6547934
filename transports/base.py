"""The transport interface: carry one request to a runtime and yield its replies."""

from __future__ import annotations

from collections.abc import AsyncIterator
from types import TracebackType

from actors.messages import Inbound, Outbound
from goliath.errors import GoliathError

__all__ = ["TERMINAL", "Transport", "TransportError"]

TERMINAL = ("result", "failure", "turn_status", "memory", "ack")
"""Message types that end a request's replies."""


class TransportError(GoliathError):
    """The transport itself failed: the connection dropped, or a frame could not be read."""


class Transport:
    """Carries one message to the runtime and yields its replies.

    For a ``Run`` the replies are the turn's events and confirmation asks, then one
    ``ResultMessage`` or ``Failure``; any other request yields exactly one reply. Subclasses
    implement :meth:`send`; :meth:`aclose` releases sockets and tasks and is safe to call twice.
    """

    def send(self, message: Inbound) -> AsyncIterator[Outbound]:
        raise NotImplementedError("Transport.send() must be implemented by the subclass.")

    async def aclose(self) -> None:
        """Release sockets and tasks. Safe to call twice."""

    async def __aenter__(self) -> Transport:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
