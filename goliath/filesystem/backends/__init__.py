"""The shipped backends: in-memory, static (read-only snapshot), SQLite file, composite."""

from __future__ import annotations

from .composite import CompositeFilesystem, composite_filesystem
from .memory import InMemoryFilesystem, in_memory_filesystem
from .sqlite import SQLiteFilesystem, sqlite_filesystem
from .static import StaticFilesystem, static_filesystem

__all__ = [
    "CompositeFilesystem",
    "InMemoryFilesystem",
    "SQLiteFilesystem",
    "StaticFilesystem",
    "composite_filesystem",
    "in_memory_filesystem",
    "sqlite_filesystem",
    "static_filesystem",
]
