"""The daemon's HTTP API as an ASGI app to mount in an asyncio application (FastAPI, Starlette).

``transports.http.create_app`` is written for Trio (``goliath serve`` runs it on Hypercorn's
Trio worker). :func:`agent_app` makes it mountable anywhere::

    app = FastAPI(lifespan=lifespan)          # the lifespan does `async with agent:`
    app.mount("/goliath", agent_app(agent, token=os.environ["GOLIATH_TOKEN"]))

Under asyncio each request runs as a task of the agent's Trio guest run (see
``goliath._asyncio_host``) and the server's ``receive``/``send`` run back on the host loop;
under Trio it is the daemon's app as it is. Served on its own (``uvicorn module:app``) it
starts and stops the agent itself on the ASGI lifespan events.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from actors.runtime import Runtime
from goliath.errors import GoliathError
from goliath.hosting import run_in_agent

__all__ = ["AgentApp", "agent_app"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


class AgentApp:
    """An ASGI app serving ``agent`` (a :class:`goliath.Agent`) with the daemon's HTTP API
    (``create_app``'s options)."""

    def __init__(self, agent: Any, **options: Any) -> None:
        options.setdefault("token", None)
        self.agent = agent
        self._options = options
        self._app: Any = None
        self._started_here = False

    def _runtime(self) -> Runtime:
        runtime: Runtime | None = self.agent.runtime
        if runtime is None:
            raise GoliathError(
                "The agent behind this app is not running: start it in the application's "
                "lifespan (`async with agent:`) before requests arrive."
            )
        return runtime

    def _inner(self) -> Any:
        if self._app is None:
            from .http import create_app

            self._app = create_app(self._runtime, **self._options)
        return self._app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        await run_in_agent(self.agent, self._inner(), scope, receive, send)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        """Served on its own: start the agent at startup (unless running), stop it at shutdown."""
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                try:
                    if self.agent.runtime is None:
                        await self.agent.__aenter__()
                        self._started_here = True
                except Exception as exc:
                    await send({"type": "lifespan.startup.failed", "message": str(exc)})
                    return
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                if self._started_here:
                    self._started_here = False
                    await self.agent.__aexit__(None, None, None)
                await send({"type": "lifespan.shutdown.complete"})
                return


def agent_app(agent: Any, **options: Any) -> AgentApp:
    """The daemon's HTTP API for ``agent``, mountable in an asyncio app (or served alone).

    ``agent`` is a :class:`goliath.Agent`; ``options`` are :func:`transports.http.create_app`'s (``token`` — ``None`` disables auth,
    for a private socket only — ``users``, ``limits``, ``allowed_hosts``).
    """
    return AgentApp(agent, **options)
