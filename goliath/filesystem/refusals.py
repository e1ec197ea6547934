"""Refusals every backend words the same way, so the model learns one vocabulary."""

from __future__ import annotations

from .errors import FileMissingError, ReadOnlyError, RevisionConflictError
from .paths import clip_path

__all__ = ["changed", "exists", "gone", "missing", "read_only"]


def missing(path: str) -> FileMissingError:
    return FileMissingError(f"File not found: {clip_path(path)}. Use glob to find file paths")


def exists(path: str) -> RevisionConflictError:
    return RevisionConflictError(
        f"File {clip_path(path)} already exists; pass its current revision (from read_file) "
        "to replace it"
    )


def changed(path: str, expected: str) -> RevisionConflictError:
    return RevisionConflictError(
        f"File {clip_path(path)} changed: revision {expected[:24]} is not current. Read it again "
        "and use the new revision"
    )


def gone(path: str) -> RevisionConflictError:
    return RevisionConflictError(
        f"File {clip_path(path)} does not exist; omit revision to create it"
    )


def read_only() -> ReadOnlyError:
    return ReadOnlyError("Read-only filesystem")
