"""Fixtures for goliath.mcp: the notes server (tests/mcp/server.py) as a real MCP process."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import trio

from goliath.mcp import MCPConnection, connect_stdio

ROOT = Path(__file__).resolve().parents[2]
SERVER = [sys.executable, "-m", "tests.mcp.server"]


@pytest.fixture
async def notes() -> AsyncIterator[MCPConnection]:
    """A connection to a fresh notes server over stdio (its own process, its own notes)."""
    async with connect_stdio(SERVER[0], SERVER[1:], cwd=ROOT) as connection:
        yield connection


@pytest.fixture
async def notes_url() -> AsyncIterator[str]:
    """The streamable HTTP endpoint of a fresh notes server on a free 127.0.0.1 port."""
    process = await trio.lowlevel.open_process([*SERVER, "http"], cwd=ROOT, stdout=subprocess.PIPE)
    try:
        assert process.stdout is not None
        line = b""
        with trio.fail_after(30):
            while not line.endswith(b"\n"):
                chunk = await process.stdout.receive_some(1024)
                if not chunk:
                    raise AssertionError("the notes server exited before it listened")
                line += chunk
        assert line.startswith(b"listening on http://127.0.0.1:")
        yield line.decode().split()[-1]
    finally:
        process.terminate()
        with trio.move_on_after(10):
            await process.wait()
        if process.returncode is None:
            process.kill()
            await process.wait()
