"""Durable memory in a SQLite file (WAL mode), safe for many conversations in one file.

SQLite calls block, so they run in worker threads, never on the Trio thread. All
``SQLiteMemory`` objects for one file share one connection guarded by a lock: thousands of
conversations cost one file handle, and WAL lets other processes read while we write.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from pathlib import Path

import trio

from ..records import MemoryState
from .codec import decode_state, encode_state
from .keyvalue import DEFAULT_KEY

__all__ = ["SQLiteDatabase", "SQLiteMemory", "close_databases", "shared_database"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS goliath_memory (
    key TEXT PRIMARY KEY,
    state TEXT NOT NULL,
    updated_at REAL NOT NULL
)
"""


class SQLiteDatabase:
    """One SQLite file's shared connection (WAL), guarded by a lock; calls block (use threads)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.lock = threading.Lock()
        self.connection = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self.connection.execute("PRAGMA journal_mode=WAL")
        self.connection.execute("PRAGMA synchronous=NORMAL")
        self.connection.execute("PRAGMA busy_timeout=5000")
        self.connection.execute(_SCHEMA)

    def get(self, key: str) -> str | None:
        with self.lock:
            row = self.connection.execute(
                "SELECT state FROM goliath_memory WHERE key = ?", (key,)
            ).fetchone()
        return None if row is None else str(row[0])

    def put(self, key: str, state: str) -> None:
        with self.lock:
            self.connection.execute(
                "INSERT INTO goliath_memory (key, state, updated_at) VALUES (?, ?, ?) "
                "ON CONFLICT(key) DO UPDATE SET state = excluded.state, "
                "updated_at = excluded.updated_at",
                (key, state, time.time()),
            )

    def delete(self, key: str) -> None:
        with self.lock:
            self.connection.execute("DELETE FROM goliath_memory WHERE key = ?", (key,))

    def close(self) -> None:
        with self.lock:
            self.connection.close()


_databases: dict[str, SQLiteDatabase] = {}
_registry_lock = threading.Lock()


def shared_database(path: str) -> SQLiteDatabase:
    """The one open database for ``path`` in this process (opened on first use)."""
    with _registry_lock:
        database = _databases.get(path)
        if database is None:
            database = _databases[path] = SQLiteDatabase(path)
        return database


def close_databases() -> None:
    """Close every shared SQLite connection (tests, or before a process forks)."""
    with _registry_lock:
        for database in _databases.values():
            database.close()
        _databases.clear()


class SQLiteMemory:
    """One conversation's memory, stored under ``key`` in the SQLite file at ``path``.

    Use a key per conversation: ``memory=lambda cid: SQLiteMemory("memory.db", cid or "default")``.
    """

    def __init__(self, path: str | os.PathLike[str], key: str = DEFAULT_KEY) -> None:
        if not isinstance(key, str) or not key:
            raise ValueError("SQLiteMemory needs a non-empty key")
        self.path = str(Path(path).expanduser().resolve())
        self.key = key

    async def load(self) -> MemoryState:
        database = await trio.to_thread.run_sync(shared_database, self.path)
        return decode_state(await trio.to_thread.run_sync(database.get, self.key))

    async def save(self, state: MemoryState) -> None:
        database = await trio.to_thread.run_sync(shared_database, self.path)
        await trio.to_thread.run_sync(database.put, self.key, encode_state(state))

    async def clear(self) -> None:
        database = await trio.to_thread.run_sync(shared_database, self.path)
        await trio.to_thread.run_sync(database.delete, self.key)

    def __repr__(self) -> str:
        return f"SQLiteMemory({self.path!r}, key={self.key!r})"
