"""A read-only snapshot of files given up front: documents shipped with an app, a notes folder.

Contents are copied at creation and there is no ``write`` or ``remove``, so write tools over it
fail with "Read-only filesystem". Revisions are digests of the content, so they are the same in
every process and every run.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..paths import DEFAULT_PAGE, content_revision
from ..types import FileEntry, FileListing
from .memory import InMemoryFilesystem

__all__ = ["StaticFilesystem", "static_filesystem"]


class StaticFilesystem:
    """Read-only files. Create with :func:`static_filesystem`."""

    read_only = True

    def __init__(self, files: Mapping[str, str]) -> None:
        self._files = InMemoryFilesystem(files, read_only=True, seed_revision=content_revision)

    async def read(self, path: str) -> FileEntry:
        return await self._files.read(path)

    async def list(
        self, directory: str = "/", *, after: str | None = None, limit: int = DEFAULT_PAGE
    ) -> FileListing:
        return await self._files.list(directory, after=after, limit=limit)

    def __repr__(self) -> str:
        return f"StaticFilesystem({self._files.count} files)"


def static_filesystem(files: Mapping[str, str]) -> StaticFilesystem:
    """A read-only backend holding ``{path: text}``.

    Paths are normalized (two that normalize alike are an error) and each file is at most
    1 MiB of UTF-8. Build the mapping from a folder with ``Path.read_text``; see
    ``docs/filesystem.md``.
    """
    return StaticFilesystem(files)
