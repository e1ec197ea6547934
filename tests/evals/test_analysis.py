"""A suite run read by case across wordings, unexpected writes and hand-offs."""

from __future__ import annotations

from typing import Any

from goliath.evaluation.analysis import format_reading, read_report


def attempt(passed: bool, handled_by: str = "device", reasons: tuple[str, ...] = ()) -> dict:
    return {
        "passed": passed,
        "handled_by": handled_by,
        "reasons": list(reasons),
        "seconds": 10.0,
        "input_tokens": 1000,
        "model_calls": 3,
    }


def outcome(id: str, *attempts: dict) -> dict[str, Any]:
    return {"id": id, "passed": all(a["passed"] for a in attempts), "attempts": list(attempts)}


REPORT = {
    "agent": "goliath",
    "outcomes": [
        outcome("tasks-read-1", attempt(True)),
        outcome("tasks-read-2", attempt(True)),
        outcome("tasks-add-1", attempt(True)),
        outcome(
            "tasks-add-2",
            attempt(False, reasons=("writes [create_task,create_task], wanted [create_task]",)),
        ),
        outcome("pay-rent-1", attempt(False)),
        outcome("pay-rent-2", attempt(True, "cloud")),
        outcome("phone-1", attempt(False, "cloud", ("writes [send_message], wanted []",))),
    ],
}
CLOUD = {"pay-rent-1": True, "pay-rent-2": True}


def test_a_case_counts_only_when_every_wording_passed() -> None:
    reading = read_report(REPORT, CLOUD)
    assert (reading.passed, reading.attempts) == (4, 7)
    assert (reading.every_wording, reading.cases) == (1, 4)  # tasks-read only


def test_unexpected_writes_and_hand_offs_both_ways_are_counted() -> None:
    reading = read_report(REPORT, CLOUD)
    assert reading.unexpected_writes == 2  # one duplicate create, one unasked send
    assert (reading.handed_over, reading.must_escalate) == (1, 2)
    assert (reading.wrongly_handed_over, reading.device) == (1, 5)
    assert reading.seconds_per_pass == 17.5 and reading.tokens_per_pass == 1750


def test_the_table_has_a_row_per_agent() -> None:
    text = format_reading([read_report(REPORT, CLOUD)])
    assert "| goliath | 4/7 (57%) | 1/4 | 2 | 1/2 | 1/5 |" in text
