"""Compression of tool results."""

from __future__ import annotations

from typing import Any

import pytest

from goliath import (
    Extension,
    summarize_tool_result,
)
from goliath.testing import FakeModel

from .helpers import (
    answer_plan,
    events,
    make_tool,
    ref_clip,
    run_turn,
    text,
    use,
)

# ---------------------------------------------------------------- summarize_tool_result


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, "done"),
        ("", "(no output)"),
        ("   \n", "(no output)"),
        ([], "none"),
        ("plain text", "plain text"),
        (42, "42"),
        (1.0, "1"),
        (2.5, "2.5"),
        (True, "true"),
        ([{"title": "Buy milk"}, {"title": "Call mom"}], "1. title: Buy milk\n2. title: Call mom"),
        ({"ok": True, "title": "x"}, "ok: true\ntitle: x"),
        ({"tasks": [{"title": "a"}]}, "tasks: 1. title: a"),
        ({"tasks": []}, "tasks: none"),
        ({"owner": {"name": "Ada", "age": 36, "tags": ["x"]}}, "owner: name: Ada, age: 36"),
        ({"note": None, "n": 0}, "note: \nn: 0"),
        (["a", 1, None], "1. a\n2. 1\n3. "),
    ],
)
def test_summarize_tool_result_cases(value: Any, expected: str) -> None:
    """The structural summary of each kind of value."""
    assert summarize_tool_result(value) == expected


def test_summarize_nested_empty_object_uses_the_80_char_form() -> None:
    """A nested value with an empty one-line form falls back to summarize(value, 80)."""
    assert summarize_tool_result({"meta": {"inner": {"deep": 1}}}) == "meta: inner: deep: 1"
    many = {"list": [{"title": f"task number {i} with a long title"} for i in range(3)]}
    rendered = summarize_tool_result(many)
    line = summarize_tool_result(many["list"], 80)
    assert rendered == f"list: {line}"
    assert len(line) <= 80 and line.endswith("…")


def test_summarize_scalar_strings_in_objects_are_clipped_to_80() -> None:
    """String values inside objects are clipped to 80 characters."""
    long = "y" * 100
    assert summarize_tool_result({"note": long}) == "note: " + ref_clip(long, 80)


def test_summarize_ten_items_keeps_head_errors_and_tail() -> None:
    """10 items → 5 head lines, '… 3 omitted', error-like omitted lines, lines 9 and 10."""
    items: list[dict[str, Any]] = [{"title": f"task {i}"} for i in range(1, 11)]
    items[6] = {"title": "task 7", "status": "FAILED"}
    expected = "\n".join(
        [
            "1. title: task 1",
            "2. title: task 2",
            "3. title: task 3",
            "4. title: task 4",
            "5. title: task 5",
            "… 3 omitted",
            "7. title: task 7, status: FAILED",
            "9. title: task 9",
            "10. title: task 10",
        ]
    )
    assert summarize_tool_result(items) == expected


@pytest.mark.parametrize(
    ("word", "kept"),
    [
        ("error", True),
        ("Exception", True),
        ("fatal", True),
        ("access denied", True),
        ("timeout", True),
        ("timed out", True),
        ("time out", True),
        ("TimedOut", True),
        ("errors", False),
        ("terror", False),
        ("ok", False),
    ],
)
def test_summarize_error_pattern(word: str, kept: bool) -> None:
    """Omitted middle lines are kept when they match the error words (word boundary)."""
    items = [f"line {i}" for i in range(1, 10)]
    items[5] = f"line 6 {word}"
    rendered = summarize_tool_result(items)
    assert (f"6. line 6 {word}" in rendered) is kept
    assert rendered.split("\n")[5] == "… 2 omitted"


def test_summarize_seven_items_are_all_shown() -> None:
    """Up to 7 items render in full."""
    rendered = summarize_tool_result([f"i{n}" for n in range(1, 8)])
    assert rendered == "\n".join(f"{n}. i{n}" for n in range(1, 8))


def test_summarize_clips_to_600_characters() -> None:
    """Long text is cut to 599 characters (trailing space trimmed) plus '…'."""
    assert summarize_tool_result("x" * 700) == "x" * 599 + "…"
    spaced = "a" * 597 + "   " + "b" * 100
    assert summarize_tool_result(spaced) == "a" * 597 + "…"
    assert summarize_tool_result("z" * 600) == "z" * 600
    assert summarize_tool_result("x" * 200, 100) == "x" * 99 + "…"


async def test_to_model_output_and_after_tool_text_are_capped_at_600() -> None:
    """to_model_output strings and after_tool replacements are clipped to 600 too."""

    class Loud(Extension):
        name = "loud"

        def after_tool(self, ctx: Any) -> Any:
            if ctx.tool["name"] == "second":
                return {"result": "r" * 900}
            return None

    first = make_tool("first", lambda a, c: "ok", to_model_output=lambda output: "f" * 900)
    second = make_tool("second", lambda a, c: "ok")
    model = FakeModel([use("first"), use("second"), answer_plan(), text("Ok.")])
    result = await run_turn(model, tools=[first, second], extensions=[Loud()])
    assert result.steps[0].result == "f" * 599 + "…"
    assert result.steps[1].result == "r" * 599 + "…"
    assert events(result, "tool")[1].result == "r" * 599 + "…"
