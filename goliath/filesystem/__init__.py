"""Virtual files as tools: let an agent find, read and (when enabled) change documents.

``create_filesystem(backend=...)`` returns a :class:`Filesystem` whose ``.tools`` an ``Agent``
takes as they are: ``glob``, ``grep`` and ``read_file`` always; ``write_file``, ``edit_file``
and ``delete_file`` only with ``read_only=False, write_tools=True``. Backends hold the files:
:func:`static_filesystem` (a read-only snapshot), :func:`in_memory_filesystem`,
:func:`sqlite_filesystem` (a SQLite file) and :func:`composite_filesystem` (backends mounted
under prefixes). Paths are virtual and never reach the host filesystem. See
``docs/filesystem.md``.
"""

from __future__ import annotations

from .._util import export_as
from .backends import (
    CompositeFilesystem,
    InMemoryFilesystem,
    SQLiteFilesystem,
    StaticFilesystem,
    composite_filesystem,
    in_memory_filesystem,
    sqlite_filesystem,
    static_filesystem,
)
from .create import Filesystem, create_filesystem
from .errors import (
    FileMissingError,
    FilesystemError,
    FileTooLargeError,
    InvalidArgumentError,
    InvalidCursorError,
    InvalidPathError,
    NotApprovedError,
    ReadOnlyError,
    RevisionConflictError,
)
from .paths import MAX_FILE_BYTES, MAX_PATH_CHARS
from .tools import ApproveHandler, FileChange
from .types import (
    BackendSource,
    FileEntry,
    FileInfo,
    FileListing,
    FilesystemBackend,
    WritableFilesystemBackend,
)

__all__ = [
    "MAX_FILE_BYTES",
    "MAX_PATH_CHARS",
    "ApproveHandler",
    "BackendSource",
    "CompositeFilesystem",
    "FileChange",
    "FileEntry",
    "FileInfo",
    "FileListing",
    "FileMissingError",
    "FileTooLargeError",
    "Filesystem",
    "FilesystemBackend",
    "FilesystemError",
    "InMemoryFilesystem",
    "InvalidArgumentError",
    "InvalidCursorError",
    "InvalidPathError",
    "NotApprovedError",
    "ReadOnlyError",
    "RevisionConflictError",
    "SQLiteFilesystem",
    "StaticFilesystem",
    "WritableFilesystemBackend",
    "composite_filesystem",
    "create_filesystem",
    "in_memory_filesystem",
    "sqlite_filesystem",
    "static_filesystem",
]

export_as("goliath.filesystem", globals(), __all__)
