"""Token budgets."""

from __future__ import annotations

from typing import Any

import pytest

from goliath import (
    Agent,
    BudgetError,
    Budgets,
    Extension,
    GoliathError,
    ToolContext,
    estimate_tokens,
)
from goliath.testing import FakeModel

from .helpers import (
    EXCERPT_MARKER,
    EXCERPT_OMITTED,
    Query,
    RecordingFallback,
    TaskBox,
    answer_plan,
    args,
    calls,
    events,
    exchange,
    labels,
    make_tool,
    memory_with,
    reasons,
    ref_clip,
    ref_clip_tokens,
    ref_estimate,
    ref_fit_excerpt,
    run_turn,
    text,
    use,
)

# ---------------------------------------------------------------- limits per stage

LIMITS = {
    4096: {"conductor": 2867, "arguments": 2867, "answer": 2867, "scribe": 2867},
    2048: {"conductor": 1433, "arguments": 1331, "answer": 1433, "scribe": 1433},
    1024: {"conductor": 640, "arguments": 384, "answer": 512, "scribe": 704},
}


@pytest.mark.parametrize("window", [4096, 2048, 1024])
async def test_per_stage_input_limits(box: TaskBox, window: int) -> None:
    """Each stage's input limit is min(0.7 W, W − cap − reserve)."""
    memory = memory_with(recent=[exchange(f"q{i}", f"a{i}") for i in range(3)])
    model = FakeModel(
        [use("search"), args(query="milk"), answer_plan(), text("Milk."), text("Goal: milk")]
    )
    result = await run_turn(model, tools=box.tools, window=window, memory=memory)
    seen = {(event.label, event.limit) for event in events(result, "budget")}
    assert seen == set(LIMITS[window].items())
    assert reasons(result) == []


async def test_output_caps_per_stage(box: TaskBox) -> None:
    """Output caps are conductor 256, arguments 512, answer 384, scribe 192."""
    memory = memory_with(recent=[exchange(f"q{i}", f"a{i}") for i in range(3)])
    model = FakeModel(
        [use("search"), args(query="milk"), answer_plan(), text("Milk."), text("Goal: milk")]
    )
    await run_turn(model, tools=box.tools, memory=memory)
    caps = {call.label: call.max_output_tokens for call in model.calls}
    assert caps == {"conductor": 256, "arguments": 512, "answer": 384, "scribe": 192}


# ---------------------------------------------------------------- estimation


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("hello", 2),
        ("…", 3),
        ("", 0),
        ("a", 1),
        ("abcd", 2),
        ("é", 2),
        ("中", 3),
        ("😀", 4),
        ("héllo wörld", 3 + 4),
    ],
)
def test_estimate_examples(value: str, expected: int) -> None:
    """ceil(ascii/4 × 1.15) plus the UTF-8 bytes of every non-ASCII character."""
    assert estimate_tokens(value) == expected


@pytest.mark.parametrize("n", [1, 3, 4, 7, 40, 100, 999, 4000])
def test_estimate_of_ascii_strings(n: int) -> None:
    """An ASCII string of length n estimates to ceil(n/4 × 1.15)."""
    assert estimate_tokens("x" * n) == ref_estimate("x" * n)


async def test_guard_adds_eight_tokens() -> None:
    """The counted prompt is estimate(system) + estimate(prompt) + 8 (no schema)."""
    model = FakeModel([text("Hi.")])
    result = await run_turn(model, "hello there")
    [call] = model.calls
    [budget] = events(result, "budget")
    assert budget.tokens == ref_estimate(call.system) + ref_estimate(call.prompt) + 8
    assert (budget.label, budget.source) == ("answer", "estimate")


async def test_tokenizer_counts_parts_joined_by_a_blank_line() -> None:
    """With count_tokens, one call on the non-empty parts joined by a blank line, plus 8."""
    counted: list[str] = []

    def count(value: str) -> int:
        counted.append(value)
        return len(value)

    model = FakeModel([text("Hi.")])
    result = await run_turn(model, "hello there", count_tokens=count)
    [call] = model.calls
    assert counted == [call.system + "\n\n" + call.prompt]
    [budget] = events(result, "budget")
    assert budget.tokens == len(counted[0]) + 8
    assert budget.source == "tokenizer"


async def test_async_tokenizer_is_accepted() -> None:
    """The counter may be async."""

    async def count(value: str) -> int:
        return 10

    result = await run_turn(FakeModel([text("Hi.")]), count_tokens=count)
    assert events(result, "budget")[0].tokens == 18


# ---------------------------------------------------------------- budget events


async def test_every_model_call_emits_one_budget_event(box: TaskBox) -> None:
    """One budget event per model call, labelled by stage, source 'estimate'."""
    memory = memory_with(recent=[exchange(f"q{i}", f"a{i}") for i in range(3)])
    model = FakeModel(
        [use("search"), args(query="milk"), answer_plan(), text("Milk."), text("Goal: milk")]
    )
    result = await run_turn(model, tools=box.tools, memory=memory)
    budget = events(result, "budget")
    assert [event.label for event in budget] == labels(model)
    assert labels(model) == ["conductor", "arguments", "conductor", "answer", "scribe"]
    assert {event.source for event in budget} == {"estimate"}


async def test_budget_events_say_tokenizer_with_count_tokens(box: TaskBox) -> None:
    """With count_tokens the source is 'tokenizer'."""
    model = FakeModel([use("list_tasks"), answer_plan(), text("Two.")])
    result = await run_turn(model, tools=box.tools, count_tokens=lambda value: len(value) // 4)
    assert {event.source for event in events(result, "budget")} == {"tokenizer"}
    assert len(events(result, "budget")) == 3


async def test_budget_event_precedes_its_call(box: TaskBox) -> None:
    """A failed model call still emitted its budget event first."""
    from goliath.errors import ModelError

    model = FakeModel([{"error": ModelError("x")}])
    result = await run_turn(model, tools=box.tools)
    assert [event.type for event in result.trace] == ["recall", "budget", "escalate"]


# ---------------------------------------------------------------- compaction


def _first_line(tag: str) -> str:
    return f"HEAD-{tag} " + "word " * 30


def _dump(tag: str) -> Any:
    body = (
        _first_line(tag)
        + "\n"
        + "\n".join(f"detail line {i} for {tag} with padding text" for i in range(12))
    )
    return make_tool(f"dump_{tag}", lambda a, c: body)


async def test_over_limit_conductor_prompt_is_compacted_once() -> None:
    """Older results shrink to their first line (≤ 100 chars); the newest stays intact."""
    model = FakeModel([use("dump_a"), use("dump_b"), answer_plan(), text("Ok.")])
    result = await run_turn(model, tools=[_dump("a"), _dump("b")], window=1024)
    second, third = calls(model, "conductor")[1:]
    assert "detail line 11 for a" in second.prompt
    compact_a = ref_clip(_first_line("a"), 100)
    assert f"1. dump_a({{}}) [completed] → {compact_a}\n2. dump_b" in third.prompt
    assert "detail line 0 for a" not in third.prompt
    for i in range(12):
        assert f"detail line {i} for b" in third.prompt
    assert result.steps[0].result.count("\n") == 12
    conductor_budgets = [e for e in events(result, "budget") if e.label == "conductor"]
    assert len(conductor_budgets) == 3
    assert all(event.tokens <= event.limit for event in conductor_budgets)
    assert reasons(result) == []


async def test_prompt_within_limit_is_not_compacted() -> None:
    """A prompt within its limit is sent uncompacted."""
    model = FakeModel([use("dump_a"), use("dump_b"), answer_plan(), text("Ok.")])
    await run_turn(model, tools=[_dump("a"), _dump("b")], window=4096)
    third = calls(model, "conductor")[2]
    assert "detail line 11 for a" in third.prompt


async def test_over_limit_without_extensions_escalates_context_budget() -> None:
    """A prompt still over the limit escalates context-budget; the ask is never cut."""
    ask = "please " * 3000
    fallback = RecordingFallback()
    model = FakeModel([text("never")])
    result = await run_turn(model, ask, fallback=fallback)
    [budget] = events(result, "budget")
    message = f"answer requires {budget.tokens} estimated tokens; budget is {budget.limit}"
    assert budget.tokens > budget.limit == 2867
    [escalation] = events(result, "escalate")
    assert (escalation.reason, escalation.error) == ("context-budget", message)
    assert model.calls == []
    assert fallback.requests[0].ask == ask
    assert fallback.requests[0].error == message


async def test_over_limit_with_extensions_raises_budget_error(box: TaskBox) -> None:
    """With extensions configured an over-limit prompt rejects with BudgetError."""
    seen: list[Any] = []

    class Observer(Extension):
        name = "observer"

        def on_error(self, ctx: Any) -> None:
            seen.append(ctx.origin)

    fallback = RecordingFallback()
    with pytest.raises(BudgetError) as caught:
        await run_turn(
            FakeModel([]),
            "please " * 3000,
            tools=box.tools,
            extensions=[Observer()],
            fallback=fallback,
        )
    error = caught.value
    assert (error.phase, error.limit) == ("conductor", 2867)
    assert error.tokens > 2867
    assert str(error) == f"conductor requires {error.tokens} estimated tokens; budget is 2867"
    assert fallback.requests == []
    assert seen == ["budget"]


@pytest.mark.parametrize("bad", [1.5, -1, "3", None])
async def test_bad_token_counter_fails_the_stage(box: TaskBox, bad: Any) -> None:
    """A counter returning a non-integer (or negative) fails the stage as a model error."""
    fallback = RecordingFallback()
    model = FakeModel([answer_plan(), text("Hi.")])
    result = await run_turn(
        model, tools=box.tools, count_tokens=lambda value: bad, fallback=fallback
    )
    assert reasons(result) == ["model-error"]
    assert model.calls == []
    assert fallback.requests[0].reason == "model-error"


async def test_throwing_token_counter_fails_the_stage(box: TaskBox) -> None:
    """A throwing counter escalates as a model error in the active loop."""

    def count(value: str) -> int:
        raise RuntimeError("tokenizer crashed")

    result = await run_turn(
        FakeModel([]), tools=box.tools, count_tokens=count, fallback=RecordingFallback()
    )
    assert reasons(result) == ["model-error"]


async def test_counter_failures_count_toward_session_fallback(box: TaskBox) -> None:
    """A counter failure is a model failure and counts toward session fallback."""

    def count(value: str) -> int:
        raise RuntimeError("tokenizer crashed")

    agent = Agent(FakeModel([]), tools=box.tools, count_tokens=count, fallback=RecordingFallback())
    async with agent:
        for _ in range(3):
            await agent.run("hi")
        assert agent.is_session_fallback() is True


# ---------------------------------------------------------------- summary allowance


async def test_summary_in_prompts_and_saved_summary_are_clipped(box: TaskBox) -> None:
    """The summary shown in prompts and the saved summary are limited to W/8 tokens."""
    summary = "Goal: " + " ".join(f"item{i}" for i in range(900))
    memory = memory_with(summary)
    model = FakeModel([answer_plan(), text("Ok.")])
    result = await run_turn(model, tools=box.tools, memory=memory)
    clipped = ref_clip_tokens(summary, 512)
    assert clipped.endswith("…") and ref_estimate(clipped) <= 512
    for call in model.calls:
        assert clipped in call.prompt
        assert summary[: len(clipped) + 5] not in call.prompt
    saved = (await memory.load()).summary
    assert saved == clipped
    assert events(result, "remember")[0].summary == clipped


async def test_summary_allowance_scales_with_the_window(box: TaskBox) -> None:
    """With W = 2048 the summary allowance is 256 tokens."""
    summary = "Goal: " + " ".join(f"item{i}" for i in range(900))
    memory = memory_with(summary)
    model = FakeModel([answer_plan(), text("Ok.")])
    await run_turn(model, tools=box.tools, memory=memory, window=2048)
    clipped = ref_clip_tokens(summary, 256)
    assert clipped in calls(model, "conductor")[0].prompt
    assert (await memory.load()).summary == clipped


# ---------------------------------------------------------------- token clipping


@pytest.mark.parametrize(
    ("value", "budget", "expected"),
    [
        ("hello", 2, "hello"),
        ("a" * 100, 10, "a" * 24 + "…"),
        ("a" * 100, 2, ""),
        ("a" * 100, 3, "…"),
        ("é" * 10, 9, "ééé…"),
        ("😀😀😀", 8, "😀…"),
    ],
)
def test_clip_tokens(value: str, budget: int, expected: str) -> None:
    """The longest prefix whose estimate with '…' fits; '' below the ellipsis's cost.

    (``clip_tokens`` is internal to goliath.budget; the rule is observable through summaries.)
    """
    from goliath.budget import clip_tokens

    assert ref_clip_tokens(value, budget) == expected
    assert clip_tokens(value, budget) == expected


async def test_summary_clipping_by_code_points(box: TaskBox) -> None:
    """Clipping works on code points, never splitting a character."""
    summary = "ü" * 600
    memory = memory_with(summary)
    await run_turn(FakeModel([answer_plan(), text("Ok.")]), tools=box.tools, memory=memory)
    saved = (await memory.load()).summary
    assert saved == "ü" * 254 + "…"


# ---------------------------------------------------------------- content mode


def _content_reader(payloads: dict[str, str], seen: list[ToolContext] | None = None) -> Any:
    def read(arguments: dict[str, Any], ctx: ToolContext) -> str:
        if seen is not None:
            seen.append(ctx)
        return payloads[arguments["query"]]

    return make_tool("read_file", read, parameters=Query, output_mode="content")


async def test_content_result_is_fitted_to_the_default_budget() -> None:
    """A content result is cut to min(800, W/8) tokens with '\\n[excerpt truncated]'."""
    body = "".join(f"line {i}: some literal file text\n" for i in range(400))
    model = FakeModel([use("read_file"), args(query="f"), answer_plan(), text("Ok.")])
    result = await run_turn(model, tools=[_content_reader({"f": body})])
    fitted = result.steps[0].result
    assert fitted == ref_fit_excerpt(body, 512)
    assert fitted.endswith(EXCERPT_MARKER)
    assert ref_estimate(fitted) <= 512
    assert len(fitted) > 600


async def test_content_budget_uses_the_tokenizer_when_given() -> None:
    """Per-result fitting counts with count_tokens when configured."""
    body = "abcdefghij" * 50
    model = FakeModel([use("read_file"), args(query="f"), answer_plan(), text("Ok.")])
    result = await run_turn(
        model,
        tools=[_content_reader({"f": body})],
        budgets=Budgets(tool_result_tokens=100, retrieved_context_tokens=400),
        count_tokens=len,
    )
    assert result.steps[0].result == body[:80] + EXCERPT_MARKER


@pytest.mark.parametrize(("window", "expected"), [(4096, 512), (1024, 128), (16384, 800)])
async def test_default_result_budget_in_tool_context(window: int, expected: int) -> None:
    """Tools get result_budget.max_tokens = max(1, min(800, W/8)) by default."""
    seen: list[ToolContext] = []
    model = FakeModel([use("read_file"), args(query="f"), answer_plan(), text("Ok.")])
    await run_turn(model, tools=[_content_reader({"f": "tiny"}, seen)], window=window)
    assert seen[0].result_budget.max_tokens == expected


async def test_configured_result_budget_in_tool_context() -> None:
    """A configured tool_result_tokens is what tools see."""
    seen: list[ToolContext] = []
    model = FakeModel([use("read_file"), args(query="f"), answer_plan(), text("Ok.")])
    await run_turn(
        model,
        tools=[_content_reader({"f": "tiny"}, seen)],
        budgets=Budgets(tool_result_tokens=77),
    )
    assert seen[0].result_budget.max_tokens == 77


async def test_summary_mode_ignores_content_budgets() -> None:
    """Summary-mode results keep the 600-character cap whatever the budgets."""
    model = FakeModel([use("talk"), answer_plan(), text("Ok.")])
    result = await run_turn(
        model,
        tools=[make_tool("talk", lambda a, c: "w " * 295)],
        budgets=Budgets(tool_result_tokens=5, retrieved_context_tokens=5),
    )
    assert result.steps[0].result == "w " * 295


async def test_older_excerpts_are_omitted_from_prompts_only() -> None:
    """Excerpts beyond retrieved_context_tokens are omitted from prompts, newest kept."""
    payloads = {"a": "A" * 40, "b": "B" * 90, "c": "C" * 90}
    model = FakeModel(
        [
            use("read_file"),
            args(query="a"),
            use("read_file"),
            args(query="b"),
            use("read_file"),
            args(query="c"),
            answer_plan(),
            text("Ok."),
        ]
    )
    result = await run_turn(
        model,
        tools=[_content_reader(payloads)],
        budgets=Budgets(tool_result_tokens=100, retrieved_context_tokens=150),
        count_tokens=len,
    )
    prompt = calls(model, "answer")[0].prompt
    assert f'1. read_file({{"query":"a"}}) [completed] → {"A" * 40}' in prompt
    assert f'2. read_file({{"query":"b"}}) [completed] → {EXCERPT_OMITTED}' in prompt
    assert f'3. read_file({{"query":"c"}}) [completed] → {"C" * 90}' in prompt
    assert "B" * 90 not in prompt
    assert [s.result for s in result.steps[:3]] == ["A" * 40, "B" * 90, "C" * 90]
    assert EXCERPT_OMITTED in calls(model, "conductor")[3].prompt


async def test_default_retrieved_context_budget_is_a_quarter_window() -> None:
    """retrieved_context_tokens defaults to min(2000, W/4) (256 for W = 1024)."""
    payloads = {key: key.upper() + "word " * 68 for key in ("a", "b", "c")}
    assert {ref_estimate(value) for value in payloads.values()} == {99}  # ≤ the 128 result budget
    model = FakeModel(
        [
            use("read_file"),
            args(query="a"),
            use("read_file"),
            args(query="b"),
            use("read_file"),
            args(query="c"),
            answer_plan(),
            text("Ok."),
        ]
    )
    result = await run_turn(
        model, tools=[_content_reader(payloads)], window=1024, fallback=RecordingFallback()
    )
    assert reasons(result) == []
    prompt = calls(model, "answer")[0].prompt
    assert EXCERPT_OMITTED in prompt
    assert payloads["a"] not in prompt
    assert payloads["b"] in prompt and payloads["c"] in prompt


@pytest.mark.parametrize(
    "budgets",
    [
        Budgets(tool_result_tokens=500, retrieved_context_tokens=100),
        Budgets(tool_result_tokens=1500),  # above the default retrieved budget (1024) at W=4096
        Budgets(tool_result_tokens=0),
        Budgets(retrieved_context_tokens=-5),
        Budgets(tool_result_tokens=2.5),  # type: ignore[arg-type]
    ],
)
async def test_invalid_budgets_reject_the_run_before_anything_else(budgets: Budgets) -> None:
    """Invalid budgets (incl. tool_result > retrieved) reject before hooks or model calls."""
    ran: list[str] = []

    class Watch(Extension):
        name = "watch"

        def before_run(self, ctx: Any) -> None:
            ran.append("before_run")

    model = FakeModel([text("Hi.")])
    with pytest.raises(GoliathError):
        await run_turn(model, budgets=budgets, extensions=[Watch()])
    assert model.calls == []
    assert ran == []


async def test_result_budget_too_small_for_the_marker_rejects() -> None:
    """A content budget that cannot hold the truncation marker rejects the run."""
    model = FakeModel([use("read_file"), args(query="f"), answer_plan(), text("Ok.")])
    with pytest.raises(GoliathError):
        await run_turn(
            model,
            tools=[_content_reader({"f": "x" * 500})],
            budgets=Budgets(tool_result_tokens=3, retrieved_context_tokens=3),
        )
