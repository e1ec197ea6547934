"""Why a file operation was refused, as exceptions a model can read and a caller can catch.

::

    FilesystemError (GoliathError)            every refusal of goliath.filesystem
    ├── InvalidPathError (ValueError)         '..', backslashes, control characters, > 512 chars
    ├── InvalidArgumentError (ValueError)     e.g. a cursor and an offset together, limit too big
    ├── InvalidCursorError (ValueError)       a cursor that is malformed, foreign or stale
    ├── FileMissingError (FileNotFoundError)  no file at that path
    ├── FileTooLargeError (ValueError)        content over 1 MiB of UTF-8
    ├── RevisionConflictError                 the file changed, exists, or is gone
    ├── ReadOnlyError (PermissionError)       a read-only backend or route was asked to change
    └── NotApprovedError (PermissionError)    the filesystem's ``approve`` handler said no

A tool that raises one becomes a failed step whose text (``error: <message>. Try different
arguments or another tool.``) the model sees, clipped to 160 characters, so every message
puts what went wrong and what to do first, keeps it short, and ends without a period (the
harness adds one).
"""

from __future__ import annotations

from ..errors import GoliathError

__all__ = [
    "FileMissingError",
    "FileTooLargeError",
    "FilesystemError",
    "InvalidArgumentError",
    "InvalidCursorError",
    "InvalidPathError",
    "NotApprovedError",
    "ReadOnlyError",
    "RevisionConflictError",
]


class FilesystemError(GoliathError):
    """A file operation was refused; the message says why and what to do instead."""


class InvalidPathError(FilesystemError, ValueError):
    """A path or glob pattern is not an absolute virtual path within the limits."""


class InvalidArgumentError(FilesystemError, ValueError):
    """Tool arguments that cannot be combined or are out of range."""


class InvalidCursorError(FilesystemError, ValueError):
    """A cursor that was not copied from the previous result of the same query, or is stale."""


class FileMissingError(FilesystemError, FileNotFoundError):
    """No file exists at the path."""


class FileTooLargeError(FilesystemError, ValueError):
    """File content larger than the 1 MiB (UTF-8) limit."""


class RevisionConflictError(FilesystemError):
    """A write's expected revision does not match: the file changed, already exists, or is gone.

    Read the file again and retry with its current revision.
    """


class ReadOnlyError(FilesystemError, PermissionError):
    """The backend, or the composite route that holds the path, accepts no changes."""


class NotApprovedError(FilesystemError, PermissionError):
    """The ``approve`` handler given to ``create_filesystem`` declined this change."""
