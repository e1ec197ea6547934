"""The actor runtime behind Agent: serialization, concurrency, cancellation, supervision."""

from __future__ import annotations

from typing import Any

import pytest
import trio

from actors import RuntimeLimits
from actors.runtime import RequestError
from goliath import Agent, ConfirmRequest, Decision, tool
from goliath.errors import BusyError, ConversationFailedError, TurnCancelled
from goliath.extensions import Extension
from goliath.memory import InMemory
from goliath.models import GenerateRequest
from goliath.testing import FakeModel
from tests.helpers import answer, answer_plan, task_tools, use


def answering_model(text: str = "Done.", delay: float = 0.0) -> FakeModel:
    """A model that answers every ask at once: a synthetic answer plan, then ``text``."""

    def reply(request: GenerateRequest) -> dict[str, Any]:
        if request.label == "conductor":
            return answer_plan()
        return answer(text)

    return FakeModel(reply, delay=delay)


class TestSerialization:
    async def test_runs_of_one_conversation_never_overlap(self, autojump_clock: Any) -> None:
        """A second run of a conversation starts only after the first has finished."""
        log: list[str] = []

        @tool
        async def slow() -> str:
            """Take a while."""
            log.append("start")
            await trio.sleep(5)
            log.append("end")
            return "ok"

        script = [
            use("slow"),
            answer_plan(),
            answer("one"),
            use("slow"),
            answer_plan(),
            answer("two"),
        ]
        agent = Agent(FakeModel(script), tools=[slow])
        async with agent, trio.open_nursery() as nursery:
            nursery.start_soon(agent.run, "first")
            nursery.start_soon(agent.run, "second")
        assert log == ["start", "end", "start", "end"]

    async def test_different_conversations_run_concurrently(self, autojump_clock: Any) -> None:
        """A conversation blocked in a tool does not hold up another conversation."""
        gate = trio.Event()
        finished: list[str] = []

        @tool
        async def wait_for_gate() -> str:
            """Wait until released."""
            await gate.wait()
            return "released"

        def reply(request: GenerateRequest) -> dict[str, Any]:
            if request.label == "conductor":
                if "Ask: blocked" in request.prompt and "wait_for_gate(" not in request.prompt:
                    return use("wait_for_gate")
                return answer_plan()
            return answer("fine")

        agent = Agent(FakeModel(reply), tools=[wait_for_gate], memory=lambda cid: InMemory())

        async def blocked() -> None:
            await agent.run("blocked", conversation_id="a")
            finished.append("a")

        async def free() -> None:
            await agent.run("free", conversation_id="b")
            finished.append("b")
            gate.set()

        async with agent, trio.open_nursery() as nursery:
            nursery.start_soon(blocked)
            await trio.testing.wait_all_tasks_blocked()
            nursery.start_soon(free)
        assert finished == ["b", "a"]

    async def test_a_failed_run_does_not_block_the_next(self) -> None:
        """After a run raises, the conversation serves its next run normally."""
        calls = 0

        def on_event(event: Any) -> None:
            nonlocal calls
            calls += 1
            if calls == 1:
                raise KeyError("observer broke")

        agent = Agent(answering_model(), on_event=on_event)
        async with agent:
            with pytest.raises(KeyError):
                await agent.run("first")
            result = await agent.run("second")
        assert result.text == "Done."


class TestCancellation:
    async def test_cancelling_the_caller_cancels_the_model_call(self, autojump_clock: Any) -> None:
        """The caller's scope reaches a turn waiting on the model; observers see it aborted."""
        entered = trio.Event()
        model_cancelled = trio.Event()
        outcomes: list[str] = []

        async def hang(request: GenerateRequest) -> dict[str, Any]:
            entered.set()
            try:
                await trio.sleep_forever()
            finally:
                model_cancelled.set()
            raise AssertionError("unreachable")

        class Observer(Extension):
            name = "observer"

            def on_finish(self, ctx: Any) -> None:
                outcomes.append(ctx.outcome.status)

        agent = Agent(FakeModel(hang), extensions=[Observer()])
        async with agent:
            with trio.move_on_after(1) as scope:
                await agent.run("hello")
            assert scope.cancelled_caught
            assert model_cancelled.is_set()
            assert outcomes == ["aborted"]
            # the conversation keeps working afterwards
            agent.model._function = lambda request: (
                answer_plan() if request.label == "conductor" else answer("back")
            )
            assert (await agent.run("again")).text == "back"

    async def test_a_cancel_message_stops_a_turn_waiting_for_confirmation(
        self, autojump_clock: Any
    ) -> None:
        """Cancel(turn_id) ends a turn parked in confirm; the write never executes."""
        tasks, tools = task_tools()
        asked = trio.Event()

        async def confirm(request: ConfirmRequest) -> bool:
            asked.set()
            await trio.sleep_forever()
            return True

        script = [use("create_task"), {"json": {"title": "eggs"}}]
        agent = Agent(FakeModel(script), tools=tools, confirm=confirm)
        async with agent, trio.open_nursery() as nursery:
            errors: list[BaseException] = []

            async def run() -> None:
                try:
                    await agent.run("add eggs", turn_id="t-1")
                except TurnCancelled as exc:
                    errors.append(exc)

            nursery.start_soon(run)
            await asked.wait()
            assert agent.runtime.cancel("t-1")
        assert len(errors) == 1
        assert [task["title"] for task in tasks] == ["Buy milk", "Call mom"]

    async def test_cancel_reaches_a_running_async_tool(self, autojump_clock: Any) -> None:
        """A cancelled turn stops inside an async tool, and nothing is remembered."""
        started = trio.Event()
        stopped = trio.Event()

        @tool
        async def long_job() -> str:
            """Run for a long time."""
            started.set()
            try:
                await trio.sleep_forever()
            finally:
                stopped.set()
            return "never"

        memory = InMemory()
        agent = Agent(FakeModel([use("long_job")]), tools=[long_job], memory=memory)
        async with agent:
            with trio.move_on_after(10):
                await agent.run("go")
            assert stopped.is_set()
        assert (await memory.load()).recent == []

    async def test_a_queued_run_cancelled_before_it_starts_never_runs(
        self, autojump_clock: Any
    ) -> None:
        """Cancelling a run still in the mailbox ends it at once without a model call."""
        gate = trio.Event()

        @tool
        async def hold() -> str:
            """Hold the conversation."""
            await gate.wait()
            return "held"

        model = FakeModel([use("hold"), answer_plan(), answer("first done")])
        agent = Agent(model, tools=[hold])
        async with agent, trio.open_nursery() as nursery:
            nursery.start_soon(agent.run, "first")
            await trio.testing.wait_all_tasks_blocked()
            errors: list[BaseException] = []

            async def second() -> None:
                try:
                    await agent.run("second", turn_id="queued")
                except TurnCancelled as exc:
                    errors.append(exc)

            async with trio.open_nursery() as inner:
                inner.start_soon(second)
                await trio.testing.wait_all_tasks_blocked()
                agent.runtime.cancel("queued")
            assert len(errors) == 1
            gate.set()
        assert model.remaining() == 0


class TestSupervision:
    async def test_a_crashing_conversation_leaves_a_hundred_others_unaffected(
        self, autojump_clock: Any
    ) -> None:
        """An actor that keeps crashing is stopped after its restart limit; the rest all answer."""
        attempts = 0

        def memory_for(conversation_id: str | None) -> InMemory:
            nonlocal attempts
            if conversation_id == "bad":
                attempts += 1
                raise OSError("disk on fire")
            return InMemory()

        agent = Agent(answering_model(), memory=memory_for)
        results: dict[str, str] = {}
        async with agent:

            async def good(n: int) -> None:
                results[f"c{n}"] = (await agent.run("hi", conversation_id=f"c{n}")).text

            async with trio.open_nursery() as nursery:
                for n in range(100):
                    nursery.start_soon(good, n)
                with pytest.raises(ConversationFailedError, match="disk on fire"):
                    await agent.run("hi", conversation_id="bad")
            with pytest.raises(ConversationFailedError):
                await agent.run("again", conversation_id="bad")
            stats = agent.runtime.supervisor.statistics()
        assert results == {f"c{n}": "Done." for n in range(100)}
        assert attempts == 3
        assert stats.failed_conversations == 1

    async def test_crashes_and_the_stop_are_logged_on_the_goliath_runtime_logger(
        self, autojump_clock: Any, caplog: pytest.LogCaptureFixture
    ) -> None:
        """Each restart is a warning with the error; the stop after the limit is an error."""

        def memory_for(conversation_id: str | None) -> InMemory:
            raise OSError("disk on fire")

        with caplog.at_level("WARNING", logger="goliath.runtime"):
            async with Agent(answering_model(), memory=memory_for) as agent:
                with pytest.raises(ConversationFailedError):
                    await agent.run("hi", conversation_id="bad")
        records = [record for record in caplog.records if record.name == "goliath.runtime"]
        assert [record.levelname for record in records] == ["WARNING", "WARNING", "ERROR"]
        assert "'bad'" in records[-1].getMessage() and "crashed 3 times" in records[-1].getMessage()
        assert all("disk on fire" in str(record.exc_info[1]) for record in records)  # type: ignore[index]

    async def test_activation_is_single_flight(self) -> None:
        """Two simultaneous first runs of a conversation activate exactly one actor."""
        made: list[str | None] = []

        def memory_for(conversation_id: str | None) -> InMemory:
            made.append(conversation_id)
            return InMemory()

        agent = Agent(answering_model(), memory=memory_for)
        async with agent, trio.open_nursery() as nursery:
            nursery.start_soon(agent.run, "one")
            for _ in range(2):
                nursery.start_soon(lambda: agent.run("x", conversation_id="same"))
        assert made.count("same") == 1
        assert agent._sessions["same"] is not None

    async def test_a_full_run_mailbox_answers_busy_at_once(self, autojump_clock: Any) -> None:
        """With the mailbox full, another run is refused immediately instead of waiting."""
        gate = trio.Event()

        @tool
        async def hold() -> str:
            """Hold the conversation."""
            await gate.wait()
            return "held"

        def reply(request: GenerateRequest) -> dict[str, Any]:
            if request.label == "conductor" and "hold(" not in request.prompt:
                return use("hold")
            return answer_plan() if request.label == "conductor" else answer("ok")

        agent = Agent(FakeModel(reply), tools=[hold], runtime_limits=RuntimeLimits(run_mailbox=1))
        async with agent, trio.open_nursery() as nursery:
            nursery.start_soon(agent.run, "running")
            await trio.testing.wait_all_tasks_blocked()
            nursery.start_soon(agent.run, "queued")
            await trio.testing.wait_all_tasks_blocked()
            before = trio.current_time()
            with pytest.raises(BusyError, match="queued"):
                await agent.run("one too many")
            assert trio.current_time() == before
            gate.set()

    async def test_a_repeated_turn_id_is_answered_from_its_record(self) -> None:
        """At-most-once: the same turn id twice runs the tool once and returns the same result."""
        tasks, tools = task_tools()
        script = [
            use("create_task"),
            {"json": {"title": "eggs"}},
            answer_plan(),
            answer("Added."),
        ]
        agent = Agent(FakeModel(script), tools=tools, auto_approve=True)
        async with agent:
            first = await agent.run("add eggs", turn_id="turn-42")
            second = await agent.run("add eggs", turn_id="turn-42")
        assert first is second
        assert [task["title"] for task in tasks].count("eggs") == 1

    async def test_a_turn_id_belongs_to_one_conversation_for_local_callers_too(self) -> None:
        """The one door checks at-most-once for Agent.run as for transports: reusing a turn id
        in another conversation is a conflict, not the other conversation's answer."""
        agent = Agent(answering_model("Mine."), memory=lambda conversation_id: InMemory())
        async with agent:
            await agent.run("hello", conversation_id="alice", turn_id="t-a")
            with pytest.raises(RequestError, match="belongs to another conversation") as refused:
                await agent.run("hello", conversation_id="mallory", turn_id="t-a")
        assert refused.value.code == "conflict"


class TestPassivation:
    async def test_an_idle_actor_is_passivated_and_reactivated_with_its_memory(
        self, autojump_clock: Any
    ) -> None:
        """After the idle timeout the actor is gone; the next run finds the same memory."""
        agent = Agent(
            answering_model("Noted."),
            memory=lambda cid: InMemory(),
            runtime_limits=RuntimeLimits(idle_timeout=30),
        )
        async with agent:
            await agent.run("remember the milk", conversation_id="c")
            supervisor = agent.runtime.supervisor
            assert supervisor.statistics().active_actors == 1
            await trio.sleep(31)
            assert supervisor.statistics().active_actors == 0
            assert supervisor.passivations == 1
            seen: list[str] = []
            await agent.run(
                "what did I say?",
                conversation_id="c",
                on_event=lambda e: seen.append(getattr(e, "type", "")),
            )
            assert supervisor.activations == 2
        memory = await agent._sessions["c"].memory.load()
        assert [exchange.ask for exchange in memory.recent] == [
            "remember the milk",
            "what did I say?",
        ]


class TestFairness:
    async def test_a_flooding_conversation_cannot_starve_another(self, autojump_clock: Any) -> None:
        """One conversation with many queued turns; another's single turn still finishes fast."""
        agent = Agent(
            answering_model(delay=1.0),
            memory=lambda cid: InMemory(),
            runtime_limits=RuntimeLimits(run_mailbox=64),
        )
        finished_at: dict[str, float] = {}
        async with agent, trio.open_nursery() as nursery:
            start = trio.current_time()

            async def flood(n: int) -> None:
                await agent.run(f"flood {n}", conversation_id="flood")
                finished_at[f"flood {n}"] = trio.current_time() - start

            waits: list[float] = []

            async def quiet() -> None:
                await agent.run(
                    "quiet",
                    conversation_id="quiet",
                    on_event=lambda e: waits.append(e.queue_ms) if e.type == "budget" else None,
                )
                finished_at["quiet"] = trio.current_time() - start

            for n in range(20):
                nursery.start_soon(flood, n)
            await trio.testing.wait_all_tasks_blocked()
            nursery.start_soon(quiet)
        # a turn without tools is one answer call of 1 s (plus a scribe call from the fourth
        # exchange on); the quiet turn waits for at most one flood call, not for the flood
        assert finished_at["quiet"] <= 2.0
        assert max(finished_at.values()) >= 20.0
        assert waits == [1000.0]  # its one call waited behind exactly one flood call, and says so


class TestShutdown:
    async def test_leaving_the_block_lets_a_running_turn_finish_within_the_grace(
        self, autojump_clock: Any
    ) -> None:
        """Shutdown stops intake, waits for the running turn, then closes."""
        agent = Agent(answering_model(delay=2.0), runtime_limits=RuntimeLimits(drain_grace=10))
        results: list[str] = []
        async with agent, trio.open_nursery() as nursery:

            async def run() -> None:
                results.append((await agent.run("hi")).text)

            nursery.start_soon(run)
            await trio.testing.wait_all_tasks_blocked()
        assert results == ["Done."]

    async def test_run_outside_the_runtime_says_how_to_start_it(self) -> None:
        """agent.run() before `async with agent:` raises an error that names the fix."""
        from goliath import GoliathError

        with pytest.raises(GoliathError, match="async with agent"):
            await Agent(answering_model()).run("hi")

    async def test_a_model_factory_is_called_for_every_generation(self) -> None:
        """A zero-argument model factory gives a fresh model per call."""
        made = 0

        def factory() -> FakeModel:
            nonlocal made
            made += 1
            return answering_model()

        async with Agent(factory) as agent:
            await agent.run("hello")
            await agent.run("again")
        assert made == 2  # one answer call per turn, each from a fresh model

    def test_run_sync_keeps_memory_between_calls(self) -> None:
        """In-process memory survives between run_sync calls of the same Agent."""
        agent = Agent(answering_model())
        agent.run_sync("first")
        result = agent.run_sync("second")
        assert result.text == "Done."
        assert len(agent._sessions[""].memory._state.recent) == 2


def _unused(decision: Decision) -> None:  # keep Decision imported for type readers
    pass


class TestStoreBackedPassivation:
    async def test_an_idle_conversation_with_store_memory_leaves_nothing_behind(
        self, autojump_clock: Any, tmp_path: Any
    ) -> None:
        """With a store, passivation drops the session too; the next run reloads the memory."""
        from actors.store_sqlite import SQLiteStore

        agent = Agent(
            answering_model("Noted."),
            store=SQLiteStore(tmp_path / "store.db"),
            runtime_limits=RuntimeLimits(idle_timeout=30),
        )
        async with agent:
            await agent.run("remember the milk", conversation_id="c")
            assert "c" in agent._sessions
            await trio.sleep(31)
            assert "c" not in agent._sessions
            await agent.run("and the eggs", conversation_id="c")
            state = await agent._sessions["c"].memory.load()
        assert [exchange.ask for exchange in state.recent] == ["remember the milk", "and the eggs"]


BIG = "x" * (120 * 1024)
"""A 120 KiB tool output: each finished turn's whole result keeps it (raw_output_bytes)."""


def reading_agent(reads: list[int], **options: Any) -> Agent:
    """Every ask reads the 120 KiB document once, then answers ``read <ask>``."""

    @tool
    def read_big() -> str:
        """Read the big document."""
        reads.append(1)
        return BIG

    def reply(request: GenerateRequest) -> dict[str, Any]:
        ask = request.prompt.rsplit("Ask: ", 1)[-1].split("\n", 1)[0]
        if request.label == "conductor":
            if "read_big(" in request.prompt.rsplit("Ask: ", 1)[-1]:
                return answer_plan()
            return {"json": {"call": "read_big"}}
        if request.label == "scribe":
            return {"text": "Goal: read"}
        return answer(f"read {ask}")

    return Agent(FakeModel(reply), tools=[read_big], **options)


class TestRecordBudget:
    async def test_whole_results_are_kept_within_a_byte_budget_oldest_let_go_first(self) -> None:
        """Past ``turn_record_bytes`` the oldest finished turns keep only their status and a
        bounded final message: memory is bounded by bytes, and a retry of such a turn id is
        still answered from its record (at most once: the tool does not run again)."""
        reads: list[int] = []
        budget = 600 * 1024
        agent = reading_agent(reads, runtime_limits=RuntimeLimits(turn_record_bytes=budget))
        async with agent:
            for number in range(12):
                result = await agent.run(
                    f"q{number}", turn_id=f"t{number}", conversation_id=f"c{number}"
                )
                assert result.text == f"read q{number}"
            stats = agent.runtime.supervisor.statistics()  # type: ignore[union-attr]
            assert 0 < stats.turn_record_bytes <= budget
            assert stats.compact_records >= 7 and stats.turn_records == 12
            old = agent.runtime.supervisor.ticket("t0")  # type: ignore[union-attr]
            assert old is not None and old.compact and old.status == "done"
            again = await agent.run("q0", turn_id="t0", conversation_id="c0")
            assert again.text == "read q0" and len(reads) == 12
            recent = agent.runtime.supervisor.ticket("t11")  # type: ignore[union-attr]
            assert recent is not None and not recent.compact
            assert recent.unwrap().steps[0].output == BIG

    async def test_with_a_store_a_compact_record_is_read_back_whole(self, tmp_path: Any) -> None:
        """With a store, a turn whose whole result left memory is answered whole from the
        store: its retry and its status carry every step, its 120 KiB read included."""
        from actors.messages import GetTurn, TurnStatus
        from actors.store_sqlite import SQLiteStore

        reads: list[int] = []
        agent = reading_agent(
            reads,
            runtime_limits=RuntimeLimits(turn_record_bytes=300 * 1024),
            store=SQLiteStore(tmp_path / "s.db"),
        )
        async with agent:
            for number in range(6):
                await agent.run(f"q{number}", turn_id=f"t{number}", conversation_id=f"c{number}")
            runtime = agent.runtime
            assert runtime is not None
            assert runtime.supervisor.ticket("t0").compact  # type: ignore[union-attr]
            again = await agent.run("q0", turn_id="t0", conversation_id="c0")
            assert again.text == "read q0" and again.steps[0].output == BIG
            assert len(reads) == 6
            replies: list[Any] = []
            await runtime.handle(GetTurn(turn_id="t0"), replies.append)
            [status] = replies
            assert isinstance(status, TurnStatus) and status.result is not None
            assert status.result.steps[0].output == BIG
