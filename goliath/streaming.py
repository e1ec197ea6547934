"""What ``Agent.run_stream`` yields: the turn's trace events, the answer's text as it is written,
and the result.

``async for event in agent.run_stream(ask)`` sees every trace event (``plan``, ``tool``, ...)
as it happens, :class:`TokenEvent` pieces of the prose answer while the model writes it (from
every bridge that can stream; see :class:`goliath.models.Streaming`), and last a
:class:`ResultEvent` with the :class:`~goliath.RunResult`. Tokens are not part of the trace:
``RunResult.trace`` stays the same whether a run streamed or not. The result's ``text`` is the
answer that counts; the tokens are the model's draft of it as it was written.
"""

from __future__ import annotations

from .events import Event, EventBase
from .records import RunResult

__all__ = ["ResultEvent", "StreamEvent", "TokenEvent"]


class TokenEvent(EventBase, tag="token", frozen=True):
    """A piece of the prose answer, as the model writes it."""

    text: str


class ResultEvent(EventBase, tag="result", frozen=True):
    """The turn is over; the last item of a stream."""

    result: RunResult


StreamEvent = Event | TokenEvent | ResultEvent
"""Anything ``Agent.run_stream`` yields; ``event.type`` tells which."""
