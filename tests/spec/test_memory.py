"""Memory: the scribe, saving, adapters and the recent block (BEHAVIOR §6, §5.5; §16.68–76)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from goliath import Agent, Exchange, MemoryState, StepRecord
from goliath.errors import (
    ContextWindowError,
    GuardrailError,
    ModelError,
    ModelUnavailableError,
)
from goliath.memory import InMemory, KeyValueMemory, SQLiteMemory
from goliath.testing import FakeModel

from .helpers import (
    RecordingFallback,
    TaskBox,
    answer_plan,
    calls,
    events,
    exchange,
    fail,
    labels,
    memory_with,
    ref_clip_tokens,
    ref_estimate,
    run_turn,
    text,
    types,
    use,
)

PARTIAL = "[Partial reply; the request was not fully completed] "
HEADING = "Recent conversation (reference only; follow the current ask):"


# ---------------------------------------------------------------- the scribe (§16.68)


async def test_scribe_is_called_on_the_fourth_exchange_only() -> None:
    """§16.68: no scribe call for the first three exchanges; the fourth makes exactly one."""
    memory = InMemory()
    model = FakeModel(
        [text("a0"), text("a1"), text("a2"), text("a3"), text("Goal: chat\nDone: q0")]
    )
    agent = Agent(model, memory=memory)
    async with agent:
        results = [await agent.run(f"q{i}") for i in range(4)]
    assert labels(model) == ["answer"] * 4 + ["scribe"]
    [scribe] = calls(model, "scribe")
    assert scribe.max_output_tokens == 192
    assert scribe.schema is None
    state = await memory.load()
    assert state.summary == "Goal: chat\nDone: q0"
    assert [e.ask for e in state.recent] == ["q1", "q2", "q3"]
    assert events(results[3], "remember")[0].summary == "Goal: chat\nDone: q0"
    assert [events(r, "remember")[0].summary for r in results[:3]] == ["", "", ""]


async def test_scribe_prompt_structure() -> None:
    """§5.5: 'Brief so far: (empty)', 'New exchange:' with User/Assistant lines, 'New brief:' last."""
    memory = memory_with(recent=[exchange(f"q{i}", f"a{i}") for i in range(3)])
    model = FakeModel([text("a3"), text("Goal: x")])
    await run_turn(model, "q3", memory=memory)
    [scribe] = calls(model, "scribe")
    assert scribe.prompt.startswith("Brief so far: (empty)\n\n")
    assert "New exchange:\nUser: q0\nAssistant: a0" in scribe.prompt
    assert scribe.prompt.endswith("New brief:")
    # Sections are joined unfiltered: no actions leaves an empty section (§5.5, §15.4).
    assert scribe.prompt.endswith("Assistant: a0\n\n\n\nNew brief:")
    assert "q3" not in scribe.prompt
    assert scribe.system.split("\n")[0] == "You are a careful assistant that lives on this device."
    for slot in ("Goal:", "Done:", "Decisions:", "Pending:", "Next:"):
        assert slot in scribe.system


async def test_scribe_prompt_with_a_brief_and_actions() -> None:
    """§5.5: an existing brief is shown for pruning and the evicted exchange's tool steps listed."""
    steps = [
        StepRecord(index=0, kind="tool", brief="b", tool="list_tasks", input={}, result="2 tasks"),
        StepRecord(index=1, kind="answer", brief="reply", text="a0"),
    ]
    memory = memory_with(
        "Goal: tidy",
        [exchange("q0", "a0", steps=steps), exchange("q1", "a1"), exchange("q2", "a2")],
    )
    model = FakeModel([text("a3"), text("Goal: tidier")])
    await run_turn(model, "q3", memory=memory)
    prompt = calls(model, "scribe")[0].prompt
    assert prompt.startswith("Brief so far (prune what is stale or superseded):\nGoal: tidy\n\n")
    assert "Actions (recorded outcomes):\n1. list_tasks({}) [completed] → 2 tasks" in prompt
    assert "answered: a0" not in prompt


async def test_blank_scribe_reply_keeps_the_previous_summary() -> None:
    """§6.3: a blank scribe reply keeps the previous summary."""
    memory = memory_with("Goal: keep", [exchange(f"q{i}", f"a{i}") for i in range(3)])
    await run_turn(FakeModel([text("a3"), text("  ")]), "q3", memory=memory)
    assert (await memory.load()).summary == "Goal: keep"


async def test_scribe_reply_is_clipped_to_the_allowance() -> None:
    """§6.3: the new summary is clipped to W/8 tokens."""
    memory = memory_with("", [exchange(f"q{i}", f"a{i}") for i in range(3)])
    long_brief = "Goal: " + "x" * 4000
    await run_turn(FakeModel([text("a3"), text(long_brief)]), "q3", memory=memory)
    assert (await memory.load()).summary == ref_clip_tokens(long_brief, 512)


# ---------------------------------------------------------------- what is saved (§16.69)


async def test_saved_memory_keeps_three_exchanges_with_their_steps(box: TaskBox) -> None:
    """§16.69: saved memory holds at most 3 exchanges, each with its step records."""
    memory = memory_with(recent=[exchange(f"q{i}", f"a{i}") for i in range(3)])
    model = FakeModel([use("list_tasks"), answer_plan(), text("Two tasks."), text("Goal: tasks")])
    await run_turn(model, "what's on?", tools=box.tools, memory=memory)
    state = await memory.load()
    assert [e.ask for e in state.recent] == ["q1", "q2", "what's on?"]
    newest = state.recent[-1]
    assert newest.answer == "Two tasks."
    assert [s.kind for s in newest.steps] == ["tool", "answer"]
    assert newest.steps[0].output == [{"title": "Buy milk"}, {"title": "Call mom"}]
    assert newest.best_effort is False


async def test_exchange_time_is_seconds_since_the_epoch() -> None:
    """§1.8: Exchange.at is a finite timestamp (Python: seconds since the epoch)."""
    memory = InMemory()
    before = time.time()
    await run_turn(FakeModel([text("Hi.")]), "hello", memory=memory)
    [saved] = (await memory.load()).recent
    assert before - 1 <= saved.at <= time.time() + 1


async def test_saved_ask_is_the_rewritten_ask() -> None:
    """§2.5: the exchange stores the ask as possibly rewritten by before_run."""
    from goliath import Extension

    class Rewrite(Extension):
        name = "rewrite"

        def before_run(self, ctx: Any) -> Any:
            return {"ask": ctx.ask.upper()}

    memory = InMemory()
    await run_turn(FakeModel([text("Hi.")]), "hello", memory=memory, extensions=[Rewrite()])
    assert (await memory.load()).recent[0].ask == "HELLO"


async def test_scribe_failure_keeps_the_old_summary() -> None:
    """§16.70: a scribe failure emits memory_error, keeps the old summary, returns the answer."""
    memory = memory_with("Goal: old", [exchange(f"q{i}", f"a{i}") for i in range(3)])
    model = FakeModel([text("a3"), fail(ModelError("scribe crashed"))])
    result = await run_turn(model, "q3", memory=memory)
    assert result.text == "a3"
    [error] = events(result, "memory_error")
    assert "scribe crashed" in error.error
    state = await memory.load()
    assert state.summary == "Goal: old"
    assert [e.ask for e in state.recent] == ["q1", "q2", "q3"]
    assert types(result)[-2:] == ["memory_error", "remember"]


async def test_after_a_failed_fold_further_evictions_are_dropped() -> None:
    """§6.3: after a fold fails, further evicted exchanges are dropped without folding."""
    memory = memory_with("Goal: old", [exchange(f"q{i}", f"a{i}") for i in range(4)])
    model = FakeModel([text("a4"), fail(ModelError("scribe crashed")), text("never")])
    result = await run_turn(model, "q4", memory=memory)
    assert labels(model) == ["answer", "scribe"]
    assert len(events(result, "memory_error")) == 1
    state = await memory.load()
    assert (state.summary, [e.ask for e in state.recent]) == ("Goal: old", ["q2", "q3", "q4"])


async def test_scribe_budget_failure_is_a_memory_error() -> None:
    """§3.4: a budget failure of the scribe is a memory_error, never a rejection."""
    huge = "z" * 20000
    memory = memory_with("", [exchange(huge, "a0"), exchange("q1", "a1"), exchange("q2", "a2")])
    model = FakeModel([text("a3"), text("never")])
    result = await run_turn(model, "q3", memory=memory, window=1024)
    assert result.text == "a3"
    assert labels(model) == ["answer"]
    [error] = events(result, "memory_error")
    assert "scribe requires" in error.error
    assert [e.ask for e in (await memory.load()).recent] == ["q1", "q2", "q3"]


class FlakyMemory:
    def __init__(self, *, load_error: Exception | None = None, save_error: Exception | None = None):
        self.load_error = load_error
        self.save_error = save_error
        self.saved: list[MemoryState] = []

    async def load(self) -> MemoryState:
        if self.load_error is not None:
            raise self.load_error
        return MemoryState()

    async def save(self, state: MemoryState) -> None:
        if self.save_error is not None:
            raise self.save_error
        self.saved.append(state)


async def test_save_failure_is_a_memory_error() -> None:
    """§16.71: a save failure emits memory_error, no remember event, and the run resolves."""
    memory = FlakyMemory(save_error=OSError("disk full"))
    result = await run_turn(FakeModel([text("Hi.")]), memory=memory)
    assert result.text == "Hi."
    [error] = events(result, "memory_error")
    assert error.error == "disk full"
    assert events(result, "remember") == []
    assert types(result)[-1] == "memory_error"


async def test_load_failure_rejects_without_fallback() -> None:
    """§16.72: a load failure rejects the run; the fallback is not called."""

    class StoreDown(Exception):
        pass

    fallback = RecordingFallback()
    model = FakeModel([text("Hi.")])
    with pytest.raises(StoreDown):
        await run_turn(
            model, memory=FlakyMemory(load_error=StoreDown("offline")), fallback=fallback
        )
    assert fallback.requests == []
    assert model.calls == []


async def test_model_error_hand_off_keeps_summary_and_three_exchanges() -> None:
    """§16.73: after a model-error hand-off: previous summary, last three exchanges, no scribe."""
    memory = memory_with("Goal: S", [exchange(f"q{i}", f"a{i}") for i in range(3)])
    model = FakeModel([fail(ModelError("x")), text("never")])
    result = await run_turn(model, "q3", memory=memory, fallback=lambda request: "cloud says hi")
    assert labels(model) == ["answer"]
    state = await memory.load()
    assert state.summary == "Goal: S"
    assert [(e.ask, e.answer) for e in state.recent] == [
        ("q1", "a1"),
        ("q2", "a2"),
        ("q3", "cloud says hi"),
    ]
    assert result.handled_by == "cloud"


async def test_best_effort_answer_is_saved_and_shown_as_partial(box: TaskBox) -> None:
    """§16.74: a non-empty best-effort answer is saved with best_effort and shown as partial."""
    memory = InMemory()
    model = FakeModel([use("list_tasks"), text("I found two tasks."), answer_plan(), text("Ok.")])
    agent = Agent(model, tools=box.tools, memory=memory, max_steps=1)
    async with agent:
        first = await agent.run("list and sort")
        await agent.run("and now?")
    assert first.best_effort is True
    [saved, _] = (await memory.load()).recent
    assert (saved.answer, saved.best_effort) == ("I found two tasks.", True)
    later = calls(model, "conductor")[1].prompt
    assert f"Assistant: {PARTIAL}I found two tasks." in later


async def test_best_effort_exchange_is_marked_partial_for_the_scribe() -> None:
    """§5.5: the scribe sees a best-effort answer prefixed with the partial-reply marker."""
    memory = memory_with(
        recent=[
            exchange("q0", "half done", best_effort=True),
            exchange("q1", "a1"),
            exchange("q2", "a2"),
        ]
    )
    model = FakeModel([text("a3"), text("Goal: y")])
    await run_turn(model, "q3", memory=memory)
    assert f"Assistant: {PARTIAL}half done" in calls(model, "scribe")[0].prompt


@pytest.mark.parametrize(
    "error",
    [
        ModelError("x"),
        ModelUnavailableError("gone"),
        ContextWindowError("overflow"),
        GuardrailError("unsafe"),
    ],
)
async def test_nothing_is_saved_for_device_failures_without_fallback(error: Exception) -> None:
    """§6.2: guardrail stops and empty device-failure results (no fallback) are not persisted."""
    memory = memory_with("Goal: keep")
    await run_turn(FakeModel([fail(error)]), memory=memory)
    state = await memory.load()
    assert (state.summary, state.recent) == ("Goal: keep", [])


# ---------------------------------------------------------------- adapters (§16.75)


class DictStore:
    def __init__(self, initial: dict[str, str] | None = None) -> None:
        self.data = dict(initial or {})

    async def get(self, key: str) -> str | None:
        return self.data.get(key)

    async def set(self, key: str, value: str) -> None:
        self.data[key] = value


class SyncStore(DictStore):
    def get(self, key: str) -> str | None:  # type: ignore[override]
        return self.data.get(key)

    def set(self, key: str, value: str) -> None:  # type: ignore[override]
        self.data[key] = value


@pytest.mark.parametrize(
    "stored",
    [
        "{not json",
        "",
        "[]",
        '{"summary": 5, "recent": []}',
        '{"summary": "s", "recent": [{"ask": "q"}]}',
        '{"summary": "s", "recent": [{"ask": "q", "answer": "a", "at": "yesterday"}]}',
        '{"summary": "s", "recent": [{"ask": "q", "answer": "a", "at": 1, "steps": [{"index": -1, "kind": "tool", "brief": "b"}]}]}',
        '{"summary": "s", "recent": [{"ask": "q", "answer": "a", "at": 1, "steps": [{"index": 0, "kind": "dance", "brief": "b"}]}]}',
    ],
)
async def test_key_value_memory_reads_corrupt_data_as_empty(stored: str) -> None:
    """§16.75: corrupt or malformed JSON reads as empty memory."""
    memory = KeyValueMemory(DictStore({"goliath.memory": stored}))
    state = await memory.load()
    assert (state.summary, state.recent) == ("", [])


async def test_key_value_memory_default_key_and_round_trip() -> None:
    """§16.75: the default key is 'goliath.memory'; saved state loads back."""
    store = DictStore()
    memory = KeyValueMemory(store)
    await run_turn(FakeModel([text("Hi.")]), "hello", memory=memory)
    assert list(store.data) == ["goliath.memory"]
    state = await KeyValueMemory(store).load()
    assert [(e.ask, e.answer) for e in state.recent] == [("hello", "Hi.")]


async def test_key_value_memory_accepts_sync_stores_and_custom_keys() -> None:
    """§6.5: the store may be sync; a custom key is used as given."""
    store = SyncStore()
    memory = KeyValueMemory(store, key="user:7")
    await memory.save(MemoryState(summary="s", recent=[Exchange(ask="q", answer="a", at=1.0)]))
    assert list(store.data) == ["user:7"]
    assert (await memory.load()).summary == "s"


async def test_missing_key_reads_as_empty() -> None:
    """§6.5: a missing key reads as empty memory."""
    state = await KeyValueMemory(DictStore()).load()
    assert (state.summary, state.recent) == ("", [])


async def test_sqlite_memory_is_durable_across_agents(tmp_path: Path) -> None:
    """API.md §2: SQLiteMemory persists to a real file that a new agent reads back."""
    path = tmp_path / "memory.db"
    await run_turn(FakeModel([text("Noted.")]), "remember milk", memory=SQLiteMemory(path, "u1"))
    model = FakeModel([text("Milk.")])
    result = await run_turn(model, "what did I say?", memory=SQLiteMemory(path, "u1"))
    assert events(result, "recall")[0].recent == 1
    assert "User: remember milk\nAssistant: Noted." in model.calls[0].prompt
    other = await SQLiteMemory(path, "u2").load()
    assert other.recent == []


async def test_default_memory_is_isolated_per_conversation() -> None:
    """§6.5: the default in-process memory is one per conversation."""
    model = FakeModel([text("A."), text("B.")])
    agent = Agent(model)
    async with agent:
        await agent.run("alpha", conversation_id="a")
        result = await agent.run("beta", conversation_id="b")
    assert events(result, "recall")[0].recent == 0
    assert "alpha" not in model.calls[1].prompt


async def test_recall_event_reports_summary_and_count() -> None:
    """§10: the recall event carries the summary and the number of recent exchanges."""
    memory = memory_with("Goal: x", [exchange("q0", "a0"), exchange("q1", "a1")])
    result = await run_turn(FakeModel([text("Hi.")]), memory=memory)
    [recall] = events(result, "recall")
    assert (recall.summary, recall.recent) == ("Goal: x", 2)


# ---------------------------------------------------------------- recent block (§6.4, §16.76)


async def test_recent_block_heading_and_order() -> None:
    """§16.76/§6.4: the block is headed as specified; exchanges run oldest to newest.

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
    """§16.76: the recent block shows recorded results, never raw tool outputs."""
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


async def test_recent_block_appears_in_conductor_worker_and_answer_prompts(box: TaskBox) -> None:
    """§6.4: the recent block is built for conductor, worker and answer prompts."""
    memory = memory_with(recent=[exchange("earlier ask", "earlier answer")])
    model = FakeModel([use("search"), {"json": {"query": "milk"}}, answer_plan(), text("Ok.")])
    await run_turn(model, tools=box.tools, memory=memory)
    for call in model.calls:
        assert "User: earlier ask\nAssistant: earlier answer" in call.prompt


async def test_selection_stops_at_the_first_exchange_that_does_not_fit() -> None:
    """§6.4: the first exchange that does not fit stops the selection, even if older ones fit."""
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
    """§6.4: a newest exchange too big alone is included clipped, each part sharing the budget."""
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
    """§6.4: with actions the clipped parts each get floor((remaining − 16) / 3) tokens."""
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


async def test_remembered_memory_is_trimmed_after_before_remember() -> None:
    """§2.5: after before_remember the summary is clipped to W/8 and only 3 exchanges are kept."""
    from goliath import Extension

    long_summary = "Goal: " + "y" * 5000

    class Bloat(Extension):
        name = "bloat"

        def before_remember(self, ctx: Any) -> Any:
            recent = [exchange(f"x{i}", f"y{i}") for i in range(6)]
            return {"memory": MemoryState(summary=long_summary, recent=recent)}

    memory = InMemory()
    await run_turn(FakeModel([text("Hi.")]), memory=memory, extensions=[Bloat()])
    state = await memory.load()
    assert [e.ask for e in state.recent] == ["x3", "x4", "x5"]
    assert state.summary == ref_clip_tokens(long_summary, 512)


async def test_scribe_budget_failure_with_extensions_is_still_a_memory_error() -> None:
    """§3.4: a scribe budget failure is a memory_error even with extensions (never a rejection)."""
    from goliath import Extension

    class Noop(Extension):
        name = "noop"

    memory = memory_with(
        "", [exchange("z" * 20000, "a0"), exchange("q1", "a1"), exchange("q2", "a2")]
    )
    result = await run_turn(
        FakeModel([text("a3")]), "q3", memory=memory, window=1024, extensions=[Noop()]
    )
    assert result.text == "a3"
    assert len(events(result, "memory_error")) == 1


async def test_step_log_placeholders_in_the_recent_block() -> None:
    """§5.1: absent results show 'skipped by the user' (skipped) or 'no result'; no input is '()'."""
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
    """§6.4: an exchange is kept whole only if its estimate + 2 fits the remaining budget."""
    remaining = 1024 // 8 - ref_estimate(HEADING)
    newest = _exchange_costing(remaining - slack)
    memory = memory_with(recent=[newest])
    model = FakeModel([text("Hi.")])
    await run_turn(model, "next", memory=memory, window=1024)
    whole = f"{HEADING}\nUser: {newest.ask}\nAssistant: ok"
    assert (whole in model.calls[0].prompt) is kept_whole
    if not kept_whole:
        assert "Recent conversation" in model.calls[0].prompt
