"""``goliath serve``: what its flags name, resolved, then the daemon started.

``MODULE:ATTR`` becomes an ``Agent`` (or a factory's), ``--model``/``--slots`` its model (a
managed llama-server with N slots), ``--store`` where its turns are kept (a PostgreSQL store
joins a fleet), the token comes from ``--token``, ``$GOLIATH_TOKEN``, ``--token-file`` or one
kept for the next start, and ``--users`` the daemon's users. :func:`transports.serve.serve_agent`
serves the result until a signal.
"""

from __future__ import annotations

import argparse
import functools
import inspect
import logging
import os
import secrets
import socket as socket_module
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import attrs
import trio

from actors.runtime import RuntimeLimits
from goliath.agent import Agent, runs_bring_confirm
from goliath.errors import ConfigError
from goliath.resolve import resolve_model, resolve_now, resolve_object

from .serve import serve_agent, server_stack
from .users import MIN_TOKEN_CHARS, Authenticator, check_token, load_users

if TYPE_CHECKING:
    from actors.cluster import Cluster

__all__ = [
    "default_token_file",
    "gguf_of",
    "load_agent",
    "resolve_token",
    "serve_command",
]

logger = logging.getLogger("goliath.serve")


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
    server_stack()  # before anything starts: a missing extra is a one-line error
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
