"""Memory benchmark: 10,000 turns that each read 120 KiB; the daemon's memory stays flat.

Run: ``python benchmarks/memory.py`` (``--turns``, ``--warmup``, ``--clients``,
``--conversations``, ``--store``). Not part of CI. Starts ``goliath serve
tests.reliability.app:make_agent`` as its own process (with ``--store`` on a SQLite file in a
temporary directory), then ``--clients`` clients run ``--turns`` turns over HTTP through a pool
of ``--conversations`` conversation ids; every turn reads a 120 KiB document
(``tests/reliability/app.py``, ask ``big ...``), so each finished turn's result holds 120 KiB.
Every 500 turns it prints the daemon's resident memory; at the end it compares the highest RSS
after ``--warmup`` turns with the RSS at the warm-up, and exits 1 when it grew more than 15%.

Before the byte budgets (``RuntimeLimits.turn_record_bytes``, ``transports.feeds``), memory
grew with every turn: 2,500 such turns took RSS from 54 to 348 MB.
"""

from __future__ import annotations

import argparse
import itertools
import resource
import signal
import sys
import tempfile
import time
from pathlib import Path

import psutil
import trio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.reliability.conftest import TOKEN, start_daemon_process
from tests.reliability.rawhttp import RawHttp

FLAT = 0.15
"""The most RSS may grow after the warm-up (a share of the RSS at the warm-up)."""


def mib(value: float) -> str:
    return f"{value / 2**20:7.1f} MiB"


async def main(args: argparse.Namespace) -> int:
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    with tempfile.TemporaryDirectory(prefix="goliath-memory-") as directory:
        extra = ("--store", f"sqlite:{Path(directory) / 'store.db'}") if args.store else ()
        process, url = await start_daemon_process("tests.reliability.app:make_agent", *extra)
        try:
            return await measure(args, process, url)
        finally:
            process.send_signal(signal.SIGTERM)
            with trio.move_on_after(20):
                await process.wait()
            if process.returncode is None:
                process.kill()
                await process.wait()


async def measure(args: argparse.Namespace, process: trio.Process, url: str) -> int:
    daemon = psutil.Process(process.pid)
    http = RawHttp.for_url(url, TOKEN)
    numbers = itertools.count()
    done = 0
    failures: list[str] = []
    samples: list[tuple[int, int]] = []
    started = time.monotonic()
    print(
        f"{'turns':>7}  {'rss':>11}  {'turns/s':>8}  (store: {'sqlite' if args.store else 'none'})"
    )

    async def client() -> None:
        nonlocal done
        while (number := next(numbers)) < args.turns:
            conversation = f"m{number % args.conversations}"
            status, body = await http.request(
                "POST", f"/v1/conversations/{conversation}/runs", {"ask": f"big {number}"}
            )
            if status != 200 or b"event: result" not in body or b'"read_big"' not in body:
                failures.append(f"turn {number}: {status} {body[-200:]!r}")
            done += 1
            if done % 500 == 0:
                rss = daemon.memory_info().rss
                samples.append((done, rss))
                rate = done / (time.monotonic() - started)
                print(f"{done:7}  {mib(rss)}  {rate:8.1f}", flush=True)

    async with trio.open_nursery() as nursery:
        for _ in range(args.clients):
            nursery.start_soon(client)
    warm = [rss for turns, rss in samples if turns >= args.warmup]
    if not warm:
        print("no sample after the warm-up: run more turns than --warmup")
        return 1
    base, top = warm[0], max(warm)
    growth = (top - base) / base
    print(
        f"after {args.warmup:,} turns of warm-up: RSS {mib(base)}; highest after it {mib(top)} "
        f"({growth:+.1%}, limit +{FLAT:.0%}); {len(failures)} failed turns"
    )
    for failure in failures[:5]:
        print("  ", failure)
    return 0 if growth <= FLAT and not failures else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=10_000)
    parser.add_argument("--warmup", type=int, default=1_000)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--conversations", type=int, default=100)
    parser.add_argument("--store", action="store_true", help="serve with a SQLite store")
    sys.exit(trio.run(main, parser.parse_args()))
