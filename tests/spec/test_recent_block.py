"""The recent-conversation block."""

from __future__ import annotations

import pytest

from goliath import Exchange, StepRecord
from goliath.testing import FakeModel

from .helpers import (
    TaskBox,
    answer_plan,
    exchange,
    memory_with,
    ref_clip_tokens,
    ref_estimate,
    run_turn,
    text,
    use,
)

HEADING = "Recent conversation (reference only; follow the current ask):"


# ---------------------------------------------------------------- recent block


async def test_recent_block_heading_and_order() -> None:
    """The block is headed as specified; exchanges run oldest to newest.

    (Python rendering: the heading, a newline, then exchanges separated by blank lines.)
    """
    memory = memory_with(recent=[exchange(f"q{i}", f"a{i}") for i in range(3)])
    model = FakeModel([text("Hi.")])
    await run_turn(model, "next", memory=memory)
    expected = (
        HEADING + "\nUser: q0\nAssistant: a0\n\nUser: q1\nAssistant: a1\n\nUser: q2\nAssistant: a2"
    )
    assert expected in model.calls[0].prompt


async def test_recent_block_never_shows_raw_outputs(box: TaskBox) -> None:
    """The recent block shows recorded results, never raw tool outputs."""
    steps = [
        StepRecord(
            index=0,
            kind="tool",
            brief="b",
            tool="lookup",
            input={"q": 1},
            result="3 items",
            output={"secret": "RAW-SECRET-42"},
        )
    ]
    memory = memory_with(recent=[exchange("find", "found three", steps=steps)])
    model = FakeModel([use("list_tasks"), answer_plan(), text("Ok.")])
    await run_turn(model, tools=box.tools, memory=memory)
    for call in model.calls:
        assert "RAW-SECRET-42" not in call.prompt
    assert (
        HEADING
        + '\nUser: find\nAssistant: found three\nActions:\n1. lookup({"q":1}) [completed] → 3 items'
        in model.calls[0].prompt
    )


async def test_recent_block_appears_in_conductor_arguments_and_answer_prompts(box: TaskBox) -> None:
    """The recent block is built for conductor, arguments and answer prompts."""
    memory = memory_with(recent=[exchange("earlier ask", "earlier answer")])
    model = FakeModel([use("search"), {"json": {"query": "milk"}}, answer_plan(), text("Ok.")])
    await run_turn(model, tools=box.tools, memory=memory)
    for call in model.calls:
        assert "User: earlier ask\nAssistant: earlier answer" in call.prompt


async def test_selection_stops_at_the_first_exchange_that_does_not_fit() -> None:
    """The first exchange that does not fit stops the selection, even if older ones fit."""
    memory = memory_with(
        recent=[
            exchange("small old", "ok"),
            exchange("big " * 200, "big answer"),
            exchange("newest", "fine"),
        ]
    )
    model = FakeModel([text("Hi.")])
    await run_turn(model, "next", memory=memory, window=1024)
    prompt = model.calls[0].prompt
    assert HEADING + "\nUser: newest\nAssistant: fine" in prompt
    assert "small old" not in prompt
    assert "big big" not in prompt


async def test_oversized_newest_exchange_is_clipped() -> None:
    """A newest exchange too big alone is included clipped, each part sharing the budget."""
    ask = "tell me about " + "the history of tea " * 40
    answer = "Tea began " + "in ancient times " * 40
    memory = memory_with(recent=[exchange("older", "kept out"), exchange(ask, answer)])
    model = FakeModel([text("Hi.")])
    await run_turn(model, "next", memory=memory, window=1024)
    budget = 1024 // 8
    remaining = budget - ref_estimate(HEADING)
    share = max(0, (remaining - 16) // 2)
    body = f"User: {ref_clip_tokens(ask, share)}\nAssistant: {ref_clip_tokens(answer, share)}"
    block = ref_clip_tokens(HEADING + "\n" + body, budget)
    prompt = model.calls[0].prompt
    assert block in prompt
    assert "older" not in prompt
    assert ref_estimate(block) <= budget


async def test_oversized_newest_exchange_with_actions_splits_three_ways() -> None:
    """With actions the clipped parts each get floor((remaining − 16) / 3) tokens."""
    steps = [
        StepRecord(index=0, kind="tool", brief="b", tool="read", input={}, result="line " * 120)
    ]
    ask = "summarise " + "the report " * 40
    answer = "It says " + "many things " * 40
    memory = memory_with(recent=[exchange(ask, answer, steps=steps)])
    model = FakeModel([text("Hi.")])
    await run_turn(model, "next", memory=memory, window=1024)
    budget = 128
    share = max(0, (budget - ref_estimate(HEADING) - 16) // 3)
    actions = "1. read({}) [completed] → " + "line " * 120
    body = (
        f"User: {ref_clip_tokens(ask, share)}\nAssistant: {ref_clip_tokens(answer, share)}"
        f"\nActions:\n{ref_clip_tokens(actions, share)}"
    )
    assert ref_clip_tokens(HEADING + "\n" + body, budget) in model.calls[0].prompt


async def test_step_log_placeholders_in_the_recent_block() -> None:
    """Absent results show 'skipped by the user' (skipped) or 'no result'; no input is '()'."""
    steps = [
        StepRecord(index=0, kind="tool", brief="b", tool="ask_user", skipped=True),
        StepRecord(index=1, kind="tool", brief="b", tool="ping"),
    ]
    memory = memory_with(recent=[exchange("q", "a", steps=steps)])
    model = FakeModel([text("Hi.")])
    await run_turn(model, memory=memory)
    assert (
        "Actions:\n1. ask_user() [skipped] → skipped by the user\n2. ping() [completed] → no result"
        in model.calls[0].prompt
    )


def _exchange_costing(tokens: int) -> Exchange:
    """An exchange whose rendered 'User: …\\nAssistant: ok' estimates to exactly ``tokens``."""
    for length in range(1, 2000):
        candidate = exchange("w" * length, "ok")
        if ref_estimate(f"User: {candidate.ask}\nAssistant: ok") == tokens:
            return candidate
    raise AssertionError(f"no exchange costs {tokens}")


@pytest.mark.parametrize(("slack", "kept_whole"), [(2, True), (1, False)])
async def test_recent_block_charges_two_tokens_per_exchange(slack: int, kept_whole: bool) -> None:
    """An exchange is kept whole only if its estimate + 2 fits the remaining budget."""
    remaining = 1024 // 8 - ref_estimate(HEADING)
    newest = _exchange_costing(remaining - slack)
    memory = memory_with(recent=[newest])
    model = FakeModel([text("Hi.")])
    await run_turn(model, "next", memory=memory, window=1024)
    whole = f"{HEADING}\nUser: {newest.ask}\nAssistant: ok"
    assert (whole in model.calls[0].prompt) is kept_whole
    if not kept_whole:
        assert "Recent conversation" in model.calls[0].prompt
