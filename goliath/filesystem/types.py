"""The backend protocol and the records backends exchange.

A backend is anything with async ``read`` and ``list``; writable ones add ``write`` and
``remove``. Every backend orders paths the same way (Python string order, i.e. by code point),
which is what lets a composite merge listings and a search resume ``after`` a path.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Protocol, TypeAlias, runtime_checkable

import attrs

if TYPE_CHECKING:
    from ..tools import ToolContext

__all__ = [
    "BackendSource",
    "FileEntry",
    "FileInfo",
    "FileListing",
    "FilesystemBackend",
    "WritableFilesystemBackend",
]


@attrs.frozen
class FileInfo:
    """A file's path and current revision (what listings and writes return)."""

    path: str
    revision: str


@attrs.frozen
class FileEntry:
    """A file as read: path, revision and the whole content."""

    path: str
    revision: str
    content: str


@attrs.frozen
class FileListing:
    """One page of a recursive listing, sorted by path.

    ``next`` is the last path of this page when more files follow (pass it as ``after`` to get
    the next page), else ``None``.
    """

    files: Sequence[FileInfo]
    next: str | None = None


@runtime_checkable
class FilesystemBackend(Protocol):
    """Where files live. ``read`` and ``list`` are required; see WritableFilesystemBackend.

    Methods:
        read(path): the file at ``path``; raises FileMissingError when there is none.
        list(directory, after=None, limit=64): files at or under ``directory``, recursively,
            sorted by path, strictly after ``after``; ``limit`` is 1..256.

    A backend may set ``read_only = True`` to refuse changes even though it has ``write``.
    """

    async def read(self, path: str) -> FileEntry: ...

    async def list(
        self, directory: str = "/", *, after: str | None = None, limit: int = 64
    ) -> FileListing: ...


@runtime_checkable
class WritableFilesystemBackend(FilesystemBackend, Protocol):
    """A backend that also changes files, by compare-and-swap on the revision.

    Methods:
        write(path, content, expected_revision): ``None`` creates the file only if it does not
            exist; a revision replaces exactly that version. Anything else raises
            RevisionConflictError. Returns the new FileInfo.
        remove(path, expected_revision): deletes exactly that version of one file.
    """

    async def write(
        self, path: str, content: str, *, expected_revision: str | None
    ) -> FileInfo: ...

    async def remove(self, path: str, *, expected_revision: str) -> None: ...


BackendSource: TypeAlias = (
    "FilesystemBackend | Callable[[ToolContext], FilesystemBackend | Awaitable[FilesystemBackend]]"
)
"""A backend, or a function of the tool context returning one (e.g. one per conversation)."""
