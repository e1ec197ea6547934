"""The daemon's HTTP front door: a JSON API with Server-Sent Events, on Starlette.

Starlette routes the requests and sse-starlette writes the event streams (with heartbeats for
proxies); Hypercorn serves the application on Trio (its Trio worker), the runtime's own loop.
A run streams its trace events as they happen; a write waiting for approval sends a
``confirm_request`` event and waits for ``POST /v1/turns/{turn_id}/confirm`` — the person
decides, not a callback in the server. Every route but the health checks needs the bearer
token (a Unix socket relies on its 0600 file mode instead): the daemon's own, which reaches
everything, or a user's (``users``), which reaches only that user's conversations. On TCP only
requests whose ``Host`` the daemon serves are answered (a DNS-rebinding page is refused).

The rules a request follows are the runtime's door's (:mod:`actors.admission`); this package
only moves requests and answers, by job:

- ``app.py``: the application (:func:`create_app`) and its server (:func:`serve_http`);
- ``door.py``: the edge of every request: its host, its token, its errors (:func:`host_allowed`);
- ``api.py``: what the routes share, and reading a request's body;
- ``turns.py``: runs, their streams, confirmations, cancels, a turn's status, memory;
- ``streams.py``: a turn's events as an SSE response;
- ``ops.py``: health, readiness, the OpenAPI document, the chat page, ``/v1/me``.
"""

from ..wire import HttpLimits
from .app import create_app, serve_http
from .door import host_allowed

__all__ = ["HttpLimits", "create_app", "host_allowed", "serve_http"]
