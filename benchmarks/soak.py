"""Soak benchmark: conversations come and go for a bounded time; the daemon's memory stays flat.

Run: ``python benchmarks/soak.py`` (10 minutes; ``--minutes``, ``--workers``, ``--pool``,
``--idle``, ``--every``). Not part of CI. Starts ``goliath serve
tests.reliability.app:make_soak_agent`` as its own process with a short idle timeout, then
``--workers`` clients walk through a pool of ``--pool`` conversation ids: each visit runs two or
three turns (some approving a write, some cancelling a slow turn) and leaves the conversation
idle long enough to be passivated before its next visit. Every ``--every`` seconds it prints
the daemon's resident memory and the runtime's statistics (live actors, passivations, turn
records), and at the end checks that every turn ended once, as planned, in order.
"""

from __future__ import annotations

import argparse
import itertools
import json
import resource
import signal
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import psutil
import trio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.reliability.conftest import TOKEN, start_daemon_process
from tests.reliability.loadgen import LoadTurn, expected_text, peak_rss, run_turn
from tests.reliability.rawhttp import RawHttp


def mib(value: float) -> str:
    return f"{value / 2**20:7.1f} MiB"


async def runtime_stats(http: httpx.AsyncClient, asked: int) -> dict[str, Any]:
    # a fresh conversation each time: its memory of an earlier call would skip the tool
    reply = await http.post(f"/v1/conversations/soak-stats-{asked}/runs", json={"ask": "stats"})
    for line in reply.text.splitlines():
        if line.startswith("data:") and '"steps"' in line:
            return dict(json.loads(line[5:])["steps"][0]["output"])
    raise RuntimeError(f"no statistics in {reply.text[-300:]}")


async def main(args: argparse.Namespace) -> int:
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    process, url = await start_daemon_process(
        "tests.reliability.app:make_soak_agent", env={"GOLIATH_SOAK_IDLE": str(args.idle)}
    )
    daemon = psutil.Process(process.pid)
    history: dict[str, list[LoadTurn]] = {}
    problems: list[str] = []
    said: list[bytes] = []
    pool = itertools.cycle(range(args.pool))
    visits = itertools.count()
    turns_done = 0
    deadline = time.monotonic() + args.minutes * 60
    limits = httpx.Limits(max_connections=None)
    raw = RawHttp.for_url(url, TOKEN)
    try:
        async with httpx.AsyncClient(
            base_url=url, headers={"authorization": f"Bearer {TOKEN}"}, timeout=120, limits=limits
        ) as http:

            async def worker() -> None:
                nonlocal turns_done
                while time.monotonic() < deadline:
                    number, visit = next(pool), next(visits)
                    conversation = f"s{number}"
                    before = history.setdefault(conversation, [])
                    for _ in range(2 + visit % 2):
                        index = len(before)
                        kind = "approve" if visit % 7 == 3 and index % 3 == 1 else "plain"
                        if visit % 11 == 5 and index % 3 == 2:
                            kind = "cancel"
                        word = {"plain": "hello", "approve": "add task", "cancel": "slow"}[kind]
                        turn = LoadTurn(
                            conversation=conversation,
                            index=index,
                            kind=kind,  # type: ignore[arg-type]
                            ask=f"{word} [{conversation}#{index}]",
                            turn_id=f"{conversation}-t{index}",
                            pipelined=False,
                        )
                        await run_turn(raw, turn)
                        wanted = ("error", "cancelled") if kind == "cancel" else ("result", None)
                        if turn.finals != 1 or (turn.final, turn.code) != wanted:
                            problems.append(f"{turn.turn_id}: {turn.finals} ends, {turn.final}")
                        elif kind != "cancel" and turn.text != expected_text(turn, before):
                            problems.append(f"{turn.turn_id}: out of order: {turn.text!r}")
                        before.append(turn)
                        turns_done += 1

            async def report() -> None:
                started = time.monotonic()
                print(
                    "elapsed   rss          turns   live actors  sessions  activations  "
                    "passivations  turn records",
                    flush=True,
                )
                asked = 0
                while True:
                    stats = await runtime_stats(http, asked)
                    asked += 1
                    print(
                        f"{time.monotonic() - started:6.0f} s {mib(daemon.memory_info().rss)}"
                        f"  {turns_done:6}  {stats['active_actors']:11}  {stats['sessions']:8}"
                        f"  {stats['activations']:11}  {stats['passivations']:12}"
                        f"  {stats['turn_records']:12}",
                        flush=True,
                    )
                    if time.monotonic() >= deadline:
                        return
                    await trio.sleep(min(args.every, max(0.0, deadline - time.monotonic())))

            async def listen() -> None:  # drain the daemon's stderr so it never blocks on it
                assert process.stderr is not None
                while chunk := await process.stderr.receive_some(65536):
                    said.append(chunk)

            async with trio.open_nursery() as nursery:
                nursery.start_soon(listen)
                async with trio.open_nursery() as clients:
                    for _ in range(args.workers):
                        clients.start_soon(worker)
                    clients.start_soon(report)
                nursery.cancel_scope.cancel()
        peak = peak_rss(process.pid)
    finally:
        process.send_signal(signal.SIGTERM)
        with trio.move_on_after(30):
            await process.wait()
        if process.returncode is None:
            process.kill()
    print(f"turns {turns_done} over {args.minutes:g} min; peak RSS {mib(peak).strip()}")
    stderr = b"".join(said).decode(errors="replace").strip()
    print(f"daemon stderr: {len(stderr)} characters" + (f":\n{stderr[-2000:]}" if stderr else ""))
    print(f"problems {len(problems)}")
    for problem in problems[:20]:
        print("  ", problem)
    return 1 if problems else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0, help="how long to run (bounded)")
    parser.add_argument("--workers", type=int, default=20, help="clients at once")
    parser.add_argument("--pool", type=int, default=3000, help="conversation ids to cycle")
    parser.add_argument("--idle", type=float, default=2.0, help="seconds before passivation")
    parser.add_argument("--every", type=float, default=30.0, help="seconds between reports")
    sys.exit(trio.run(main, parser.parse_args()))
