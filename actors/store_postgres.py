"""The fleet store: memory, turn records and shard ownership in PostgreSQL.

psycopg's blocking calls run in worker threads, bounded by a ``CapacityLimiter`` the size of the
connection pool, so the Trio thread never waits on the database. Every write of a conversation's
memory or turns carries a fence — the shard and the epoch its writer believes it owns — checked
against ``goliath_shards`` in the same transaction under a share lock: a node that lost the
shard (a zombie) changes nothing, and raises :class:`~actors.store.FencedError`.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable
from typing import Any, TypeVar

import trio

from goliath.memory.codec import decode_state, encode_state
from goliath.records import MemoryState

from .store import (
    DEFAULT_MEMORY_KEY,
    KEYS_MIGRATION,
    LEGACY_DEFAULT_KEY,
    Fence,
    FencedError,
    TurnRecord,
    decode_record,
    encode_record,
)

__all__ = ["DEFAULT_SHARDS", "PostgresStore", "shard_of"]

DEFAULT_SHARDS = 1024
"""Virtual shards: the unit of placement in a fleet (a conversation never moves alone)."""

T = TypeVar("T")

SCHEMA = """
CREATE TABLE IF NOT EXISTS goliath_shards (
    shard INTEGER PRIMARY KEY,
    owner TEXT,
    url TEXT,
    epoch BIGINT NOT NULL DEFAULT 0,
    claimed_at DOUBLE PRECISION
);
CREATE TABLE IF NOT EXISTS goliath_nodes (
    node TEXT PRIMARY KEY,
    url TEXT NOT NULL,
    seen_at DOUBLE PRECISION NOT NULL
);
CREATE TABLE IF NOT EXISTS goliath_memory (
    key TEXT PRIMARY KEY,
    shard INTEGER NOT NULL,
    state TEXT NOT NULL,
    epoch BIGINT NOT NULL DEFAULT 0,
    updated_at DOUBLE PRECISION NOT NULL
);
CREATE TABLE IF NOT EXISTS goliath_turns (
    turn_id TEXT PRIMARY KEY,
    conversation_id TEXT,
    shard INTEGER NOT NULL,
    status TEXT NOT NULL,
    record TEXT NOT NULL,
    epoch BIGINT NOT NULL DEFAULT 0,
    updated_at DOUBLE PRECISION NOT NULL
);
CREATE TABLE IF NOT EXISTS goliath_meta (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS goliath_turns_unfinished ON goliath_turns (shard)
    WHERE status NOT IN ('done', 'cancelled', 'failed', 'interrupted');
"""


def shard_of(conversation_id: str | None, shards: int) -> int:
    """``crc32(conversation_id) % shards`` (the default conversation is ``default``)."""
    return zlib.crc32((conversation_id or "default").encode()) % shards


class PostgresStore:
    """Memory and turn records in PostgreSQL at ``dsn``, fenced per shard.

    Args:
        dsn: a libpq connection string.
        shards: the fleet's number of virtual shards (every node must agree).
        pool_size: connections kept open; also the number of concurrent database calls.
    """

    def __init__(self, dsn: str, *, shards: int = DEFAULT_SHARDS, pool_size: int = 8) -> None:
        self.dsn = dsn
        self.shards = shards
        self._pool: list[Any] = []
        self._limiter = trio.CapacityLimiter(pool_size)
        self._opened = False

    # ---------------------------------------------------------------- plumbing

    def _connect(self) -> Any:
        import psycopg

        return psycopg.connect(self.dsn, autocommit=False, application_name="goliath-store")

    async def _run(self, work: Callable[[Any], T]) -> T:
        """Run ``work(connection)`` in a worker thread, inside one committed transaction."""
        async with self._limiter:
            connection = self._pool.pop() if self._pool else None

            def call() -> T:
                nonlocal connection
                if connection is None or connection.closed:
                    connection = self._connect()
                try:
                    result = work(connection)
                    connection.commit()
                    return result
                except BaseException:
                    try:
                        connection.rollback()
                    except Exception:
                        connection.close()
                    raise

            try:
                return await trio.to_thread.run_sync(call)
            finally:
                if connection is not None and not connection.closed:
                    self._pool.append(connection)

    async def open(self) -> None:
        if self._opened:
            return

        def setup(connection: Any) -> None:
            connection.execute("SELECT pg_advisory_xact_lock(24561, 0)")  # one migrator at a time
            connection.execute(SCHEMA)
            connection.execute(
                "INSERT INTO goliath_shards (shard) SELECT generate_series(0, %s - 1) "
                "ON CONFLICT DO NOTHING",
                (self.shards,),
            )
            # once: the default conversation's memory leaves the row `default`, which the
            # conversation "default" shared (a user could have read it), for its own blank row
            moved = connection.execute(
                "INSERT INTO goliath_meta (name, value) VALUES (%s, 'done') ON CONFLICT DO NOTHING",
                (KEYS_MIGRATION,),
            ).rowcount
            if moved == 1:
                connection.execute(
                    "UPDATE goliath_memory SET key = %s WHERE key = %s AND NOT EXISTS "
                    "(SELECT 1 FROM goliath_memory WHERE key = %s)",
                    (DEFAULT_MEMORY_KEY, LEGACY_DEFAULT_KEY, DEFAULT_MEMORY_KEY),
                )

        await self._run(setup)
        self._opened = True

    async def aclose(self) -> None:
        pool, self._pool = self._pool, []

        def close_all() -> None:
            for connection in pool:
                connection.close()

        await trio.to_thread.run_sync(close_all)

    def shard(self, conversation_id: str | None) -> int:
        return shard_of(conversation_id, self.shards)

    @staticmethod
    def _check_fence(connection: Any, fence: Fence | None) -> int:
        """Hold the shard row (share lock) and check the epoch; returns the epoch written."""
        if fence is None:
            return 0
        shard, epoch = fence
        row = connection.execute(
            "SELECT epoch FROM goliath_shards WHERE shard = %s FOR SHARE", (shard,)
        ).fetchone()
        if row is None or row[0] != epoch:
            current = None if row is None else row[0]
            raise FencedError(
                f"shard {shard} is at epoch {current}, not {epoch}: this node no longer owns it"
            )
        return epoch

    # ---------------------------------------------------------------- memory

    async def load_memory(self, key: str) -> MemoryState:
        def load(connection: Any) -> Any:
            row = connection.execute(
                "SELECT state FROM goliath_memory WHERE key = %s", (key,)
            ).fetchone()
            return None if row is None else row[0]

        return decode_state(await self._run(load))

    async def save_memory(self, key: str, state: MemoryState, fence: Fence | None = None) -> None:
        text = encode_state(state)
        shard = fence[0] if fence is not None else shard_of(key, self.shards)

        def save(connection: Any) -> None:
            epoch = self._check_fence(connection, fence)
            connection.execute(
                "INSERT INTO goliath_memory (key, shard, state, epoch, updated_at) "
                "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (key) DO UPDATE SET "
                "state = excluded.state, epoch = excluded.epoch, updated_at = excluded.updated_at",
                (key, shard, text, epoch, time.time()),
            )

        await self._run(save)

    # ---------------------------------------------------------------- turns

    async def begin_turn(self, record: TurnRecord, fence: Fence | None = None) -> TurnRecord | None:
        shard = self.shard(record.conversation_id)

        def insert(connection: Any) -> TurnRecord | None:
            epoch = self._check_fence(connection, fence)
            inserted = connection.execute(
                "INSERT INTO goliath_turns "
                "(turn_id, conversation_id, shard, status, record, epoch, updated_at) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (turn_id) DO NOTHING",
                (
                    record.turn_id,
                    record.conversation_id,
                    shard,
                    record.status,
                    encode_record(record),
                    epoch,
                    time.time(),
                ),
            ).rowcount
            if inserted == 1:
                return None
            row = connection.execute(
                "SELECT record FROM goliath_turns WHERE turn_id = %s", (record.turn_id,)
            ).fetchone()
            return decode_record(row[0])

        return await self._run(insert)

    async def update_turn(self, record: TurnRecord, fence: Fence | None = None) -> None:
        def update(connection: Any) -> None:
            epoch = self._check_fence(connection, fence)
            connection.execute(
                "UPDATE goliath_turns SET status = %s, record = %s, epoch = %s, updated_at = %s "
                "WHERE turn_id = %s",
                (record.status, encode_record(record), epoch, time.time(), record.turn_id),
            )

        await self._run(update)

    async def delete_turn(self, turn_id: str) -> None:
        await self._run(
            lambda connection: connection.execute(
                "DELETE FROM goliath_turns WHERE turn_id = %s", (turn_id,)
            )
        )

    async def get_turn(self, turn_id: str) -> TurnRecord | None:
        def get(connection: Any) -> TurnRecord | None:
            row = connection.execute(
                "SELECT record FROM goliath_turns WHERE turn_id = %s", (turn_id,)
            ).fetchone()
            return None if row is None else decode_record(row[0])

        return await self._run(get)

    async def unfinished_turns(self, shard: int | None = None) -> list[TurnRecord]:
        def select(connection: Any) -> list[TurnRecord]:
            query = (
                "SELECT record FROM goliath_turns "
                "WHERE status NOT IN ('done', 'cancelled', 'failed', 'interrupted')"
            )
            if shard is None:
                rows = connection.execute(query + " ORDER BY updated_at").fetchall()
            else:
                rows = connection.execute(
                    query + " AND shard = %s ORDER BY updated_at", (shard,)
                ).fetchall()
            return [decode_record(row[0]) for row in rows]

        return await self._run(select)
