"""glob, grep and read_file called directly, against every backend."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from goliath.budget import estimate_tokens
from goliath.filesystem import (
    FileMissingError,
    InvalidArgumentError,
    InvalidCursorError,
    InvalidPathError,
    create_filesystem,
)

from .conftest import NOTES, context

LONG = "".join(f"line {n}\n" for n in range(1, 61))  # 60 short lines


async def call(fs: Any, name: str, max_tokens: int = 512, **args: Any) -> Any:
    """Run a tool as the harness does and check its rendering fits the result budget."""
    tool = fs.tool(name)
    output = await tool.execute(args, context(max_tokens))
    assert estimate_tokens(tool.to_model_output(output)) <= max_tokens
    return output


# ---------------------------------------------------------------- read_file


async def test_read_file_pages_25_lines_by_default(make_backend: Any, kind: str) -> None:
    """Pages of 25 lines with 1-based line numbers; the last page has no cursor."""
    fs = create_filesystem(await make_backend(kind, {"/long.txt": LONG}))
    first = await call(fs, "read_file", path="/long.txt")
    assert (first["line"], first["content"]) == (1, "".join(LONG.splitlines(True)[:25]))
    assert first["next_cursor"] and not first["continued"]
    second = await call(fs, "read_file", path="/long.txt", cursor=first["next_cursor"])
    assert second["line"] == 26
    assert second["content"].startswith("line 26\n")
    third = await call(fs, "read_file", path="/long.txt", cursor=second["next_cursor"])
    assert (third["line"], third["next_cursor"]) == (51, None)
    assert third["content"] == "".join(LONG.splitlines(True)[50:])


async def test_read_file_renders_a_json_header_then_the_literal_content(
    make_backend: Any, kind: str
) -> None:
    """The model sees one JSON line (path, revision, line, continued, next_cursor), then text."""
    fs = create_filesystem(await make_backend(kind, NOTES))
    output = await call(fs, "read_file", path="/notes/garden.md", offset=1, limit=2)
    header, _, body = fs.tool("read_file").to_model_output(output).partition("\n")
    assert list(json.loads(header)) == ["path", "revision", "line", "continued", "next_cursor"]
    assert json.loads(header)["line"] == 2
    assert body == "Tomatoes need sun.\nThe greenhouse is warm.\n"


async def test_read_file_refuses_a_limit_above_the_maximum(make_backend: Any, kind: str) -> None:
    """limit 201 (and 0) is refused with the allowed range."""
    fs = create_filesystem(await make_backend(kind, NOTES))
    with pytest.raises(InvalidArgumentError, match="between 1 and 200 lines, got 201"):
        await call(fs, "read_file", path="/todo.txt", limit=201)
    with pytest.raises(InvalidArgumentError, match="got 0"):
        await call(fs, "read_file", path="/todo.txt", limit=0)
    assert (await call(fs, "read_file", path="/todo.txt", limit=200))["content"] == NOTES[
        "/todo.txt"
    ]


async def test_read_file_refuses_a_cursor_with_an_offset(make_backend: Any, kind: str) -> None:
    """Passing both says to use one or the other."""
    fs = create_filesystem(await make_backend(kind, {"/long.txt": LONG}))
    first = await call(fs, "read_file", path="/long.txt")
    with pytest.raises(InvalidArgumentError, match="offset or cursor, not both"):
        await call(fs, "read_file", path="/long.txt", cursor=first["next_cursor"], offset=3)


async def test_read_file_refuses_foreign_and_malformed_cursors(
    make_backend: Any, kind: str
) -> None:
    """A cursor from another file or one that is not a cursor is refused with what to do."""
    fs = create_filesystem(await make_backend(kind, {"/long.txt": LONG, "/other.txt": LONG}))
    first = await call(fs, "read_file", path="/long.txt")
    with pytest.raises(InvalidCursorError, match="different query"):
        await call(fs, "read_file", path="/other.txt", cursor=first["next_cursor"])
    with pytest.raises(InvalidCursorError, match="not valid"):
        await call(fs, "read_file", path="/long.txt", cursor='{"query": 1}')
    with pytest.raises(InvalidCursorError, match="not valid"):
        await call(fs, "read_file", path="/long.txt", cursor=first["next_cursor"][:-3])


async def test_read_file_refuses_an_offset_past_the_end(make_backend: Any, kind: str) -> None:
    """An offset beyond the last line says how many lines there are."""
    fs = create_filesystem(await make_backend(kind, NOTES))
    with pytest.raises(InvalidArgumentError, match="has 2 lines"):
        await call(fs, "read_file", path="/todo.txt", offset=2)


async def test_read_file_shortens_a_page_to_the_result_budget(make_backend: Any, kind: str) -> None:
    """Long lines are cut to fit; the next page continues mid-line and nothing is lost."""
    text = "".join(f"{n:03d} " + "word " * 60 + "\n" for n in range(5))
    fs = create_filesystem(await make_backend(kind, {"/wide.txt": text}))
    pages: list[dict[str, Any]] = []
    cursor = None
    while True:
        page = await call(fs, "read_file", max_tokens=120, path="/wide.txt", cursor=cursor)
        pages.append(page)
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert "".join(p["content"] for p in pages) == text
    assert len(pages) > 5
    assert any(p["continued"] for p in pages)


async def test_read_file_fails_when_the_budget_cannot_hold_any_content(
    make_backend: Any, kind: str
) -> None:
    """A budget too small for the header says to raise the budget."""
    fs = create_filesystem(await make_backend(kind, NOTES))
    with pytest.raises(Exception, match="too small"):
        await call(fs, "read_file", max_tokens=20, path="/notes/garden.md")


async def test_reading_a_missing_file_is_refused(make_backend: Any, kind: str) -> None:
    """A missing file is a clear error naming it; a folder is called a folder."""
    fs = create_filesystem(await make_backend(kind, NOTES))
    with pytest.raises(FileMissingError, match=re.escape("File not found: /notes/none.md")):
        await call(fs, "read_file", path="/notes/none.md")
    with pytest.raises(FileMissingError, match="/notes/deep is a folder, not a file; use glob"):
        await call(fs, "read_file", path="/notes/deep")


# ---------------------------------------------------------------- grep


async def test_grep_is_case_insensitive_by_default(make_backend: Any, kind: str) -> None:
    """'greenhouse' finds every spelling, one match per line, with 1-based lines."""
    fs = create_filesystem(await make_backend(kind, NOTES))
    found = await call(fs, "grep", pattern="greenhouse")
    assert [(m["path"], m["line"]) for m in found["matches"]] == [
        ("/notes/deep/ideas.md", 1),
        ("/notes/garden.md", 3),
        ("/notes/trip.md", 3),
    ]
    assert found["next_cursor"] is None
    exact = await call(fs, "grep", pattern="GREENHOUSE", ignore_case=False)
    assert [m["path"] for m in exact["matches"]] == ["/notes/trip.md"]


async def test_grep_excerpts_start_30_characters_before_and_hold_100(
    make_backend: Any, kind: str
) -> None:
    """The excerpt shows up to 30 characters of lead and at most 100 characters."""
    line = "x" * 50 + "needle" + "y" * 200
    fs = create_filesystem(await make_backend(kind, {"/a.txt": line + "\n"}))
    [match] = (await call(fs, "grep", pattern="needle"))["matches"]
    assert match["excerpt"] == line[20:120]


async def test_grep_returns_at_most_10_matches_and_a_cursor(make_backend: Any, kind: str) -> None:
    """25 matching lines come back in pages of at most 10, each line exactly once."""
    files = {"/a.txt": "hit\n" * 15, "/b.txt": "miss\nhit\n" * 10}
    fs = create_filesystem(await make_backend(kind, files))
    seen: list[tuple[str, int]] = []
    cursor = None
    pages = 0
    while True:
        page = await call(fs, "grep", pattern="hit", cursor=cursor)
        pages += 1
        assert len(page["matches"]) <= 10
        seen += [(m["path"], m["line"]) for m in page["matches"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
        assert len(page["matches"]) == 10
    expected = [("/a.txt", n) for n in range(1, 16)] + [("/b.txt", n) for n in range(2, 21, 2)]
    assert seen == expected
    assert pages == 3


async def test_grep_pages_shrink_to_fit_a_small_budget(make_backend: Any, kind: str) -> None:
    """Under a tight budget fewer matches fit per page, but paging still finds them all."""
    files = {"/a.txt": "".join(f"match number {n} with some padding text\n" for n in range(12))}
    fs = create_filesystem(await make_backend(kind, files))
    seen: list[int] = []
    cursor = None
    while True:
        page = await call(fs, "grep", max_tokens=100, pattern="match", cursor=cursor)
        assert len(page["matches"]) < 10
        seen += [m["line"] for m in page["matches"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == list(range(1, 13))


async def test_grep_searches_only_the_given_file_or_folder(make_backend: Any, kind: str) -> None:
    """path narrows the search; a path with nothing there is an error, not an empty result."""
    fs = create_filesystem(await make_backend(kind, NOTES))
    in_deep = await call(fs, "grep", pattern="greenhouse", path="/notes/deep")
    assert [m["path"] for m in in_deep["matches"]] == ["/notes/deep/ideas.md"]
    in_file = await call(fs, "grep", pattern="greenhouse", path="/notes/trip.md")
    assert [m["path"] for m in in_file["matches"]] == ["/notes/trip.md"]
    with pytest.raises(FileMissingError, match="Nothing to search at /notez"):
        await call(fs, "grep", pattern="greenhouse", path="/notez")


async def test_grep_refuses_a_cursor_from_another_pattern(make_backend: Any, kind: str) -> None:
    """Cursors are bound to their query."""
    fs = create_filesystem(await make_backend(kind, {"/a.txt": "hit\n" * 15}))
    page = await call(fs, "grep", pattern="hit")
    with pytest.raises(InvalidCursorError, match="different query"):
        await call(fs, "grep", pattern="hi", cursor=page["next_cursor"])


async def test_grep_refuses_blank_and_overlong_patterns(make_backend: Any, kind: str) -> None:
    """The literal pattern is 1..256 characters."""
    fs = create_filesystem(await make_backend(kind, NOTES))
    with pytest.raises(InvalidArgumentError, match="pattern"):
        await call(fs, "grep", pattern="")
    with pytest.raises(InvalidArgumentError, match="pattern"):
        await call(fs, "grep", pattern="x" * 257)


# ---------------------------------------------------------------- glob


async def test_glob_lists_matching_paths_with_revisions(make_backend: Any, kind: str) -> None:
    """Absolute patterns with * and ** match case-sensitively and carry revisions."""
    backend = await make_backend(kind, {**NOTES, "/notes/UPPER.MD": "x"})
    fs = create_filesystem(backend)
    every = await call(fs, "glob", pattern="/**/*.md")
    assert [m["path"] for m in every["matches"]] == [
        "/notes/deep/ideas.md",
        "/notes/garden.md",
        "/notes/trip.md",
    ]
    assert every["matches"][1]["revision"] == (await backend.read("/notes/garden.md")).revision
    top = await call(fs, "glob", pattern="/notes/*.md")
    assert [m["path"] for m in top["matches"]] == ["/notes/garden.md", "/notes/trip.md"]


async def test_glob_pages_with_a_cursor(make_backend: Any, kind: str) -> None:
    """With max_matches 1, each page holds one path and the cursor walks them all."""
    fs = create_filesystem(await make_backend(kind, NOTES), search={"max_matches": 1})
    seen: list[str] = []
    cursor = None
    while True:
        page = await call(fs, "glob", pattern="/**", cursor=cursor)
        seen += [m["path"] for m in page["matches"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == sorted(NOTES)


async def test_a_search_pauses_after_max_files(make_backend: Any, kind: str) -> None:
    """max_files bounds the work of one call; a page may be empty with a cursor."""
    fs = create_filesystem(await make_backend(kind, NOTES), search={"max_files": 1})
    page = await call(fs, "grep", pattern="plumber")
    assert page["matches"] == [] and page["next_cursor"]
    while page["next_cursor"]:
        page = await call(fs, "grep", pattern="plumber", cursor=page["next_cursor"])
        if page["matches"]:
            break
    assert [m["path"] for m in page["matches"]] == ["/todo.txt"]


async def test_glob_refuses_relative_and_dotted_patterns(make_backend: Any, kind: str) -> None:
    """Glob patterns follow the path rules."""
    fs = create_filesystem(await make_backend(kind, NOTES))
    with pytest.raises(InvalidPathError, match="relative"):
        await call(fs, "glob", pattern="*.md")
    with pytest.raises(InvalidPathError, match=re.escape("'..'")):
        await call(fs, "glob", pattern="/notes/../*.md")


# ---------------------------------------------------------------- root


async def test_a_root_confines_every_tool(make_backend: Any, kind: str) -> None:
    """With root=/notes, paths elsewhere are refused and searches stay inside."""
    fs = create_filesystem(await make_backend(kind, NOTES), root="/notes")
    with pytest.raises(InvalidPathError, match="outside this filesystem's root /notes"):
        await call(fs, "read_file", path="/todo.txt")
    with pytest.raises(InvalidPathError, match="outside"):
        await call(fs, "grep", pattern="seeds", path="/todo.txt")
    assert (await call(fs, "grep", pattern="seeds"))["matches"] == []
    everything = await call(fs, "glob", pattern="/**")
    assert all(m["path"].startswith("/notes/") for m in everything["matches"])
    assert len(everything["matches"]) == 3


async def test_grep_ignores_case_beyond_ascii(make_backend: Any, kind: str) -> None:
    """'GRÜN' finds 'grün': case folding is Unicode-aware."""
    fs = create_filesystem(await make_backend(kind, {"/a.txt": "Das Gras ist grün.\n"}))
    [match] = (await call(fs, "grep", pattern="GRÜN"))["matches"]
    assert match["excerpt"] == "Das Gras ist grün."


async def test_a_search_cursor_into_a_changed_file_is_refused(
    make_backend: Any, writable_kind: str
) -> None:
    """Paused inside a file that then changes or disappears, grep says to start over."""
    backend = await make_backend(writable_kind, {"/a.txt": "hit\nhit\n", "/b.txt": "hit\nhit\n"})
    fs = create_filesystem(backend, search={"max_matches": 1})
    paused_in_a = await call(fs, "grep", pattern="hit")
    revision = (await backend.read("/a.txt")).revision
    await backend.write("/a.txt", "hit\nhit\nhit\n", expected_revision=revision)
    with pytest.raises(InvalidCursorError, match="changed since this cursor"):
        await call(fs, "grep", pattern="hit", cursor=paused_in_a["next_cursor"])
    first = await call(fs, "grep", pattern="hit")
    await backend.remove("/a.txt", expected_revision=(await backend.read("/a.txt")).revision)
    with pytest.raises(InvalidCursorError, match="deleted since this cursor"):
        await call(fs, "grep", pattern="hit", cursor=first["next_cursor"])


class StaleListing:
    """A third-party backend whose listing still shows a file that is already gone."""

    def __init__(self, files: dict[str, str]) -> None:
        from goliath.filesystem import in_memory_filesystem

        self.inner = in_memory_filesystem(files)

    async def read(self, path: str) -> Any:
        return await self.inner.read(path)

    async def list(self, directory: str = "/", *, after: str | None = None, limit: int = 64) -> Any:
        from goliath.filesystem import FileInfo, FileListing

        page = await self.inner.list(directory, after=after, limit=limit)
        ghost = [] if after and after >= "/b-gone.txt" else [FileInfo("/b-gone.txt", "r1")]
        files = sorted([*page.files, *ghost], key=lambda info: info.path)[:limit]
        return FileListing(files=files, next=page.next)


async def test_grep_skips_a_file_deleted_after_it_was_listed() -> None:
    """A listed file that cannot be read any more is skipped, not fatal to the search."""
    fs = create_filesystem(StaleListing({"/a.txt": "hit\n", "/c.txt": "hit\n"}))
    found = await call(fs, "grep", pattern="hit")
    assert [m["path"] for m in found["matches"]] == ["/a.txt", "/c.txt"]
    assert found["next_cursor"] is None
