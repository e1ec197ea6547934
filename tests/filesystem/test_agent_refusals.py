"""Each refusal, reached through a real agent turn: the model reads it as a failed step."""

from __future__ import annotations

from typing import Any

import pytest

from goliath import Agent
from goliath.filesystem import (
    MAX_FILE_BYTES,
    composite_filesystem,
    create_filesystem,
    in_memory_filesystem,
    static_filesystem,
)
from goliath.testing import FakeModel

from .conftest import NOTES

CURSOR = '{"query":"0","position":3,"revision":"x"}'

# case: (tool, arguments, start of the message the model sees); "{rev}" is the current revision
# of /notes/garden.md and "{rev_todo}" that of /todo.txt.
READ_REFUSALS: dict[str, tuple[str, dict[str, Any], str]] = {
    "dot-dot": ("read_file", {"path": "/notes/../todo.txt"}, "Path '/notes/../todo.txt' contains"),
    "backslash": (
        "read_file",
        {"path": "/notes\\garden.md"},
        "Path '/notes\\\\garden.md' contains a backslash",
    ),
    "control": (
        "grep",
        {"pattern": "x", "path": "/notes/\x07"},
        "Path '/notes/\\x07' contains the control",
    ),
    "too-long": (
        "read_file",
        {"path": "/" + "n" * 600},
        "Path is 601 characters long; the limit is 512",
    ),
    "cursor-and-offset": (
        "read_file",
        {"path": "/notes/garden.md", "cursor": CURSOR, "offset": 1},
        "Use offset or cursor, not both",
    ),
    "missing": ("read_file", {"path": "/notes/none.md"}, "File not found: /notes/none.md"),
    "bad-cursor": ("grep", {"pattern": "x", "cursor": "garbage"}, "The cursor is not valid"),
}
WRITE_REFUSALS: dict[str, tuple[str, dict[str, Any], str]] = {
    "too-large": (
        "write_file",
        {"path": "/notes/big.md", "content": "x" * (MAX_FILE_BYTES + 1)},
        "File '/notes/big.md' is 1,048,577 bytes; the limit is 1 MiB",
    ),
    "exists-without-revision": (
        "write_file",
        {"path": "/notes/garden.md", "content": "x"},
        "File /notes/garden.md already exists; pass its current revision",
    ),
    "stale-revision": (
        "edit_file",
        {"path": "/notes/garden.md", "revision": "0ld", "old_text": "sun", "new_text": "shade"},
        "File /notes/garden.md changed: revision 0ld is not current",
    ),
    "zero-occurrences": (
        "edit_file",
        {"path": "/notes/garden.md", "revision": "{rev}", "old_text": "moon", "new_text": "x"},
        "old_text was not found in /notes/garden.md",
    ),
    "two-occurrences": (
        "edit_file",
        {"path": "/todo.txt", "revision": "{rev_todo}", "old_text": "l", "new_text": "L"},
        "old_text occurs more than once in /todo.txt",
    ),
    "stale-delete": (
        "delete_file",
        {"path": "/todo.txt", "revision": "0ld"},
        "File /todo.txt changed: revision 0ld is not current",
    ),
}


async def refused(
    backend: Any, tool: str, arguments: dict[str, Any], ask: str = "Please do it."
) -> str:
    """Run one turn that calls `tool` with `arguments`; return the failed step's text."""
    revisions = {
        "{rev}": (await backend.read("/notes/garden.md")).revision,
        "{rev_todo}": (await backend.read("/todo.txt")).revision,
    }
    filled = {k: revisions.get(v, v) if isinstance(v, str) else v for k, v in arguments.items()}
    fs = create_filesystem(backend, read_only=False, write_tools=True)
    model = FakeModel(
        [
            {"json": {"call": tool}},
            {"json": filled},
            {"json": {"call": "answer_the_user"}},
            {"text": "It did not work."},
        ]
    )
    async with Agent(model, tools=fs.tools, confirm=lambda request: True) as agent:
        result = await agent.run(ask)
    step = result.steps[0]
    assert step.failed and result.text == "It did not work."
    assert step.result.endswith("Try different arguments or another tool.")
    assert ".. Try different" not in step.result  # messages end without their own period
    assert step.result in model.calls[2].prompt.replace("\n   ", "\n")  # the conductor saw it
    return str(step.result)


@pytest.mark.parametrize("case", list(READ_REFUSALS))
async def test_read_refusals_fail_the_step(make_backend: Any, kind: str, case: str) -> None:
    """Bad paths, cursor with offset, missing files and bad cursors, on every backend."""
    tool, arguments, message = READ_REFUSALS[case]
    # the ask names the values: an optional filter nobody named is left out (docs/design.md)
    ask = "Please do it: " + ", ".join(str(value) for value in arguments.values())
    text = await refused(await make_backend(kind, NOTES), tool, arguments, ask)
    assert text.startswith("error: " + message)


@pytest.mark.parametrize("case", list(WRITE_REFUSALS))
async def test_write_refusals_fail_the_step(
    make_backend: Any, writable_kind: str, case: str
) -> None:
    """Oversized content, missing or stale revisions, zero or two occurrences."""
    tool, arguments, message = WRITE_REFUSALS[case]
    backend = await make_backend(writable_kind, NOTES)
    before = [(f.path, f.revision) for f in (await backend.list("/")).files]
    text = await refused(backend, tool, arguments)
    assert text.startswith("error: " + message)
    assert [(f.path, f.revision) for f in (await backend.list("/")).files] == before


async def test_a_read_only_filesystem_fails_the_step() -> None:
    """Write tools over a static snapshot tell the model 'Read-only filesystem'."""
    text = await refused(
        static_filesystem(NOTES), "delete_file", {"path": "/todo.txt", "revision": "{rev_todo}"}
    )
    assert text == "error: Read-only filesystem. Try different arguments or another tool."


async def test_a_read_only_route_fails_the_step() -> None:
    """Write tools on a read-only route tell the model which route refused."""
    notes = {k.removeprefix("/notes"): v for k, v in NOTES.items() if k.startswith("/notes/")}
    backend = composite_filesystem(
        {
            "/": in_memory_filesystem({"/todo.txt": NOTES["/todo.txt"]}),
            "/notes": (in_memory_filesystem(notes), {"read_only": True}),
        }
    )
    text = await refused(
        backend,
        "edit_file",
        {"path": "/notes/garden.md", "revision": "{rev}", "old_text": "sun", "new_text": "shade"},
    )
    assert text == "error: Read-only route: /notes. Try different arguments or another tool."
