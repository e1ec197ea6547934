"""write_file, edit_file and delete_file called directly."""

from __future__ import annotations

import re
from typing import Any

import pytest

from goliath import Decision
from goliath.filesystem import (
    FileChange,
    FileMissingError,
    InvalidArgumentError,
    NotApprovedError,
    ReadOnlyError,
    RevisionConflictError,
    composite_filesystem,
    create_filesystem,
    in_memory_filesystem,
    static_filesystem,
)

from .conftest import NOTES, context


def writable(backend: Any, **options: Any) -> Any:
    return create_filesystem(backend, read_only=False, write_tools=True, **options)


async def call(fs: Any, name: str, **args: Any) -> Any:
    return await fs.tool(name).execute(args, context())


async def revision_of(fs: Any, path: str) -> str:
    return str((await call(fs, "read_file", path=path))["revision"])


async def test_write_file_creates_then_replaces_by_revision(
    make_backend: Any, writable_kind: str
) -> None:
    """Without a revision it only creates; with the current one it replaces."""
    fs = writable(await make_backend(writable_kind, NOTES))
    created = await call(fs, "write_file", path="/notes/new.md", content="first\n")
    assert created == {"path": "/notes/new.md", "revision": await revision_of(fs, "/notes/new.md")}
    replaced = await call(
        fs, "write_file", path="/notes/new.md", content="second\n", revision=created["revision"]
    )
    assert replaced["revision"] != created["revision"]
    assert (await call(fs, "read_file", path="/notes/new.md"))["content"] == "second\n"


async def test_write_file_without_a_revision_never_replaces(
    make_backend: Any, writable_kind: str
) -> None:
    """Writing over an existing file without its revision is refused and changes nothing."""
    fs = writable(await make_backend(writable_kind, NOTES))
    with pytest.raises(RevisionConflictError, match="already exists; pass its current revision"):
        await call(fs, "write_file", path="/notes/garden.md", content="oops")
    assert (await call(fs, "read_file", path="/notes/garden.md"))["content"] == NOTES[
        "/notes/garden.md"
    ]


async def test_write_file_with_a_stale_revision_is_refused(
    make_backend: Any, writable_kind: str
) -> None:
    """A revision that is no longer current says to read the file again."""
    fs = writable(await make_backend(writable_kind, NOTES))
    old = await revision_of(fs, "/todo.txt")
    await call(fs, "write_file", path="/todo.txt", content="v2", revision=old)
    with pytest.raises(RevisionConflictError, match="Read it again"):
        await call(fs, "write_file", path="/todo.txt", content="v3", revision=old)


async def test_edit_file_replaces_exactly_one_occurrence(
    make_backend: Any, writable_kind: str
) -> None:
    """old_text that occurs once is replaced; the rest of the file is untouched."""
    fs = writable(await make_backend(writable_kind, NOTES))
    revision = await revision_of(fs, "/notes/garden.md")
    result = await call(
        fs,
        "edit_file",
        path="/notes/garden.md",
        revision=revision,
        old_text="Water daily.",
        new_text="Water twice a day.",
    )
    assert result["path"] == "/notes/garden.md" and result["revision"] != revision
    content = (await call(fs, "read_file", path="/notes/garden.md"))["content"]
    assert content == NOTES["/notes/garden.md"].replace("Water daily.", "Water twice a day.")


@pytest.mark.parametrize(
    ("content", "old_text", "needle"),
    [
        ("alpha beta\n", "gamma", "was not found"),
        ("the cat and the hat\n", "the", "more than once"),
        ("aaaa\n", "aaa", "more than once"),  # overlapping occurrences count
    ],
    ids=["zero", "two", "overlapping"],
)
async def test_edit_file_needs_a_single_occurrence(
    make_backend: Any, writable_kind: str, content: str, old_text: str, needle: str
) -> None:
    """Zero or several occurrences (overlapping included) are refused; nothing changes."""
    fs = writable(await make_backend(writable_kind, {"/a.txt": content}))
    revision = await revision_of(fs, "/a.txt")
    with pytest.raises(InvalidArgumentError, match=needle):
        await call(
            fs, "edit_file", path="/a.txt", revision=revision, old_text=old_text, new_text="X"
        )
    assert await revision_of(fs, "/a.txt") == revision


async def test_edit_file_with_a_stale_revision_is_refused(
    make_backend: Any, writable_kind: str
) -> None:
    """The edit names the revision that is no longer current."""
    fs = writable(await make_backend(writable_kind, NOTES))
    with pytest.raises(RevisionConflictError, match="revision stale1 is not current"):
        await call(
            fs, "edit_file", path="/todo.txt", revision="stale1", old_text="seeds", new_text="x"
        )


async def test_delete_file_removes_one_file_by_revision(
    make_backend: Any, writable_kind: str
) -> None:
    """A stale revision is refused; the current one deletes; the file is then gone."""
    fs = writable(await make_backend(writable_kind, NOTES))
    with pytest.raises(RevisionConflictError):
        await call(fs, "delete_file", path="/notes/trip.md", revision="stale")
    revision = await revision_of(fs, "/notes/trip.md")
    assert await call(fs, "delete_file", path="/notes/trip.md", revision=revision) == {
        "path": "/notes/trip.md",
        "deleted": True,
    }
    with pytest.raises(FileMissingError):
        await call(fs, "read_file", path="/notes/trip.md")


@pytest.mark.parametrize(
    "backend",
    [static_filesystem(NOTES), in_memory_filesystem(NOTES, read_only=True)],
    ids=["static", "memory-read-only"],
)
async def test_write_tools_over_a_read_only_backend_fail(backend: Any) -> None:
    """Every write tool says 'Read-only filesystem' when the backend cannot change."""
    fs = writable(backend)
    revision = await revision_of(fs, "/todo.txt")
    attempts = [
        ("write_file", {"path": "/new.txt", "content": "x"}),
        (
            "edit_file",
            {"path": "/todo.txt", "revision": revision, "old_text": "seeds", "new_text": "x"},
        ),
        ("delete_file", {"path": "/todo.txt", "revision": revision}),
    ]
    for name, args in attempts:
        with pytest.raises(ReadOnlyError, match=r"^Read-only filesystem$"):
            await call(fs, name, **args)


async def test_write_tools_on_a_read_only_route_name_the_route() -> None:
    """A composite route given read_only refuses the tools with 'Read-only route: <prefix>'."""
    docs = in_memory_filesystem({"/guide.md": "read me\n"})
    fs = writable(
        composite_filesystem({"/": in_memory_filesystem(), "/docs": (docs, {"read_only": True})})
    )
    revision = await revision_of(fs, "/docs/guide.md")
    with pytest.raises(ReadOnlyError, match="Read-only route: /docs"):
        await call(fs, "write_file", path="/docs/new.md", content="x")
    with pytest.raises(ReadOnlyError, match="Read-only route: /docs"):
        await call(
            fs, "edit_file", path="/docs/guide.md", revision=revision, old_text="read", new_text="x"
        )
    with pytest.raises(ReadOnlyError, match="Read-only route: /docs"):
        await call(fs, "delete_file", path="/docs/guide.md", revision=revision)
    assert await call(fs, "write_file", path="/scratch.md", content="ok")


async def test_approve_sees_the_whole_change_and_can_decline_it() -> None:
    """approve gets the normalized path and full new content; a decline changes nothing."""
    seen: list[FileChange] = []

    async def approve(change: FileChange) -> Decision:
        seen.append(change)
        return Decision(approved=change.path.startswith("/drafts/"), reason="drafts only")

    backend = in_memory_filesystem({"/notes/a.md": "one two\n", "/drafts/b.md": "one\n"})
    fs = writable(backend, approve=approve)
    revision = await revision_of(fs, "/notes/a.md")
    with pytest.raises(
        NotApprovedError, match=re.escape("Change to /notes/a.md was not approved: drafts only")
    ):
        await call(
            fs, "edit_file", path="//notes/a.md", revision=revision, old_text="two", new_text="2"
        )
    assert seen[0] == FileChange(
        tool="edit_file", path="/notes/a.md", revision=revision, content="one 2\n"
    )
    assert (await backend.read("/notes/a.md")).content == "one two\n"
    await call(fs, "write_file", path="/drafts/c.md", content="new")
    assert (await backend.read("/drafts/c.md")).content == "new"
    assert seen[-1].tool == "write_file" and seen[-1].revision is None


async def test_approve_may_be_sync_and_answer_with_a_bool() -> None:
    """A plain function returning False declines without a reason."""
    fs = writable(in_memory_filesystem({"/a.md": "x"}), approve=lambda change: False)
    revision = await revision_of(fs, "/a.md")
    with pytest.raises(NotApprovedError, match=r"Change to /a.md was not approved\. Do not retry"):
        await call(fs, "delete_file", path="/a.md", revision=revision)


async def test_an_approve_handler_returning_junk_is_an_error() -> None:
    """Anything but a bool or Decision is refused, so a typo cannot approve by accident."""
    fs = writable(in_memory_filesystem(), approve=lambda change: "yes")
    with pytest.raises(TypeError, match="must return True/False"):
        await call(fs, "write_file", path="/a.md", content="x")


async def test_a_backend_function_gives_each_conversation_its_own_files() -> None:
    """backend=(ToolContext) -> backend (sync or async) picks files per conversation."""
    backends = {"ann": in_memory_filesystem(), "bob": in_memory_filesystem()}

    async def pick(ctx: Any) -> Any:
        return backends[ctx.conversation_id]

    for source in (pick, lambda ctx: backends[ctx.conversation_id]):
        fs = writable(source)
        tool = fs.tool("write_file")
        path = f"/{id(source)}.md"
        await tool.execute({"path": path, "content": "ann"}, context(conversation_id="ann"))
        assert (await backends["ann"].read(path)).content == "ann"
        with pytest.raises(FileMissingError):
            await backends["bob"].read(path)


async def test_a_backend_function_must_return_a_backend() -> None:
    """A function returning something else fails with what it returned."""
    fs = create_filesystem(lambda ctx: None)
    with pytest.raises(TypeError, match="backend function returned None"):
        await fs.tool("glob").execute({"pattern": "/*"}, context())
