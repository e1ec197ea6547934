"""Grading one attempt: the reasons it failed, including ``writes`` and ``alternatives``."""

from __future__ import annotations

from goliath import RunResult, StepRecord
from goliath.evals import Fixture, grade
from goliath.events import EscalateEvent


def step(tool: str, **flags: bool) -> StepRecord:
    record = StepRecord(index=0, kind="tool", brief="b", tool=tool)
    for name, value in flags.items():
        setattr(record, name, value)
    return record


def result(
    text: str = "ok",
    handled_by: str = "device",
    steps: list[StepRecord] | None = None,
    **kw: object,
) -> RunResult:
    return RunResult(text=text, handled_by=handled_by, steps=steps or [], **kw)  # type: ignore[arg-type]


def test_a_run_that_matches_has_no_reasons() -> None:
    """Right tools, right place, right words: the attempt passes."""
    fixture = Fixture("f", "ask", ["list_tasks"], "device", mentions=["milk"])
    done = result("Buy MILK today.", steps=[step("list_tasks")])
    assert grade(fixture, done) == []


def test_escalation_rules_follow_handled_by() -> None:
    """Device fixtures forbid the cloud; cloud fixtures expect it; "allowed" accepts both."""
    device = Fixture("d", "ask", [], "device")
    cloud = Fixture("c", "ask", [], "cloud")
    either = Fixture("e", "ask", [], "device", escalation="allowed")
    assert grade(device, result(handled_by="cloud")) == ["escalated, but escalation is forbidden"]
    assert grade(cloud, result()) == ["stayed on device, but escalation was expected"]
    assert grade(either, result(handled_by="cloud")) == grade(either, result()) == []


def test_the_tool_sequence_must_match_exactly_or_an_alternative() -> None:
    """Order matters and skipped steps count; alternatives are other right sequences."""
    fixture = Fixture("f", "ask", ["a", "b"], "device", alternatives=[["b"]])
    assert grade(fixture, result(steps=[step("b"), step("a")])) == [
        "tools [b,a], wanted [a,b] or [b]"
    ]
    assert grade(fixture, result(steps=[step("a", skipped=True), step("b")])) == []
    assert grade(fixture, result(steps=[step("b")])) == []


def test_writes_count_only_writes_that_really_ran() -> None:
    """Declined, skipped, cached and failed writes are not writes; reads never are."""
    fixture = Fixture("f", "ask", ["r", "w", "w"], "device", writes=["w"])
    steps = [step("r"), step("w", writes=True, skipped=True), step("w", writes=True)]
    assert grade(fixture, result(steps=steps)) == []
    steps = [step("r"), step("w", writes=True), step("w", writes=True)]
    assert grade(fixture, result(steps=steps)) == ["writes [w,w], wanted [w]"]
    nothing = Fixture("n", "ask", ["w"], "device", writes=[])
    assert grade(nothing, result(steps=[step("w", writes=True, failed=True)])) == []


def test_mentions_and_forbids_compare_lower_cased() -> None:
    """Missing words and forbidden words are each named."""
    fixture = Fixture("f", "ask", [], "device", mentions=["milk", "Eggs"], forbids=["tool"])
    assert grade(fixture, result("I used a TOOL to buy milk.")) == [
        'answer lacks "Eggs"',
        'answer contains "tool"',
    ]


def test_the_expected_reason_is_the_last_escalation() -> None:
    """An expected reason is met by the last escalate event and excuses an empty answer."""
    fixture = Fixture("g", "ask", [], "device", expected_reason="guardrail")
    trace = [EscalateEvent(reason="plan-invalid"), EscalateEvent(reason="guardrail")]
    assert grade(fixture, result("", trace=trace)) == []
    assert grade(fixture, result("", trace=trace[:1])) == [
        "escalation reason plan-invalid, wanted guardrail"
    ]
    assert grade(fixture, result("")) == ["escalation reason none, wanted guardrail"]


def test_an_empty_answer_fails_without_an_expected_reason() -> None:
    """A blank answer is never a pass unless the fixture expects a silent escalation."""
    fixture = Fixture("f", "ask", [], "device")
    assert grade(fixture, result("  ")) == ["empty answer without an expected escalation reason"]
