"""SIGKILL of a fleet node while many conversations run turns across the fleet.

Three ``goliath serve`` processes share a private PostgreSQL. Forty conversations talk through
the two nodes that survive (so every conversation the victim owns is reached by forwarding);
while each has a slow turn running, one node is killed. Every turn must end with a result or an
``interrupted``/forwarding error, the turn records in PostgreSQL must agree with what the
clients saw (nothing left unfinished, nothing run twice), memory must hold each conversation's
turns once and in order, and every conversation must go on afterwards.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import uuid
from collections.abc import Iterator

import attrs
import httpx
import psycopg
import pytest
import trio

from actors.store_postgres import shard_of
from tests.fleet.test_fleet import shard_owners, until_owners
from tests.postgres import PostgresServer, find_binaries, postgres_server
from tests.sse import iter_sse

from .conftest import ROOT, TOKEN

pytestmark = pytest.mark.slow
if find_binaries() is None:  # pragma: no cover - the machine ships them
    pytest.skip("needs PostgreSQL server binaries (initdb, pg_ctl)", allow_module_level=True)

SHARDS = 16
INTERVAL = 0.3
CONVERSATIONS = 40
TURNS = 5
SLOW_TURN = 1
HEADERS = {"authorization": f"Bearer {TOKEN}"}


@pytest.fixture(scope="module")
def postgres() -> Iterator[PostgresServer]:
    with postgres_server() as server:
        yield server


@pytest.fixture
def pg_dsn(postgres: PostgresServer) -> str:
    name = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres.dsn, autocommit=True) as connection:
        connection.execute(f"CREATE DATABASE {name}")
    return postgres.dsn.rsplit("/", 1)[0] + f"/{name}"


@attrs.define
class Node:
    name: str
    process: trio.Process
    url: str = ""


async def start_node(dsn: str, name: str) -> Node:
    process = await trio.lowlevel.open_process(
        [
            sys.executable,
            "-m",
            "goliath.cli",
            "serve",
            "tests.reliability.app:make_agent",
            "--port",
            "0",
            "--token",
            TOKEN,
            "--store",
            dsn,
            "--node-id",
            name,
            "--shards",
            str(SHARDS),
            "--interval",
            str(INTERVAL),
            "--grace",
            "1",
        ],
        cwd=ROOT,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert process.stderr is not None
    buffer = b""
    with trio.fail_after(60):
        while (match := re.search(rb"serving on (http://[\d.]+:\d+)", buffer)) is None:
            chunk = await process.stderr.receive_some(4096)
            if not chunk:
                raise AssertionError(f"node {name} exited: {buffer.decode()}")
            buffer += chunk
    return Node(name, process, match.group(1).decode())


@attrs.define
class Outcome:
    conversation: str
    index: int
    ask: str
    turn_id: str
    ended: str = ""  # "result", "error", "refused"
    code: str | None = None
    text: str = ""
    ran: bool = False  # its `plan` event arrived: the turn was running on its owner
    refusals: list[str] = attrs.field(factory=list)


async def one_turn(
    http: httpx.AsyncClient, url: str, outcome: Outcome, running: trio.Event | None
) -> None:
    body = {"ask": outcome.ask, "turn_id": outcome.turn_id}
    async with http.stream(
        "POST", f"{url}/v1/conversations/{outcome.conversation}/runs", json=body
    ) as response:
        if response.status_code != 200:
            error = json.loads(await response.aread())["error"]
            outcome.ended, outcome.code = "refused", error["code"]
            outcome.refusals.append(f"{response.status_code} {error['message']}")
            return
        async for name, data in iter_sse(response):
            if name == "plan":
                outcome.ran = True
                if running is not None:
                    running.set()
            elif name == "result":
                outcome.ended, outcome.text = "result", data["text"]
            elif name == "error":
                outcome.ended, outcome.code = "error", data["code"]


async def test_a_node_killed_under_load_loses_and_duplicates_nothing(pg_dsn: str) -> None:
    """40 conversations × 5 turns through two nodes; the third node, owning a share of them, is
    SIGKILLed while their slow turns run: every outcome is a result or an interrupted/forwarding
    error matching PostgreSQL's records, memory keeps each finished or interrupted turn once
    and in order, and every conversation is answered afterwards."""
    nodes = [await start_node(pg_dsn, f"node{n}") for n in range(3)]
    try:
        await until_owners(pg_dsn, {node.name for node in nodes})
        victim, survivors = nodes[2], nodes[:2]
        owners = shard_owners(pg_dsn)
        on_victim = {
            f"c{n}"
            for n in range(CONVERSATIONS)
            if owners[shard_of(f"c{n}", SHARDS)] == victim.name
        }
        assert 4 <= len(on_victim) <= 30
        outcomes = {
            f"c{n}": [
                Outcome(
                    conversation=f"c{n}",
                    index=k,
                    ask=f"{'slow' if k == SLOW_TURN else 'hello'} [c{n}#{k}]",
                    turn_id=f"c{n}-t{k}",
                )
                for k in range(TURNS)
            ]
            for n in range(CONVERSATIONS)
        }
        slow_running = {conversation: trio.Event() for conversation in outcomes}
        limits = httpx.Limits(max_connections=None)
        async with httpx.AsyncClient(headers=HEADERS, timeout=60, limits=limits) as http:

            async def converse(conversation: str) -> None:
                for outcome in outcomes[conversation]:
                    entry = survivors[outcome.index % 2].url
                    running = slow_running[conversation] if outcome.index == SLOW_TURN else None
                    await one_turn(http, entry, outcome, running)
                    for _ in range(100):  # a forwarding error says "retry shortly": do so
                        if outcome.ended != "refused":
                            break
                        await trio.sleep(0.1)
                        await one_turn(http, entry, outcome, running)
                    if running is not None:
                        running.set()  # refused before it ran: do not hold up the kill

            async with trio.open_nursery() as nursery:
                for conversation in outcomes:
                    nursery.start_soon(converse, conversation)
                with trio.fail_after(30):
                    for event in slow_running.values():
                        await event.wait()
                victim.process.kill()  # SIGKILL while every conversation's slow turn runs
                await victim.process.wait()

            await until_owners(pg_dsn, {node.name for node in survivors}, seconds=30)
            turns = [outcome for planned in outcomes.values() for outcome in planned]
            with psycopg.connect(pg_dsn, autocommit=True) as connection:
                rows = connection.execute(
                    "SELECT turn_id, status, record FROM goliath_turns"
                ).fetchall()
            records = {turn_id: (status, json.loads(record)) for turn_id, status, record in rows}
            assert set(records) <= {outcome.turn_id for outcome in turns}  # nothing unknown
            for outcome in turns:
                where = f"{outcome.turn_id} ({outcome.ended} {outcome.code})"
                status, record = records.get(outcome.turn_id, (None, {}))
                if outcome.ended == "result":
                    assert status == "done", where
                    assert record["result"]["text"] == outcome.text, where
                elif outcome.ended == "error":
                    assert outcome.code == "interrupted", where
                    assert outcome.conversation in on_victim, where
                    assert status == "interrupted", where
                else:
                    raise AssertionError(f"{where}: still refused: {outcome.refusals[-3:]}")
                if outcome.conversation in on_victim and outcome.index == SLOW_TURN:
                    assert not outcome.ran or outcome.ended == "error", where  # killed mid-turn
            for conversation, planned in outcomes.items():
                if conversation not in on_victim:  # untouched by the kill: all answered
                    assert [o.ended for o in planned] == ["result"] * TURNS, conversation

            # memory: each recorded turn once, in order (interrupted ones marked), then the talk
            # goes on everywhere
            async def check_memory(conversation: str) -> None:
                url = survivors[0].url
                reply = await http.get(f"{url}/v1/conversations/{conversation}/memory")
                recent = [(e["ask"], e.get("interrupted", False)) for e in reply.json()["recent"]]
                kept = [
                    (o.ask, records[o.turn_id][0] == "interrupted")
                    for o in outcomes[conversation]
                    if records.get(o.turn_id, (None,))[0] in ("done", "interrupted")
                ]
                assert recent == kept[-3:], conversation
                after = Outcome(conversation, TURNS, f"hello [{conversation}#{TURNS}]", "")
                after.turn_id = f"{conversation}-after"
                await one_turn(http, url, after, None)
                assert after.ended == "result", conversation

            async with trio.open_nursery() as nursery:
                for conversation in outcomes:
                    nursery.start_soon(check_memory, conversation)
        interrupted = sum(1 for o in turns if o.ended == "error")
        assert interrupted >= 1  # the kill did land mid-turn
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


async def test_a_claimed_shard_is_served_only_after_its_recovery(pg_dsn: str) -> None:
    """While a node recovers a shard it just claimed (the dead owner's turns become
    interrupted, in memory too), that shard's requests are not served there yet: a new turn
    would load memory before the interrupted exchange lands and overwrite it, or land first."""
    from actors.cluster import Cluster
    from actors.store_postgres import PostgresStore

    node = Cluster(
        PostgresStore(pg_dsn, shards=SHARDS), node_id="n0", url="http://n0", interval=INTERVAL
    )
    served_during_recovery: list[bool] = []

    async def on_claim(shard: int, epoch: int) -> None:
        conversation = next(f"c{n}" for n in range(10_000) if shard_of(f"c{n}", SHARDS) == shard)
        await trio.lowlevel.checkpoint()
        served_during_recovery.append(node.is_local(conversation))

    node.on_claim = on_claim
    async with trio.open_nursery() as nursery:
        await nursery.start(node.serve)
        with trio.fail_after(10):
            while len(node.owned) < SHARDS:
                await trio.sleep(INTERVAL / 4)
        assert all(node.is_local(f"c{n}") for n in range(CONVERSATIONS))  # served once recovered
        nursery.cancel_scope.cancel()
    assert served_during_recovery == [False] * SHARDS
