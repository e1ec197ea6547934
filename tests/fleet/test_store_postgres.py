"""The PostgreSQL store against a real private server: memory, turn records, fencing."""

from __future__ import annotations

import psycopg
import pytest

from actors.store import FencedError, TurnRecord, memory_key
from actors.store_postgres import PostgresStore, shard_of
from goliath import Exchange, MemoryState

pytestmark = pytest.mark.slow


async def test_memory_round_trips_and_is_shared_by_key(pg_dsn: str) -> None:
    """A saved state loads back equal, through a second store object too."""
    store = PostgresStore(pg_dsn, shards=16)
    await store.open()
    state = MemoryState(summary="Goal: tea", recent=[Exchange(ask="a", answer="b", at=1.0)])
    await store.save_memory("alice", state)
    other = PostgresStore(pg_dsn, shards=16)
    await other.open()
    assert await other.load_memory("alice") == state
    assert await other.load_memory("nobody") == MemoryState()
    await store.aclose()
    await other.aclose()


async def test_a_turn_id_is_recorded_once(pg_dsn: str) -> None:
    """begin_turn inserts the first record and returns the existing one afterwards."""
    store = PostgresStore(pg_dsn, shards=16)
    await store.open()
    record = TurnRecord(turn_id="t1", conversation_id="c", status="queued", ask="hi")
    assert await store.begin_turn(record) is None
    again = await store.begin_turn(TurnRecord(turn_id="t1", conversation_id="c", status="queued"))
    assert again is not None and again.ask == "hi"
    await store.update_turn(
        TurnRecord(turn_id="t1", conversation_id="c", status="running", ask="hi")
    )
    assert [r.turn_id for r in await store.unfinished_turns(shard_of("c", 16))] == ["t1"]
    assert (
        await store.unfinished_turns(shard_of("c", 16) + 1 if shard_of("c", 16) < 15 else 0) == []
    )
    await store.aclose()


async def test_a_stale_epoch_changes_nothing(pg_dsn: str) -> None:
    """A zombie's write (an epoch the shard has moved past) is refused and leaves no trace."""
    store = PostgresStore(pg_dsn, shards=16)
    await store.open()
    shard = shard_of("carol", 16)
    with psycopg.connect(pg_dsn, autocommit=True) as connection:
        connection.execute(
            "UPDATE goliath_shards SET epoch = 7, owner = 'n2' WHERE shard = %s", (shard,)
        )
    await store.save_memory("carol", MemoryState(summary="current"), (shard, 7))
    with pytest.raises(FencedError, match="epoch 7, not 6"):
        await store.save_memory("carol", MemoryState(summary="zombie"), (shard, 6))
    with pytest.raises(FencedError):
        await store.update_turn(
            TurnRecord(turn_id="x", conversation_id="carol", status="done"), (shard, 6)
        )
    assert (await store.load_memory("carol")).summary == "current"
    await store.aclose()


async def test_the_old_shared_default_row_becomes_the_default_conversations_once(
    pg_dsn: str,
) -> None:
    """Upgrading a fleet's database: the row ``default``, which older versions shared between
    the default conversation and the conversation ``"default"``, moves to the default
    conversation's own row once; a later ``default`` row stays that conversation's."""
    with psycopg.connect(pg_dsn, autocommit=True) as connection:  # an older version's table
        connection.execute(
            "CREATE TABLE goliath_memory (key TEXT PRIMARY KEY, shard INTEGER NOT NULL, "
            "state TEXT NOT NULL, epoch BIGINT NOT NULL DEFAULT 0, "
            "updated_at DOUBLE PRECISION NOT NULL)"
        )
        connection.execute(
            "INSERT INTO goliath_memory VALUES ('default', 0, %s, 0, 0)",
            ('{"summary": "old default", "recent": []}',),
        )
    store = PostgresStore(pg_dsn, shards=16)
    await store.open()
    assert (await store.load_memory(memory_key(None))).summary == "old default"
    assert (await store.load_memory(memory_key("default"))).summary == ""
    await store.save_memory(memory_key("default"), MemoryState(summary="the user's"))
    await store.aclose()
    again = PostgresStore(pg_dsn, shards=16)
    await again.open()
    assert (await again.load_memory(memory_key(None))).summary == "old default"
    assert (await again.load_memory(memory_key("default"))).summary == "the user's"
    await again.aclose()
