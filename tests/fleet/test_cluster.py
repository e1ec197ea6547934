"""Shard ownership on a real PostgreSQL: fair shares, hand-over, failure detection, fencing."""

from __future__ import annotations

import psycopg
import pytest
import trio

from actors.cluster import Cluster
from actors.store import FencedError
from actors.store_postgres import PostgresStore
from goliath import MemoryState

pytestmark = pytest.mark.slow
SHARDS = 16
INTERVAL = 0.2


def make(dsn: str, name: str) -> Cluster:
    return Cluster(
        PostgresStore(dsn, shards=SHARDS), node_id=name, url=f"http://{name}", interval=INTERVAL
    )


async def until(predicate, seconds: float = 10.0) -> float:  # type: ignore[no-untyped-def]
    """Wait for ``predicate()``; returns how long it took."""
    start = trio.current_time()
    with trio.fail_after(seconds):
        while not predicate():
            await trio.sleep(INTERVAL / 4)
    return trio.current_time() - start


def owners(nodes: list[Cluster]) -> list[int]:
    return sorted(shard for node in nodes for shard in node.owned)


async def test_three_nodes_split_the_shards_fairly_and_exclusively(pg_dsn: str) -> None:
    """Every shard has exactly one owner, and no node holds more than its fair share."""
    nodes = [make(pg_dsn, f"n{i}") for i in range(3)]
    async with trio.open_nursery() as nursery:
        for node in nodes:
            await nursery.start(node.serve)
        await until(
            lambda: (
                owners(nodes) == list(range(SHARDS)) and max(len(node.owned) for node in nodes) <= 6
            )  # ceil(16 / 3)
        )
        assert all(node.nodes == 3 for node in nodes)
        assert sorted(len(node.owned) for node in nodes) in ([4, 6, 6], [5, 5, 6])
        nursery.cancel_scope.cancel()


async def test_a_leaving_node_hands_its_shards_over(pg_dsn: str) -> None:
    """When a node leaves cleanly the others take every shard it had."""
    nodes = [make(pg_dsn, f"n{i}") for i in range(3)]
    async with trio.open_nursery() as nursery:
        scopes = []
        for node in nodes:
            scope = trio.CancelScope()
            scopes.append(scope)

            async def run(
                node: Cluster = node,
                scope: trio.CancelScope = scope,
                task_status=trio.TASK_STATUS_IGNORED,
            ) -> None:  # type: ignore[no-untyped-def]
                with scope:
                    await node.serve(task_status=task_status)

            await nursery.start(run)
        await until(lambda: owners(nodes) == list(range(SHARDS)))
        scopes[0].cancel()
        await until(lambda: owners(nodes[1:]) == list(range(SHARDS)))
        assert nodes[0].owned == {}
        nursery.cancel_scope.cancel()


async def test_a_node_whose_session_dies_loses_its_shards_and_its_writes_are_fenced(
    pg_dsn: str,
) -> None:
    """Kill a node's lock session: the others claim its shards within the detection time with a
    higher epoch, and the cut-off node's writes with its old epoch change nothing."""
    nodes = [make(pg_dsn, f"n{i}") for i in range(3)]
    claimed: list[tuple[str, int, int]] = []
    for node in nodes:

        async def on_claim(shard: int, epoch: int, node: Cluster = node) -> None:
            claimed.append((node.node_id, shard, epoch))

        node.on_claim = on_claim
    async with trio.open_nursery() as nursery:
        for node in nodes:
            await nursery.start(node.serve)
        await until(lambda: owners(nodes) == list(range(SHARDS)))
        victim = nodes[0]
        lost = dict(victim.owned)
        assert lost
        conversation = next(f"c{i}" for i in range(1000) if victim.shard(f"c{i}") in lost)
        zombie_fence = victim.fence(conversation)
        with psycopg.connect(pg_dsn, autocommit=True) as admin:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE application_name = %s",
                (f"goliath-node:{victim.node_id}:locks",),
            )

        def reclaimed() -> bool:
            # every lost shard is owned again under a new epoch (the victim may rejoin and win
            # some back: it reconnects as a fresh member, with a fresh claim)
            current = {s: e for node in nodes for s, e in node.owned.items()}
            return all(current.get(shard, 0) > epoch for shard, epoch in lost.items())

        took = await until(reclaimed)
        assert took <= 4 * INTERVAL + 1.0
        assert all(victim.owned.get(shard) != epoch for shard, epoch in lost.items())
        store = PostgresStore(pg_dsn, shards=SHARDS)
        await store.open()
        with pytest.raises(FencedError):
            await store.save_memory(conversation, MemoryState(summary="zombie"), zombie_fence)
        assert (await store.load_memory(conversation)).summary == ""
        nursery.cancel_scope.cancel()
