"""docs/filesystem.md's notes example, run as written with a scripted model."""

from __future__ import annotations

import re
import types
from pathlib import Path
from typing import Any

from goliath.testing import FakeModel

DOC = Path(__file__).resolve().parents[2] / "docs" / "filesystem.md"


def load_example() -> types.ModuleType:
    """The first python block that defines ask_notes, executed as a module (not as __main__)."""
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)
    [source] = [block for block in blocks if "async def ask_notes" in block]
    module = types.ModuleType("notes_example")
    exec(compile(source, str(DOC), "exec"), module.__dict__)
    return module


async def test_the_notes_example_answers_from_a_folder(tmp_path: Path) -> None:
    """grep finds the note in the folder, read_file reads it, and the answer comes back."""
    (tmp_path / "garden").mkdir()
    (tmp_path / "garden" / "tomatoes.md").write_text(
        "# Tomatoes\nWater them every morning.\nThey need full sun.\n", encoding="utf-8"
    )
    (tmp_path / "trip.md").write_text("# Trip\nPack the tent.\n", encoding="utf-8")
    (tmp_path / "ignored.txt").write_text("water water water\n", encoding="utf-8")
    example = load_example()
    model = FakeModel(
        [
            {"json": {"call": "grep"}},
            {"json": {"pattern": "water"}},
            {"json": {"call": "read_file"}},
            {"json": {"path": "/notes/garden/tomatoes.md"}},
            {"json": {"call": "answer_the_user"}},
            {"text": "Every morning."},
        ]
    )
    result: Any = await example.ask_notes(model, tmp_path, "When do I water the tomatoes?")
    assert result.text == "Every morning."
    grep, read = result.steps[0], result.steps[1]
    assert [m["path"] for m in grep.output["matches"]] == ["/notes/garden/tomatoes.md"]
    assert read.output["content"].splitlines()[1] == "Water them every morning."
    assert "answer only from what it says" in model.calls[0].system
    assert model.remaining() == 0


def test_the_example_loads_notes_by_virtual_path(tmp_path: Path) -> None:
    """notes_from keys files as /notes/<relative posix path> and skips non-Markdown files."""
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "b.md").write_text("x", encoding="utf-8")
    (tmp_path / "c.txt").write_text("y", encoding="utf-8")
    assert load_example().notes_from(tmp_path) == {"/notes/a/b.md": "x"}


def test_every_python_block_in_the_page_is_valid_python() -> None:
    """Snippets that cannot run alone (they use a `model`) still parse."""
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)
    assert len(blocks) >= 5
    for block in blocks:
        compile(block, str(DOC), "exec")
