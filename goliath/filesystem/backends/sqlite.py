"""Files in a SQLite database file (WAL), durable and shared by processes on one machine.

SQLite calls block, so each runs in a Trio worker thread (never abandoned: a cancelled caller
waits for the statement to finish). One connection per backend, opened lazily on first use and
again after a failed attempt, serves every call under a lock. Each change is a single
compare-and-swap statement (insert-or-ignore to create; update or delete guarded by the
revision), so two processes can never both win a race on one file.

Table ``goliath_files_v1(namespace, path, content, revision, PRIMARY KEY(namespace, path))``.
Paths are ordered by SQLite's binary collation of UTF-8 text, which is code-point order, the
same order every other backend uses.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

import trio

from ...errors import ConfigError
from ..paths import (
    DEFAULT_PAGE,
    check_content,
    file_path,
    new_revision,
    normalize_path,
    page_limit,
)
from ..refusals import changed, exists, gone, missing, read_only
from ..types import FileEntry, FileInfo, FileListing

__all__ = ["SQLiteFilesystem", "sqlite_filesystem"]

T = TypeVar("T")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS goliath_files_v1 (
    namespace TEXT NOT NULL,
    path TEXT NOT NULL,
    content TEXT NOT NULL,
    revision TEXT NOT NULL,
    PRIMARY KEY (namespace, path)
)
"""
BUSY_TIMEOUT_MS = 5000
"""How long a statement waits for another process's write lock before failing."""


class SQLiteFilesystem:
    """Files in one namespace of a SQLite file. Create with :func:`sqlite_filesystem`.

    Resource handling: the connection opens on first use; ``await backend.aclose()`` (or
    ``async with backend:``) closes it, and a later call opens it again.
    """

    def __init__(
        self, path: str | os.PathLike[str], *, namespace: str = "default", read_only: bool = False
    ) -> None:
        if not isinstance(namespace, str) or not namespace.strip():
            raise ConfigError(
                f"A filesystem namespace must be a non-blank string, got {namespace!r}."
            )
        text = os.fspath(path)
        self.path = text if text == ":memory:" else str(Path(text).expanduser().resolve())
        self.namespace = namespace
        self.read_only = bool(read_only)
        self._connection: sqlite3.Connection | None = None
        self._lock = threading.Lock()

    # ---------------------------------------------------------------- blocking side (threads)

    def _open(self) -> sqlite3.Connection:
        connection = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        try:
            connection.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=NORMAL")
            connection.execute(_SCHEMA)
        except BaseException:
            connection.close()
            raise
        return connection

    def _locked(self, action: Callable[[sqlite3.Connection], T]) -> T:
        with self._lock:
            if self._connection is None:
                self._connection = self._open()  # a failure leaves None: the next call retries
            return action(self._connection)

    async def _run(self, action: Callable[[sqlite3.Connection], T]) -> T:
        return await trio.to_thread.run_sync(self._locked, action)

    def _close(self) -> None:
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None

    # ---------------------------------------------------------------- the backend

    async def read(self, path: str) -> FileEntry:
        key = file_path(path)

        def select(db: sqlite3.Connection) -> Any:
            return db.execute(
                "SELECT content, revision FROM goliath_files_v1 WHERE namespace = ? AND path = ?",
                (self.namespace, key),
            ).fetchone()

        row = await self._run(select)
        if row is None:
            raise missing(key)
        content, revision = str(row[0]), str(row[1])
        check_content(content, key)  # another process may have stored more than the limit
        return FileEntry(path=key, revision=revision, content=content)

    async def list(
        self, directory: str = "/", *, after: str | None = None, limit: int = DEFAULT_PAGE
    ) -> FileListing:
        root = normalize_path(directory)
        size = page_limit(limit)
        params: list[Any] = [self.namespace, after or ""]
        where = "namespace = ? AND path > ?"
        if root != "/":
            # Paths under root sort between root + "/" and root + "0" ("0" follows "/").
            where += " AND (path = ? OR (path > ? AND path < ?))"
            params += [root, root + "/", root + "0"]
        params.append(size + 1)
        sql = f"SELECT path, revision FROM goliath_files_v1 WHERE {where} ORDER BY path LIMIT ?"

        def select(db: sqlite3.Connection) -> list[Any]:
            return db.execute(sql, params).fetchall()

        rows = await self._run(select)
        files = [FileInfo(str(row[0]), str(row[1])) for row in rows[:size]]
        return FileListing(files=files, next=files[-1].path if len(rows) > size else None)

    async def write(self, path: str, content: str, *, expected_revision: str | None) -> FileInfo:
        key = file_path(path)
        check_content(content, key)
        if self.read_only:
            raise read_only()
        revision = new_revision()

        def change(db: sqlite3.Connection) -> tuple[int, str | None]:
            if expected_revision is None:
                cursor = db.execute(
                    "INSERT INTO goliath_files_v1 (namespace, path, content, revision) "
                    "VALUES (?, ?, ?, ?) ON CONFLICT (namespace, path) DO NOTHING",
                    (self.namespace, key, content, revision),
                )
            else:
                cursor = db.execute(
                    "UPDATE goliath_files_v1 SET content = ?, revision = ? "
                    "WHERE namespace = ? AND path = ? AND revision = ?",
                    (content, revision, self.namespace, key, expected_revision),
                )
            return cursor.rowcount, None if cursor.rowcount else self._revision_of(db, key)

        changed_rows, current = await self._run(change)
        if not changed_rows:
            if expected_revision is None:
                raise exists(key)
            raise gone(key) if current is None else changed(key, expected_revision)
        return FileInfo(key, revision)

    async def remove(self, path: str, *, expected_revision: str) -> None:
        key = file_path(path)
        if self.read_only:
            raise read_only()

        def delete(db: sqlite3.Connection) -> tuple[int, str | None]:
            cursor = db.execute(
                "DELETE FROM goliath_files_v1 WHERE namespace = ? AND path = ? AND revision = ?",
                (self.namespace, key, expected_revision),
            )
            return cursor.rowcount, None if cursor.rowcount else self._revision_of(db, key)

        deleted, current = await self._run(delete)
        if not deleted:
            raise missing(key) if current is None else changed(key, expected_revision)

    def _revision_of(self, db: sqlite3.Connection, key: str) -> str | None:
        """The current revision, to say why a compare-and-swap changed nothing."""
        row = db.execute(
            "SELECT revision FROM goliath_files_v1 WHERE namespace = ? AND path = ?",
            (self.namespace, key),
        ).fetchone()
        return None if row is None else str(row[0])

    # ---------------------------------------------------------------- lifecycle

    async def aclose(self) -> None:
        """Close the connection (waiting for a statement in flight). Safe to call twice."""
        await trio.to_thread.run_sync(self._close)

    async def __aenter__(self) -> SQLiteFilesystem:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        flag = ", read_only=True" if self.read_only else ""
        return f"SQLiteFilesystem({self.path!r}, namespace={self.namespace!r}{flag})"


def sqlite_filesystem(
    path: str | os.PathLike[str], *, namespace: str = "default", read_only: bool = False
) -> SQLiteFilesystem:
    """A durable backend in the SQLite file at ``path`` (created on first use, WAL mode).

    Args:
        path: the database file; several backends (and processes) may share it.
        namespace: keeps this backend's files apart from others in the same file, e.g. one
            namespace per user.
        read_only: refuse every change through this backend.
    """
    return SQLiteFilesystem(path, namespace=namespace, read_only=read_only)
