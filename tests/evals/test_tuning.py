"""The hand-off biases replayed offline from a probe's recorded scores."""

from __future__ import annotations

from goliath.evaluation.tuning import format_sweep, sweep

H, N = "beyond_these_functions", "general_knowledge_or_chat"


def outcome(id: str, reply: str, passed: bool, wanted: str, **scores: float) -> dict:
    return {"id": id, "reply": reply, "passed": passed, "wanted": wanted, "scores": scores}


OUTCOMES = [
    # a must-escalate ask the model planned a read for, the hand-off close behind
    outcome("pay", "get_sleep", False, "escalate", get_sleep=-0.4, **{H: -1.3, N: -3.0}),
    # a device ask, the hand-off far behind
    outcome("read", "get_sleep", True, "device", get_sleep=-0.1, **{H: -4.0, N: -3.0}),
    # a chat ask answered with no call
    outcome("hi", "answer", True, "device", get_sleep=-3.0, **{H: -5.0, N: -0.1}),
    # no scores (another bridge): not replayed
    {"id": "apple", "reply": "answer", "passed": True, "wanted": "device", "scores": None},
]


def test_a_bias_that_hands_over_the_close_call_and_nothing_else_wins() -> None:
    rows = {(r.hand_off_bias, r.no_tool_bias): r for r in sweep(OUTCOMES, no_tool_ok={"hi": True})}
    base = rows[(0.0, 0.0)]
    assert (base.right, base.total, base.escalated, base.wrongly_escalated) == (2, 3, 0, 0)
    tuned = rows[(1.0, 0.0)]
    assert (tuned.right, tuned.escalated, tuned.wrongly_escalated) == (3, 1, 0)
    too_far = rows[(4.0, 0.0)]
    assert (too_far.wrongly_escalated, too_far.right) == (1, 2)  # the read went too


def test_a_switch_that_needs_another_plan_counts_as_wrong() -> None:
    rows = {(r.hand_off_bias, r.no_tool_bias): r for r in sweep(OUTCOMES, no_tool_ok={"hi": True})}
    row = rows[(0.0, -3.0)]  # "hi" now re-plans among the functions
    assert row.replans == 1 and row.right == 1


def test_the_table_lists_the_best_pairs_and_the_unbiased_one() -> None:
    text = format_sweep(sweep(OUTCOMES, no_tool_ok={"hi": True}), top=1)
    lines = text.splitlines()
    assert lines[0].startswith("hand_off") and len(lines) == 3
    assert lines[1].split()[2] == "3/3" and lines[2].split()[:2] == ["0.0", "0.0"]
