"""Every path refusal, through every tool that takes a path, on every backend."""

from __future__ import annotations

from typing import Any

import pytest

from goliath.filesystem import (
    MAX_FILE_BYTES,
    FileTooLargeError,
    InvalidPathError,
    create_filesystem,
)

from .conftest import NOTES, context

BAD_PATHS = {
    "dot-dot": ("/notes/../todo.txt", "'..'"),
    "backslash": ("/notes\\garden.md", "backslash"),
    "control": ("/notes/gar\x1bden.md", "control character"),
    "too-long": ("/" + "a" * 600, "601 characters long; the limit is 512"),
}


def path_calls(path: str) -> list[tuple[str, dict[str, Any]]]:
    return [
        ("read_file", {"path": path}),
        ("grep", {"pattern": "x", "path": path}),
        ("write_file", {"path": path, "content": "x"}),
        ("edit_file", {"path": path, "revision": "r", "old_text": "a", "new_text": "b"}),
        ("delete_file", {"path": path, "revision": "r"}),
    ]


@pytest.mark.parametrize("case", list(BAD_PATHS))
async def test_bad_paths_are_refused_by_every_tool(make_backend: Any, kind: str, case: str) -> None:
    """'..', backslashes, control characters and > 512 characters: refused, with the reason."""
    path, needle = BAD_PATHS[case]
    fs = create_filesystem(await make_backend(kind, NOTES), read_only=False, write_tools=True)
    for name, args in path_calls(path):
        with pytest.raises(InvalidPathError, match=needle):
            await fs.tool(name).execute(args, context())


async def test_files_over_one_mebibyte_cannot_be_stored(make_backend: Any, kind: str) -> None:
    """A seed over 1 MiB is refused by every backend, naming its size."""
    with pytest.raises(FileTooLargeError, match="1,048,577 bytes"):
        await make_backend(kind, {"/big.txt": "x" * (MAX_FILE_BYTES + 1)})


async def test_files_over_one_mebibyte_cannot_be_written(
    make_backend: Any, writable_kind: str
) -> None:
    """write_file, and an edit that would grow a file past 1 MiB, are refused."""
    fs = create_filesystem(
        await make_backend(writable_kind, {"/a.txt": "x" * (MAX_FILE_BYTES - 2) + "ab"}),
        read_only=False,
        write_tools=True,
    )
    write = fs.tool("write_file")
    with pytest.raises(FileTooLargeError, match="limit is 1 MiB"):
        await write.execute({"path": "/big.txt", "content": "é" * MAX_FILE_BYTES}, context())
    revision = (await fs.tool("read_file").execute({"path": "/a.txt"}, context(800)))["revision"]
    edit = fs.tool("edit_file")
    args = {"path": "/a.txt", "revision": revision, "old_text": "ab", "new_text": "abc"}
    with pytest.raises(FileTooLargeError, match="1,048,577 bytes"):
        await edit.execute(args, context())
