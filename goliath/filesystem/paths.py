"""Virtual paths, content limits and revisions.

Paths are virtual: they name entries of a backend and never touch the host filesystem, so the
rules are strict and simple. A path is absolute, at most 512 characters, without backslashes,
control characters or ``.``/``..`` segments; repeated slashes collapse. A file holds at most
1 MiB of UTF-8 text.
"""

from __future__ import annotations

import hashlib
import secrets
import unicodedata

from .errors import FileTooLargeError, InvalidArgumentError, InvalidPathError

__all__ = [
    "DEFAULT_PAGE",
    "MAX_FILE_BYTES",
    "MAX_PAGE",
    "MAX_PATH_CHARS",
    "check_content",
    "clip_path",
    "content_revision",
    "file_path",
    "new_revision",
    "normalize_path",
    "page_limit",
    "show",
    "within",
]

MAX_PATH_CHARS = 512
"""Longest path (and glob pattern) accepted, in characters."""
MAX_FILE_BYTES = 1024 * 1024  # 1 MiB
"""Largest file content accepted, in UTF-8 bytes."""
DEFAULT_PAGE = 64
"""Files per ``list`` page when the caller does not say."""
MAX_PAGE = 256
"""Most files one ``list`` call returns."""

_SHOWN_CHARS = 60


def show(path: str) -> str:
    """A path as error messages quote it: clipped so the fix still fits the 160-char step text."""
    if len(path) <= _SHOWN_CHARS:
        return repr(path)
    return repr(path[: _SHOWN_CHARS - 1] + "…")


def clip_path(path: str) -> str:
    """A valid path as messages show it, clipped to leave room for the fix."""
    return path if len(path) <= _SHOWN_CHARS else path[: _SHOWN_CHARS - 1] + "…"


def normalize_path(path: object) -> str:
    """The canonical form of a virtual path (``/notes//a.md/`` → ``/notes/a.md``).

    Raises:
        InvalidPathError: the path is not a string, not absolute, longer than 512 characters,
            holds a backslash, a control character or a ``.``/``..`` segment.
    """
    if not isinstance(path, str):
        raise InvalidPathError(f"A path must be a string like '/notes/a.md', got {path!r}")
    if len(path) > MAX_PATH_CHARS:
        raise InvalidPathError(
            f"Path is {len(path)} characters long; the limit is {MAX_PATH_CHARS}. Use a shorter path"
        )
    if "\\" in path:
        raise InvalidPathError(
            f"Path {show(path)} contains a backslash; separate folders with '/' instead"
        )
    for char in path:
        category = unicodedata.category(char)
        if category == "Cc":
            raise InvalidPathError(
                f"Path {show(path)} contains the control character {char!r}; remove it"
            )
        if category == "Cs":
            raise InvalidPathError(f"Path {show(path)} is not valid Unicode (a lone surrogate)")
    if not path.startswith("/"):
        raise InvalidPathError(
            f"Path {show(path)} is relative; use an absolute path that starts with '/', "
            "like '/notes/a.md'"
        )
    parts = [part for part in path.split("/") if part]
    if any(part in (".", "..") for part in parts):
        raise InvalidPathError(
            f"Path {show(path)} contains a '.' or '..' segment; write the absolute path out in full"
        )
    return "/" + "/".join(parts)


def file_path(path: object) -> str:
    """Like :func:`normalize_path`, but the root ``/`` (a folder, never a file) is refused."""
    result = normalize_path(path)
    if result == "/":
        raise InvalidPathError("'/' is the root folder, not a file; give a file path like '/a.md'")
    return result


def within(path: str, root: str) -> bool:
    """Whether a normalized ``path`` is ``root`` itself or lies beneath it."""
    return root == "/" or path == root or path.startswith(root + "/")


def check_content(content: object, path: str) -> str:
    """Return ``content`` when it is text of at most 1 MiB in UTF-8; raise otherwise."""
    if not isinstance(content, str):
        raise InvalidArgumentError(
            f"Content of {show(path)} must be text (str), got {type(content).__name__}; "
            "decode bytes first"
        )
    if len(content) > MAX_FILE_BYTES:  # every character takes at least one byte
        raise _too_large(path, len(content.encode("utf-8", "surrogatepass")))
    try:
        size = len(content.encode("utf-8"))
    except UnicodeEncodeError:
        raise InvalidArgumentError(
            f"Content of {show(path)} is not valid Unicode text (it holds a lone surrogate)"
        ) from None
    if size > MAX_FILE_BYTES:
        raise _too_large(path, size)
    return content


def _too_large(path: str, size: int) -> FileTooLargeError:
    return FileTooLargeError(
        f"File {show(path)} is {size:,} bytes; the limit is 1 MiB ({MAX_FILE_BYTES:,} bytes). "
        "Split it into smaller files"
    )


def page_limit(limit: object) -> int:
    """Validate a ``list`` page size (1..256)."""
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_PAGE:
        raise InvalidArgumentError(f"A list limit must be between 1 and {MAX_PAGE}, got {limit!r}")
    return limit


def new_revision() -> str:
    """A fresh revision: 48 random bits, short because models copy it into their arguments.

    Never digits alone: an all-digit token (1 in 280) reads as a number to the turn's rules,
    which ask the user for a number nobody gave instead of running the write."""
    while True:
        token = secrets.token_hex(6)
        if not token.isdigit():
            return token


def content_revision(content: str) -> str:
    """A revision derived from content, for snapshots that never change (static files); like
    :func:`new_revision`, never digits alone."""
    digest = hashlib.sha256(content.encode("utf-8")).hexdigest()
    return next(
        (digest[i : i + 12] for i in range(0, 60, 12) if not digest[i : i + 12].isdigit()),
        "r" + digest[:11],
    )
