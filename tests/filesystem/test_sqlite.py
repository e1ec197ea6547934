"""The SQLite backend on a real database file (WAL), off the Trio thread."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest
import trio

from goliath import ConfigError
from goliath.filesystem import FileTooLargeError, RevisionConflictError, sqlite_filesystem


async def test_files_persist_in_a_real_wal_database(tmp_path: Path) -> None:
    """Files written by one backend are read by another over the same file, in WAL mode."""
    path = tmp_path / "files.db"
    async with sqlite_filesystem(path) as first:
        info = await first.write("/notes/a.md", "hello", expected_revision=None)
    async with sqlite_filesystem(path) as second:
        entry = await second.read("/notes/a.md")
    assert (entry.content, entry.revision) == ("hello", info.revision)
    with sqlite3.connect(path) as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        rows = raw.execute("SELECT namespace, path, content FROM goliath_files_v1").fetchall()
    assert rows == [("default", "/notes/a.md", "hello")]


async def test_namespaces_keep_files_apart(tmp_path: Path) -> None:
    """Two namespaces in one file never see each other's files."""
    path = tmp_path / "files.db"
    async with (
        sqlite_filesystem(path, namespace="ann") as ann,
        sqlite_filesystem(path, namespace="bob") as bob,
    ):
        await ann.write("/a.md", "ann's", expected_revision=None)
        await bob.write("/a.md", "bob's", expected_revision=None)
        assert (await ann.read("/a.md")).content == "ann's"
        assert (await bob.read("/a.md")).content == "bob's"
        assert [f.path for f in (await bob.list("/")).files] == ["/a.md"]


def test_a_blank_namespace_is_refused(tmp_path: Path) -> None:
    """A namespace must be a non-blank string."""
    with pytest.raises(ConfigError, match="non-blank"):
        sqlite_filesystem(tmp_path / "x.db", namespace="  ")


async def test_only_one_of_two_racing_writers_wins(tmp_path: Path) -> None:
    """Two connections replacing the same revision: one succeeds, the other is refused."""
    path = tmp_path / "files.db"
    async with sqlite_filesystem(path) as first, sqlite_filesystem(path) as second:
        base = await first.write("/a.md", "v1", expected_revision=None)
        outcomes: list[str] = []

        async def replace(backend: object, text: str) -> None:
            try:
                await backend.write("/a.md", text, expected_revision=base.revision)  # type: ignore[attr-defined]
                outcomes.append("won")
            except RevisionConflictError:
                outcomes.append("lost")

        async with trio.open_nursery() as nursery:
            nursery.start_soon(replace, first, "from first")
            nursery.start_soon(replace, second, "from second")
        assert sorted(outcomes) == ["lost", "won"]


async def test_statements_run_in_worker_threads(tmp_path: Path) -> None:
    """SQLite never blocks the Trio thread: every statement runs on another thread."""
    async with sqlite_filesystem(tmp_path / "files.db") as backend:
        await backend.list("/")
        threads: list[int] = []
        assert backend._connection is not None
        backend._connection.set_trace_callback(lambda _sql: threads.append(threading.get_ident()))
        await backend.write("/a.md", "x", expected_revision=None)
        await backend.read("/a.md")
        await backend.list("/")
    assert threads
    assert threading.get_ident() not in threads


async def test_a_failed_open_is_retried_on_the_next_call(tmp_path: Path) -> None:
    """A database that cannot be opened yet raises, and the next call opens it once it can."""
    folder = tmp_path / "later"
    backend = sqlite_filesystem(folder / "files.db")
    with pytest.raises(sqlite3.OperationalError):
        await backend.list("/")
    folder.mkdir()
    await backend.write("/a.md", "x", expected_revision=None)
    assert [f.path for f in (await backend.list("/")).files] == ["/a.md"]
    await backend.aclose()
    await backend.aclose()  # closing twice is safe


async def test_an_oversized_file_stored_by_another_process_is_refused_on_read(
    tmp_path: Path,
) -> None:
    """Content over 1 MiB that bypassed this backend is still refused when read."""
    path = tmp_path / "files.db"
    async with sqlite_filesystem(path) as backend:
        await backend.write("/big.txt", "small", expected_revision=None)
        with sqlite3.connect(path) as raw:
            raw.execute("UPDATE goliath_files_v1 SET content = ?", ("x" * (1024 * 1024 + 1),))
        with pytest.raises(FileTooLargeError, match="limit is 1 MiB"):
            await backend.read("/big.txt")
