"""A llama.cpp C++ server (``llama-server``) that the daemon starts, watches and stops itself.

The embedded bridge runs one call at a time; ``llama-server --parallel N`` runs N slots with
continuous batching (every slot's next token in one batch). ``goliath serve --model local
--slots N`` uses this module: :class:`ManagedLlamaServer` starts the process on a loopback port
with an API key of its own (passed in the environment, never on the command line), waits until
``/health`` answers 200 before the daemon says it is serving, restarts it when it dies, and
stops it with the daemon. :class:`ManagedModel` is the bridge the agent uses: the OpenAI bridge
with llama-server's own schema parameter, ``cache_prompt`` and one slot per conversation.

When the process dies, the calls it was serving fail at once with
:class:`~goliath.errors.ModelUnavailableError` (the turn handles ``model-unavailable``: its
fallback, or escalation); calls made while it restarts wait for it (at most
``restart_wait`` seconds), then fail the same way. Nothing waits unbounded. A server that
keeps dying (``restart_limit`` restarts within ``restart_window`` seconds) is given up on.

The binary: ``$GOLIATH_LLAMA_SERVER``, else the one ``scripts/build-llama-server.sh`` built into
``~/.cache/goliath/bin`` (same llama.cpp sources and portable flags as the embedded bridge),
else ``llama-server`` on ``$PATH``.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import shutil
import signal
import socket
import subprocess
import time
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

import httpx
import trio

from ..errors import ConfigError, ModelError, ModelUnavailableError
from . import GenerateRequest, Generation, TextSink
from .openai import OpenAICompatibleModel, OpenAIStatistics

__all__ = ["ManagedLlamaServer", "ManagedModel", "find_llama_server"]

logger = logging.getLogger("goliath.llama_server")

BUILD_HINT = "scripts/build-llama-server.sh (or ./install.sh local,llama-server)"
READY_TIMEOUT = 300.0
"""Seconds a starting server may take to load the model and answer /health."""
STOP_GRACE = 5.0
"""Seconds between SIGTERM and SIGKILL when the server is stopped."""
RESTART_WAIT = 60.0
"""Seconds a call made while the server restarts waits for it before it fails."""
CALL_TIMEOUT = 120.0
"""Seconds one call may take on one slot (the OpenAI bridge's default); × the slots."""
LLAMA_VERSION = "0.3.36"
"""The llama-cpp-python release whose vendored llama.cpp the cached binary is built from."""


def find_llama_server() -> Path | None:
    """The ``llama-server`` binary to run: ``$GOLIATH_LLAMA_SERVER``, the cached build, or
    ``$PATH`` (None when there is none)."""
    configured = os.environ.get("GOLIATH_LLAMA_SERVER")
    if configured:
        return Path(configured).expanduser()
    cache = Path(os.environ.get("GOLIATH_CACHE") or Path.home() / ".cache" / "goliath")
    built = sorted((cache / "bin").glob(f"llama-server-{LLAMA_VERSION}-*"))
    built = [path for path in built if not path.name.endswith(".partial")]
    if built:
        return built[0]
    found = shutil.which("llama-server")
    return Path(found) if found else None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class ManagedLlamaServer:
    """One supervised ``llama-server`` process serving one GGUF model with ``slots`` slots.

    Args:
        model_path: the GGUF file.
        slots: parallel slots (``--parallel``); each gets a ``window``-token context.
        window: tokens per slot (``--ctx-size`` is ``window × slots``).
        threads: CPU threads (``--threads`` and ``--threads-batch``).
        binary: the server to run: a path, or a command as a list (tests run a script).
        extra_args: more command-line arguments for the server.
        ready_timeout: seconds a start may take until ``/health`` answers 200.
        restart_limit, restart_window: more restarts than this within the window: give up.

    Start it with ``await nursery.start(server.serve)``: that returns once the server answers
    ``/health``; cancelling ``serve`` stops the process (SIGTERM, then SIGKILL).
    """

    def __init__(
        self,
        model_path: str | os.PathLike[str],
        *,
        slots: int,
        window: int = 4096,
        threads: int = 2,
        binary: str | os.PathLike[str] | Sequence[str] | None = None,
        extra_args: Sequence[str] = (),
        ready_timeout: float = READY_TIMEOUT,
        restart_limit: int = 5,
        restart_window: float = 60.0,
    ) -> None:
        if isinstance(slots, bool) or not isinstance(slots, int) or slots < 1:
            raise ConfigError(f"--slots must be a whole number ≥ 1, got {slots!r}.")
        for name, value in (("window", window), ("threads", threads)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(
                    f"ManagedLlamaServer({name}=...) must be an int ≥ 1, got {value!r}."
                )
        self.model_path = Path(model_path)
        self.slots = slots
        self.window = window
        self.threads = threads
        if binary is None:
            found = find_llama_server()
            if found is None:
                raise ModelUnavailableError(
                    f"--slots runs llama.cpp's llama-server, which is not built here: {BUILD_HINT}"
                )
            binary = found
        self.command: list[str] = (
            [os.fspath(binary)] if isinstance(binary, (str, os.PathLike)) else list(binary)
        )
        if not self.command:
            raise ConfigError("ManagedLlamaServer(binary=...) is an empty command.")
        if len(self.command) == 1 and not Path(self.command[0]).is_file():
            raise ModelUnavailableError(
                f"There is no llama-server at {self.command[0]}: {BUILD_HINT}"
            )
        self.extra_args = list(extra_args)
        self.ready_timeout = ready_timeout
        self.restart_limit = restart_limit
        self.restart_window = restart_window
        self.port = _free_port()
        self.api_key = secrets.token_urlsafe(24)
        self.url = f"http://127.0.0.1:{self.port}"
        self.restarts = 0
        self.last_exit: str | None = None
        self.gave_up = False
        self._process: trio.Process | None = None
        self._healthy = trio.Event()
        self._generation = 0  # which process a call started on: +1 per start
        self._log: deque[str] = deque(maxlen=40)

    def __repr__(self) -> str:
        return (
            f"ManagedLlamaServer({self.url!r}, slots={self.slots}, model={self.model_path.name!r})"
        )

    @property
    def healthy(self) -> bool:
        return self._healthy.is_set()

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def arguments(self) -> list[str]:
        """The command line (no secret on it: the API key goes in ``LLAMA_API_KEY``)."""
        return [
            *self.command,
            "--model",
            str(self.model_path),
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--parallel",
            str(self.slots),
            "--ctx-size",
            str(self.window * self.slots),
            "--threads",
            str(self.threads),
            "--threads-batch",
            str(self.threads),
            "--cont-batching",
            "--no-webui",
            *self.extra_args,
        ]

    def model(self, **options: Any) -> ManagedModel:
        """The bridge for this server (``options`` go to :class:`OpenAICompatibleModel`)."""
        return ManagedModel(self, **options)

    def log_tail(self) -> str:
        """The server's last lines of output (for error messages)."""
        return "".join(self._log)[-2000:]

    async def serve(
        self, *, task_status: trio.TaskStatus[ManagedLlamaServer] = trio.TASK_STATUS_IGNORED
    ) -> NoReturn:
        """Start the server, report ready once it is healthy, and keep it running.

        Raises:
            ModelUnavailableError: the first start failed (the message has the server's last
                output) — the daemon then does not start.
        """
        try:
            await self._supervise(task_status)
        except BaseExceptionGroup as group:  # a failed first start: that error itself
            if len(group.exceptions) == 1 and isinstance(group.exceptions[0], ModelError):
                raise group.exceptions[0] from None
            raise

    async def _supervise(self, task_status: trio.TaskStatus[ManagedLlamaServer]) -> NoReturn:
        restarts: deque[float] = deque()
        async with trio.open_nursery() as nursery:
            await self._start(nursery)
            task_status.started(self)
            while True:
                assert self._process is not None
                code = await self._process.wait()
                self._healthy = trio.Event()  # calls made from now on wait for the restart
                self.last_exit = _exit_text(code)
                logger.warning(
                    "llama-server (pid %s) %s; restarting it", self._process.pid, self.last_exit
                )
                now = time.monotonic()
                restarts.append(now)
                while restarts and restarts[0] < now - self.restart_window:
                    restarts.popleft()
                if len(restarts) > self.restart_limit:
                    self.gave_up = True
                    logger.error(
                        "llama-server died %d times within %g s; not restarting it again",
                        len(restarts),
                        self.restart_window,
                    )
                    await trio.sleep_forever()
                await trio.sleep(min(0.25 * 2 ** (len(restarts) - 1), 5.0))
                try:
                    await self._start(nursery)
                except ModelUnavailableError as exc:
                    logger.error("llama-server did not come back: %s", exc)
                self.restarts += 1

    async def _start(self, nursery: trio.Nursery) -> None:
        environment = {**os.environ, "LLAMA_API_KEY": self.api_key}
        # Its own session: the daemon's signals are the daemon's, which stops the server after
        # draining. (No PR_SET_PDEATHSIG: Trio forks from a worker thread, and the signal fires
        # when that thread exits, not the daemon; a daemon killed with -9 leaves it running.)
        options: dict[str, Any] = {"start_new_session": True}
        process = await trio.lowlevel.open_process(
            self.arguments(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=environment,
            **options,
        )
        self._process = process
        self._generation += 1
        nursery.start_soon(self._own, process)
        nursery.start_soon(self._read_output, process)
        with trio.move_on_after(self.ready_timeout) as waiting:
            async with httpx.AsyncClient(timeout=5.0) as client:
                while process.returncode is None:
                    with contextlib.suppress(httpx.HTTPError):
                        response = await client.get(f"{self.url}/health")
                        if response.status_code == 200:
                            self._healthy.set()
                            logger.info(
                                "llama-server (pid %s) is ready at %s", process.pid, self.url
                            )
                            return
                    with contextlib.suppress(trio.TooSlowError):
                        with trio.fail_after(0.2):
                            await process.wait()
        problem = (
            f"did not answer /health within {self.ready_timeout:g} s"
            if waiting.cancelled_caught
            else _exit_text(process.returncode)
        )
        if process.returncode is None:
            await _stop(process)
        tail = self.log_tail().strip()
        raise ModelUnavailableError(
            f"llama-server {problem} ({' '.join(self.command)} with {self.model_path})"
            + (f"; its last output:\n{tail}" if tail else "")
        )

    async def _own(self, process: trio.Process) -> None:
        """Stop ``process`` when the nursery is cancelled (the daemon stops)."""
        try:
            await process.wait()
        finally:
            if process.returncode is None:
                with trio.CancelScope(shield=True):
                    await _stop(process)

    async def _read_output(self, process: trio.Process) -> None:
        """Keep the server's last lines (for errors); reading also keeps its pipe from filling."""
        assert process.stdout is not None
        with contextlib.suppress(trio.ClosedResourceError, trio.BrokenResourceError):
            async for chunk in process.stdout:
                self._log.append(chunk.decode("utf-8", "replace"))

    async def wait_healthy(self, timeout: float) -> int:
        """Wait (at most ``timeout`` s) until the server is healthy; returns which process is
        serving. Raises ModelUnavailableError if it is not back in time or was given up on."""
        if self.gave_up:
            raise ModelUnavailableError(
                f"llama-server kept dying ({self.last_exit}) and was given up on; restart "
                f"goliath serve. Its last output:\n{self.log_tail().strip()}"
            )
        if not self._healthy.is_set():
            with trio.move_on_after(timeout):
                await self._healthy.wait()
            if not self._healthy.is_set():
                raise ModelUnavailableError(
                    f"llama-server is restarting after it {self.last_exit} and was not back "
                    f"within {timeout:g} s"
                )
        return self._generation

    async def death_of(self, generation: int, wait: float = 1.0) -> str | None:
        """How the process that served ``generation`` ended (``None``: it is still running).

        A call's connection breaks a moment before the exit is seen, so this waits for the
        exit at most ``wait`` seconds."""
        process = self._process
        if generation != self._generation or process is None:
            return self.last_exit or "stopped"
        with trio.move_on_after(wait):
            await process.wait()
        return None if process.returncode is None else _exit_text(process.returncode)


async def _stop(process: trio.Process) -> None:
    """SIGTERM, then SIGKILL after :data:`STOP_GRACE` seconds; wait for the exit."""
    with contextlib.suppress(ProcessLookupError):
        process.terminate()
    with trio.move_on_after(STOP_GRACE):
        await process.wait()
        return
    with contextlib.suppress(ProcessLookupError):
        process.kill()
    await process.wait()


def _exit_text(code: int | None) -> str:
    if code is None:
        return "is still running"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"was killed by {name}"
    return f"exited with status {code}"


class ManagedModel:
    """The bridge to a :class:`ManagedLlamaServer`: an OpenAI bridge with llama-server's
    ``json_schema`` parameter, ``cache_prompt`` and one slot per conversation, that turns the
    server's death into :class:`ModelUnavailableError` and waits out a restart (bounded)."""

    scores_options = True
    """The packaged model the embedded bridge runs, scored from llama-server's top
    log-probabilities (so the turn's checks are on, as they are in-process)."""

    def __init__(
        self, server: ManagedLlamaServer, *, restart_wait: float = RESTART_WAIT, **options: Any
    ) -> None:
        self.server = server
        self.restart_wait = restart_wait
        options.setdefault("response_format_style", "llama_json_schema")
        options.setdefault("cache_prompt", True)
        options.setdefault("slots", server.slots)
        options.setdefault("window", server.window)
        # N slots share the CPU: a call takes up to N times as long as alone.
        options.setdefault("timeout", CALL_TIMEOUT * server.slots)
        self.bridge = OpenAICompatibleModel(
            server.url + "/v1", server.model_path.stem, server.api_key, **options
        )

    def __repr__(self) -> str:
        return f"ManagedModel({self.server!r})"

    def window(self) -> int:
        return self.bridge.window()

    def statistics(self) -> OpenAIStatistics:
        return self.bridge.statistics()

    async def generate(self, request: GenerateRequest) -> Generation:
        generation = await self.server.wait_healthy(self.restart_wait)
        try:
            return await self.bridge.generate(request)
        except ModelError as exc:
            raise await self._if_died(generation, exc) from exc

    async def generate_stream(self, request: GenerateRequest, on_text: TextSink) -> Generation:
        generation = await self.server.wait_healthy(self.restart_wait)
        try:
            return await self.bridge.generate_stream(request, on_text)
        except ModelError as exc:
            raise await self._if_died(generation, exc) from exc

    async def _if_died(self, generation: int, exc: ModelError) -> ModelError:
        """The call's error, or ModelUnavailableError when the server died under it."""
        if isinstance(exc, ModelUnavailableError) or exc.code != "CONNECTION_ERROR":
            return exc
        death = await self.server.death_of(generation)
        if death is None:
            return exc
        return ModelUnavailableError(
            f"llama-server {death} during this call (it is being restarted): {exc}"
        )
