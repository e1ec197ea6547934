"""Three `goliath serve` node processes on one private PostgreSQL: spread, forwarding, fail-over."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
import trio

from actors.store import FencedError
from actors.store_postgres import PostgresStore, shard_of
from goliath import MemoryState
from tests.processes import start_goliath
from tests.sse import iter_sse, sse_events

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
TOKEN = "fleet-token"
SHARDS = 16
INTERVAL = 0.3
HEADERS = {"authorization": f"Bearer {TOKEN}"}


class Node:
    def __init__(self, name: str, process: trio.Process, url: str) -> None:
        self.name, self.process, self.url = name, process, url


async def start_node(dsn: str, name: str, env: dict[str, str | None] | None = None) -> Node:
    process, url, _ = await start_goliath(
        "tests.transports.daemon_app:make_agent",
        *("--port", "0", "--token", TOKEN, "--store", dsn, "--node-id", name),
        *("--shards", str(SHARDS), "--interval", str(INTERVAL), "--grace", "1"),
        env=env,
    )
    return Node(name, process, url)


@asynccontextmanager
async def fleet(
    dsn: str, count: int = 3, env: dict[str, str | None] | None = None
) -> AsyncIterator[list[Node]]:
    nodes: list[Node] = []
    try:
        for n in range(count):
            nodes.append(await start_node(dsn, f"node{n}", env))
        await until_owners(dsn, {node.name for node in nodes})
        yield nodes
    finally:
        for node in nodes:
            if node.process.returncode is None:
                node.process.terminate()
        with trio.move_on_after(20):
            for node in nodes:
                await node.process.wait()
        for node in nodes:
            if node.process.returncode is None:
                node.process.kill()


def shard_owners(dsn: str) -> dict[int, str | None]:
    with psycopg.connect(dsn, autocommit=True) as connection:
        rows = connection.execute("SELECT shard, owner FROM goliath_shards").fetchall()
    return {int(shard): owner for shard, owner in rows}


async def until_owners(dsn: str, names: set[str], seconds: float = 30.0) -> float:
    """Wait until exactly ``names`` own every shard (fairly); returns how long it took."""
    start = trio.current_time()
    with trio.fail_after(seconds):
        while True:
            owners = shard_owners(dsn)
            counts = {name: sum(1 for o in owners.values() if o == name) for name in names}
            if (
                owners
                and set(owners.values()) == names
                and max(counts.values()) - min(counts.values()) <= 2
            ):
                return trio.current_time() - start
            await trio.sleep(0.1)


async def sse(http: httpx.AsyncClient, url: str, body: dict[str, Any]) -> list[tuple[str, Any]]:
    async with http.stream("POST", url, json=body) as response:
        assert response.status_code == 200, await response.aread()
        return await sse_events(response)


async def test_a_fleet_spreads_forwards_and_survives_a_node_killed_mid_turn(pg_dsn: str) -> None:
    """Conversations spread over three nodes and any node reaches the owner; SIGKILL of the node
    running a turn: its shards move within the detection time, the turn reads as interrupted,
    a zombie write is refused, memory is neither lost nor duplicated, the conversation goes on."""
    async with fleet(pg_dsn) as nodes:
        entry = nodes[0]
        async with httpx.AsyncClient(base_url=entry.url, headers=HEADERS, timeout=60) as http:
            # spread: 24 conversations, all sent to the same node
            for n in range(24):
                events = await sse(
                    http, f"/v1/conversations/c{n}/runs", {"ask": f"q{n}", "turn_id": f"t{n}"}
                )
                assert events[-1] == ("result", events[-1][1])
                assert events[-1][1]["text"] == f"answer to q{n}"
            with psycopg.connect(pg_dsn, autocommit=True) as connection:
                ran_on = {
                    row[0]
                    for row in connection.execute("SELECT record::json->>'node' FROM goliath_turns")
                }
            assert ran_on == {node.name for node in nodes}

            # pick a conversation owned by another node, with history
            owners = shard_owners(pg_dsn)
            victim = next(node for node in nodes[1:] if node.name in owners.values())
            conversation = next(
                f"c{n}" for n in range(24) if owners[shard_of(f"c{n}", SHARDS)] == victim.name
            )
            shard = shard_of(conversation, SHARDS)
            with psycopg.connect(pg_dsn, autocommit=True) as connection:
                old_epoch = connection.execute(
                    "SELECT epoch FROM goliath_shards WHERE shard = %s", (shard,)
                ).fetchone()[0]

            # a slow turn on the victim, reached through the entry node; kill the victim mid-turn
            events = []
            async with http.stream(
                "POST",
                f"/v1/conversations/{conversation}/runs",
                json={"ask": "wait", "turn_id": "doomed"},
            ) as response:
                async for name, data in iter_sse(response):
                    events.append((name, data))
                    if name == "plan":
                        victim.process.kill()
            assert events[-1][0] == "error" and events[-1][1]["code"] == "interrupted"
            await victim.process.wait()

            survivors = {node.name for node in nodes} - {victim.name}
            took = await until_owners(pg_dsn, survivors, seconds=20)
            assert took < 10 * INTERVAL + 3

            status = (await http.get("/v1/turns/doomed")).json()
            assert status["status"] == "interrupted"

            # the zombie's write with its old epoch changes nothing
            store = PostgresStore(pg_dsn, shards=SHARDS)
            await store.open()
            with pytest.raises(FencedError):
                await store.save_memory(
                    conversation, MemoryState(summary="zombie"), (shard, old_epoch)
                )
            await store.aclose()

            # memory: the earlier exchange once, then the interrupted ask; then the talk goes on
            memory = (await http.get(f"/v1/conversations/{conversation}/memory")).json()
            asks = [(e["ask"], e.get("interrupted", False)) for e in memory["recent"]]
            assert asks == [(f"q{conversation[1:]}", False), ("wait", True)]
            events = await sse(
                http, f"/v1/conversations/{conversation}/runs", {"ask": "still there?"}
            )
            assert events[-1][1]["text"] == "answer to still there?"
            memory = (await http.get(f"/v1/conversations/{conversation}/memory")).json()
            assert [e["ask"] for e in memory["recent"]] == [
                f"q{conversation[1:]}",
                "wait",
                "still there?",
            ]


async def test_a_pending_approval_survives_a_fail_over_and_runs_the_write_once(
    pg_dsn: str, tmp_path: Path
) -> None:
    """A turn paused at a write on one node; that node is SIGKILLed. The survivor that claims
    the shard resumes the turn at the paused step: GET shows the pending call, a client that
    retries the run there is asked again, and approving runs the write exactly once."""
    writes = tmp_path / "writes.txt"
    async with fleet(pg_dsn, 2, env={"GOLIATH_WRITES_FILE": str(writes)}) as nodes:
        owners = shard_owners(pg_dsn)
        victim, survivor = nodes
        conversation = next(
            f"p{n}" for n in range(200) if owners[shard_of(f"p{n}", SHARDS)] == victim.name
        )
        body = {"ask": "add jam", "turn_id": "fo-1"}
        async with (
            httpx.AsyncClient(base_url=victim.url, headers=HEADERS, timeout=60) as on_victim,
            httpx.AsyncClient(base_url=survivor.url, headers=HEADERS, timeout=60) as http,
        ):
            async with on_victim.stream(
                "POST", f"/v1/conversations/{conversation}/runs", json=body
            ) as response:
                async for name, data in iter_sse(response):
                    if name == "confirm_request":
                        asked = data
                        victim.process.kill()
                        break
            await victim.process.wait()
            await until_owners(pg_dsn, {survivor.name}, seconds=20)
            with trio.fail_after(20):
                while (status := (await http.get("/v1/turns/fo-1")).json()).get(
                    "status"
                ) != "awaiting_confirmation" or "pending" not in status:
                    await trio.sleep(0.1)
            assert status["pending"]["fingerprint"] == asked["fingerprint"]
            assert status["pending"]["input"] == {"title": "jam"}
            events = []
            async with http.stream(
                "POST", f"/v1/conversations/{conversation}/runs", json=body
            ) as response:
                async for name, data in iter_sse(response):
                    events.append((name, data))
                    if name == "confirm_request":
                        reply = await http.post(
                            "/v1/turns/fo-1/confirm",
                            json={
                                "call_id": data["call_id"],
                                "approved": True,
                                "fingerprint": data["fingerprint"],
                            },
                        )
                        assert reply.status_code == 204, reply.text
            assert events[-1][0] == "result" and events[-1][1]["text"] == "answer to add jam"
            with psycopg.connect(pg_dsn, autocommit=True) as connection:
                row = connection.execute(
                    "SELECT status, record::json->>'node' FROM goliath_turns WHERE turn_id = %s",
                    ("fo-1",),
                ).fetchone()
            assert row == ("done", survivor.name)
            memory = (await http.get(f"/v1/conversations/{conversation}/memory")).json()
            assert [e["ask"] for e in memory["recent"]] == ["add jam"]
    assert [line.split("\t")[0] for line in writes.read_text().splitlines()] == ["jam"]
