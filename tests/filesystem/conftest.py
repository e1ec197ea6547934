"""Shared fixtures: the same files in every kind of backend, so each test runs against all."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from goliath import ToolContext
from goliath.budget import ResultBudget
from goliath.filesystem import (
    composite_filesystem,
    in_memory_filesystem,
    sqlite_filesystem,
    static_filesystem,
)

BACKENDS = ["memory", "static", "sqlite", "composite"]
WRITABLE = ["memory", "sqlite", "composite"]

NOTES = {
    "/notes/garden.md": "# Garden\nTomatoes need sun.\nThe greenhouse is warm.\nWater daily.\n",
    "/notes/trip.md": "# Trip\nPack the tent.\nBook the GREENHOUSE tour.\n",
    "/notes/deep/ideas.md": "greenhouse sensors\nsolar panel\n",
    "/todo.txt": "buy seeds\ncall plumber\n",
}

Factory = Callable[[Mapping[str, str]], Awaitable[Any]]


def context(max_tokens: int = 512, **fields: Any) -> ToolContext:
    """A tool context with a result budget, as the harness builds one."""
    return ToolContext(result_budget=ResultBudget(max_tokens=max_tokens), **fields)


async def _sqlite_with(path: Path, files: Mapping[str, str], namespace: str = "default") -> Any:
    backend = sqlite_filesystem(path, namespace=namespace)
    for name, content in files.items():
        await backend.write(name, content, expected_revision=None)
    return backend


@pytest.fixture
async def make_backend(tmp_path: Path) -> AsyncIterator[Callable[[str, Mapping[str, str]], Any]]:
    """Build a backend of a kind holding the given files; SQLite ones are closed afterwards."""
    opened: list[Any] = []
    counter = 0

    async def make(kind: str, files: Mapping[str, str]) -> Any:
        nonlocal counter
        counter += 1
        if kind == "memory":
            return in_memory_filesystem(files)
        if kind == "static":
            return static_filesystem(files)
        if kind == "sqlite":
            backend = await _sqlite_with(tmp_path / f"files{counter}.db", files)
            opened.append(backend)
            return backend
        if kind == "composite":
            # /notes lives in a SQLite file, everything else in memory: paths cross routes.
            inside = {
                k.removeprefix("/notes"): v for k, v in files.items() if k.startswith("/notes/")
            }
            outside = {k: v for k, v in files.items() if not k.startswith("/notes/")}
            notes = await _sqlite_with(tmp_path / f"notes{counter}.db", inside)
            opened.append(notes)
            return composite_filesystem({"/": in_memory_filesystem(outside), "/notes": notes})
        raise AssertionError(kind)

    yield make
    for backend in opened:
        await backend.aclose()


@pytest.fixture(params=BACKENDS)
def kind(request: pytest.FixtureRequest) -> str:
    """Each backend kind in turn."""
    return str(request.param)


@pytest.fixture(params=WRITABLE)
def writable_kind(request: pytest.FixtureRequest) -> str:
    """Each writable backend kind in turn."""
    return str(request.param)
