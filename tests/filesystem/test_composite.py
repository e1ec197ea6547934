"""Composite routing: longest prefix, merged listings, read-only routes."""

from __future__ import annotations

import re

import pytest

from goliath import ConfigError
from goliath.filesystem import (
    FileMissingError,
    ReadOnlyError,
    RevisionConflictError,
    composite_filesystem,
    in_memory_filesystem,
    static_filesystem,
)

from .test_backends import all_paths


async def test_the_longest_prefix_serves_a_path_with_the_prefix_stripped() -> None:
    """/notes/private/x goes to the /notes/private route, which stores it as /x."""
    root = in_memory_filesystem()
    notes = in_memory_filesystem()
    private = in_memory_filesystem()
    fs = composite_filesystem({"/": root, "/notes": notes, "/notes/private": private})
    info = await fs.write("/notes/private/x.md", "secret", expected_revision=None)
    assert info.path == "/notes/private/x.md"
    assert (await private.read("/x.md")).content == "secret"
    await fs.write("/notes/y.md", "note", expected_revision=None)
    assert (await notes.read("/y.md")).content == "note"
    assert (await fs.read("/notes/private/x.md")).path == "/notes/private/x.md"
    assert await all_paths(root) == []


async def test_listings_merge_in_order_and_hide_shadowed_files() -> None:
    """A root-backend file under a mounted prefix is hidden; the rest interleave by path."""
    root = in_memory_filesystem({"/a.md": "a", "/notes/hidden.md": "h", "/z.md": "z"})
    notes = in_memory_filesystem({"/b.md": "b", "/sub/c.md": "c"})
    fs = composite_filesystem({"/": root, "/notes": notes})
    expected = ["/a.md", "/notes/b.md", "/notes/sub/c.md", "/z.md"]
    assert await all_paths(fs) == expected
    assert await all_paths(fs, limit=3) == expected
    assert await all_paths(fs, "/notes") == ["/notes/b.md", "/notes/sub/c.md"]
    assert await all_paths(fs, "/notes/sub") == ["/notes/sub/c.md"]
    with pytest.raises(FileMissingError, match=re.escape("/notes/hidden.md")):
        await fs.read("/notes/hidden.md")


async def test_a_route_marked_read_only_refuses_changes() -> None:
    """(backend, {'read_only': True}) reads fine; writes and deletes say which route refused."""
    docs = in_memory_filesystem({"/guide.md": "read me"})
    fs = composite_filesystem({"/": in_memory_filesystem(), "/docs": (docs, {"read_only": True})})
    entry = await fs.read("/docs/guide.md")
    with pytest.raises(ReadOnlyError, match=r"^Read-only route: /docs$"):
        await fs.write("/docs/guide.md", "changed", expected_revision=entry.revision)
    with pytest.raises(ReadOnlyError, match=r"^Read-only route: /docs$"):
        await fs.remove("/docs/guide.md", expected_revision=entry.revision)
    await fs.write("/scratch.md", "fine", expected_revision=None)


@pytest.mark.parametrize(
    "backend",
    [
        static_filesystem({"/guide.md": "x"}),
        in_memory_filesystem({"/guide.md": "x"}, read_only=True),
    ],
    ids=["static", "memory-read-only"],
)
async def test_a_backend_created_read_only_makes_its_route_read_only(backend: object) -> None:
    """Mounting a read-only backend needs no option: its route refuses changes."""
    fs = composite_filesystem({"/": in_memory_filesystem(), "/docs": backend})
    with pytest.raises(ReadOnlyError, match="Read-only route: /docs"):
        await fs.write("/docs/new.md", "x", expected_revision=None)
    assert not fs.read_only


async def test_refusals_from_a_mounted_backend_name_the_callers_path() -> None:
    """A conflict inside /notes mentions /notes/a.md, not the backend's own /a.md."""
    fs = composite_filesystem({"/notes": in_memory_filesystem({"/a.md": "x"})})
    with pytest.raises(RevisionConflictError, match=re.escape("File /notes/a.md already exists")):
        await fs.write("/notes/a.md", "y", expected_revision=None)


async def test_paths_outside_every_route_do_not_exist() -> None:
    """Without a '/' route, other paths are missing and the message lists the routes."""
    fs = composite_filesystem({"/notes": in_memory_filesystem()})
    with pytest.raises(FileMissingError, match="files live under /notes"):
        await fs.read("/elsewhere.md")
    with pytest.raises(FileMissingError):
        await fs.write("/elsewhere.md", "x", expected_revision=None)


@pytest.mark.parametrize(
    ("routes", "needle"),
    [
        ({}, "non-empty mapping"),
        ({"/notes": in_memory_filesystem(), "/notes/": in_memory_filesystem()}, "Two routes"),
        ({"/docs": (in_memory_filesystem(), {"readonly": True})}, "unknown option"),
        ({"/docs": (in_memory_filesystem(),)}, "backend, or"),
        ({"/docs": "not a backend"}, "not a filesystem backend"),
        ({"docs": in_memory_filesystem()}, "relative"),
    ],
)
def test_bad_routes_are_configuration_errors(routes: dict[str, object], needle: str) -> None:
    """Empty, duplicate, misspelled or non-backend routes are refused at construction."""
    with pytest.raises(ConfigError, match=needle):
        composite_filesystem(routes)
