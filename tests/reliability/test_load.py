"""Load, small enough for CI: many conversations at once lose, duplicate and reorder nothing.

The full-size run (1,000 conversations, latency and peak memory) is ``benchmarks/load.py``.
"""

from __future__ import annotations

import pytest

from .app import make_agent
from .conftest import TOKEN, serving
from .loadgen import run_load, verify

pytestmark = pytest.mark.slow


async def test_a_hundred_conversations_at_once_lose_duplicate_and_reorder_nothing() -> None:
    """100 conversations × 4 turns with writes approved and declined, cancels and pipelined
    turns: every turn ends once, as planned, in order, and memory agrees."""
    writes: dict[str, int] = {}
    async with serving(make_agent(writes)) as url:
        turns = await run_load(url, TOKEN, conversations=100, turns=4)
        problems = await verify(url, TOKEN, turns)
        assert problems == []
        # the checks can fail: a lost, a duplicated and a reordered turn are each reported
        turns[0].finals, turns[5].finals = 0, 2
        turns[6].text, turns[7].text = turns[7].text, turns[6].text
        reported = "\n".join(await verify(url, TOKEN, turns))
    assert f"{turns[0].turn_id} (plain): lost" in reported
    assert f"{turns[5].turn_id} ({turns[5].kind}): duplicated" in reported
    assert f"{turns[6].turn_id} (plain): reordered?" in reported
    assert len(turns) == 400
    assert sorted(writes.values()) == [1] * 10  # ten approved writes, each ran once
    kinds = {kind: sum(1 for t in turns if t.kind == kind) for kind in ("approve", "cancel")}
    assert kinds == {"approve": 10, "cancel": 10}
