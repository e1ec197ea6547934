"""Every Python example in README.md and docs/ runs (documentation cannot drift from the code)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)


def examples() -> list[tuple[str, str]]:
    found = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        for number, match in enumerate(FENCE.finditer(path.read_text()), start=1):
            found.append((f"{path.relative_to(ROOT)}#{number}", match.group(1)))
    return found


@pytest.mark.parametrize(("where", "code"), examples(), ids=[where for where, _ in examples()])
def test_the_example_runs(where: str, code: str, tmp_path: Path) -> None:
    """The example executes without error (its own asserts check what it claims)."""
    previous = Path.cwd()
    os.chdir(tmp_path)
    try:
        exec(compile(code, where, "exec"), {"__name__": "__docs__"})
    finally:
        os.chdir(previous)
