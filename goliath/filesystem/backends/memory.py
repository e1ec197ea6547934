"""An in-process, map-backed backend: for tests, scratch space and per-conversation files.

Everything runs on the Trio thread without awaiting between a check and its update, so each
compare-and-swap is atomic without a lock. Paths are kept in a sorted list, so a listing page
costs a binary search plus the page, not a sort of every file.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Mapping

import trio

from ...errors import ConfigError
from ..paths import (
    DEFAULT_PAGE,
    check_content,
    file_path,
    new_revision,
    normalize_path,
    page_limit,
    within,
)
from ..refusals import changed, exists, gone, missing, read_only
from ..types import FileEntry, FileInfo, FileListing

__all__ = ["InMemoryFilesystem", "in_memory_filesystem"]


def seed_entries(
    files: Mapping[str, str] | None, revision: Callable[[str], str] | None = None
) -> dict[str, FileEntry]:
    """Validate seed files; two seeds that normalize to one path are a ConfigError."""
    if files is None:
        return {}
    if not isinstance(files, Mapping):
        raise ConfigError(
            f"Seed files must be a mapping of path to text, like {{'/a.md': 'hello'}}; got {files!r}."
        )
    entries: dict[str, FileEntry] = {}
    originals: dict[str, str] = {}
    for raw, content in files.items():
        path = file_path(raw)
        if path in entries:
            raise ConfigError(
                f"Seed files {originals[path]!r} and {raw!r} are both {path}; keep one of them."
            )
        check_content(content, path)
        made = revision(content) if revision is not None else new_revision()
        entries[path] = FileEntry(path=path, revision=made, content=content)
        originals[path] = raw
    return entries


class InMemoryFilesystem:
    """Files in a dict, lost when the process ends. Create with :func:`in_memory_filesystem`."""

    def __init__(
        self,
        files: Mapping[str, str] | None = None,
        *,
        read_only: bool = False,
        seed_revision: Callable[[str], str] | None = None,
    ) -> None:
        self._entries = seed_entries(files, seed_revision)
        self._paths = sorted(self._entries)
        self.read_only = bool(read_only)

    @property
    def count(self) -> int:
        """How many files there are."""
        return len(self._paths)

    async def read(self, path: str) -> FileEntry:
        await trio.lowlevel.checkpoint()
        key = file_path(path)
        entry = self._entries.get(key)
        if entry is None:
            raise missing(key)
        return entry

    async def list(
        self, directory: str = "/", *, after: str | None = None, limit: int = DEFAULT_PAGE
    ) -> FileListing:
        await trio.lowlevel.checkpoint()
        root = normalize_path(directory)
        size = page_limit(limit)
        start_at = root if after is None or after < root else after
        index = bisect.bisect_left(self._paths, start_at)
        picked: list[str] = []
        more = False
        for key in self._paths[index:]:
            if after is not None and key <= after:
                continue
            if not within(key, root):
                if key > root + "/":
                    break  # sorts after every path that starts with root + "/"
                continue
            if len(picked) == size:
                more = True
                break
            picked.append(key)
        files = [FileInfo(key, self._entries[key].revision) for key in picked]
        return FileListing(files=files, next=picked[-1] if more else None)

    async def write(self, path: str, content: str, *, expected_revision: str | None) -> FileInfo:
        await trio.lowlevel.checkpoint()
        key = file_path(path)
        check_content(content, key)
        if self.read_only:
            raise read_only()
        current = self._entries.get(key)
        if expected_revision is None and current is not None:
            raise exists(key)
        if expected_revision is not None:
            if current is None:
                raise gone(key)
            if current.revision != expected_revision:
                raise changed(key, expected_revision)
        revision = new_revision()
        while current is not None and revision == current.revision:
            revision = new_revision()
        if current is None:
            bisect.insort(self._paths, key)
        self._entries[key] = FileEntry(path=key, revision=revision, content=content)
        return FileInfo(key, revision)

    async def remove(self, path: str, *, expected_revision: str) -> None:
        await trio.lowlevel.checkpoint()
        key = file_path(path)
        if self.read_only:
            raise read_only()
        current = self._entries.get(key)
        if current is None:
            raise missing(key)
        if current.revision != expected_revision:
            raise changed(key, expected_revision)
        del self._entries[key]
        del self._paths[bisect.bisect_left(self._paths, key)]

    def __repr__(self) -> str:
        flag = ", read_only=True" if self.read_only else ""
        return f"InMemoryFilesystem({self.count} files{flag})"


def in_memory_filesystem(
    files: Mapping[str, str] | None = None, *, read_only: bool = False
) -> InMemoryFilesystem:
    """A writable in-process backend, optionally seeded with ``{path: text}``.

    Args:
        files: initial files; paths are normalized, and two that normalize alike are an error.
        read_only: refuse every change (a read-only route when mounted in a composite).
    """
    return InMemoryFilesystem(files, read_only=read_only)
