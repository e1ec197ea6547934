"""The stage table: the turn's one list of stages and their caps, and the port that gets numbers.

A model call carries its stage's numbers (output tokens, string cap); below the turn nothing
knows a stage by name, so a new stage is one module, one row of ``STAGES`` and one call.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import trio

from goliath import Agent
from goliath.events import Event
from goliath.memory import InMemory
from goliath.records import Exchange, MemoryState
from goliath.testing import FakeModel
from goliath.turn.generation import ModelCaller
from goliath.turn.stages import STAGES, stage
from tests.helpers import answer, answer_plan, task_tools, use

ROOT = Path(__file__).resolve().parents[2]


async def test_every_model_call_carries_its_stages_caps() -> None:
    """Hand-off check, conductor, write-intent check, arguments, condition check, answer and
    scribe calls each carry the output and string caps of their row, taken from the table,
    not from a bridge."""
    recent = [Exchange(ask=f"q{i}", answer=f"a{i}", at=1.0) for i in range(3)]
    _, tools = task_tools()
    model = FakeModel(
        [
            {"json": {"handled_by": "phone"}},
            use("list_tasks"),
            use("create_task"),
            {"json": {"asked": "yes"}},
            {"json": {"title": "Buy bread"}},
            {"json": {"go": "yes"}},
            answer_plan(),
            answer("Done."),
            answer("Goal"),
        ]
    )
    memory = InMemory(MemoryState(recent=recent))
    async with Agent(
        model,
        tools=tools,
        memory=memory,
        auto_approve=True,
        hand_off_check=True,
        write_intent_check=True,
        condition_check=True,
    ) as agent:
        await agent.run("add bread unless it is there")
    seen = {(c.label, c.max_output_tokens, c.max_string_length) for c in model.calls}
    # the comparison stage runs only for an ask that compares a number, the world check only
    # for a question, the requery only after a search that found nothing: their caps are
    # pinned in tests/goliath/test_threshold.py, tests/goliath/test_world.py and
    # tests/goliath/test_requery.py; the pick check only where the ask's words name another
    # function than the plan's, pinned in tests/goliath/test_pick.py; the compose stage only
    # for a write's blank text, pinned in tests/goliath/test_compose.py
    skipped = {"comparison", "world", "requery", "pick", "compose"}
    rows = [row for row in STAGES.values() if row.name not in skipped]
    assert {label for label, _, _ in seen} == {row.name for row in rows}
    assert seen == {(row.name, row.output_tokens, row.string_length) for row in rows}


def test_the_table_holds_the_caps_the_docs_give() -> None:
    """The rows are docs/budgets.md's: output tokens 256/512/384/192/16/16/32/16/16/16/64,
    strings 200/300/1000/600/8/8/64/8/8/40/120."""
    assert {name: (row.output_tokens, row.string_length) for name, row in STAGES.items()} == {
        "conductor": (256, 200),
        "arguments": (512, 300),
        "answer": (384, 1000),
        "scribe": (192, 600),
        "handoff": (16, 8),
        "world": (16, 8),
        "pick": (32, 64),
        "intent": (16, 8),
        "condition": (16, 8),
        "requery": (16, 40),
        "comparison": (64, 120),
        "compose": (128, 300),
    }
    assert STAGES["conductor"].input_limit(4096) == 2867
    assert STAGES["arguments"].input_limit(1024) == 384


async def test_a_call_for_a_stage_with_no_row_is_refused_before_the_model_is_asked() -> None:
    """A stage name missing from the table is a bug in the turn, named with the table's rows."""
    model = FakeModel([{"text": "never read"}])
    seen: list[Event] = []
    caller = ModelCaller(generate=model.generate, window=4096, count_tokens=None, emit=seen.append)
    with pytest.raises(LookupError, match=r"No stage named 'verifier'.*conductor, arguments"):
        await caller.call("verifier", "system", lambda compact: "prompt", compactable=False)
    assert model.calls == [] and seen == []
    with pytest.raises(LookupError, match="needs its row in STAGES"):
        stage("gate")
    await trio.lowlevel.checkpoint()


def _string_constants(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }


@pytest.mark.parametrize(
    "relative",
    [
        "goliath/budget.py",
        "goliath/tracing.py",
        *sorted(str(path.relative_to(ROOT)) for path in (ROOT / "goliath" / "models").glob("*.py")),
    ],
)
def test_below_the_turn_no_module_knows_a_stage_by_name(relative: str) -> None:
    """The model port, its bridges, the budgets and tracing hold none of the stage names."""
    names = set(STAGES) & _string_constants(ROOT / relative)
    assert not names, f"{relative} names the stages {sorted(names)}"
