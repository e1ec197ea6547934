"""The edges: how messages reach a Goliath runtime from outside.

One small base class (:class:`Transport`) with interchangeable implementations — in-process,
HTTP + Server-Sent Events, length-prefixed MessagePack frames over a socket, and a mock — and
one :class:`Client` that works over any of them.
"""

from .base import Transport, TransportError
from .client import Client, RemoteError, SyncClient
from .inproc import InProcTransport
from .mock import MockTransport

__all__ = [
    "Client",
    "InProcTransport",
    "MockTransport",
    "RemoteError",
    "SyncClient",
    "Transport",
    "TransportError",
]
