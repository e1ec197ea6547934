"""Runtime benchmark: harness overhead per turn, throughput, cancel latency, idle memory.

Run: ``python benchmarks/runtime.py`` (``--conversations N`` to change the idle-memory count).
Everything is measured in one run, beside a plain-function baseline doing the same model calls
and tool call without the harness, so the ratios hold on a noisy shared machine.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

import trio
import trio.testing

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from actors import RuntimeLimits
from goliath import Agent, tool
from goliath.memory import InMemory
from goliath.models import GenerateRequest, Generation

PLAN_TOOL = '{"call":"list_tasks"}'
PLAN_ANSWER = '{"call":"answer_the_user"}'


class InstantModel:
    """A zero-latency model: plan the tool, then answer, then reply."""

    async def generate(self, request: GenerateRequest) -> Generation:
        if request.label == "conductor":
            text = PLAN_ANSWER if "list_tasks(" in request.prompt else PLAN_TOOL
        else:
            text = "You have milk to buy."
        return Generation(text=text, input_tokens=1, output_tokens=1)


class HangingModel:
    async def generate(self, request: GenerateRequest) -> Generation:
        await trio.sleep_forever()
        raise AssertionError


@tool
def list_tasks() -> list[dict[str, str]]:
    """List the tasks."""
    return [{"title": "Buy milk"}]


@tool
async def list_tasks_async() -> list[dict[str, str]]:
    """List the tasks."""
    return [{"title": "Buy milk"}]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


async def baseline_turn(model: InstantModel) -> None:
    """What a turn must do anyway: three model calls and the tool, with no harness at all."""
    await model.generate(GenerateRequest(label="conductor", system="", prompt="Ask"))
    await list_tasks_async.run({}, None)  # type: ignore[arg-type]
    await model.generate(GenerateRequest(label="conductor", system="", prompt="list_tasks("))
    await model.generate(GenerateRequest(label="answer", system="", prompt=""))


async def measure_turns(turns: int) -> dict[str, float]:
    model = InstantModel()
    agent = Agent(model, tools=[list_tasks_async], memory=lambda cid: InMemory())
    harness: list[float] = []
    baseline: list[float] = []
    async with agent:
        for _ in range(50):  # warm up
            await agent.run("what's on my list?", conversation_id="warm")
        for n in range(turns):
            started = time.perf_counter()
            await baseline_turn(model)
            baseline.append(time.perf_counter() - started)
            started = time.perf_counter()
            await agent.run("what's on my list?", conversation_id=f"c{n % 100}")
            harness.append(time.perf_counter() - started)
        concurrent_started = time.perf_counter()
        async with trio.open_nursery() as nursery:
            for n in range(turns):
                nursery.start_soon(
                    lambda n=n: agent.run("what's on my list?", conversation_id=f"p{n % 500}")
                )
        concurrent_seconds = time.perf_counter() - concurrent_started
    return {
        "turn_p50_ms": percentile(harness, 0.5) * 1000,
        "turn_p99_ms": percentile(harness, 0.99) * 1000,
        "baseline_p50_ms": percentile(baseline, 0.5) * 1000,
        "baseline_p99_ms": percentile(baseline, 0.99) * 1000,
        "overhead_p50_ms": (percentile(harness, 0.5) - percentile(baseline, 0.5)) * 1000,
        "sequential_runs_per_s": turns / sum(harness),
        "concurrent_runs_per_s": turns / concurrent_seconds,
    }


async def measure_cancel(samples: int) -> dict[str, float]:
    agent = Agent(HangingModel(), memory=lambda cid: InMemory())
    latencies: list[float] = []
    async with agent:
        for n in range(samples):
            async with trio.open_nursery() as nursery:
                done = trio.Event()

                async def run(n: int = n, done: trio.Event = done) -> None:
                    try:
                        await agent.run("hang", conversation_id=f"c{n}", turn_id=f"t{n}")
                    except Exception:
                        pass
                    done.set()

                nursery.start_soon(run)
                await trio.testing.wait_all_tasks_blocked()
                started = time.perf_counter()
                agent.runtime.cancel(f"t{n}")
                await done.wait()
                latencies.append(time.perf_counter() - started)
    return {
        "cancel_p50_ms": percentile(latencies, 0.5) * 1000,
        "cancel_p99_ms": percentile(latencies, 0.99) * 1000,
    }


async def measure_idle_memory(conversations: int) -> dict[str, float]:
    agent = Agent(
        InstantModel(),
        tools=[list_tasks_async],
        memory=lambda cid: InMemory(),
        runtime_limits=RuntimeLimits(idle_timeout=3600),
    )
    async with agent:
        await agent.run("warm up", conversation_id="warm")
        gc.collect()
        tracemalloc.start()
        before = tracemalloc.take_snapshot()
        for n in range(conversations):
            await agent.run("what's on my list?", conversation_id=f"idle-{n}")
        await trio.testing.wait_all_tasks_blocked()
        gc.collect()
        after = tracemalloc.take_snapshot()
        tracemalloc.stop()
        stats = agent.runtime.supervisor.statistics()
        total = sum(stat.size_diff for stat in after.compare_to(before, "filename"))
        memory_bytes = 0
        for session in list(agent._sessions.values())[-conversations:]:
            state = session.memory._state
            memory_bytes += len(_json(state))
    assert stats.active_actors >= conversations
    return {
        "idle_conversations": float(conversations),
        "bytes_per_idle_conversation": total / conversations,
        "of_which_remembered_data_bytes": memory_bytes / conversations,
    }


def _json(value: Any) -> bytes:
    import msgspec

    return msgspec.json.encode(value)


async def main(args: argparse.Namespace) -> None:
    results: dict[str, float] = {}
    results.update(await measure_turns(args.turns))
    results.update(await measure_cancel(args.cancels))
    results.update(await measure_idle_memory(args.conversations))
    width = max(len(key) for key in results)
    for key, value in results.items():
        print(f"{key:<{width}}  {value:,.3f}")
    print(
        f"python {sys.version.split()[0]}, trio {trio.__version__}; median of samples",
        file=sys.stderr,
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=2000)
    parser.add_argument("--cancels", type=int, default=200)
    parser.add_argument("--conversations", type=int, default=10_000)
    trio.run(main, parser.parse_args())
