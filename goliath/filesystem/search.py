"""Paged ``glob`` and ``grep``: bounded work per call, resumable by cursor.

A search walks files in path order, a page of the listing at a time, and stops with a cursor
when it has ``max_matches`` matches, has finished ``max_files`` files, has scanned about 64K
characters (a line is never split), or the next match would not fit the result budget. A page
may be empty with a cursor (keep going) and ``next_cursor: null`` means the search is done.
A cursor paused inside a file carries that file's revision; if the file changed, the cursor is
refused instead of skipping or repeating lines.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Literal

import attrs

from ..budget import ResultBudget
from .cursors import Cursor, decode_cursor, encode_cursor, query_key
from .errors import FileMissingError, FilesystemError, InvalidCursorError
from .glob import compile_glob, glob_base
from .paths import MAX_PAGE, clip_path, file_path, within
from .render import fit_prefix, render_search
from .types import FileInfo, FilesystemBackend

__all__ = [
    "EXCERPT_CHARS",
    "EXCERPT_LEAD",
    "MAX_SCAN_CHARS",
    "SearchLimits",
    "search",
]

MAX_SCAN_CHARS = 65536
"""About how many characters one ``grep`` call reads before it pauses with a cursor."""
EXCERPT_LEAD = 30
"""Characters of context shown before the first occurrence on a line."""
EXCERPT_CHARS = 100
"""Longest excerpt of a matching line, in characters."""
_METADATA_MARGIN = 16  # tokens kept free while appending matches


@attrs.frozen
class SearchLimits:
    """Per-call limits of a search."""

    max_matches: int = 10
    max_files: int = 128


class _Search:
    def __init__(self, budget: ResultBudget, state: Cursor) -> None:
        self.budget = budget
        self.state = state
        self.matches: list[dict[str, Any]] = []

    def result(self, more: bool) -> dict[str, Any]:
        next_cursor = encode_cursor(self.state) if more else None
        return {"matches": list(self.matches), "next_cursor": next_cursor}

    async def finish(self, more: bool) -> dict[str, Any]:
        value = self.result(more)
        if await self.budget.count(render_search(value)) > self.budget.max_tokens:
            raise FilesystemError(
                f"The tool result budget ({self.budget.max_tokens} tokens) is too small for the "
                "search metadata; raise budgets.tool_result_tokens"
            )
        return value

    async def append(self, match: dict[str, Any]) -> bool:
        """Add a match if the result still fits; a lone oversized grep match is shortened."""
        limit = self.budget.max_tokens - _METADATA_MARGIN

        def trial(candidate: dict[str, Any]) -> str:
            return render_search(
                {"matches": [*self.matches, candidate], "next_cursor": encode_cursor(self.state)}
            )

        if await self.budget.count(trial(match)) > limit:
            if self.matches:
                return False
            if "excerpt" not in match:
                raise FilesystemError(
                    f"The tool result budget ({self.budget.max_tokens} tokens) is too small for "
                    "one match; narrow the pattern or raise budgets.tool_result_tokens"
                )
            excerpt = match["excerpt"]
            shrunk = ResultBudget(max_tokens=limit, count_tokens=self.budget.count_tokens)
            length = await fit_prefix(
                excerpt, lambda prefix: trial({**match, "excerpt": prefix}), shrunk
            )
            match = {**match, "excerpt": excerpt[:length]}
        self.matches.append(match)
        return True


async def search(
    backend: FilesystemBackend,
    *,
    kind: Literal["glob", "grep"],
    root: str,
    pattern: str,
    ignore_case: bool,
    cursor: str | None,
    limits: SearchLimits,
    budget: ResultBudget,
    require_files: bool = False,
) -> dict[str, Any]:
    """One page of matches: ``{matches, next_cursor}``.

    For ``glob``, matches are ``{path, revision}`` of files whose whole path matches
    ``pattern`` (case-sensitive); for ``grep``, ``{path, revision, line, excerpt}``, one per
    line that contains the literal ``pattern``. With ``require_files``, a fresh search whose
    root holds no file at all raises FileMissingError (the caller named a path that is not
    there, which an empty result would hide).
    """
    state = decode_cursor(cursor, query_key(kind, root, pattern, ignore_case))
    if state.after and not within(file_path(state.after), root):
        raise InvalidCursorError("The cursor points outside the search root; omit it to restart")
    run = _Search(budget, state)
    matcher: Callable[[str], bool] | None = None
    needle: re.Pattern[str] | None = None
    walk_root = root
    if kind == "glob":
        matcher = compile_glob(pattern)
        base = glob_base(pattern)
        if within(base, root):
            walk_root = base
        elif not within(root, base):
            return await run.finish(False)  # the pattern cannot match anything under root
    else:
        needle = re.compile(re.escape(pattern), re.IGNORECASE if ignore_case else 0)
    scanned_files = 0
    scanned_chars = 0
    pending: list[FileInfo] = []
    if state.revision:
        pending = [FileInfo(state.after, state.revision)]  # resume inside this file
    while scanned_files < limits.max_files and scanned_chars < MAX_SCAN_CHARS:
        if not pending:
            page = await backend.list(
                walk_root,
                after=state.after or None,
                limit=min(MAX_PAGE, limits.max_files - scanned_files),
            )
            if not page.files:
                if require_files and not cursor and scanned_files == 0:
                    raise FileMissingError(
                        f"Nothing to search at {clip_path(root)}: no file or folder there. Use "
                        "glob to find paths"
                    )
                return await run.finish(False)
            pending = list(page.files)
        info = pending.pop(0)
        if matcher is not None:
            previous = state.after
            state.after = info.path
            if matcher(info.path) and not await run.append(
                {"path": info.path, "revision": info.revision}
            ):
                state.after = previous
                return await run.finish(True)
            scanned_files += 1
        else:
            assert needle is not None
            try:
                entry = await backend.read(info.path)
            except FileMissingError:
                if state.revision:  # the file this cursor paused in is gone
                    raise InvalidCursorError(
                        f"File {clip_path(info.path)} was deleted since this cursor was made; "
                        "repeat the search without a cursor"
                    ) from None
                state.after = info.path  # deleted after it was listed: nothing to search
                scanned_files += 1
                continue
            if state.revision and state.revision != entry.revision:
                raise InvalidCursorError(
                    f"File {clip_path(entry.path)} changed since this cursor was made; repeat the "
                    "search without a cursor"
                )
            state.after, state.revision = entry.path, entry.revision
            content = entry.content
            if state.position > len(content):
                raise InvalidCursorError("The search cursor points past the end of the file")
            while state.position < len(content) and scanned_chars < MAX_SCAN_CHARS:
                start = state.position
                newline = content.find("\n", start)
                end = len(content) if newline < 0 else newline
                text = content[start:end]
                found = needle.search(text)
                if found is not None:
                    lead = max(0, found.start() - EXCERPT_LEAD)
                    match = {
                        "path": entry.path,
                        "revision": entry.revision,
                        "line": content.count("\n", 0, start) + 1,
                        "excerpt": text[lead : lead + EXCERPT_CHARS],
                    }
                    if not await run.append(match):
                        return await run.finish(True)
                state.position = end if newline < 0 else end + 1
                scanned_chars += end - start + 1
                if len(run.matches) >= limits.max_matches:
                    if state.position >= len(content):  # resume at the next file
                        state.position, state.revision = 0, ""
                    return await run.finish(True)
            if state.position < len(content):
                return await run.finish(True)
            state.position, state.revision = 0, ""
            scanned_files += 1
        if len(run.matches) >= limits.max_matches:
            return await run.finish(True)
    return await run.finish(True)
