"""The ``goliath`` command: ``run``, ``chat``, ``serve``, ``eval`` and ``doctor``.

``run`` and ``chat`` drive a task-list demo, the tools of ``--tools MODULE:ATTR``, or the
application's own agent (``--agent MODULE:ATTR``: its memory, instructions, extensions and
confirm handler included).

``run`` and ``chat`` ask on the terminal before any write and show a status line on stderr
while the model works (only when stderr is a terminal; it clears itself, so stdout holds just
the answer and the step log). ``--model`` takes the specs
:mod:`goliath.resolve` reads (``local`` by default: the packaged llama.cpp model). With a llama.cpp model the turn runs in a child process, so that a build made for
another CPU, which dies with "Illegal instruction", is reported with a pointer to ``goliath
doctor`` instead of a bare crash.
"""

from __future__ import annotations

import argparse
import functools
import json
import logging
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Sequence
from typing import TextIO

import trio

from .agent import Agent
from .errors import ConfigError, GoliathError
from .events import EscalateEvent, Event
from .records import ConfirmRequest, Decision, RunResult
from .resolve import SPEC_FORMS, ModelSpec, resolve_model, resolve_now, resolve_object
from .streaming import ResultEvent, TokenEvent
from .tools import Tool
from .turn.prompts import step_log

__all__ = ["main"]

DESCRIPTION = "Goliath: agents that keep small on-device language models on task."


def _tools(reference: str | None) -> list[Tool]:
    if reference is None:
        from .demo import task_list_tools

        return task_list_tools()
    value = resolve_object(reference)
    if callable(value) and not isinstance(value, Tool):
        value = value()
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, Tool):
        value = [value]
    return list(value)


# ---------------------------------------------------------------- terminal I/O


class Terminal:
    """Prompts and progress on the terminal; reading stdin is cancellable (no stray thread)."""

    def __init__(
        self,
        out: TextIO,
        err: TextIO,
        *,
        assume_yes: bool,
        progress: bool,
        piped_answers: bool = False,
    ) -> None:
        self.out = out
        self.err = err
        self.assume_yes = assume_yes
        self.piped_answers = piped_answers
        """Whether a confirm reads its answer from piped stdin (``chat``: the input is the
        conversation, answers included) instead of declining without a terminal."""
        self.streaming = False
        """Whether the answer is being written to ``out`` as the model writes it."""
        self.stream_answers = True
        self.answer_shown = False
        """Whether the last turn's answer was streamed (``format_result`` leaves it out)."""
        self.progress = progress and _is_terminal(err)
        self._stdin: trio.lowlevel.FdStream | None = None
        self._buffer = b""
        self._status_shown = False

    def status(self, text: str) -> None:
        """Replace the status line (one line, clipped to the terminal's width)."""
        if not self.progress:
            return
        width = max(20, shutil.get_terminal_size((80, 24)).columns - 1)
        line = " ".join(text.split())
        if len(line) > width:
            line = line[: width - 1] + "…"
        self.err.write("\r\x1b[K" + line)
        self.err.flush()
        self._status_shown = True

    def clear_status(self) -> None:
        """Erase the status line, before anything else is written to the terminal."""
        if self._status_shown:
            self.err.write("\r\x1b[K")
            self.err.flush()
            self._status_shown = False

    async def read_line(self, prompt: str) -> str | None:
        self.clear_status()
        self.err.write(prompt)
        self.err.flush()
        if self._stdin is None:
            self._stdin = trio.lowlevel.FdStream(os.dup(sys.stdin.fileno()))
        while b"\n" not in self._buffer:
            chunk = await self._stdin.receive_some(4096)
            if not chunk:
                if not self._buffer:
                    return None
                break
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode(errors="replace").strip()

    async def confirm(self, request: ConfirmRequest) -> Decision:
        shown = f"{request.tool}({json.dumps(request.input, ensure_ascii=False)})"
        self.clear_status()
        if self.assume_yes:
            self.err.write(f"  approved (--yes): {shown}\n")
            return Decision(approved=True)
        if not sys.stdin.isatty() and not self.piped_answers:
            return Decision(approved=False, reason="no one at the terminal to approve it")
        if self.streaming:
            self.out.write("\n")
            self.out.flush()
        reply = await self.read_line(f"  Allow {shown}? {request.brief} [y/N] ")
        if reply is not None and reply.lower() in ("y", "yes"):
            return Decision(approved=True)
        return Decision(approved=False, reason="the user said no")

    def event(self, event: Event) -> None:
        if not self.progress:
            return
        kind = event.type
        if kind == "plan":
            target = getattr(event, "tool", None)
            brief = getattr(event, "brief", "")
            self.status(f"· {'using ' + target if target else 'answering'}: {brief}")
        elif kind == "tool":
            self.status(f"· {getattr(event, 'tool', '')} done")
        elif kind == "escalate":
            self.status(f"· handing over: {getattr(event, 'reason', '')}")
        elif kind == "budget":
            self.status(f"· thinking ({getattr(event, 'label', '')})…")

    async def aclose(self) -> None:
        self.clear_status()
        if self._stdin is not None:
            await self._stdin.aclose()


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def format_result(result: RunResult, *, answer_shown: bool = False) -> str:
    """The answer, where it was handled, and the step log (without the answer when it was
    already streamed to the terminal)."""
    lines = [] if answer_shown else [result.text or "(no answer)"]
    lines.append("")
    summary = f"handled by: {result.handled_by}"
    if result.best_effort:
        summary += " (best effort)"
    escalations = [e for e in result.trace if e.type == "escalate"]
    if escalations:
        summary += f" · escalated: {getattr(escalations[0], 'reason', '')}"
    summary += f" · {len(result.steps)} step(s) · {result.model_calls} model call(s)"
    summary += f" · {result.input_tokens} prompt tokens"
    lines.append(summary)
    log = step_log(result.steps)
    if log:
        lines.append("steps:")
        lines.extend("  " + line for line in log.splitlines())
    return "\n".join(lines)


# ---------------------------------------------------------------- commands


async def _agent(args: argparse.Namespace, terminal: Terminal) -> Agent:
    """The agent a ``run`` or ``chat`` drives: the app's (``--agent``) or one of tools."""
    if args.agent is not None:
        if args.tools is not None:
            raise GoliathError("--agent and --tools cannot be combined: the agent has its tools.")
        from transports.serve_command import load_agent

        agent = await load_agent(args.agent)
        if args.model is not None:
            agent = agent.with_options(model=resolve_model(args.model))
        else:
            await resolve_now(agent)  # the app's own spec: a missing model fails here
        if args.max_steps is not None:
            agent = agent.with_options(max_steps=args.max_steps)
        return agent
    from .memory import InMemory

    return Agent(
        resolve_model(args.model or "local"),
        tools=_tools(args.tools),
        memory=lambda conversation_id: InMemory(),
        confirm=terminal.confirm,
        max_steps=5 if args.max_steps is None else args.max_steps,
    )


async def _turn(
    agent: Agent, terminal: Terminal, ask: str, conversation_id: str | None
) -> RunResult:
    """One turn, with the terminal asking before writes unless the agent has its own handler."""
    confirm = None if agent.config.confirm is not None else terminal.confirm
    if not _streams(terminal):
        return await agent.run(
            ask, conversation_id=conversation_id, confirm=confirm, on_event=terminal.event
        )
    shown = ""
    result: RunResult | None = None
    async for item in agent.run_stream(
        ask, conversation_id=conversation_id, confirm=confirm, on_event=terminal.event
    ):
        if isinstance(item, TokenEvent):
            if not shown:
                terminal.clear_status()
                terminal.streaming = True
            shown += item.text
            terminal.out.write(item.text)
            terminal.out.flush()
        elif isinstance(item, ResultEvent):
            result = item.result
    terminal.streaming = False
    assert result is not None
    if shown:
        final = result.text or "(no answer)"
        # The result's text is the answer that counts; the streamed one was its draft.
        terminal.out.write("\n" if shown.strip() == final.strip() else f"\n{final}\n")
        terminal.answer_shown = True
    return result


def _streams(terminal: Terminal) -> bool:
    """The answer is streamed when it is written to a terminal (not piped, not --json)."""
    terminal.answer_shown = False
    return terminal.stream_answers and _is_terminal(terminal.out)


def no_answer(result: RunResult) -> str | None:
    """Why a turn has no answer, in plain words (``None`` when it has one)."""
    if result.text.strip():
        return None
    escalations = [event for event in result.trace if isinstance(event, EscalateEvent)]
    if not escalations:
        return "the turn ended without an answer"
    first = escalations[0]
    why = f"the model could not finish ({first.reason})"
    if first.error:
        why += f": {first.error.partition(': ')[2] or first.error}"
    return why


async def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    terminal = Terminal(out, err, assume_yes=args.yes, progress=not args.quiet and not args.json)
    terminal.stream_answers = not args.json
    try:
        agent = await _agent(args, terminal)
        async with agent:
            result = await _turn(agent, terminal, args.ask, args.conversation)
    finally:
        await terminal.aclose()
    if args.json:
        from actors.messages import ResultMessage, encode_json

        out.write(encode_json(ResultMessage(turn_id=result.turn_id, result=result)).decode() + "\n")
    else:
        out.write(format_result(result, answer_shown=terminal.answer_shown) + "\n")
    problem = no_answer(result)
    if problem is not None:
        out.flush()
        err.write(f"goliath: no answer: {problem}\n")
        return 1
    return 0


async def _chat(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    terminal = Terminal(out, err, assume_yes=args.yes, progress=not args.quiet, piped_answers=True)
    try:
        agent = await _agent(args, terminal)
        conversation = args.conversation or (None if args.agent else "chat")
        async with agent:
            out.write("Chat with the agent; an empty line or Ctrl-D ends it.\n")
            while True:
                ask = await terminal.read_line("you> ")
                if not ask:
                    return 0
                result = await _turn(agent, terminal, ask, conversation)
                out.write(format_result(result, answer_shown=terminal.answer_shown) + "\n\n")
                out.flush()
                problem = no_answer(result)
                if problem is not None:
                    err.write(f"goliath: no answer: {problem}\n")
    finally:
        await terminal.aclose()


def _version() -> str:
    from . import __version__

    return f"goliath-harness {__version__}"


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows each option's default, except where there is none to show."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default in (None, False) or action.default is argparse.SUPPRESS:
            return action.help
        return super()._get_help_string(action)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="goliath", description=DESCRIPTION, formatter_class=_HelpFormatter
    )
    parser.add_argument("--version", action="version", version=_version())
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, help: str) -> argparse.ArgumentParser:
        return commands.add_parser(
            name,
            help=help,
            description=help[0].upper() + help[1:] + ".",
            formatter_class=_HelpFormatter,
        )

    model_help = f"the model: {SPEC_FORMS} (default: local, the packaged llama.cpp model)"

    def turn_options(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("--model", metavar="SPEC", help=model_help)
        sub.add_argument(
            "--agent",
            metavar="MODULE:ATTR",
            help="your application's Agent (or a function returning one), with its memory, "
            "instructions, extensions and confirm handler; --model replaces its model",
        )
        sub.add_argument(
            "--tools",
            metavar="MODULE:ATTR",
            help="a list of tools (or a function returning one) for a plain agent "
            "(default: a task-list demo)",
        )
        sub.add_argument(
            "--conversation", metavar="ID", help="conversation id (each has its own memory)"
        )
        sub.add_argument(
            "--max-steps", type=int, metavar="N", help="steps a turn may take (default: 5)"
        )
        sub.add_argument("--yes", action="store_true", help="approve every write without asking")
        sub.add_argument("--quiet", action="store_true", help="no status line while it works")

    run = command("run", "run one turn and print the answer and the step log")
    run.add_argument("ask", help="what to ask")
    run.add_argument("--json", action="store_true", help="print the RunResult as JSON")
    turn_options(run)
    chat = command("chat", "an interactive session, one turn per line")
    turn_options(chat)
    serve = command("serve", "the long-running daemon for many users")
    serve.add_argument("target", help="MODULE:ATTR of an Agent or a function returning one")
    serve.add_argument("--model", metavar="SPEC", help=f"replace the agent's model: {SPEC_FORMS}")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument("--port", type=int, default=8765, help="TCP port (0: any free one)")
    serve.add_argument("--socket", metavar="PATH", help="serve on this Unix socket instead")
    serve.add_argument(
        "--slots",
        type=int,
        metavar="N",
        help="with a llama.cpp --model: run it in a managed llama-server with N parallel slots "
        "(continuous batching) instead of in-process, one call at a time",
    )
    serve.add_argument(
        "--store",
        metavar="URL",
        help="keep memory and turn records in sqlite:PATH or postgres://... (default: memory)",
    )
    serve.add_argument(
        "--token",
        help="bearer token (visible in ps: prefer $GOLIATH_TOKEN or --token-file; "
        "default: $GOLIATH_TOKEN, else one generated and kept in $XDG_STATE_HOME/goliath/token)",
    )
    serve.add_argument(
        "--token-file",
        metavar="PATH",
        help="read the bearer token from this file (0600; made with a new token if missing)",
    )
    serve.add_argument(
        "--users",
        metavar="FILE",
        help="users and their conversations: a TOML/JSON file, or MODULE:ATTR",
    )
    serve.add_argument(
        "--allowed-host",
        action="append",
        metavar="NAME",
        help="a Host name HTTP answers besides IP addresses and localhost (repeatable; '*': any)",
    )
    serve.add_argument(
        "--stream-socket",
        metavar="PATH",
        help="also serve MessagePack frames on this Unix socket (mode 0600)",
    )
    serve.add_argument(
        "--grace", type=float, default=10.0, help="seconds running turns may finish on shutdown"
    )
    serve.add_argument(
        "--log-level",
        default="warning",
        choices=["debug", "info", "warning", "error"],
        help="what the 'goliath' loggers print on stderr",
    )
    fleet = serve.add_argument_group("fleet (with --store postgres://...)")
    fleet.add_argument("--node-id", help="this node's unique name (default: host-pid)")
    fleet.add_argument("--advertise", metavar="URL", help="URL other nodes use to reach this one")
    fleet.add_argument("--shards", type=int, default=1024, help="virtual shards (all nodes agree)")
    fleet.add_argument(
        "--interval", type=float, default=1.0, help="seconds between ownership checks"
    )
    doctor = command("doctor", "check that llama.cpp and the local model run on this machine")
    doctor.add_argument(
        "--model", default="local", help="local | local:NAME | small | llamacpp:PATH"
    )
    doctor.add_argument(
        "--slots",
        type=int,
        metavar="N",
        help="also check the managed llama-server that `goliath serve --slots N` runs",
    )
    evaluate = command("eval", "score a model on the everyday fixtures")
    evaluate.add_argument("--model", default="local", metavar="SPEC", help=model_help)
    evaluate.add_argument("--runs", type=int, default=1, help="attempts per fixture")
    evaluate.add_argument(
        "--fixtures", help="a fixtures module or file (default: evals/everyday.py)"
    )
    evaluate.add_argument(
        "--baseline",
        nargs="?",
        const="naive",
        choices=["naive", "native", "both"],
        help="also run a baseline: naive (the default of a bare --baseline), native (the "
        "model's own chat template with tools=) or both",
    )
    evaluate.add_argument(
        "--baseline-only",
        action="store_true",
        help="run only the baselines of --baseline (default: the naive loop)",
    )
    evaluate.add_argument(
        "--probe",
        choices=[
            "decision",
            "plan",
            "handoff",
            "intent",
            "condition",
            "next",
            "arguments",
            "answer",
        ],
        help="score one stage with one real model call per ask instead of whole turns",
    )
    evaluate.add_argument(
        "--option",
        action="append",
        metavar="NAME=VALUE",
        help="an Agent option for Goliath's runs (VALUE as JSON), e.g. hand_off_check=true",
    )
    evaluate.add_argument("--json", action="store_true", help="print the report as JSON")
    evaluate.add_argument(
        "--only", action="append", metavar="FIXTURE_ID", help="run only these fixtures (repeatable)"
    )
    evaluate.add_argument(
        "--split",
        choices=["dev", "held-out", "all"],
        default="all",
        help="the half of the suite to run, by a hash of each ask's id",
    )
    evaluate.add_argument(
        "--category", action="append", help="run only asks of this category (repeatable)"
    )
    evaluate.add_argument(
        "--wording",
        action="append",
        type=int,
        metavar="N",
        help="run only the N-th wording of each ask (repeatable; default: every wording)",
    )
    return parser


_CHILD_ENV = "GOLIATH_MODEL_CHILD"
"""Set in the child process that runs a llama.cpp turn under :func:`_supervised`."""


def _runs_llama_cpp(spec: str) -> bool:
    try:
        return ModelSpec.parse(spec).runs_llama_cpp
    except ConfigError:
        return False  # the command itself reports the spec, with the forms it takes


def _supervised(argv: Sequence[str], err: TextIO) -> int:
    """Run this command in a child process; explain a child that the CPU killed.

    The child shares the terminal (stdin, stdout, stderr), so prompts and answers pass through
    unchanged; Ctrl-C reaches it through the terminal's process group while the parent waits.
    """
    env = {**os.environ, _CHILD_ENV: "1"}
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        done = subprocess.run([sys.executable, "-m", "goliath.cli", *argv], env=env, check=False)
    finally:
        signal.signal(signal.SIGINT, previous)
    if done.returncode < 0:
        from .doctor import signal_hint

        if done.returncode == -signal.SIGINT:
            return 130
        err.write(
            f"goliath: the model process stopped: {signal_hint(done.returncode)}.\n"
            "Run `goliath doctor` to check llama.cpp and the model on this machine; it prints "
            "the command that fixes it.\n"
        )
        return 128 - done.returncode
    return done.returncode


GOLIATH_LOGGERS = ("goliath",)
"""The loggers ``--log-level`` sets (every Goliath module logs under ``goliath.``)."""


def _log_goliath(level: str) -> None:
    """Goliath's loggers at ``level`` on stderr (``goliath.serve: ...``); every other library
    stays at WARNING, so ``--log-level info`` does not turn on each dependency's INFO."""
    logging.basicConfig(level=logging.WARNING, format="%(name)s: %(message)s")
    for name in GOLIATH_LOGGERS:
        logging.getLogger(name).setLevel(level.upper())


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    args = _parser().parse_args(arguments)
    out, err = sys.stdout, sys.stderr
    if (
        args.command in ("run", "chat")
        and _runs_llama_cpp(args.model or ("" if args.agent else "local"))
        and os.environ.get(_CHILD_ENV) != "1"
    ):
        return _supervised(arguments, err)
    try:
        if args.command == "doctor":
            from .doctor import doctor_command

            return doctor_command(args.model, out, slots=args.slots)
        if args.command == "run":
            return trio.run(_run, args, out, err)
        if args.command == "chat":
            return trio.run(_chat, args, out, err)
        if args.command == "serve":
            from transports.serve_command import serve_command

            _log_goliath(args.log_level)
            return int(serve_command(args))
        if args.command == "eval":
            from .evaluation.cli import eval_command

            return trio.run(
                functools.partial(
                    eval_command,
                    args.model,
                    args.runs,
                    args.fixtures,
                    args.baseline,
                    args.json,
                    only=args.only,
                    split=args.split,
                    categories=args.category,
                    wordings=args.wording,
                    baseline_only=args.baseline_only,
                    probe=args.probe,
                    options=args.option,
                )
            )
    except (GoliathError, OSError) as exc:
        err.write(f"goliath: {exc}\n")
        return 2
    except KeyboardInterrupt:
        return 130
    return 2


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
