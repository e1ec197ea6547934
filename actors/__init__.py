"""The runtime: who runs a turn, when, and what happens when it fails.

Layers point one way — ``transports → actors → goliath``. The harness (``goliath``) knows what
a turn is; this package decides where it runs: one actor per conversation (activated on demand,
passivated when idle, supervised on its own), a model worker that owns the model, and a
supervisor that routes runs, confirmations and cancellations to them as msgspec messages.
"""

from .messages import (
    Cancel,
    ConfirmAsk,
    ConfirmReply,
    EventMessage,
    Failure,
    Generate,
    Message,
    ResultMessage,
    Run,
    TurnStatus,
)
from .runtime import Runtime, RuntimeLimits
from .ticket import Ticket

__all__ = [
    "Cancel",
    "ConfirmAsk",
    "ConfirmReply",
    "EventMessage",
    "Failure",
    "Generate",
    "Message",
    "ResultMessage",
    "Run",
    "Runtime",
    "RuntimeLimits",
    "Ticket",
    "TurnStatus",
]
