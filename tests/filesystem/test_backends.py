"""The backend protocol, run against every shipped backend."""

from __future__ import annotations

import re
from typing import Any

import pytest

from goliath import ConfigError
from goliath.filesystem import (
    FileMissingError,
    FilesystemBackend,
    ReadOnlyError,
    RevisionConflictError,
    in_memory_filesystem,
    static_filesystem,
)

from .conftest import NOTES


async def all_paths(backend: Any, directory: str = "/", limit: int = 1) -> list[str]:
    """Walk a listing page by page, as a search does."""
    paths: list[str] = []
    after = None
    while True:
        page = await backend.list(directory, after=after, limit=limit)
        paths += [info.path for info in page.files]
        if page.next is None:
            return paths
        after = page.next


async def test_read_returns_path_revision_and_content(make_backend: Any, kind: str) -> None:
    """A read gives the normalized path, a revision and the exact content."""
    backend = await make_backend(kind, NOTES)
    assert isinstance(backend, FilesystemBackend)
    entry = await backend.read("//notes/garden.md")
    assert entry.path == "/notes/garden.md"
    assert entry.content == NOTES["/notes/garden.md"]
    assert entry.revision


async def test_reading_a_missing_file_says_file_not_found(make_backend: Any, kind: str) -> None:
    """A missing file raises FileMissingError naming the path."""
    backend = await make_backend(kind, NOTES)
    with pytest.raises(FileMissingError, match=re.escape("File not found: /notes/nope.md")):
        await backend.read("/notes/nope.md")


async def test_listing_is_recursive_sorted_and_pages_exactly_once(
    make_backend: Any, kind: str
) -> None:
    """Pages of one file visit every file once, in path order; folders bound the listing."""
    backend = await make_backend(kind, {**NOTES, "/notes-old/x.md": "old"})
    everything = sorted([*NOTES, "/notes-old/x.md"])
    assert await all_paths(backend) == everything
    assert await all_paths(backend, limit=256) == everything
    assert await all_paths(backend, "/notes") == sorted(p for p in NOTES if p.startswith("/notes/"))
    assert await all_paths(backend, "/notes/garden.md") == ["/notes/garden.md"]
    page = await backend.list("/", after="/notes/garden.md", limit=2)
    assert [f.path for f in page.files] == ["/notes/trip.md", "/todo.txt"]
    assert page.next is None


async def test_listing_orders_paths_by_code_point_in_every_backend(
    make_backend: Any, kind: str
) -> None:
    """Non-ASCII paths sort the same way everywhere, so composites and cursors agree."""
    names = ["/a", "/z", "/é", "/Ａ", "/😀", "/notes/ü"]
    backend = await make_backend(kind, {name: "x" for name in names})
    assert await all_paths(backend) == sorted(names)


async def test_writes_compare_and_swap_on_the_revision(
    make_backend: Any, writable_kind: str
) -> None:
    """Create only when new, replace only the given revision, and each write gets a new one."""
    backend = await make_backend(writable_kind, NOTES)
    created = await backend.write("/notes/new.md", "one", expected_revision=None)
    assert created.path == "/notes/new.md"
    with pytest.raises(RevisionConflictError, match="already exists"):
        await backend.write("/notes/new.md", "two", expected_revision=None)
    replaced = await backend.write("/notes/new.md", "two", expected_revision=created.revision)
    assert replaced.revision != created.revision
    assert (await backend.read("/notes/new.md")).content == "two"
    with pytest.raises(RevisionConflictError, match="changed"):
        await backend.write("/notes/new.md", "three", expected_revision=created.revision)
    with pytest.raises(RevisionConflictError, match="does not exist"):
        await backend.write("/notes/absent.md", "x", expected_revision="abc")
    assert (await backend.read("/notes/new.md")).content == "two"


async def test_remove_deletes_only_the_given_revision(
    make_backend: Any, writable_kind: str
) -> None:
    """A stale revision or a missing file is refused; the right revision deletes the file."""
    backend = await make_backend(writable_kind, NOTES)
    entry = await backend.read("/todo.txt")
    with pytest.raises(RevisionConflictError, match="changed"):
        await backend.remove("/todo.txt", expected_revision="stale")
    await backend.remove("/todo.txt", expected_revision=entry.revision)
    with pytest.raises(FileMissingError):
        await backend.read("/todo.txt")
    with pytest.raises(FileMissingError):
        await backend.remove("/todo.txt", expected_revision=entry.revision)
    assert "/todo.txt" not in await all_paths(backend)


async def test_static_files_cannot_change_and_have_content_revisions() -> None:
    """A static snapshot has no write/remove, and equal content gives equal revisions."""
    first = static_filesystem({"/a.md": "same"})
    second = static_filesystem({"/b.md": "same"})
    assert first.read_only
    assert not hasattr(first, "write")
    assert (await first.read("/a.md")).revision == (await second.read("/b.md")).revision


async def test_a_read_only_memory_backend_refuses_changes() -> None:
    """in_memory_filesystem(read_only=True) reads but refuses writes and deletes."""
    backend = in_memory_filesystem({"/a.md": "x"}, read_only=True)
    entry = await backend.read("/a.md")
    with pytest.raises(ReadOnlyError, match="Read-only filesystem"):
        await backend.write("/a.md", "y", expected_revision=entry.revision)
    with pytest.raises(ReadOnlyError, match="Read-only filesystem"):
        await backend.remove("/a.md", expected_revision=entry.revision)


def test_seed_paths_that_normalize_alike_are_refused() -> None:
    """Two seeds naming one file are a configuration error that names both."""
    with pytest.raises(ConfigError, match=re.escape("'/a.md' and '//a.md'")):
        in_memory_filesystem({"/a.md": "1", "//a.md": "2"})
    with pytest.raises(ConfigError):
        static_filesystem({"/a.md": "1", "/a.md/": "2"})


def test_seed_content_must_be_text() -> None:
    """Bytes are refused with a hint to decode them."""
    with pytest.raises(ValueError, match="decode bytes first"):
        static_filesystem({"/a.bin": b"\x00"})  # type: ignore[dict-item]


def test_a_revision_is_never_digits_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """An all-digit revision would read as a number nobody gave (goliath/turn/given.py), and
    the write that carries it would be asked about instead of run: 1 CI run in ~280 hit it."""
    from goliath.filesystem import paths

    tokens = iter(["123456789012", "0a1b2c3d4e5f"])
    monkeypatch.setattr(paths.secrets, "token_hex", lambda n: next(tokens))
    assert paths.new_revision() == "0a1b2c3d4e5f"
    digest = "1" * 12 + "abcdef012345" + "0" * 40
    monkeypatch.setattr(
        paths.hashlib, "sha256", lambda data: type("H", (), {"hexdigest": lambda self: digest})()
    )
    assert paths.content_revision("x") == "abcdef012345"
