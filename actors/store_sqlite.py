"""The embedded store: memory and turn records in one SQLite file (WAL), for a single node.

It shares the memory table with :class:`goliath.memory.SQLiteMemory`, so a daemon started with
``--store sqlite:PATH`` and code reading ``SQLiteMemory(PATH, key)`` see the same memory. Every
call runs in a worker thread; ``fence`` arguments are accepted and ignored (one node owns all).
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

import trio

from goliath.memory.codec import decode_state, encode_state
from goliath.memory.sqlite import SQLiteDatabase, shared_database
from goliath.records import MemoryState

from .store import (
    DEFAULT_MEMORY_KEY,
    KEYS_MIGRATION,
    LEGACY_DEFAULT_KEY,
    Fence,
    TurnRecord,
    decode_record,
    encode_record,
)

__all__ = ["SQLiteStore"]

_TURNS = """
CREATE TABLE IF NOT EXISTS goliath_turns (
    turn_id TEXT PRIMARY KEY,
    conversation_id TEXT,
    status TEXT NOT NULL,
    record TEXT NOT NULL,
    updated_at REAL NOT NULL
)
"""
_META = "CREATE TABLE IF NOT EXISTS goliath_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)"
_UNFINISHED = "status NOT IN ('done', 'cancelled', 'failed', 'interrupted')"


def _move_default_memory(connection: sqlite3.Connection) -> None:
    """Once per file: the default conversation's memory moves from the row ``default`` (which
    the conversation ``"default"`` shared, so a user could read it) to its own blank row."""
    done = connection.execute(
        "SELECT 1 FROM goliath_meta WHERE name = ?", (KEYS_MIGRATION,)
    ).fetchone()
    if done is not None:
        return
    connection.execute(
        "UPDATE goliath_memory SET key = ? WHERE key = ? AND NOT EXISTS "
        "(SELECT 1 FROM goliath_memory WHERE key = ?)",
        (DEFAULT_MEMORY_KEY, LEGACY_DEFAULT_KEY, DEFAULT_MEMORY_KEY),
    )
    connection.execute(
        "INSERT INTO goliath_meta (name, value) VALUES (?, ?)", (KEYS_MIGRATION, "done")
    )


class SQLiteStore:
    """Memory and turn records in the SQLite file at ``path``."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = str(Path(path).expanduser().resolve())
        self._db: SQLiteDatabase | None = None

    async def open(self) -> None:
        def setup() -> SQLiteDatabase:
            database = shared_database(self.path)
            with database.lock:
                connection = database.connection
                connection.execute(_TURNS)
                connection.execute(_META)
                connection.execute("BEGIN IMMEDIATE")
                try:
                    _move_default_memory(connection)
                    connection.execute("COMMIT")
                except BaseException:
                    connection.execute("ROLLBACK")
                    raise
            return database

        self._db = await trio.to_thread.run_sync(setup)

    async def aclose(self) -> None:
        self._db = None  # the shared connection stays open for other users of the file

    def _database(self) -> SQLiteDatabase:
        if self._db is None:
            raise RuntimeError("the store is not open; call `await store.open()` first")
        return self._db

    async def load_memory(self, key: str) -> MemoryState:
        return decode_state(await trio.to_thread.run_sync(self._database().get, key))

    async def save_memory(self, key: str, state: MemoryState, fence: Fence | None = None) -> None:
        await trio.to_thread.run_sync(self._database().put, key, encode_state(state))

    async def begin_turn(self, record: TurnRecord, fence: Fence | None = None) -> TurnRecord | None:
        database = self._database()

        def insert() -> TurnRecord | None:
            with database.lock:
                cursor = database.connection.execute(
                    "INSERT OR IGNORE INTO goliath_turns "
                    "(turn_id, conversation_id, status, record, updated_at) VALUES (?, ?, ?, ?, ?)",
                    (
                        record.turn_id,
                        record.conversation_id,
                        record.status,
                        encode_record(record),
                        time.time(),
                    ),
                )
                if cursor.rowcount == 1:
                    return None
                row = database.connection.execute(
                    "SELECT record FROM goliath_turns WHERE turn_id = ?", (record.turn_id,)
                ).fetchone()
            return decode_record(row[0])

        return await trio.to_thread.run_sync(insert)

    async def update_turn(self, record: TurnRecord, fence: Fence | None = None) -> None:
        database = self._database()

        def update() -> None:
            with database.lock:
                database.connection.execute(
                    "UPDATE goliath_turns SET status = ?, record = ?, updated_at = ? WHERE turn_id = ?",
                    (record.status, encode_record(record), time.time(), record.turn_id),
                )

        await trio.to_thread.run_sync(update)

    async def delete_turn(self, turn_id: str) -> None:
        database = self._database()

        def delete() -> None:
            with database.lock:
                database.connection.execute(
                    "DELETE FROM goliath_turns WHERE turn_id = ?", (turn_id,)
                )

        await trio.to_thread.run_sync(delete)

    async def get_turn(self, turn_id: str) -> TurnRecord | None:
        database = self._database()

        def get() -> TurnRecord | None:
            with database.lock:
                row = database.connection.execute(
                    "SELECT record FROM goliath_turns WHERE turn_id = ?", (turn_id,)
                ).fetchone()
            return None if row is None else decode_record(row[0])

        return await trio.to_thread.run_sync(get)

    async def unfinished_turns(self, shard: int | None = None) -> list[TurnRecord]:
        database = self._database()

        def select() -> list[TurnRecord]:
            with database.lock:
                rows = database.connection.execute(
                    f"SELECT record FROM goliath_turns WHERE {_UNFINISHED} ORDER BY updated_at"
                ).fetchall()
            return [decode_record(row[0]) for row in rows]

        return await trio.to_thread.run_sync(select)
