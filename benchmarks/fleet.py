"""Fleet benchmark: the added cost of forwarding a turn, and fail-over time.

Run: ``python benchmarks/fleet.py`` (starts a private PostgreSQL and daemon node processes).
Measures, in one run: per-turn latency when the request reaches the owning node (local) and when
it reaches another node and is forwarded; then SIGKILLs a node and times how long until its
shards are owned again and until a turn of an affected conversation succeeds.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import httpx
import trio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from actors.store_postgres import shard_of
from tests.fleet.test_fleet import (
    HEADERS,
    SHARDS,
    fleet,
    shard_owners,
    sse,
    until_owners,
)
from tests.postgres import postgres_server


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


async def main(turns: int) -> None:
    with postgres_server() as server:
        async with fleet(server.dsn, count=2) as nodes:
            owners = shard_owners(server.dsn)
            home, other = nodes
            local_ids = [
                f"c{n}" for n in range(2000) if owners[shard_of(f"c{n}", SHARDS)] == home.name
            ][:turns]
            timings: dict[str, list[float]] = {"local": [], "forwarded": []}
            async with httpx.AsyncClient(headers=HEADERS, timeout=60) as http:
                for n, conversation in enumerate(local_ids):
                    for label, node in (("local", home), ("forwarded", other)):
                        started = time.perf_counter()
                        await sse(
                            http,
                            f"{node.url}/v1/conversations/{conversation}/runs",
                            {"ask": f"q{n}"},
                        )
                        timings[label].append(time.perf_counter() - started)
                for label, values in timings.items():
                    print(
                        f"turn via {label:<9} p50 {percentile(values, 0.5) * 1000:7.2f} ms   p99 {percentile(values, 0.99) * 1000:7.2f} ms"
                    )
                added = percentile(timings["forwarded"], 0.5) - percentile(timings["local"], 0.5)
                print(f"forwarding adds      p50 {added * 1000:7.2f} ms per turn")

                killed_at = trio.current_time()
                home.process.kill()
                await home.process.wait()
                took = await until_owners(server.dsn, {other.name}, seconds=30)
                print(f"shards owned again   {took:7.2f} s after SIGKILL")
                await sse(
                    http, f"{other.url}/v1/conversations/{local_ids[0]}/runs", {"ask": "back?"}
                )
                print(
                    f"first turn served    {trio.current_time() - killed_at:7.2f} s after SIGKILL"
                )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200)
    trio.run(main, parser.parse_args().turns)
