"""Grading one attempt: the reasons it failed, including ``writes`` and ``alternatives``."""

from __future__ import annotations

import pytest

from goliath import RunResult, StepRecord
from goliath.errors import ConfigError
from goliath.evaluation import Fixture, grade
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


def test_a_call_retried_after_it_failed_or_found_nothing_is_judged_once() -> None:
    """A not-found then the same function again is a retry, not another path; a skipped
    call, a call that found something, or a miss followed by another function still counts."""
    fixture = Fixture("f", "ask", ["a", "b"], "device")
    missed = step("a", failed=True)
    assert grade(fixture, result(steps=[missed, step("a"), step("b")])) == []
    empty = step("a")
    empty.result = "none"
    assert grade(fixture, result(steps=[empty, step("a"), step("b")])) == []
    found = step("a")
    found.result, found.output = "1. title: X", [{"title": "X"}]
    assert grade(fixture, result(steps=[found, step("a"), step("b")])) == [
        "tools [a,a,b], wanted [a,b]"
    ]
    declined = step("a", skipped=True)
    assert grade(fixture, result(steps=[declined, step("a"), step("b")])) == [
        "tools [a,a,b], wanted [a,b]"
    ]
    assert grade(fixture, result(steps=[step("b", failed=True), step("a"), step("b")])) == [
        "tools [b,a,b], wanted [a,b]"
    ]


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


def call(tool: str, **values: object) -> StepRecord:
    record = step(tool)
    record.input = values
    return record


def test_a_number_must_stay_the_same_number() -> None:
    """21.5 passes; 21, 215, 121.5 and the string "21.5" do not, in arg_values and arg_mentions."""
    fixture = Fixture(
        "f",
        "set the living room to 21.5",
        ["set_temperature"],
        "device",
        arg_values={"set_temperature.target_c": 21.5},
        arg_mentions={"set_temperature.target_c": ["21.5"]},
    )
    assert grade(fixture, result(steps=[call("set_temperature", target_c=21.5)])) == []
    for wrong in (21, 215.0, 121.5):
        reasons = grade(fixture, result(steps=[call("set_temperature", target_c=wrong)]))
        assert f"set_temperature target_c is {wrong}, wanted the number 21.5" in reasons
        assert any('lacks "21.5"' in reason for reason in reasons)
    reasons = grade(fixture, result(steps=[call("set_temperature", target_c="21.5")]))
    assert 'set_temperature target_c is "21.5" (a str), wanted the number 21.5' in reasons
    whole = Fixture("g", "ask", ["t"], "device", arg_values={"t.minutes": 45})
    assert grade(whole, result(steps=[call("t", minutes=45.0)])) == []


def test_a_bool_must_be_a_bool_and_none_means_left_out() -> None:
    """True is not "true"; a value the fixture wants left out must not be filled."""
    fixture = Fixture(
        "f", "ask", ["t"], "device", arg_values={"t.nonstop": True, "t.max_price": None}
    )
    assert grade(fixture, result(steps=[call("t", nonstop=True, max_price=None)])) == []
    assert grade(fixture, result(steps=[call("t", nonstop="true", max_price=300)])) == [
        't nonstop is "true", wanted true',
        "t max_price is 300, wanted it left out",
    ]


def test_a_string_value_with_extra_words_is_another_value() -> None:
    """Case and spacing aside, the string must be the value itself, not the value and more."""
    fixture = Fixture("f", "ask", ["t"], "device", arg_values={"t.city": "Porto"})
    assert grade(fixture, result(steps=[call("t", city=" porto ")])) == []
    assert grade(fixture, result(steps=[call("t", city="Porto, for 3 nights")])) == [
        't city is "Porto, for 3 nights", wanted "Porto"'
    ]


def test_a_list_holds_the_wanted_items_in_any_order_and_none_twice() -> None:
    """Order does not matter; a repeated, missing or extra item does, and a repeat fails even
    where the fixture names no value for that list."""
    fixture = Fixture(
        "f", "ask", ["add"], "device", arg_values={"add.items": ["eggs", "spinach", "feta"]}
    )
    assert grade(fixture, result(steps=[call("add", items=["Feta", "eggs", "spinach"])])) == []
    assert grade(
        fixture, result(steps=[call("add", items=["eggs", "spinach", "feta", "Eggs"])])
    ) == ['add items repeats "Eggs"']
    assert grade(fixture, result(steps=[call("add", items=["eggs", "milk"])])) == [
        "add items lacks feta",
        "add items lacks spinach",
        "add items has milk, not asked for",
    ]
    unnamed = Fixture("g", "ask", ["tag"], "device")
    assert grade(unnamed, result(steps=[call("tag", tags=["run", "run"])])) == [
        'tag tags repeats "run"'
    ]


def test_an_object_is_checked_on_the_keys_the_fixture_names() -> None:
    """A nested value is compared key by key; keys the fixture leaves out are not checked."""
    fixture = Fixture(
        "f", "ask", ["plan"], "device", arg_values={"plan.repeat": {"every": 2, "unit": "week"}}
    )
    good = call("plan", repeat={"every": 2, "unit": "week", "until": None})
    assert grade(fixture, result(steps=[good])) == []
    bad = call("plan", repeat={"every": "2", "unit": "weeks"})
    assert grade(fixture, result(steps=[bad])) == [
        'plan repeat.every is "2" (a str), wanted the number 2',
        'plan repeat.unit is "weeks", wanted "week"',
    ]
    assert grade(fixture, result(steps=[call("plan", repeat="every 2 weeks")])) == [
        'plan repeat is "every 2 weeks", wanted an object {"every": 2, "unit": "week"}'
    ]


def test_values_are_checked_only_on_calls_that_ran() -> None:
    """A declined or failed call is not held to the fixture's values."""
    fixture = Fixture("f", "ask", ["t"], "device", arg_values={"t.n": 3})
    skipped = call("t", n=4)
    skipped.skipped = True
    assert grade(fixture, result(steps=[skipped])) == []


def test_arg_values_must_name_a_tool_field_and_hold_json() -> None:
    """A key without one dot, or a value JSON cannot hold, is a clear error."""
    with pytest.raises(ConfigError, match=r"'tool\.field'"):
        Fixture("f", "ask", [], "device", arg_values={"target_c": 21.5})
    with pytest.raises(ConfigError, match="JSON value"):
        Fixture("f", "ask", [], "device", arg_values={"t.when": object()})
