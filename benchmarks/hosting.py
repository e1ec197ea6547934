"""Hosting benchmark: N users on one model through ``goliath serve``, beside the engine alone.

Run: ``python benchmarks/hosting.py --engine embedded|llama-server|openai URL#MODEL``
(``--users 1,2,4,8``, ``--asks`` per user, ``--think`` seconds between a user's asks,
``--seconds`` after which no user starts another ask, ``--out FILE.json``).

Each user is one conversation sending a fixed mix of everyday asks from ``evals/everyday.py``
(reads, writes it approves, chat; all on the ``day`` toolset) over HTTP to a ``goliath serve``
process, with think time between asks. Per user count it reports asks per minute, seconds per
ask (p50/p95/max), model calls and prompt tokens per ask, the prompt tokens the engine served
from its cache, fairness (most/fewest asks a user completed) and the pass rate (graded as
``goliath eval`` grades). Then the physical limit: the model calls that run made, captured in
the daemon, replayed straight against the engine — no daemon, no turn logic, no think time —
so the table shows how close hosting gets to what the engine alone does with the same calls.

Engines:

- ``embedded``: llama.cpp in the daemon's process, one call at a time (``model_slots=1``).
- ``llama-server``: llama.cpp's C++ server with ``--parallel N`` (N = users) and continuous
  batching, the same :class:`~goliath.models.managed.ManagedLlamaServer` that ``goliath serve
  --slots N`` runs (started here rather than by the daemon so the calls can be captured and
  replayed against the same process); built by ``scripts/build-llama-server.sh``.
- ``openai URL#MODEL``: any server already running, e.g. vLLM on a GPU
  (``--guided vllm``), with ``model_slots`` = users.

``--phases`` adds a probe of the engine itself (llama-server): prompt evaluation and generation
throughput at one request at a time and at N at once, which says where batching helps on this
machine. Real-model runs share the CPU with anything else running: wrap them in ``flock`` when
others use the same cores.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import random
import signal
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import httpx
import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from evals.everyday import FACTS, FIXTURES, TOOLSETS
from goliath import Agent
from goliath.evaluation.fixtures import Fixture
from goliath.evaluation.grade import grade
from goliath.memory import InMemory
from goliath.models import GenerateRequest, Generation, TextSink
from goliath.models.slots import CONVERSATION
from goliath.records import ConfirmRequest, Decision, FallbackRequest, RunResult

MIX = (
    "day-overview",  # read: two tools
    "know-capital",  # chat: knowledge, no tools
    "day-rain-then-task",  # read, then a write the user approves
    "day-umbrella",  # read
    "chat-morning",  # chat
    "day-text-lunch-time",  # read, then a write the user approves
)
"""The asks every user cycles through (each user starts at another place in the cycle)."""
TOKEN = "hosting-benchmark-token-0123456789"
ENV_ENGINE = "GOLIATH_HOSTING_ENGINE"
ENV_CAPTURE = "GOLIATH_HOSTING_CAPTURE"
CALL_TIMEOUT = 1800.0
"""Seconds one model call may take: N calls share a busy CPU, so one can take minutes."""


# --------------------------------------------------------------- the daemon's side


class Recorder:
    """The engine's bridge, keeping every call (request, reply, time) as a line of JSON, and
    the engine's running count of prompt tokens served from its cache."""

    def __init__(self, model: Any, path: str) -> None:
        self._model = model
        self._path = path

    def __getattr__(self, name: str) -> Any:  # window, count_tokens, load, statistics ...
        return getattr(self._model, name)

    async def generate(self, request: GenerateRequest) -> Generation:
        return await self._timed(request, None)

    async def generate_stream(self, request: GenerateRequest, on_text: TextSink) -> Generation:
        return await self._timed(request, on_text)

    async def _timed(self, request: GenerateRequest, on_text: TextSink | None) -> Generation:
        started = time.time()
        stream = getattr(self._model, "generate_stream", None)
        if on_text is not None and stream is not None:
            generation: Generation = await stream(request, on_text)
        else:
            generation = await self._model.generate(request)
        line = {
            "conversation": CONVERSATION.get(),
            "label": request.label,
            "system": request.system,
            "prompt": request.prompt,
            "schema": request.schema,
            "max_output_tokens": request.max_output_tokens,
            "text": generation.text,
            "input_tokens": generation.input_tokens,
            "output_tokens": generation.output_tokens,
            "started": started,
            "seconds": round(time.time() - started, 3),
            "cached_total": cached_total(self._model),
        }
        append_line(self._path, line)
        return generation


def append_line(path: str, line: dict[str, Any]) -> None:
    with open(path, "a", encoding="utf-8") as file:
        file.write(json.dumps(line) + "\n")


def cached_total(model: Any) -> int:
    """Prompt tokens the engine has served from its cache so far (0 if it does not say)."""
    stats = getattr(model, "statistics", None)
    if not callable(stats):
        return 0
    value = stats()
    return int(getattr(value, "cached_tokens", getattr(value, "reused_tokens", 0)))


async def _cloud(_request: FallbackRequest) -> str:
    return "(cloud)"  # as goliath eval: the benchmark measures where a turn finishes


def _scored_bridge() -> type:
    from goliath.models.openai import OpenAICompatibleModel

    class ScoredBridge(OpenAICompatibleModel):
        """The bridge to this benchmark's own llama-server, which returns top log-probabilities:
        scored, as ``goliath serve --slots N`` scores it (``ManagedModel``), so the turn's
        checks are on as they are in-process and the engines make the same decisions."""

        scores_options = True

    return ScoredBridge


def make_agent() -> Agent:
    """The agent ``goliath serve benchmarks.hosting:make_agent`` runs: the ``day`` toolset
    and the suite's facts, the engine named by ``$GOLIATH_HOSTING_ENGINE`` (JSON), recorded."""
    from actors.runtime import RuntimeLimits

    spec = json.loads(os.environ[ENV_ENGINE])
    if spec["kind"] == "embedded":
        from goliath.resolve import resolve_model

        model: Any = resolve_model("local")
        slots = 1
    else:
        from goliath.models.openai import OpenAICompatibleModel

        slots = int(spec["slots"])
        bridge = _scored_bridge() if spec["style"] == "llama_json_schema" else OpenAICompatibleModel
        model = bridge(
            spec["url"],
            spec["model"],
            spec.get("key"),
            slots=slots,
            cache_prompt=spec["style"] == "llama_json_schema",
            response_format_style=spec["style"],
            window=4096,
            timeout=CALL_TIMEOUT,
        )
    return Agent(
        Recorder(model, os.environ[ENV_CAPTURE]),
        tools=TOOLSETS["day"](),
        facts=dict(FACTS),
        fallback=_cloud,
        memory=lambda _cid: InMemory(),
        runtime_limits=RuntimeLimits(model_slots=slots),
    )


# --------------------------------------------------------------- the users' side


@attrs.define
class Ask:
    user: int
    fixture: str
    seconds: float
    passed: bool
    model_calls: int = 0
    input_tokens: int = 0
    error: str = ""


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    index = min(len(ordered) - 1, max(0, round(share * (len(ordered) - 1))))
    return ordered[index]


def approve(_request: ConfirmRequest) -> Decision:
    return Decision(approved=True)


async def user(
    index: int, url: str, args: argparse.Namespace, deadline: float, asks: list[Ask]
) -> None:
    from transports.client import Client, RemoteError

    fixtures = {fixture.id: fixture for fixture in FIXTURES}
    rng = random.Random(index)
    await trio.sleep(rng.uniform(0, args.think))
    async with Client.http(url, token=TOKEN, timeout=1800) as client:
        for number in range(args.asks):
            if time.monotonic() > deadline:
                return
            fixture: Fixture = fixtures[MIX[(index + number) % len(MIX)]]
            started = time.monotonic()
            try:
                result: RunResult = await client.run(
                    fixture.ask, conversation_id=f"user-{index}", confirm=approve
                )
            except RemoteError as exc:
                asks.append(
                    Ask(index, fixture.id, time.monotonic() - started, False, error=str(exc))
                )
            else:
                reasons = grade(fixture, result, facts=dict(FACTS))
                asks.append(
                    Ask(
                        index,
                        fixture.id,
                        time.monotonic() - started,
                        not reasons,
                        result.model_calls,
                        result.input_tokens,
                        "; ".join(reasons),
                    )
                )
            await trio.sleep(args.think * rng.uniform(0.5, 1.5))


def captured(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


async def hosted(
    args: argparse.Namespace, users: int, engine: dict[str, Any], capture: Path
) -> dict[str, Any]:
    """One run of ``users`` users against a fresh ``goliath serve``; the calls go to capture."""
    from tests.processes import start_goliath

    env: dict[str, str | None] = {
        ENV_ENGINE: json.dumps(engine),
        ENV_CAPTURE: str(capture),
        "GOLIATH_TOKEN": TOKEN,
    }
    process, url, _ = await start_goliath(
        "benchmarks.hosting:make_agent", "--port", "0", "--grace", "30", env=env, seconds=900
    )
    asks: list[Ask] = []
    try:
        started = time.monotonic()
        deadline = started + args.seconds
        async with trio.open_nursery() as nursery:
            for index in range(users):
                nursery.start_soon(user, index, url, args, deadline, asks)
        wall = time.monotonic() - started
    finally:
        process.send_signal(signal.SIGTERM)
        with trio.move_on_after(60):
            await process.wait()
        if process.returncode is None:
            process.kill()
            await process.wait()
    calls = captured(capture)
    seconds = [ask.seconds for ask in asks]
    done = [sum(1 for ask in asks if ask.user == index) for index in range(users)]
    prompt_tokens = sum(call["input_tokens"] for call in calls)
    cached = max((call["cached_total"] for call in calls), default=0)
    active = sum(ask.seconds for ask in asks)
    return {
        "users": users,
        "asks": len(asks),
        "wall_s": round(wall, 1),
        "asks_per_min": round(len(asks) / wall * 60, 2) if wall else 0.0,
        "p50_s": round(percentile(seconds, 0.5), 1),
        "p95_s": round(percentile(seconds, 0.95), 1),
        "max_s": round(max(seconds, default=0.0), 1),
        "model_calls_per_ask": round(len(calls) / len(asks), 2) if asks else 0.0,
        "prompt_tokens_per_ask": round(prompt_tokens / len(asks)) if asks else 0,
        "output_tokens": sum(call["output_tokens"] for call in calls),
        "cached_prompt_tokens": cached,
        "cached_share": round(cached / prompt_tokens, 3) if prompt_tokens else 0.0,
        "fairness": f"{max(done)}/{min(done)}" if done else "-",
        "passed": sum(ask.passed for ask in asks),
        "pass_rate": round(sum(ask.passed for ask in asks) / len(asks), 3) if asks else 0.0,
        "busy_share": round(active / (wall * users), 3) if wall else 0.0,
        "failures": [f"user {a.user} {a.fixture}: {a.error}" for a in asks if not a.passed],
    }


def requests_of(calls: list[dict[str, Any]]) -> Iterator[tuple[str, GenerateRequest]]:
    for call in sorted(calls, key=lambda item: item["started"]):
        yield (
            str(call["conversation"]),
            GenerateRequest(
                label=call["label"],
                system=call["system"],
                prompt=call["prompt"],
                schema=call["schema"],
                max_output_tokens=call["max_output_tokens"],
            ),
        )


async def replay(calls: list[dict[str, Any]], engine: dict[str, Any], model: Any) -> float:
    """Seconds the engine alone takes for ``calls``: each conversation's calls in order, the
    conversations at once (one at a time for the embedded engine), nothing in between."""
    streams: dict[str, list[GenerateRequest]] = {}
    for conversation, request in requests_of(calls):
        streams.setdefault(conversation, []).append(request)
    started = time.monotonic()
    if engine["kind"] == "embedded":
        for _conversation, request in requests_of(calls):
            await model.generate(request)
        return time.monotonic() - started

    async def stream(conversation: str, requests: list[GenerateRequest]) -> None:
        CONVERSATION.set(conversation)
        for request in requests:
            await model.generate(request)

    async with trio.open_nursery() as nursery:
        for conversation, requests in streams.items():
            nursery.start_soon(stream, conversation, requests)
    return time.monotonic() - started


async def phases(
    url: str, key: str, width: int, prompt_words: int = 400, decode_tokens: int = 64
) -> dict[str, Any]:
    """Prompt evaluation and generation throughput of llama-server at 1 and ``width`` requests
    at once: prompt-bound requests (long distinct prompts, one token out) and decode-bound ones
    (a short prompt, ``decode_tokens`` out)."""
    words = [
        "the",
        "quick",
        "brown",
        "fox",
        "jumps",
        "over",
        "the",
        "lazy",
        "dog",
        "and",
        "runs",
        "far",
        "away",
    ]

    async def one(client: httpx.AsyncClient, number: int, long: bool) -> tuple[int, int]:
        text = f"{number} " + " ".join(
            words[(i + number) % len(words)] for i in range(prompt_words)
        )
        body = {
            "prompt": text if long else f"Count upward from {number}:",
            "n_predict": 1 if long else decode_tokens,
            "ignore_eos": True,
            "cache_prompt": False,
            "temperature": 0,
        }
        response = await client.post(f"{url}/completion", json=body)
        response.raise_for_status()
        timings = response.json()["timings"]
        return int(timings["prompt_n"]), int(timings["predicted_n"])

    result: dict[str, Any] = {}
    async with httpx.AsyncClient(timeout=600, headers={"Authorization": f"Bearer {key}"}) as client:
        serial = 0
        for long in (True, False):
            for concurrency in sorted({1, width}):
                totals = [0, 0]
                started = time.monotonic()

                async def run(number: int, totals: list[int] = totals, long: bool = long) -> None:
                    prompt_n, predicted_n = await one(client, number, long)
                    totals[0] += prompt_n
                    totals[1] += predicted_n

                async with trio.open_nursery() as nursery:
                    for _ in range(concurrency):
                        serial += 1
                        nursery.start_soon(run, serial)
                wall = time.monotonic() - started
                kind = "prompt" if long else "decode"
                tokens = totals[0] if long else totals[1]
                result[f"{kind}_tok_s_at_{concurrency}"] = round(tokens / wall, 1)
    return result


async def main(args: argparse.Namespace) -> int:
    from goliath.models.managed import ManagedLlamaServer
    from goliath.models.openai import OpenAICompatibleModel
    from goliath.models.packaged import DEFAULT_MODEL

    levels = [int(value) for value in args.users.split(",")]
    folder = captures_folder(args.keep)
    rows: list[dict[str, Any]] = []
    kind = args.engine[0]
    for users in levels:
        capture = folder / f"calls-{kind}-{users}.jsonl"
        capture.unlink(missing_ok=True)
        async with trio.open_nursery() as nursery:
            server: ManagedLlamaServer | None = None
            if kind == "embedded":
                engine: dict[str, Any] = {"kind": "embedded"}
            elif kind == "llama-server":
                server, engine = await start_llama_server(nursery, users)
                stop_server = server_scopes[-1]
            else:
                base, _, name = args.engine[1].rpartition("#")
                engine = {
                    "kind": "openai",
                    "url": base,
                    "model": name,
                    "key": os.environ.get("OPENAI_API_KEY"),
                    "slots": users,
                    "style": args.guided,
                }
            print(f"[{kind}] {users} user(s): hosted run ...", file=sys.stderr, flush=True)
            row = await hosted(args, users, engine, capture)
            calls = captured(capture)
            if server is not None:  # the replay gets a fresh server: nothing in its cache
                stop_server.cancel()
                server, engine = await start_llama_server(nursery, users)
            measured = "replay"
            if args.replay == "calls" and engine["kind"] == "embedded":
                model: Any = None  # one call at a time: the engine's time is the calls' sum
            elif engine["kind"] == "embedded":
                from goliath.models.llamacpp import LlamaCppModel

                model = LlamaCppModel(DEFAULT_MODEL)
                await model.load()
            else:
                model = OpenAICompatibleModel(
                    engine["url"],
                    engine["model"],
                    engine["key"],
                    slots=users,
                    cache_prompt=engine["style"] == "llama_json_schema",
                    response_format_style=engine["style"],
                    timeout=CALL_TIMEOUT,
                )
            if model is None:
                seconds = sum(call["seconds"] for call in calls)
                measured = "sum of the captured calls"
            else:
                print(f"[{kind}] {users} user(s): replaying {len(calls)} calls", file=sys.stderr)
                seconds = await replay(calls, engine, model)
            if engine["kind"] == "embedded" and model is not None:
                model.close()
            row["engine_alone"] = measured
            row["engine"] = args.engine[0] if kind != "openai" else args.engine[1]
            row["replay_s"] = round(seconds, 1)
            row["engine_asks_per_min"] = round(row["asks"] / seconds * 60, 2) if seconds else 0.0
            row["hosted_share"] = (
                round(row["asks_per_min"] / row["engine_asks_per_min"], 3)
                if row["engine_asks_per_min"]
                else 0.0
            )
            if args.phases and server is not None:
                print(f"[{kind}] {users} user(s): phase probe ...", file=sys.stderr)
                row["phases"] = await phases(
                    server.url, server.api_key, users, args.phase_words, args.phase_tokens
                )
            rows.append(row)
            print(json.dumps(row), file=sys.stderr, flush=True)
            nursery.cancel_scope.cancel()
    report = {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores, "
        f"{platform.processor() or 'cpu'}",
        "model": DEFAULT_MODEL.name if kind != "openai" else args.engine[1],
        "asks_per_user": args.asks,
        "think_s": args.think,
        "rows": rows,
        "captures": str(folder),
    }
    if args.out:
        write_report(args.out, report)
    print(table(rows))
    return 0


server_scopes: list[trio.CancelScope] = []
"""Each started llama-server's scope: cancelling it stops that server."""


async def start_llama_server(nursery: trio.Nursery, users: int) -> tuple[Any, dict[str, Any]]:
    """A llama-server with one slot per user, and the engine settings that reach it; its cancel
    scope is the last of :data:`server_scopes`."""
    from goliath.models.managed import ManagedLlamaServer
    from goliath.models.packaged import DEFAULT_MODEL

    server = ManagedLlamaServer(DEFAULT_MODEL.path(), slots=users)

    async def serve(*, task_status: trio.TaskStatus[trio.CancelScope]) -> None:
        with trio.CancelScope() as scope:
            async with trio.open_nursery() as inner:
                await inner.start(server.serve)
                task_status.started(scope)

    server_scopes.append(await nursery.start(serve))
    return server, {
        "kind": "openai",
        "url": server.url + "/v1",
        "model": DEFAULT_MODEL.name,
        "key": server.api_key,
        "slots": users,
        "style": "llama_json_schema",
    }


def captures_folder(keep: str | None) -> Path:
    folder = Path(keep or tempfile.mkdtemp(prefix="goliath-hosting-"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def write_report(path: str, report: dict[str, Any]) -> None:
    Path(path).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


def table(rows: list[dict[str, Any]]) -> str:
    head = (
        "| engine | users | asks | asks/min | p50 s | p95 s | max s | calls/ask | prompt tok/ask "
        "| cached | fairness | passed | engine alone asks/min | hosted/engine |"
    )
    lines = [head, "|" + "---|" * 14]
    for row in rows:
        lines.append(
            f"| {row['engine']} | {row['users']} | {row['asks']} | {row['asks_per_min']} "
            f"| {row['p50_s']} | {row['p95_s']} | {row['max_s']} | {row['model_calls_per_ask']} "
            f"| {row['prompt_tokens_per_ask']} | {row['cached_share']:.0%} | {row['fairness']} "
            f"| {row['passed']}/{row['asks']} | {row['engine_asks_per_min']} "
            f"| {row['hosted_share']:.0%} |"
        )
    return "\n".join(lines)


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument(
        "--engine",
        nargs="+",
        default=["embedded"],
        metavar="ENGINE",
        help="embedded | llama-server | openai URL#MODEL",
    )
    parser.add_argument("--users", default="1,2,4,8", help="user counts, comma-separated")
    parser.add_argument("--asks", type=int, default=3, help="asks per user at most")
    parser.add_argument("--think", type=float, default=2.0, help="seconds between a user's asks")
    parser.add_argument(
        "--seconds", type=float, default=600.0, help="no ask starts after this many seconds"
    )
    parser.add_argument(
        "--guided",
        default="json_schema",
        choices=["json_schema", "vllm", "vllm_guided", "llama_json_schema", "json_object_schema"],
        help="how an openai engine is asked for JSON (vllm: structured_outputs)",
    )
    parser.add_argument(
        "--replay",
        choices=["replay", "calls"],
        default="replay",
        help="the embedded engine alone: replay the captured calls, or (calls) take the sum of "
        "their times in the daemon, where they ran one at a time anyway",
    )
    parser.add_argument("--phases", action="store_true", help="probe prompt vs decode batching")
    parser.add_argument("--phase-words", type=int, default=400, help="words per probe prompt")
    parser.add_argument("--phase-tokens", type=int, default=64, help="tokens per probe decode")
    parser.add_argument("--out", help="write the report as JSON here")
    parser.add_argument("--keep", help="keep the captured calls in this folder")
    args = parser.parse_args(argv)
    kind = args.engine[0]
    if kind not in ("embedded", "llama-server", "openai") or (kind == "openai") != (
        len(args.engine) == 2
    ):
        parser.error("--engine is embedded, llama-server, or openai URL#MODEL")
    if kind == "openai" and "#" not in args.engine[1]:
        parser.error("--engine openai needs URL#MODEL, e.g. http://gpu:8000/v1#Qwen/Qwen2.5-1.5B")
    return args


if __name__ == "__main__":
    sys.exit(trio.run(main, parse()))
