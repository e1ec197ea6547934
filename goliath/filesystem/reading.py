"""One page of a file for ``read_file``: lines from an offset or a cursor, fitted to the budget."""

from __future__ import annotations

from typing import Any

from ..budget import ResultBudget
from .cursors import Cursor, decode_cursor, encode_cursor, query_key
from .errors import FilesystemError, InvalidArgumentError, InvalidCursorError
from .paths import clip_path
from .render import fit_prefix, render_read
from .types import FileEntry

__all__ = ["MAX_CANDIDATE_CHARS", "read_page"]

MAX_CANDIDATE_CHARS = 16384
"""Most characters considered for one page before token fitting (fitting cost stays bounded)."""


def _line_start(content: str, offset: int) -> int:
    """Character index where zero-based line ``offset`` begins (len(content) past the end)."""
    start = 0
    for _ in range(offset):
        newline = content.find("\n", start)
        if newline < 0:
            return len(content)
        start = newline + 1
    return start


def _line_count(content: str) -> int:
    return content.count("\n") + (1 if content and not content.endswith("\n") else 0)


async def read_page(
    entry: FileEntry,
    *,
    offset: int | None,
    limit: int,
    cursor: str | None,
    budget: ResultBudget,
) -> dict[str, Any]:
    """``{path, revision, line, continued, next_cursor, content}`` for one page of ``entry``.

    ``line`` is the 1-based line the page starts on; ``continued`` says the page starts in the
    middle of that line (the previous page was cut by the budget); ``next_cursor`` is ``None``
    when the page reaches the end of the file.
    """
    if cursor and offset is not None:
        raise InvalidArgumentError(
            "Use offset or cursor, not both: the cursor already says where to continue"
        )
    content = entry.content
    query = query_key("read", entry.path)
    state = decode_cursor(cursor, query)
    if cursor:
        if state.revision != entry.revision:
            raise InvalidCursorError(
                f"File {clip_path(entry.path)} changed since this cursor was made; read it again "
                "without a cursor"
            )
        start = state.position
        if start > len(content):
            raise InvalidCursorError("The read cursor points past the end of the file")
    else:
        first = offset or 0
        if first > 0 and first >= _line_count(content):
            raise InvalidArgumentError(
                f"offset {first} is past the end of {clip_path(entry.path)}, which has "
                f"{_line_count(content)} lines (offsets start at 0)"
            )
        start = _line_start(content, first)
    end = start
    for _ in range(limit):
        newline = content.find("\n", end)
        if newline < 0:
            end = len(content)
            break
        end = newline + 1
    line = content.count("\n", 0, start) + 1
    continued = start > 0 and content[start - 1] != "\n"

    def make(excerpt: str) -> dict[str, Any]:
        stop = start + len(excerpt)
        next_cursor = (
            encode_cursor(Cursor(query=query, position=stop, revision=entry.revision))
            if stop < len(content)
            else None
        )
        return {
            "path": entry.path,
            "revision": entry.revision,
            "line": line,
            "continued": continued,
            "next_cursor": next_cursor,
            "content": excerpt,
        }

    candidate = content[start : min(end, start + MAX_CANDIDATE_CHARS)]
    length = await fit_prefix(candidate, lambda prefix: render_read(make(prefix)), budget)
    if length == 0 and start < len(content):
        raise FilesystemError(
            f"The tool result budget ({budget.max_tokens} tokens) is too small to show any "
            "content; raise budgets.tool_result_tokens"
        )
    return make(candidate[:length])
