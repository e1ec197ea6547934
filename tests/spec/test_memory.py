"""Memory: the scribe, saving and adapters."""

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
    run_turn,
    text,
    types,
    use,
)

PARTIAL = "[Partial reply; the request was not fully completed] "


# ---------------------------------------------------------------- the scribe


async def test_scribe_is_called_on_the_fourth_exchange_only() -> None:
    """No scribe call for the first three exchanges; the fourth makes exactly one."""
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
    """'Brief so far: (empty)', 'New exchange:' with User/Assistant lines, 'New brief:' last."""
    memory = memory_with(recent=[exchange(f"q{i}", f"a{i}") for i in range(3)])
    model = FakeModel([text("a3"), text("Goal: x")])
    await run_turn(model, "q3", memory=memory)
    [scribe] = calls(model, "scribe")
    assert scribe.prompt.startswith("Brief so far: (empty)\n\n")
    assert "New exchange:\nUser: q0\nAssistant: a0" in scribe.prompt
    assert scribe.prompt.endswith("New brief:")
    # Sections are joined unfiltered: no actions leaves an empty section.
    assert scribe.prompt.endswith("Assistant: a0\n\n\n\nNew brief:")
    assert "q3" not in scribe.prompt
    assert scribe.system.split("\n")[0] == "You are a careful assistant that lives on this device."
    for slot in ("Goal:", "Done:", "Decisions:", "Pending:", "Next:"):
        assert slot in scribe.system


async def test_scribe_prompt_with_a_brief_and_actions() -> None:
    """An existing brief is shown for pruning and the evicted exchange's tool steps listed."""
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
    """A blank scribe reply keeps the previous summary."""
    memory = memory_with("Goal: keep", [exchange(f"q{i}", f"a{i}") for i in range(3)])
    await run_turn(FakeModel([text("a3"), text("  ")]), "q3", memory=memory)
    assert (await memory.load()).summary == "Goal: keep"


async def test_scribe_reply_is_clipped_to_the_allowance() -> None:
    """The new summary is clipped to W/8 tokens."""
    memory = memory_with("", [exchange(f"q{i}", f"a{i}") for i in range(3)])
    long_brief = "Goal: " + "x" * 4000
    await run_turn(FakeModel([text("a3"), text(long_brief)]), "q3", memory=memory)
    assert (await memory.load()).summary == ref_clip_tokens(long_brief, 512)


# ---------------------------------------------------------------- what is saved


async def test_saved_memory_keeps_three_exchanges_with_their_steps(box: TaskBox) -> None:
    """Saved memory holds at most 3 exchanges, each with its step records."""
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
    """Exchange.at is a finite timestamp (Python: seconds since the epoch)."""
    memory = InMemory()
    before = time.time()
    await run_turn(FakeModel([text("Hi.")]), "hello", memory=memory)
    [saved] = (await memory.load()).recent
    assert before - 1 <= saved.at <= time.time() + 1


async def test_saved_ask_is_the_rewritten_ask() -> None:
    """The exchange stores the ask as possibly rewritten by before_run."""
    from goliath import Extension

    class Rewrite(Extension):
        name = "rewrite"

        def before_run(self, ctx: Any) -> Any:
            return {"ask": ctx.ask.upper()}

    memory = InMemory()
    await run_turn(FakeModel([text("Hi.")]), "hello", memory=memory, extensions=[Rewrite()])
    assert (await memory.load()).recent[0].ask == "HELLO"


async def test_scribe_failure_keeps_the_old_summary() -> None:
    """A scribe failure emits memory_error, keeps the old summary, returns the answer."""
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
    """After a fold fails, further evicted exchanges are dropped without folding."""
    memory = memory_with("Goal: old", [exchange(f"q{i}", f"a{i}") for i in range(4)])
    model = FakeModel([text("a4"), fail(ModelError("scribe crashed")), text("never")])
    result = await run_turn(model, "q4", memory=memory)
    assert labels(model) == ["answer", "scribe"]
    assert len(events(result, "memory_error")) == 1
    state = await memory.load()
    assert (state.summary, [e.ask for e in state.recent]) == ("Goal: old", ["q2", "q3", "q4"])


async def test_scribe_budget_failure_is_a_memory_error() -> None:
    """A budget failure of the scribe is a memory_error, never a rejection."""
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
    """A save failure emits memory_error, no remember event, and the run resolves."""
    memory = FlakyMemory(save_error=OSError("disk full"))
    result = await run_turn(FakeModel([text("Hi.")]), memory=memory)
    assert result.text == "Hi."
    [error] = events(result, "memory_error")
    assert error.error == "disk full"
    assert events(result, "remember") == []
    assert types(result)[-1] == "memory_error"


async def test_load_failure_rejects_without_fallback() -> None:
    """A load failure rejects the run; the fallback is not called."""

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
    """After a model-error hand-off: previous summary, last three exchanges, no scribe."""
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
    """A non-empty best-effort answer is saved with best_effort and shown as partial."""
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
    """The scribe sees a best-effort answer prefixed with the partial-reply marker."""
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
    """Guardrail stops and empty device-failure results (no fallback) are not persisted."""
    memory = memory_with("Goal: keep")
    await run_turn(FakeModel([fail(error)]), memory=memory)
    state = await memory.load()
    assert (state.summary, state.recent) == ("Goal: keep", [])


# ---------------------------------------------------------------- adapters


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
    """Corrupt or malformed JSON reads as empty memory."""
    memory = KeyValueMemory(DictStore({"goliath.memory": stored}))
    state = await memory.load()
    assert (state.summary, state.recent) == ("", [])


async def test_key_value_memory_default_key_and_round_trip() -> None:
    """The default key is 'goliath.memory'; saved state loads back."""
    store = DictStore()
    memory = KeyValueMemory(store)
    await run_turn(FakeModel([text("Hi.")]), "hello", memory=memory)
    assert list(store.data) == ["goliath.memory"]
    state = await KeyValueMemory(store).load()
    assert [(e.ask, e.answer) for e in state.recent] == [("hello", "Hi.")]


async def test_key_value_memory_accepts_sync_stores_and_custom_keys() -> None:
    """The store may be sync; a custom key is used as given."""
    store = SyncStore()
    memory = KeyValueMemory(store, key="user:7")
    await memory.save(MemoryState(summary="s", recent=[Exchange(ask="q", answer="a", at=1.0)]))
    assert list(store.data) == ["user:7"]
    assert (await memory.load()).summary == "s"


async def test_missing_key_reads_as_empty() -> None:
    """A missing key reads as empty memory."""
    state = await KeyValueMemory(DictStore()).load()
    assert (state.summary, state.recent) == ("", [])


async def test_sqlite_memory_is_durable_across_agents(tmp_path: Path) -> None:
    """SQLiteMemory persists to a real file that a new agent reads back."""
    path = tmp_path / "memory.db"
    await run_turn(FakeModel([text("Noted.")]), "remember milk", memory=SQLiteMemory(path, "u1"))
    model = FakeModel([text("Milk.")])
    result = await run_turn(model, "what did I say?", memory=SQLiteMemory(path, "u1"))
    assert events(result, "recall")[0].recent == 1
    assert "User: remember milk\nAssistant: Noted." in model.calls[0].prompt
    other = await SQLiteMemory(path, "u2").load()
    assert other.recent == []


async def test_default_memory_is_isolated_per_conversation() -> None:
    """The default in-process memory is one per conversation."""
    model = FakeModel([text("A."), text("B.")])
    agent = Agent(model)
    async with agent:
        await agent.run("alpha", conversation_id="a")
        result = await agent.run("beta", conversation_id="b")
    assert events(result, "recall")[0].recent == 0
    assert "alpha" not in model.calls[1].prompt


async def test_recall_event_reports_summary_and_count() -> None:
    """The recall event carries the summary and the number of recent exchanges."""
    memory = memory_with("Goal: x", [exchange("q0", "a0"), exchange("q1", "a1")])
    result = await run_turn(FakeModel([text("Hi.")]), memory=memory)
    [recall] = events(result, "recall")
    assert (recall.summary, recall.recent) == ("Goal: x", 2)


async def test_remembered_memory_is_trimmed_after_before_remember() -> None:
    """After before_remember the summary is clipped to W/8 and only 3 exchanges are kept."""
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
    """A scribe budget failure is a memory_error even with extensions (never a rejection)."""
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


async def test_memory_outlives_idle_conversations(autojump_clock: Any) -> None:
    """Default memory lives as long as the agent; the factory is called once per id."""
    import trio

    made: list[str | None] = []

    def factory(conversation_id: str | None) -> InMemory:
        made.append(conversation_id)
        return InMemory()

    model = FakeModel([text("One."), text("Two.")])
    agent = Agent(model, memory=factory)
    async with agent:
        await agent.run("one", conversation_id="alice")
        await trio.sleep(24 * 3600)  # far beyond any idle timeout of the conversation actor
        second = await agent.run("two", conversation_id="alice")
    assert made == ["alice"]
    assert events(second, "recall")[0].recent == 1


async def test_default_memory_outlives_idle_conversations(autojump_clock: Any) -> None:
    """The default in-process memory survives while the agent lives."""
    import trio

    agent = Agent(FakeModel([text("One."), text("Two.")]))
    async with agent:
        await agent.run("one")
        await trio.sleep(24 * 3600)
        second = await agent.run("two")
    assert events(second, "recall")[0].recent == 1
