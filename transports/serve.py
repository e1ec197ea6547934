"""``goliath serve``: the long-running daemon for many users.

Loads an ``Agent`` (or a factory of one) from ``MODULE:ATTR``, serves the HTTP API on TCP
(bearer token) or a Unix socket (mode 0600), optionally the MessagePack stream protocol, and on
SIGTERM/SIGINT drains: new runs get 503, running turns may finish within the grace period, the
rest are cancelled and their clients receive a final ``error`` event saying so.
"""

from __future__ import annotations

import argparse
import functools
import inspect
import logging
import os
import secrets
import signal
import socket as socket_module
import sys
import urllib.parse
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import attrs
import trio

from actors.runtime import RuntimeLimits
from goliath.agent import Agent, runs_bring_confirm
from goliath.errors import ConfigError
from goliath.resolve import resolve_model, resolve_now, resolve_object

from .stream import serve_stream
from .users import MIN_TOKEN_CHARS, Authenticator, check_token, load_users

if TYPE_CHECKING:
    from actors.cluster import Cluster
    from actors.runtime import Runtime

__all__ = [
    "default_token_file",
    "gguf_of",
    "load_agent",
    "resolve_token",
    "serve_agent",
    "serve_command",
]

logger = logging.getLogger("goliath.serve")
SERVER_EXTRA_HINT = (
    "goliath serve needs the daemon's HTTP stack (Starlette, sse-starlette, Hypercorn), which "
    "the library alone does not install: pip install 'goliath-harness[server]'"
)
SHUTDOWN_NOTICE_SECONDS = 2.0
"""After cancelling the last turns on shutdown, how long their clients get to hear about it."""


async def load_agent(target: str) -> Agent:
    """``MODULE:ATTR`` → an Agent; a callable is called (sync or async) to make one.

    Its runs will each bring a confirm handler (the daemon's, the terminal's), so building it
    does not warn that its writes fail closed."""
    with runs_bring_confirm():
        value = resolve_object(target)
        if not isinstance(value, Agent) and callable(value):
            value = value()
            if inspect.isawaitable(value):
                value = await value
    if not isinstance(value, Agent):
        raise ConfigError(f"{target} is {value!r}, not a goliath.Agent or a factory returning one.")
    return value


def _with_store(agent: Agent, args: argparse.Namespace) -> tuple[Agent, Cluster | None]:
    """Keep memory and turn records in the store (turns survive a crash as `interrupted`);
    a PostgreSQL store joins this daemon to the fleet sharing it."""
    store = args.store
    if store is None:
        return agent, None
    if store.startswith("sqlite:"):
        from actors.store_sqlite import SQLiteStore

        return agent.with_options(
            memory=None, store=SQLiteStore(store.removeprefix("sqlite:"))
        ), None
    if store.startswith(("postgres://", "postgresql://")):
        from actors.cluster import Cluster
        from actors.store_postgres import PostgresStore

        postgres = PostgresStore(store, shards=args.shards)
        node_id = args.node_id or f"{socket_module.gethostname()}-{os.getpid()}"
        cluster = Cluster(
            postgres, node_id=node_id, url=args.advertise or "", interval=args.interval
        )
        return agent.with_options(memory=None, store=postgres, cluster=cluster), cluster
    raise ConfigError(f"--store {store!r}: expected sqlite:PATH or postgres://...")


async def serve_agent(
    agent: Agent,
    *,
    host: str = "127.0.0.1",
    port: int = 8765,
    socket: str | None = None,
    stream_socket: str | None = None,
    token: str | None,
    users: Authenticator | None = None,
    allowed_hosts: Sequence[str] = (),
    grace: float = 10.0,
    stop: trio.Event | None = None,
    cluster: Cluster | None = None,
    task_status: trio.TaskStatus[list[str]] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Run the daemon until SIGTERM/SIGINT (or ``stop``), then drain and exit.

    Every listener — HTTP, the frame socket, the fleet membership — lives in this call's
    nursery and is closed before it returns. Shutdown: new runs are refused (``draining``),
    running turns may finish for ``grace`` seconds (a second signal cuts the grace short), the
    rest are cancelled and their clients told why, then the listeners close.

    With a ``cluster`` the daemon joins the fleet once its HTTP front door is up (other nodes
    forward requests there), and on shutdown hands its shards over before it closes.

    ``users`` are answered on HTTP and on the frame socket alike; ``allowed_hosts`` are the
    ``Host`` names HTTP answers besides IP addresses and ``localhost`` (the fleet's advertised
    name is added).
    """
    serve_http = _server_stack()
    hosts = list(allowed_hosts)
    if cluster is not None and cluster.url:
        advertised = urllib.parse.urlsplit(cluster.url).hostname
        if advertised:
            hosts.append(advertised)
    with trio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async with agent:
            runtime = agent.runtime
            assert runtime is not None  # started by `async with agent`
            http_closed = trio.Event()
            membership = trio.CancelScope()
            frames = trio.CancelScope()
            async with trio.open_nursery() as nursery:
                binds: list[str] = await nursery.start(
                    functools.partial(
                        serve_http,
                        runtime,
                        host=host,
                        port=port,
                        unix_socket=socket,
                        token=None if socket else token,
                        users=users,
                        allowed_hosts=hosts,
                        router=cluster,
                        shutdown_trigger=http_closed.wait,
                    )
                )
                if cluster is not None:
                    cluster.url = cluster.url or binds[0]
                    cluster.on_claim = runtime.claimed
                    cluster.on_release = functools.partial(runtime.release, shard_of=cluster.shard)

                    async def member(
                        task_status: trio.TaskStatus[Cluster] = trio.TASK_STATUS_IGNORED,
                    ) -> None:
                        with membership:
                            await cluster.serve(task_status=task_status)

                    await nursery.start(member)
                if stream_socket:

                    async def frame_socket(
                        task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED,
                    ) -> None:
                        with frames:
                            await serve_stream(
                                runtime,
                                path=stream_socket,
                                token=token,
                                users=users,
                                require_hello=False,  # the socket is 0600, as HTTP's is
                                task_status=task_status,
                            )

                    await nursery.start(frame_socket)
                    binds.append(f"stream+unix://{stream_socket}")
                task_status.started(binds)
                await _first(signals, stop)
                await _drain(runtime, grace, signals)
                membership.cancel()  # hand the shards over (the cluster leaves in its finally)
                frames.cancel()
                http_closed.set()


def _server_stack() -> Any:
    """``transports.http.serve_http``, or a ConfigError saying which extra to install."""
    try:
        from .http import serve_http
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.split(".")[0] in ("starlette", "sse_starlette", "hypercorn"):
            raise ConfigError(SERVER_EXTRA_HINT) from exc
        raise
    return serve_http


async def _first(signals: AsyncIterator[int], stop: trio.Event | None) -> None:
    """Wait for a signal or for ``stop``, whichever comes first."""
    async with trio.open_nursery() as nursery:

        async def on_signal() -> None:
            async for _ in signals:
                break
            nursery.cancel_scope.cancel()

        async def on_event() -> None:
            if stop is not None:
                await stop.wait()
                nursery.cancel_scope.cancel()

        nursery.start_soon(on_signal)
        nursery.start_soon(on_event)


async def _drain(runtime: Runtime, grace: float, signals: AsyncIterator[int]) -> None:
    """Refuse new runs, let running ones finish within ``grace``, then cancel and tell the rest.

    A second signal during the grace period cancels the remaining turns at once.
    """
    async with trio.open_nursery() as nursery:

        async def hurry() -> None:
            async for _ in signals:
                break
            nursery.cancel_scope.cancel()

        nursery.start_soon(hurry)
        logger.info("draining: running turns may finish within %g s", grace)
        await runtime.drain(grace)
        nursery.cancel_scope.cancel()
    runtime.stop_accepting()
    runtime.stop_turns("the daemon is shutting down")
    with trio.move_on_after(SHUTDOWN_NOTICE_SECONDS):
        for ticket in runtime.running():
            await ticket.done.wait()
        await trio.sleep(0.05)  # let the last SSE frames and frames leave


def default_token_file() -> Path:
    """Where a generated token is kept: ``$XDG_STATE_HOME/goliath/token`` (0600)."""
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(Path.home(), ".local", "state")
    return Path(state) / "goliath" / "token"


def _read_or_make_token(path: Path) -> tuple[str, bool]:
    """The token in ``path``, made (0600, in a 0700 folder) when the file does not exist."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        token = secrets.token_urlsafe(24)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            file.write(token + "\n")
        return token, True
    if mode & 0o077:
        raise ConfigError(
            f"{path} holds the daemon's token and others may read it: chmod 600 {path}"
        )
    return check_token(path.read_text(encoding="utf-8").strip(), str(path)), False


def resolve_token(args: argparse.Namespace, err: TextIO = sys.stderr) -> str | None:
    """The daemon's bearer token: ``--token``, else ``$GOLIATH_TOKEN``, else ``--token-file``,
    else (on TCP) one generated once and kept in :func:`default_token_file`.

    A blank or whitespace token is a :class:`ConfigError` — it never means "no auth", and it
    never locks everyone out silently. The token itself is never printed.
    """
    environment = os.environ.get("GOLIATH_TOKEN")
    if args.token is not None:
        print(
            "goliath: --token is visible to every user of this machine (ps, /proc); prefer "
            "GOLIATH_TOKEN or --token-file",
            file=err,
        )
        token: str | None = check_token(args.token, "--token")
    elif environment is not None:
        token = check_token(environment, "GOLIATH_TOKEN")
    elif getattr(args, "token_file", None):
        token, made = _read_or_make_token(Path(args.token_file))
        if made:
            print(f"goliath: generated a token in {args.token_file} (mode 0600)", file=err)
    elif args.socket:
        return None  # a Unix socket relies on its 0600 file mode
    else:
        path = default_token_file()
        token, made = _read_or_make_token(path)
        said = "generated a token and keeps it in" if made else "using the token kept in"
        print(f"goliath: no token configured; {said} {path} (mode 0600)", file=err)
    if token is not None and len(token) < MIN_TOKEN_CHARS:
        print(
            f"goliath: the token is {len(token)} characters; use at least {MIN_TOKEN_CHARS}",
            file=err,
        )
    return token


def serve_command(args: argparse.Namespace) -> int:
    _server_stack()  # before anything starts: a missing extra is a one-line error
    token = resolve_token(args)
    users = _users(getattr(args, "users", None), token)

    slots = getattr(args, "slots", None)

    async def main() -> None:
        agent = await load_agent(args.target)
        async with trio.open_nursery() as engine:
            if slots is not None:
                # The managed llama-server is healthy before the daemon says it is serving, and
                # outlives the daemon's drain (running turns still need it).
                agent = await _with_slots(agent, args.model or "local", slots, engine)
            elif getattr(args, "model", None):
                agent = agent.with_options(model=resolve_model(args.model))
            else:
                await resolve_now(agent)  # the app's own spec: a missing model fails here
            agent, cluster = _with_store(agent, args)
            async with trio.open_nursery() as nursery:
                binds = await nursery.start(
                    functools.partial(
                        serve_agent,
                        agent,
                        host=args.host,
                        port=args.port,
                        socket=args.socket,
                        stream_socket=args.stream_socket,
                        token=token,
                        users=users,
                        allowed_hosts=getattr(args, "allowed_host", None) or (),
                        grace=args.grace,
                        cluster=cluster,
                    )
                )
                print(f"goliath: serving on {', '.join(binds)}", file=sys.stderr, flush=True)
                logger.info("serving %s with model %r", args.target, agent.model)
            engine.cancel_scope.cancel()  # the daemon has drained: stop the model server

    try:
        trio.run(main)
    except BaseExceptionGroup as group:  # a startup error in a nursery: the error itself
        leaves = list(_leaves(group))
        if len(leaves) == 1:
            raise leaves[0] from None
        raise
    return 0


async def _with_slots(agent: Agent, spec: str, slots: int, nursery: trio.Nursery) -> Agent:
    """``--slots N``: a llama.cpp model runs in a managed llama-server with N slots (started
    and health-checked here, in ``nursery``); an ``openai:`` server gets its calls pinned to N
    slots. Either way the model worker runs N calls at once."""
    if isinstance(slots, bool) or not isinstance(slots, int) or slots < 1:
        raise ConfigError(f"--slots must be a whole number ≥ 1, got {slots!r}.")
    limits = getattr(agent, "_runtime_limits", None) or RuntimeLimits()
    limits = attrs.evolve(limits, model_slots=slots)
    if spec.partition(":")[0] == "openai":
        model = resolve_model(spec, slots=slots, cache_prompt=True)
        return agent.with_options(model=model, runtime_limits=limits)
    from goliath.models.managed import ManagedLlamaServer

    server = ManagedLlamaServer(gguf_of(spec), slots=slots)
    await nursery.start(server.serve)
    logger.info("llama-server with %d slots is ready at %s", slots, server.url)
    return agent.with_options(model=server.model(), runtime_limits=limits)


def gguf_of(spec: str) -> Path:
    """The GGUF file a llama.cpp ``--model`` spec names (local, local:NAME, small,
    llamacpp:PATH), for a server to load."""
    from goliath.models.packaged import DEFAULT_MODEL, SMOLLM2_135M, packaged_model

    kind, _, rest = spec.strip().partition(":")
    if kind == "local":
        return (packaged_model(rest) if rest else DEFAULT_MODEL).path()
    if kind == "small" and not rest:
        return SMOLLM2_135M.path()
    if kind == "llamacpp" and rest:
        path = Path(rest).expanduser()
        if not path.is_file():
            raise ConfigError(f"--model {spec}: there is no file at {path}.")
        return path
    raise ConfigError(
        f"--slots needs a llama.cpp model (local, local:NAME, small, llamacpp:PATH) or an "
        f"openai:BASE_URL#MODEL server; got --model {spec!r}."
    )


def _leaves(group: BaseExceptionGroup[BaseException]) -> list[BaseException]:
    found: list[BaseException] = []
    for item in group.exceptions:
        found.extend(_leaves(item) if isinstance(item, BaseExceptionGroup) else [item])
    return found


def _users(spec: str | None, token: str | None = None) -> Authenticator | None:
    """``--users``: a TOML/JSON file, or ``MODULE:ATTR`` of the app's own (a ``Users``, or
    anything with ``authenticate(token)``). No user may hold the daemon's own ``token``."""
    if spec is None:
        return None
    if os.path.exists(spec) or spec.endswith((".toml", ".json")):
        return load_users(
            spec, daemon_token=token, warn=lambda text: print(f"goliath: {text}", file=sys.stderr)
        )
    value = resolve_object(spec)
    if callable(value) and not hasattr(value, "authenticate"):
        value = value()
    if not hasattr(value, "authenticate"):
        raise ConfigError(f"--users {spec}: expected a users file, or MODULE:ATTR of a Users")
    if token is not None and value.authenticate(token) is not None:
        raise ConfigError(
            f"--users {spec}: a user has the daemon's own token, which reaches every "
            "conversation; give each user a token of their own"
        )
    return value  # type: ignore[no-any-return]
