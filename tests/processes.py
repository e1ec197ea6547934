"""Starting `goliath serve` as a real process for tests and benchmarks."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import trio

__all__ = ["ROOT", "start_goliath"]

ROOT = Path(__file__).resolve().parent.parent
_SERVING = re.compile(rb"serving on (http://[\d.]+:\d+)")


async def start_goliath(
    *arguments: str, env: dict[str, str | None] | None = None, seconds: float = 60.0
) -> tuple[trio.Process, str, bytes]:
    """Run ``goliath serve ARGUMENTS`` and wait until it serves.

    Returns the process, its HTTP address and what it printed on stderr until then (a
    generated token, for one). The repository is importable by the process (test apps);
    ``env`` adds variables to the process's environment, or removes those given as ``None``.
    """
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    for name, value in (env or {}).items():
        if value is None:
            environment.pop(name, None)
        else:
            environment[name] = value
    process = await trio.lowlevel.open_process(
        [sys.executable, "-m", "goliath.cli", "serve", *arguments],
        cwd=ROOT,
        stderr=subprocess.PIPE,
        env=environment,
    )
    assert process.stderr is not None
    printed = b""
    with trio.fail_after(seconds):
        while (match := _SERVING.search(printed)) is None:
            chunk = await process.stderr.receive_some(4096)
            if not chunk:
                raise AssertionError(f"goliath serve exited early: {printed.decode()}")
            printed += chunk
    return process, match.group(1).decode(), printed
