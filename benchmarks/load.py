"""Load benchmark: 1,000 conversations at once against one daemon process on 127.0.0.1.

Run: ``python benchmarks/load.py`` (``--conversations``, ``--turns``, ``--store sqlite:PATH``).
Starts ``goliath serve tests.reliability.app:make_agent`` (a deterministic zero-latency scripted
model) as its own process, so the memory measured is the daemon's alone, then runs every
conversation at once: plain turns, writes approved and declined, slow turns cancelled mid-way,
half the conversations pipelining their turns. Afterwards it checks that no turn was lost,
duplicated or reordered (tests/reliability/loadgen.py), and prints per-turn latency percentiles
and the daemon's peak resident memory (VmHWM). Exits 1 if anything was lost or wrong.
"""

from __future__ import annotations

import argparse
import resource
import signal
import sys
import time
from pathlib import Path

import psutil
import trio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.reliability.conftest import TOKEN, start_daemon_process
from tests.reliability.loadgen import LoadTurn, peak_rss, percentile, run_load, verify


def mib(value: float) -> str:
    return f"{value / 2**20:.1f} MiB"


def latency_line(label: str, turns: list[LoadTurn]) -> str:
    values = [t.latency * 1000 for t in turns]
    if not values:
        return f"{label:<28} (none)"
    return (
        f"{label:<28} n={len(values):<5} p50 {percentile(values, 0.5):8.1f} ms   "
        f"p90 {percentile(values, 0.9):8.1f} ms   p99 {percentile(values, 0.99):8.1f} ms   "
        f"max {max(values):8.1f} ms"
    )


async def main(args: argparse.Namespace) -> int:
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # the daemon inherits it
    extra = ["--store", args.store] if args.store else []
    process, url = await start_daemon_process("tests.reliability.app:make_agent", *extra)
    daemon = psutil.Process(process.pid)
    said: list[bytes] = []  # the daemon's stderr, read so that it can never block on it
    try:
        await trio.sleep(0.5)
        idle_rss = daemon.memory_info().rss
        samples: list[int] = []

        async def sample() -> None:
            while True:
                samples.append(daemon.memory_info().rss)
                await trio.sleep(0.05)

        async def listen() -> None:
            assert process.stderr is not None
            while chunk := await process.stderr.receive_some(65536):
                said.append(chunk)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(sample)
            nursery.start_soon(listen)
            started = time.perf_counter()
            turns = await run_load(url, TOKEN, conversations=args.conversations, turns=args.turns)
            wall = time.perf_counter() - started
            nursery.cancel_scope.cancel()
        problems = await verify(url, TOKEN, turns)
        peak = peak_rss(process.pid)
        after_rss = daemon.memory_info().rss
        cpu = daemon.cpu_times()
    finally:
        process.send_signal(signal.SIGTERM)
        with trio.move_on_after(30):
            await process.wait()
        if process.returncode is None:
            process.kill()
    kinds = {kind: [t for t in turns if t.kind == kind] for kind in ("plain", "approve", "decline")}
    print(f"conversations {args.conversations}, turns each {args.turns}, total {len(turns)}")
    print(f"store         {args.store or 'in-process memory'}")
    print(f"wall time     {wall:.2f} s   ({len(turns) / wall:.0f} turns/s)")
    print(f"daemon CPU    {cpu.user + cpu.system:.1f} s")
    print(latency_line("every turn", [t for t in turns if t.kind != "cancel"]))
    print(latency_line("plain, one after another", [t for t in kinds["plain"] if not t.pipelined]))
    print(latency_line("plain, pipelined", [t for t in kinds["plain"] if t.pipelined]))
    print(latency_line("write, approved", kinds["approve"]))
    print(latency_line("write, declined", kinds["decline"]))
    print(latency_line("cancelled (to its end)", [t for t in turns if t.kind == "cancel"]))
    print(
        f"daemon RSS    idle {mib(idle_rss)}, peak {mib(peak)} (sampled max "
        f"{mib(max(samples, default=0))}), after {mib(after_rss)}"
    )
    ended = {name: sum(1 for t in turns if t.final == name) for name in ("result", "error")}
    print(f"outcomes      {ended['result']} results, {ended['error']} cancelled as planned")
    retried = [t for t in turns if t.errors]
    print(
        f"client retries {sum(len(t.errors) for t in turns)} over {len(retried)} turns "
        "(connection errors; the same turn id, answered once)"
    )
    for turn in retried[:5]:
        print("  ", turn.turn_id, turn.errors[0][:120])
    stderr = b"".join(said).decode(errors="replace").strip()
    print(f"daemon stderr {len(stderr)} characters during the load" + (":" if stderr else ""))
    if stderr:
        print(stderr[-2000:])
    print(f"problems      {len(problems)} (lost, duplicated, reordered or wrong)")
    for problem in problems[:20]:
        print("  ", problem)
    return 1 if problems else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=1000)
    parser.add_argument("--turns", type=int, default=5)
    parser.add_argument("--store", default=None, help="e.g. sqlite:/tmp/load.db")
    sys.exit(trio.run(main, parser.parse_args()))
